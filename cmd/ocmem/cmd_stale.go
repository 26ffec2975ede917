package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
)

func init() {
	register(command{name: "stale", usage: "[--json] [--exit-code]",
		summary: "List the memories judged no longer true (outdated) or whose anchored code changed or went since they were verified, with the evidence.", run: runStale})
	register(command{name: "verify", usage: "[--scope project|global] [--anchor PATH[#SYMBOL]]… ID | --all-fresh [--dry-run]",
		summary: "After checking a stale memory against the code: move its reference point (verified) to HEAD, anchored anew with --anchor, and clear an outdated mark. --all-fresh does it for every changed memory whose anchored files changed only in formatting.", run: runVerify})
	register(command{name: "outdated", usage: "[--scope project|global] [--dry-run] ID --reason TEXT",
		summary: "Mark a memory no longer true: it is kept, out of injection and the outline, last in recall with the reason, first in `ocmem stale`, until `ocmem verify ID` clears the mark.", run: runOutdated})
}

func runStale(ctx context.Context, c *cli, args []string) error {
	c.rootFlags(true)
	exitCode := c.fs.Bool("exit-code", false, "exit 1 when any memory is listed, as `git diff --exit-code` does (for CI)")
	if err := c.parseNone(args); err != nil {
		return err
	}
	e, err := c.engine()
	if err != nil {
		return err
	}
	list, err := e.Stale()
	if err != nil {
		return err
	}
	// The list is the report: with --exit-code, a listed memory is the
	// failure a CI job stops on.
	status := error(nil)
	if *exitCode && len(list) > 0 {
		status = errProblems
	}
	if c.json {
		if list == nil {
			list = []engine.StaleMemory{}
		}
		if err := c.printJSON(list); err != nil {
			return err
		}
		return status
	}
	if len(list) == 0 {
		c.printf("No stale memory.\n")
		return nil
	}
	for _, m := range list {
		c.show("%s %s:%s — %s\n", m.State, m.Scope, m.ID, engine.OneLine(m.Summary))
		if m.State == engine.StateOutdated {
			c.show("  %s; out of injection until a person acts\n", m.Why)
		}
		for _, ev := range m.Evidence {
			c.show("  %s\n", evidenceLine(ev, m.Verified))
		}
		c.show("  file: %s\n", m.Path)
	}
	c.printf("\nCheck each against the code; then `ocmem verify ID` (its anchors still hold), edit it, or `ocmem forget ID`.\n")
	return status
}

// evidenceLine is one anchor's evidence as a person reads it; verified is
// the memory's verified commit, "" where it was verified over code in no
// commit.
func evidenceLine(ev engine.StaleEvidence, verified string) string {
	s := ev.Anchor + ": " + ev.Why
	switch {
	case ev.ByDigest && verified == "":
		s += " (by content: verified over code in no commit)"
	case ev.ByDigest:
		s += " (by content: the verified commit is not in this clone)"
	}
	return s
}

func runVerify(ctx context.Context, c *cli, args []string) error {
	c.rootFlags(true)
	var anchors stringList
	var flagScope string
	c.fs.Var(&anchors, "anchor", "the code it is about now, replacing its anchors (repeatable)")
	c.fs.StringVar(&flagScope, "scope", "", "project or global (default: wherever the id exists)")
	allFresh := c.fs.Bool("all-fresh", false, "verify every changed memory whose anchored files changed only in formatting since it was verified")
	dryRun := c.fs.Bool("dry-run", false, "with --all-fresh: say what would be verified, and write nothing")
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	switch {
	case *allFresh && (len(pos) > 0 || len(anchors) > 0 || flagScope != ""):
		return usagef("--all-fresh verifies every memory it finds: it takes no ID, --anchor or --scope")
	case *allFresh:
		return verifyAllFresh(c, *dryRun)
	case *dryRun:
		return usagef("--dry-run goes with --all-fresh")
	case len(pos) != 1:
		return usagef("want exactly one memory id, e.g. facts/listen-port")
	}
	var s engine.Scope
	if flagScope != "" {
		if s, err = engine.ParseScope(flagScope); err != nil {
			return usagef("--scope: %v", err)
		}
	}
	e, err := c.engine()
	if err != nil {
		return err
	}
	var given []string
	if len(anchors) > 0 {
		given = anchors
	}
	w, err := e.Verify(s, pos[0], given)
	if err != nil {
		return err
	}
	if c.json {
		return c.printJSON(w)
	}
	if w.ByDigest {
		c.show("verified %s:%s as the worktree holds it, by digest: its anchored code is in no commit (%s)\n", w.Scope, w.ID, w.Path)
	} else {
		c.show("verified %s:%s at the worktree's HEAD (%s)\n", w.Scope, w.ID, w.Path)
	}
	c.warn(w)
	return nil
}

