package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/render"
	"github.com/ocmem/ocmem/internal/settings"
)

func init() {
	register(command{
		name:    "trust",
		usage:   "[--digest D] [DIR] | --show [DIR] | --list [--json]",
		summary: "Accept a project's hard rules as they read now (ROOT.md's and kind: rule memories'), listing what changes; --show lists what is accepted and what is not; --digest: only if they still read as --show listed them.",
		run:     runTrust,
	})
	register(command{
		name:    "untrust",
		usage:   "[DIR]",
		summary: "Forget a project's trust and every rule accepted in it: its hard rules are only the repository's proposals again.",
		run:     runUntrust,
	})
}

// trustList is the user's trust list. Without a home directory there is
// none, and no project is trusted.
func trustList() engine.TrustList {
	p, err := engine.TrustListPath()
	if err != nil {
		return engine.TrustList{}
	}
	return engine.TrustList{Path: p}
}

// openCodeConfigDir is OpenCode's global config dir, or "" when there is
// no home directory.
func openCodeConfigDir() string {
	d, err := engine.OpenCodeConfigDir()
	if err != nil {
		return ""
	}
	return d
}

// projectTrust is the user's record of accepted rules for the project
// whose memory root is memDir.
func projectTrust(memDir string) engine.RuleTrust {
	return trustList().For(memDir)
}

// trustPlace resolves the project a trust command is about through the
// place every command resolves (settings.Place): DIR's project when a
// directory is named, as OpenCode's reported worktree is (the main
// checkout's .memory, or outside git the folder's own), else the
// command's. It returns the place and the trust key.
func (c *cli) trustPlace(pos []string) (p settings.Place, key string, err error) {
	if p, err = c.place(); err != nil {
		return p, "", err
	}
	if len(pos) == 1 {
		// The directory named, not only the repository around it: a
		// typo ("trust untrust", a missing folder) must not trust the
		// repository the command happens to run in.
		if info, err := os.Stat(pos[0]); err != nil || !info.IsDir() {
			return p, "", fmt.Errorf("%s is not a directory", pos[0])
		}
		p.ProjectDir, p.Dir, p.Reported = "", pos[0], true
	}
	_, memDir, err := p.Roots()
	if err != nil {
		return p, "", err
	}
	switch {
	case memDir == "" && len(pos) == 1:
		return p, "", fmt.Errorf("%s belongs to no project (the home folder is never one)", pos[0])
	case memDir == "":
		return p, "", fmt.Errorf("no project here (not inside a git checkout, and no --project or OCMEM_PROJECT); name its directory")
	case len(pos) == 1:
		// A worktree whose main checkout is gone names no project.
		if info, err := os.Stat(filepath.Dir(memDir)); err != nil || !info.IsDir() {
			return p, "", fmt.Errorf("%s is not a directory", pos[0])
		}
	}
	return p, engine.ProjectKey(memDir), nil
}

