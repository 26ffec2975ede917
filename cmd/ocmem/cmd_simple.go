package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/render"
	"github.com/ocmem/ocmem/internal/sessionlog"
)

func (c *cli) printf(format string, args ...any) { fmt.Fprintf(c.stdout, format, args...) }

// show prints text a person reads to decide on it (a rule, a proposal, a
// pin, a file name): what a terminal would hide or draw over is written as
// ⟨U+XXXX⟩ (engine.Visible), so the person reads every character the model
// will.
func (c *cli) show(format string, args ...any) {
	fmt.Fprint(c.stdout, engine.Visible(fmt.Sprintf(format, args...)))
}

func init() {
	register(command{name: "forget", usage: "[--scope project|global] ID", summary: "Delete a memory (or a file that does not load) and recompile its root; a memory it had replaced (supersedes) is live again.", run: runForget})
	register(command{name: "inspect", usage: "[--json]", summary: "List all memories and check consistency; exit 1 when something is wrong.", run: runInspect})
	register(command{name: "compile", usage: "", summary: "Regenerate every index.md and ROOT.md's compiled tables.", run: runCompile})
	register(command{name: "recall", usage: "[--json] [--limit N] [--now T] [--mode search|inject] [--no-count] QUERY…", summary: "Search memories; show each hit with the reasons it matched.", run: runRecall})
	register(command{name: "inject", usage: "[--json] [--now T] [--session ID [--mark]] MESSAGE…", summary: "Print exactly what the model gets for a message: hard rules, outline, bodies. Changes nothing unless --mark.", run: runInject})
}

func runForget(ctx context.Context, c *cli, args []string) error {
	c.rootFlags(true)
	s, id, err := c.scopeAndID(args, "memory id, e.g. pitfalls/sqlite-cjk-tokenizer")
	if err != nil {
		return err
	}
	e, err := c.engine()
	if err != nil {
		return err
	}
	w, err := e.Forget(s, id, engine.FromPerson)
	if err != nil {
		return err
	}
	if c.json {
		return c.printJSON(w)
	}
	c.show("forgot %s:%s (%s)\n", w.Scope, w.ID, w.Path)
	if w.NotLoaded != "" {
		c.show("it did not load as a memory (%s); the file is deleted as you asked\n", w.NotLoaded)
	}
	for _, id := range w.Restored {
		c.printf("restored %s:%s: the memory it had replaced is live again\n", w.Scope, id)
	}
	c.warn(w)
	return nil
}

func runInspect(ctx context.Context, c *cli, args []string) error {
	c.rootFlags(true)
	if err := c.parseNone(args); err != nil {
		return err
	}
	e, err := c.engine()
	if err != nil {
		return err
	}
	rep, err := e.Inspect()
	if err != nil {
		return err
	}
	if c.json {
		if err := c.printJSON(rep); err != nil {
			return err
		}
	} else {
		c.printf("%s", render.Report(rep, true))
	}
	if !rep.OK() {
		return errProblems
	}
	return nil
}

func runCompile(ctx context.Context, c *cli, args []string) error {
	c.rootFlags(false)
	if err := c.parseNone(args); err != nil {
		return err
	}
	e, err := c.engine()
	if err != nil {
		return err
	}
	// A memory edited by hand since the last commit gets the edit's time
	// as its updated (engine.TouchEdited) before it is compiled.
	var touched []string
	for _, scope := range []engine.Scope{engine.Global, engine.Project} {
		t, err := e.TouchEdited(scope, false)
		touched = append(touched, t...)
		if err != nil {
			return err
		}
	}
	changed, skipped, err := e.CompileSkipping()
	if err != nil {
		return err
	}
	for _, f := range touched {
		c.printf("updated %s to the time of its hand edit\n", f)
	}
	// A file that does not load is left out of what was compiled: say
	// which, or a typo in a hand edit looks like a memory compiled away.
	if len(skipped) > 0 {
		fmt.Fprintf(c.stderr, "ocmem compile: %d file(s) skipped, their memories left out of the compiled files (`ocmem inspect` reports every problem):\n", len(skipped))
		for i, p := range skipped {
			if i == maxListedProblems {
				fmt.Fprintf(c.stderr, "  … %d more\n", len(skipped)-i)
				break
			}
			fmt.Fprintf(c.stderr, "  %s\n", p.Error())
		}
	}
	if len(changed) == 0 {
		c.printf("compiled files are up to date\n")
	}
	for _, f := range changed {
		c.printf("wrote %s\n", f)
	}
	return nil
}

