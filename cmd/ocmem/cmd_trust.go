package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/trust"
)

func init() {
	register(command{
		name:    "trust",
		usage:   "[DIR] | --list [--json]",
		summary: "Let a project's hard rules apply: its ROOT.md rules and kind: rule memories (default: the project here).",
		run:     runTrust,
	})
	register(command{
		name:    "untrust",
		usage:   "[DIR]",
		summary: "Show a project's hard rules only as the repository's proposals again.",
		run:     runUntrust,
	})
}

// trustList is the user's trust list. Without a home directory there is
// none, and no project is trusted.
func trustList() trust.List {
	p, err := trust.DefaultPath()
	if err != nil {
		return trust.List{}
	}
	return trust.List{Path: p}
}

// trustTarget resolves the project a trust command is about: DIR's
// canonical project root, else the CLI's project root. It returns the
// trust key and the project's memory root.
func (c *cli) trustTarget(pos []string) (key, memDir string, err error) {
	if len(pos) == 1 {
		root, err := store.CanonicalRoot(pos[0])
		if err != nil {
			return "", "", err
		}
		if info, err := os.Stat(root); err != nil || !info.IsDir() {
			return "", "", fmt.Errorf("%s is not a directory", pos[0])
		}
		memDir = filepath.Join(root, ".memory")
		return trust.ProjectKey(memDir), memDir, nil
	}
	_, memDir, err = c.roots()
	if err != nil {
		return "", "", err
	}
	if memDir == "" {
		return "", "", fmt.Errorf("no project here (not inside a git checkout, and no --project or OCMEM_PROJECT); name its directory")
	}
	return trust.ProjectKey(memDir), memDir, nil
}

func runTrust(c *cli, args []string) int {
	c.rootFlags(true)
	var list bool
	c.fs.BoolVar(&list, "list", false, "list the trusted projects")
	pos, code, ok := c.parse(args)
	if !ok {
		return code
	}
	tl := trustList()
	if list {
		if len(pos) > 0 {
			return c.usageErr("--list takes no arguments")
		}
		return c.listTrusted(tl)
	}
	if len(pos) > 1 {
		return c.usageErr("want at most one directory")
	}
	key, memDir, err := c.trustTarget(pos)
	if err != nil {
		return c.fail(err)
	}
	added, err := tl.Trust(key, time.Now())
	if err != nil {
		return c.fail(err)
	}
	if c.json {
		return c.printJSON(map[string]any{"root": key, "trusted": true, "added": added, "list": tl.Path})
	}
	if added {
		c.printf("trusted %s\n", key)
	} else {
		c.printf("%s was trusted already\n", key)
	}
	// Say what is now in force: the point of trusting is having looked.
	e := engine.New(engine.Config{ProjectDir: memDir})
	if rules, err := e.ProjectRules(); err == nil {
		printProjectRules(c, rules, "Its hard rules now apply in every session:")
	}
	return exitOK
}

func runUntrust(c *cli, args []string) int {
	c.rootFlags(true)
	pos, code, ok := c.parse(args)
	if !ok {
		return code
	}
	if len(pos) > 1 {
		return c.usageErr("want at most one directory")
	}
	key, _, err := c.trustTarget(pos)
	if err != nil {
		return c.fail(err)
	}
	removed, err := trustList().Untrust(key)
	if err != nil {
		return c.fail(err)
	}
	if c.json {
		return c.printJSON(map[string]any{"root": key, "trusted": false, "removed": removed})
	}
	if removed {
		c.printf("untrusted %s: its hard rules are shown to the model only as the repository's proposals\n", key)
	} else {
		c.printf("%s was not trusted\n", key)
	}
	return exitOK
}

func (c *cli) listTrusted(tl trust.List) int {
	entries, err := tl.Entries()
	if err != nil {
		return c.fail(err)
	}
	if c.json {
		if entries == nil {
			entries = []trust.Entry{}
		}
		return c.printJSON(map[string]any{"list": tl.Path, "projects": entries})
	}
	if len(entries) == 0 {
		c.printf("no trusted projects (%s)\n", tl.Path)
		return exitOK
	}
	for _, e := range entries {
		gone := ""
		if _, err := os.Stat(e.Root); err != nil {
			gone = " (missing)"
		}
		c.printf("%s\ttrusted %s%s\n", e.Root, e.Trusted.Local().Format(time.RFC3339), gone)
	}
	return exitOK
}

func printProjectRules(c *cli, rules *engine.ProjectRules, heading string) {
	if rules.Empty() {
		c.printf("It has no hard rules yet.\n")
		return
	}
	c.printf("%s\n", heading)
	for _, m := range rules.Memories {
		c.printf("- %s [%s]\n", compile.OneLine(m.Summary), m.ID)
	}
	if rules.RootMD != "" {
		c.printf("- ROOT.md, section Hard rules:\n")
		for _, l := range strings.Split(rules.RootMD, "\n") {
			c.printf("  > %s\n", l)
		}
	}
}

// noteRuleTrust runs after a person wrote a hard rule into a project with
// the CLI (remember, or accept of a rule proposal). Writing a rule says the person wants it in force, so the project
// is trusted implicitly when that puts nothing else in force: it had no
// other hard rules. Otherwise trusting would also enact rules the person may
// never have read, so it is left to `ocmem trust`, and a note says so.
func noteRuleTrust(c *cli, e *engine.Engine, w *engine.Written) {
	memDir := e.Root(store.Project).Dir
	tl := trustList()
	key := trust.ProjectKey(memDir)
	if ok, _, err := tl.Trusted(key); ok || err != nil {
		return
	}
	rules, err := e.ProjectRules()
	if err != nil {
		return
	}
	var others []engine.Entry
	for _, m := range rules.Memories {
		if m.ID != w.ID {
			others = append(others, m)
		}
	}
	if len(others) == 0 && rules.RootMD == "" {
		if _, err := tl.Trust(key, time.Now()); err == nil {
			fmt.Fprintf(c.stderr, "ocmem %s: note: trusted %s, the first hard rule there being yours: its hard rules, "+
				"including any that later arrive with git, apply in every session (`ocmem untrust` undoes this)\n", c.name, key)
			return
		}
	}
	fmt.Fprintf(c.stderr, "ocmem %s: note: %s is not trusted, so this rule is shown to the model only as the repository's proposal, "+
		"beside %d other rule(s) someone else may have written; review them (`ocmem rules`) and run `ocmem trust` to put them all in force\n",
		c.name, key, len(others)+boolInt(rules.RootMD != ""))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