func runTrust(ctx context.Context, c *cli, args []string) error {
	c.rootFlags(true)
	var list, show bool
	var shown string
	c.fs.BoolVar(&list, "list", false, "list the trusted projects")
	c.fs.BoolVar(&show, "show", false, "show the project's accepted rules and how each reads now; changes nothing")
	c.fs.StringVar(&shown, "digest", "", "trust only if the rules still read as `ocmem trust --show` listed them (the fingerprint it gives)")
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if shown != "" && (list || show) {
		return usagef("--digest trusts; it goes without --list and --show")
	}
	if shown != "" && !isDigest(shown) {
		return usagef("--digest: want the 64 hexadecimal digits `ocmem trust --show` gives")
	}
	tl := trustList()
	if list {
		if len(pos) > 0 || show {
			return usagef("--list takes no arguments")
		}
		return c.listTrusted(tl)
	}
	if len(pos) > 1 {
		return usagef("want at most one directory")
	}
	opts, err := c.decodeOptions()
	if err != nil {
		return err
	}
	place, key, err := c.trustPlace(pos)
	if err != nil {
		return err
	}
	cfg, err := place.Engine(opts)
	if err != nil {
		return err
	}
	cfg.TuneGC = true
	e := engine.New(cfg)
	c.eng = e
	if show {
		return c.showTrust(tl, key, e)
	}
	res, err := e.Trust(shown)
	if err != nil {
		return err
	}
	if c.json {
		shown := res.Rules.Shown()
		return c.printJSON(map[string]any{"root": key, "trusted": true, "added": res.Added, "list": tl.Path,
			"accepted": nonNil(engine.ShownRules(res.Accepted)), "withdrawn": shown.LineByLine, "rules": shown.Rules})
	}
	if res.Added {
		c.show("trusted %s\n", key)
	} else {
		c.show("%s was trusted already\n", key)
	}
	// Say what changes, then what is in force: the point of trusting is
	// having looked.
	if len(res.Accepted) > 0 {
		c.show("Accepted now (not in force before):\n")
		for _, r := range res.Accepted {
			c.printf("%s", render.RuleChange(r))
		}
	} else if !res.Added {
		c.show("No rule is new or changed since you last accepted them.\n")
	}
	c.printf("%s", render.LineByLine(res.Withdrawn, "withdrawn, replaced by the section as a whole"))
	c.printf("%s", render.Unfit(res.Rules))
	c.printf("%s", render.ProjectRules(res.Rules, "Its hard rules now apply in every session:"))
	return nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// showTrust lists what the user accepted in a project and how each rule
// reads now. It changes nothing.
func (c *cli) showTrust(tl engine.TrustList, key string, e *engine.Engine) error {
	st, err := tl.State(key)
	if err != nil {
		return err
	}
	rules, err := e.ProjectRules()
	if err != nil {
		return err
	}
	// What was accepted is shown masked; each pin keeps the digest of
	// the text accepted.
	pins := engine.ShownPins(st.Pins)
	if c.json {
		shown := rules.Shown()
		return c.printJSON(map[string]any{"root": key, "list": tl.Path, "trusted": st.Trusted, "since": st.Since,
			"pins": nonNil(pins), "rules": nonNil(shown.Rules), "accepted_line_by_line": shown.LineByLine, "digest": rules.Digest()})
	}
	switch {
	case st.Trusted:
		c.show("%s: trusted since %s (%s)\n", key, st.Since.Local().Format(time.RFC3339), tl.Path)
	default:
		c.show("%s: not trusted (%s)\n", key, tl.Path)
	}
	switch {
	case len(pins) == 0:
		c.show("No rule of it is accepted.\n")
	case !st.Trusted:
		// Rules a person wrote (remember --kind rule) or accepted one by
		// one are pinned without trusting the project: say so, or the
		// list reads as contradicting "not trusted".
		c.show("Accepted one by one, in force though the project is not trusted (your own rules, or ones you accepted; SHA-256 of the text, then the text):\n")
	default:
		c.show("Accepted rules (SHA-256 of the text, then the text):\n")
	}
	if len(pins) > 0 {
		for _, p := range pins {
			c.show("- %s %s\n", p.SHA256[:12], p.Key)
			for _, l := range strings.Split(strings.TrimRight(p.Text, "\n"), "\n") {
				c.show("%s\n", strings.TrimRight("    "+l, " "))
			}
		}
	}
	c.printf("%s", render.Unfit(rules))
	if pending := rules.Pending(); len(pending) > 0 {
		c.show("Not in force (new or changed since accepted; `ocmem trust` accepts them all, `ocmem accept ID` one):\n")
		for _, r := range pending {
			c.printf("%s", render.RuleChange(r))
		}
	}
	c.printf("%s", render.LineByLine(rules.LineByLine, "they put nothing in force now; `ocmem trust` replaces them with the section as a whole"))
	if !rules.Empty() {
		// What a person read here is what goes in force: the fingerprint
		// names these texts, so trusting with it accepts nothing added or
		// changed since.
		c.show("To accept exactly the rules listed here: ocmem trust --digest %s\n", rules.Digest())
	}
	return nil
}

func runUntrust(ctx context.Context, c *cli, args []string) error {
	c.rootFlags(true)
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("want at most one directory")
	}
	_, key, err := c.trustPlace(pos)
	if err != nil {
		return err
	}
	removed, err := trustList().Untrust(key)
	if err != nil {
		return err
	}
	if c.json {
		return c.printJSON(map[string]any{"root": key, "trusted": false, "removed": removed})
	}
	if removed {
		c.show("untrusted %s: every rule accepted there is forgotten, and its hard rules are shown to the model only as the repository's proposals\n", key)
	} else {
		c.show("%s was not trusted\n", key)
	}
	return nil
}

func (c *cli) listTrusted(tl engine.TrustList) error {
	entries, err := tl.Entries()
	if err != nil {
		return err
	}
	if c.json {
		if entries == nil {
			entries = []engine.TrustEntry{}
		}
		return c.printJSON(map[string]any{"list": tl.Path, "projects": entries})
	}
	if len(entries) == 0 {
		c.show("no trusted projects (%s)\n", tl.Path)
		return nil
	}
	for _, e := range entries {
		gone := ""
		if _, err := os.Stat(e.Root); err != nil {
			gone = " (missing)"
		}
		c.show("%s\ttrusted %s%s\n", e.Root, e.Trusted.Local().Format(time.RFC3339), gone)
	}
	return nil
}

// noteRuleTrust runs after a person wrote a hard rule into a project with
// the CLI (remember, or accept). The engine pinned it, so it is in force
// at once; the note says which of the project's other rules are not.
func noteRuleTrust(c *cli, e *engine.Engine, w *engine.Written) {
	rules, err := e.ProjectRules()
	if err != nil {
		return
	}
	if rules.TrustErr != "" {
		fmt.Fprintf(c.stderr, "ocmem %s: note: the trust list cannot be read (%s), so no project rule is in force\n", c.name, rules.TrustErr)
		return
	}
	var others int
	for _, r := range rules.Pending() {
		if r.Key != w.ID {
			others++
		}
	}
	if others > 0 {
		fmt.Fprintf(c.stderr, "ocmem %s: note: your rule is in force; %d other rule(s) of this repository are new or changed "+
			"and not in force: review them (`ocmem rules`) and run `ocmem trust` to accept them\n", c.name, others)
	}
}