// maxListedProblems is how many skipped files compile names.
const maxListedProblems = 10

func runRecall(ctx context.Context, c *cli, args []string) error {
	c.rootFlags(true)
	limit := countFlag(10)
	var now string
	var noCount bool
	mode := "search"
	c.fs.Var(&limit, "limit", "at most `N` results (0: no limit)")
	c.fs.StringVar(&mode, "mode", mode, "search: every memory holding a query word, ranked; inject: only what the per-message injection would give (strict evidence, nothing for small talk)")
	c.fs.StringVar(&now, "now", "", "the time to rank at, Unix milliseconds or RFC 3339 (default: now)")
	c.fs.BoolVar(&noCount, "no-count", false, "do not count this recall in the memories' hit counters (--mode inject and --now never count)")
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	query := strings.Join(pos, " ")
	if strings.TrimSpace(query) == "" {
		return usagef("want a query")
	}
	t, err := parseNow(now)
	if err != nil {
		return usagef("%v", err)
	}
	m, err := engine.ParseMode(mode)
	if err != nil {
		return usagef("%v", err)
	}
	e, err := c.engine()
	if err != nil {
		return err
	}
	// A recall with a fixed --now is a measurement (benchmarks, tests): it
	// must not change the counters that the next measurement ranks with.
	// --mode inject previews injection, which counts nothing either.
	count := !noCount && t.IsZero() && m == engine.Search
	hits, err := e.Recall(query, engine.RecallOptions{Limit: int(limit), Now: t, Count: count, Mode: m})
	if err != nil {
		return err
	}
	if c.json {
		if hits == nil {
			hits = []engine.Hit{}
		}
		return c.printJSON(map[string]any{"query": query, "results": hits})
	}
	c.printf("%s", render.Hits(hits, true))
	return nil
}

func runInject(ctx context.Context, c *cli, args []string) error {
	c.rootFlags(true)
	var now, session string
	var mark bool
	c.fs.StringVar(&now, "now", "", "the time to rank at, Unix milliseconds or RFC 3339 (default: now)")
	c.fs.StringVar(&session, "session", "", "preview that session's next turn: bodies already given in it are left out (nothing is recorded)")
	c.fs.BoolVar(&mark, "mark", false, "with --session: record the bodies shown as given in the session, as a real turn does")
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if mark && session == "" {
		return usagef("--mark needs --session")
	}
	t, err := parseNow(now)
	if err != nil {
		return usagef("%v", err)
	}
	e, err := c.engine()
	if err != nil {
		return err
	}
	var seen *sessionlog.Log
	opts := engine.InjectOptions{Now: t}
	if session != "" {
		seen, err = sessionlog.Open(session)
		if err != nil {
			return err
		}
		opts.Seen = seen.Seen
	}
	inj, err := e.Inject(strings.Join(pos, " "), opts)
	if err != nil {
		return err
	}
	if mark {
		if err := seen.Add(inj.Marks...); err != nil {
			return err
		}
	}
	if c.json {
		return c.printJSON(inj)
	}
	for _, tier := range []struct{ name, text, where string }{
		{"hard rules", inj.Rules, "system prompt, every turn"},
		{"outline", inj.Outline, "system prompt, every turn"},
		{"bodies", inj.Bodies, "this user message"},
	} {
		c.printf("==== %s (%d characters; %s) ====\n", tier.name, len([]rune(tier.text)), tier.where)
		if tier.text == "" {
			c.printf("(empty)\n")
		} else {
			c.show("%s", tier.text)
			if !strings.HasSuffix(tier.text, "\n") {
				c.printf("\n")
			}
		}
	}
	// The person reads this preview to see what the model gets: ROOT.md's
	// rules they typed look in force until they are told otherwise.
	if root, err := e.InjectedRootMD(); err == nil && root != nil && !root.InForce {
		c.printf("==== not in force: %s; `ocmem rules` shows them\n", engine.ConfirmRootMD)
	}
	if len(inj.Repeated) > 0 {
		c.printf("==== not repeated (already given in this session): %s\n", strings.Join(inj.Repeated, ", "))
	}
	if inj.Quiet != "" {
		c.printf("==== no bodies: %s\n", inj.Quiet)
	}
	return nil
}
