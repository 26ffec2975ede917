package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ocmem/ocmem/internal/engine"
)

func init() {
	register(command{
		name:    "remember",
		usage:   "--category C --kind K --summary S [--highlight H] [--load-when W]… [--pinned] [--supersedes ID] [--anchor PATH[#SYMBOL]]… [--scope project|global] [--body TEXT | < body]",
		summary: "Write a memory (body from --body or standard input) and recompile its root.",
		run:     runRemember,
	})
}

func runRemember(ctx context.Context, c *cli, args []string) error {
	c.rootFlags(true)
	var req engine.RememberRequest
	var kind, scope, body string
	var loadWhen, anchors stringList
	bodySet := false
	c.fs.StringVar(&req.Category, "category", "", "category (rules, preferences, decisions, pitfalls, facts, …)")
	c.fs.StringVar(&kind, "kind", "", "rule | preference | decision | pitfall | fact | rule-proposal")
	c.fs.StringVar(&req.Summary, "summary", "", "one sentence")
	c.fs.StringVar(&req.Highlight, "highlight", "", "the single most useful detail")
	c.fs.Var(&loadWhen, "load-when", "a trigger: scenario or keyword (repeatable)")
	c.fs.BoolVar(&req.Pinned, "pinned", false, "never decays, never superseded automatically")
	c.fs.StringVar(&req.Supersedes, "supersedes", "", "id of the memory this one replaces")
	c.fs.Var(&anchors, "anchor", "the code it is about, relative to the project root: a file, folder or glob, a file optionally with #Symbol (repeatable; default: what the text names)")
	c.fs.StringVar(&scope, "scope", "", "project or global (default: project when a project root is known)")
	c.fs.Func("body", "the body text (default: read standard input)", func(s string) error { body, bodySet = s, true; return nil })
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q; the body goes in --body or on standard input", pos[0])
	}
	switch {
	case req.Category == "":
		return usagef("--category is required")
	case kind == "":
		return usagef("--kind is required")
	case strings.TrimSpace(req.Summary) == "":
		return usagef("--summary is required")
	}
	req.Kind = engine.Kind(kind)
	if !req.Kind.Valid() {
		return usagef("--kind %q is not one of rule, preference, decision, pitfall, fact, rule-proposal", kind)
	}
	if scope != "" {
		s, err := engine.ParseScope(scope)
		if err != nil {
			return usagef("--scope: %v", err)
		}
		req.Scope = s
	}
	if !bodySet {
		b, err := io.ReadAll(io.LimitReader(c.stdin, engine.MaxFileSize+1))
		if err != nil {
			return err
		}
		body = string(b)
	}
	req.Body = body
	req.LoadWhen = loadWhen
	if len(anchors) > 0 {
		req.Anchors = anchors
	}
	req.Source = engine.FromPerson
	e, err := c.engine()
	if err != nil {
		return err
	}
	w, err := e.Remember(req)
	if dup, ok := errors.AsType[*engine.DuplicateError](err); ok {
		return fmt.Errorf("%w: %s:%s has this summary and body already; nothing was written. "+
			"To replace it, run ocmem remember with --supersedes %s; to keep it, there is nothing to do",
			engine.ErrDuplicate, dup.Scope, dup.ID, dup.ID)
	}
	if err != nil {
		return err
	}
	if w.Scope == engine.Project && w.Kind == engine.KindRule {
		noteRuleTrust(c, e, w)
	}
	if c.json {
		return c.printJSON(w)
	}
	c.printf("remembered %s:%s → %s\n", w.Scope, w.ID, w.Path)
	if w.Superseded != "" {
		c.printf("superseded %s\n", w.Superseded)
	}
	if w.SameSummary != "" {
		c.printf("note: %s:%s has the same summary with another body; both are kept "+
			"(if the new one replaces it: ocmem forget %s, or --supersedes next time)\n", w.Scope, w.SameSummary, w.SameSummary)
	}
	c.warn(w)
	return nil
}
