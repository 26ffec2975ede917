package main

import (
	"context"
	"os"
	"path/filepath"

	"github.com/ocmem/ocmem/internal/engine"
)

func init() {
	register(command{name: "stale", usage: "[--json]",
		summary: "List the memories judged no longer true (outdated) or whose anchored code changed or went since they were verified, with the evidence.", run: runStale})
	register(command{name: "verify", usage: "[--scope project|global] [--anchor PATH[#SYMBOL]]… ID",
		summary: "After checking a stale memory against the code: move its reference point (verified) to HEAD, anchored anew with --anchor, and clear an outdated mark.", run: runVerify})
}

func runStale(ctx context.Context, c *cli, args []string) error {
	c.rootFlags(true)
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
	if c.json {
		if list == nil {
			list = []engine.StaleMemory{}
		}
		return c.printJSON(list)
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
			c.show("  %s\n", evidenceLine(ev))
		}
		c.show("  file: %s\n", m.Path)
	}
	c.printf("\nCheck each against the code; then `ocmem verify ID` (its anchors still hold), edit it, or `ocmem forget ID`.\n")
	return nil
}

// evidenceLine is one anchor's evidence as a person reads it.
func evidenceLine(ev engine.StaleEvidence) string {
	s := ev.Anchor + ": " + ev.Why
	if ev.ByDigest {
		s += " (by content: the verified commit is not in this clone)"
	}
	return s
}

func runVerify(ctx context.Context, c *cli, args []string) error {
	c.rootFlags(true)
	var anchors stringList
	c.fs.Var(&anchors, "anchor", "the code it is about now, replacing its anchors (repeatable)")
	s, id, err := c.scopeAndID(args, "memory id, e.g. facts/listen-port")
	if err != nil {
		return err
	}
	e, err := c.engine()
	if err != nil {
		return err
	}
	var given []string
	if len(anchors) > 0 {
		given = anchors
	}
	w, err := e.Verify(s, id, given)
	if err != nil {
		return err
	}
	if c.json {
		return c.printJSON(w)
	}
	c.show("verified %s:%s at the worktree's HEAD (%s)\n", w.Scope, w.ID, w.Path)
	c.warn(w)
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