func runOutdated(ctx context.Context, c *cli, args []string) error {
	c.rootFlags(true)
	reason := c.fs.String("reason", "", "why it is no longer true, one line (required)")
	dryRun := c.fs.Bool("dry-run", false, "print the mark that would be written, and write nothing")
	s, id, err := c.scopeAndID(args, "memory id, e.g. facts/listen-port")
	if err != nil {
		return err
	}
	if strings.TrimSpace(*reason) == "" {
		return usagef("--reason is required: say why it is no longer true")
	}
	e, err := c.engine()
	if err != nil {
		return err
	}
	m, err := e.Outdate(engine.OutdatedRequest{Scope: s, ID: id, Reason: *reason, Source: engine.FromPerson, DryRun: *dryRun})
	if err != nil {
		return err
	}
	if c.json {
		return c.printJSON(m)
	}
	showOutdated(c, m)
	return nil
}

// showOutdated says what was marked (or would be) and how to undo it.
func showOutdated(c *cli, m *engine.OutdatedMark) {
	at := "no commit recorded: no git HEAD here"
	if m.Commit != "" {
		at = "at HEAD " + m.Commit[:min(12, len(m.Commit))]
	}
	day := time.UnixMilli(m.Time).UTC().Format(time.DateOnly)
	if m.DryRun {
		c.show("would mark %s:%s outdated (%s), writing into %s:\n", m.Scope, m.ID, at, m.Path)
		c.show("%s", outdatedBlock(m.File))
		if m.Replaced != "" {
			c.show("replacing its mark: %s\n", m.Replaced)
		}
		c.printf("\nNothing was written (--dry-run).\n")
		return
	}
	c.show("marked %s:%s outdated on %s (%s): %s\n", m.Scope, m.ID, day, at, m.Reason)
	if m.Replaced != "" {
		c.show("  replaced its mark: %s\n", m.Replaced)
	}
	c.show("  file: %s\n", m.Path)
	c.show("\nKept, out of injection and the outline, last in recall; `ocmem verify %s` clears the mark.\n", m.ID)
	c.warn(&m.Written)
}

// outdatedBlock is the outdated: mapping of a memory file's frontmatter,
// as the file would hold it.
func outdatedBlock(file []byte) string {
	var b strings.Builder
	in := false
	for _, l := range strings.SplitAfter(string(file), "\n") {
		switch {
		case l == "outdated:\n":
			in = true
		case !in:
			continue
		case !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "\t"):
			return b.String()
		}
		b.WriteString(l)
	}
	return b.String()
}

// verifyAllFresh is verify --all-fresh: one line for each stale memory,
// verified or left with why.
func verifyAllFresh(c *cli, dryRun bool) error {
	e, err := c.engine()
	if err != nil {
		return err
	}
	verified, left, err := e.VerifyFormatting(dryRun)
	if err != nil {
		return err
	}
	if c.json {
		if verified == nil {
			verified = []engine.FormattingVerdict{}
		}
		if left == nil {
			left = []engine.FormattingVerdict{}
		}
		return c.printJSON(struct {
			Verified []engine.FormattingVerdict `json:"verified"`
			Left     []engine.FormattingVerdict `json:"left"`
			DryRun   bool                       `json:"dry_run"`
		}{verified, left, dryRun})
	}
	if len(verified)+len(left) == 0 {
		c.printf("No stale memory.\n")
		return nil
	}
	did := "verified"
	if dryRun {
		did = "would verify"
	}
	for _, v := range verified {
		c.show("%s %s:%s — %s: its anchored files changed only in formatting\n", did, v.Scope, v.ID, engine.OneLine(v.Summary))
	}
	for _, v := range left {
		c.show("left %s:%s — %s\n", v.Scope, v.ID, engine.OneLine(v.Why))
	}
	if dryRun {
		c.printf("\n%d would be verified, %d left; nothing was written (--dry-run).\n", len(verified), len(left))
	} else {
		c.printf("\n%d verified, %d left for a person to check (ocmem stale).\n", len(verified), len(left))
	}
	return nil
}

// codeDir is the worktree in use: the nearest folder at or above the
// working directory that holds .git (a folder, or a linked worktree's
// file); "" outside git, where the engine checks anchors in the folder
// holding the project's .memory. Looked for without running git, since
// every command that builds an engine pays for it.
func codeDir() string {
	d, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}
