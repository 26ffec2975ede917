package main

import (
	"context"
	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/render"
)

// The human gate for hard rules: a model can only propose a rule
// (kind: rule-proposal); a person accepts or rejects it here, or edits the
// file's kind: line by hand.

func init() {
	register(command{name: "rules", usage: "[--json]", summary: "List hard rules and rule proposals, with where each came from.", run: runRules})
	register(command{name: "accept", usage: "[--scope project|global] ID | ROOT.md", summary: "Turn a rule proposal into a hard rule, or put in force a project rule that is new or changed (ROOT.md: its hard-rules section, as a whole).", run: runAccept})
	register(command{name: "reject", usage: "[--scope project|global] ID", summary: "Delete a rule proposal; anything else is refused.", run: runReject})
}

func runRules(ctx context.Context, c *cli, args []string) error {
	c.rootFlags(true)
	if err := c.parseNone(args); err != nil {
		return err
	}
	e, err := c.engine()
	if err != nil {
		return err
	}
	rules, err := e.Rules()
	if err != nil {
		return err
	}
	if c.json {
		return c.printJSON(map[string]any{"rules": rules})
	}
	c.printf("%s", render.Rules(rules))
	return nil
}

func runAccept(ctx context.Context, c *cli, args []string) error {
	return runDecide(c, args, "accepted", func(e *engine.Engine, s engine.Scope, id string) (*engine.Written, error) { return e.Accept(s, id, "") })
}

func runReject(ctx context.Context, c *cli, args []string) error {
	return runDecide(c, args, "rejected", (*engine.Engine).Reject)
}

func runDecide(c *cli, args []string, verb string, decide func(*engine.Engine, engine.Scope, string) (*engine.Written, error)) error {
	c.rootFlags(true)
	s, id, err := c.scopeAndID(args, "rule id, e.g. rules/run-tests-before-push")
	if err != nil {
		return err
	}
	e, err := c.engine()
	if err != nil {
		return err
	}
	w, err := decide(e, s, id)
	if err != nil {
		return err
	}
	if w.Scope == engine.Project && w.Kind == "rule" {
		noteRuleTrust(c, e, w) // a person put a rule in force, as with remember
	}
	if c.json {
		return c.printJSON(w)
	}
	c.show("%s %s:%s (%s)\n", verb, w.Scope, w.ID, w.Path)
	c.warn(w)
	return nil
}
