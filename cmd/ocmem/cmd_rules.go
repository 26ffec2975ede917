package main

import (
	"context"
	"strings"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/render"
)

// The human gate for hard rules: a model can only propose a rule
// (kind: rule-proposal); a person accepts or rejects it here, or edits the
// file's kind: line by hand.

func init() {
	register(command{name: "rules", usage: "[--json]", summary: "List hard rules and rule proposals, with where each came from.", run: runRules})
	register(command{name: "accept", usage: "[--scope project|global] [--digest D] ID | ROOT.md", summary: "Turn a rule proposal into a hard rule, or put in force a project rule that is new or changed (ROOT.md: its hard-rules section, as a whole); --digest: only if it still reads as `ocmem rules` showed it.", run: runAccept})
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

// runAccept accepts a rule as it reads now, or with --digest only as
// `ocmem rules` showed it: the model can edit the project's files between
// the moment a person reads a rule and the moment they accept it.
func runAccept(ctx context.Context, c *cli, args []string) error {
	var shown string
	c.fs.StringVar(&shown, "digest", "", "accept only if the rule's text still has this digest (`ocmem rules` gives it)")
	return runDecide(c, args, "accepted", func(e *engine.Engine, s engine.Scope, id string) (*engine.Written, error) {
		if shown != "" && !isDigest(shown) {
			return nil, usagef("--digest: want the 64 hexadecimal digits `ocmem rules` gives")
		}
		return e.Accept(s, id, shown)
	})
}

func runReject(ctx context.Context, c *cli, args []string) error {
	return runDecide(c, args, "rejected", (*engine.Engine).Reject)
}

// isDigest reports whether v is a digest as `ocmem rules` and `ocmem trust
// --show` give them: a hex SHA-256.
func isDigest(v string) bool {
	if len(v) != 64 {
		return false
	}
	for _, r := range v {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
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
