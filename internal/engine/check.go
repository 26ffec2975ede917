package engine

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ocmem/ocmem/internal/guard"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/prompt"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/tiers"
	"github.com/ocmem/ocmem/internal/trust"
)

// Rules that bind
//
// A hard rule may carry guards (its enforce block): tool calls it stops.
// Check decides a call once, for every edge: the plugin on both OpenCode
// lines before each tool call, and `ocmem check`. It decides only with
// the rules in force as the rules tier was rendered (the same trust
// decisions: never a proposal, never a rule of a project the user has not
// trusted, never a rule whose text or guards changed since the user
// accepted it), so what binds is exactly what the model is shown as
// binding. The guards are collected by the rules tier's pass over the
// memories and kept with the snapshot, so a check costs a match against a
// few patterns, and a rule edited mid-session binds from the next call
// after the reload the file watch triggers.

// ToolCall is a tool call before it runs, as the OpenCode line made it.
type ToolCall struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
	// Root is the session's worktree, which a path glob is relative to;
	// Dir is where a relative path of the call starts ("" is Root). An
	// empty Root is the project root.
	Root string `json:"root,omitempty"`
	Dir  string `json:"dir,omitempty"`
}

// Verdict is what the rules in force make of a tool call.
type Verdict struct {
	// Action is "deny", "ask", or "" when the call may run.
	Action string `json:"action"`
	// Rule is the rule that decided, Pattern its guard that matched (the
	// guard's tool in Tool), Subject what of the call matched: a command,
	// a path.
	Rule    *GuardedRule `json:"rule,omitempty"`
	Tool    string       `json:"tool,omitempty"`
	Pattern string       `json:"pattern,omitempty"`
	Subject string       `json:"subject,omitempty"`
	// Unreadable says why the call could not be read (a command line
	// that does not parse, a file tool without a path); a rule guards
	// its tool, so it is stopped rather than guessed at.
	Unreadable string `json:"unreadable,omitempty"`
	// Message is what the model is told of a stopped call.
	Message string `json:"message,omitempty"`
	// NotInForce is, for an allowed call, a rule not in force that would
	// stop it, where the caller asked (CheckNotInForce); Check leaves it
	// nil.
	NotInForce *NotInForce `json:"not_in_force,omitempty"`
}

// Stopped reports whether the call does not run as it is.
func (v *Verdict) Stopped() bool { return v.Action != "" }

// Guards returns the rules in force that carry guards, as the current
// rules tier was rendered: global rules first.
func (e *Engine) Guards() ([]GuardedRule, error) {
	s, err := e.Load()
	if err != nil {
		return nil, err
	}
	return e.stableOf(s).guards, nil
}

// GuardedTools lists the tool names, of both OpenCode lines, that a rule
// in force guards, sorted: the plugin refuses calls of these while serve
// cannot answer. "*" means every tool.
func GuardedTools(rules []GuardedRule) []string {
	seen := map[string]bool{}
	for _, r := range rules {
		for _, g := range r.Guards {
			if g.Action == memory.ActionAllow {
				continue
			}
			for _, n := range guard.Names(g.Tool) {
				seen[n] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Check decides whether the rules in force stop a tool call.
func (e *Engine) Check(c ToolCall) (*Verdict, error) {
	s, err := e.Load()
	if err != nil {
		return nil, err
	}
	st := e.stableOf(s)
	rules := st.guards
	if c.Root == "" {
		c.Root = e.projectWorktree()
	}
	d := guard.Decide(guard.Call{Tool: c.Tool, Args: c.Args, Root: c.Root, Dir: c.Dir}, st.guardRules)
	v := &Verdict{Action: d.Action}
	if d.Action == "" {
		return v, nil
	}
	// The verdict is shown: to the model, and by the plugin to the
	// person. A rule's summary written by hand has its secret masked, as
	// the rules tier shows it; r is a copy.
	r := rules[d.Rule]
	r.Summary = prompt.Mask(r.Summary)
	v.Rule, v.Tool, v.Pattern, v.Subject = &r, d.Guard.Tool, d.Guard.Pattern, d.Subject
	if d.Unreadable != nil {
		v.Unreadable = d.Unreadable.Error()
	}
	v.Message = stopMessage(c.Tool, v)
	return v, nil
}

// NotInForce is a rule not in force whose guards would stop a call the
// rules in force allow: a project rule of an untrusted repository, one new
// or changed since the person accepted it, or a proposal. The call is
// allowed all the same; the person checking it is told why a rule they
// can read in `ocmem rules` did not stop it, and how to put it in force.
type NotInForce struct {
	Action  string       `json:"action"`
	Rule    *GuardedRule `json:"rule"`
	Tool    string       `json:"tool"`
	Pattern string       `json:"pattern"`
	Subject string       `json:"subject,omitempty"`
	// Unreadable says why the call could not be read, when that is what
	// would stop it (Verdict.Unreadable).
	Unreadable string          `json:"unreadable,omitempty"`
	Status     trust.RuleState `json:"status"`
	// PutInForce is the commands, each alone, that put the rule in force.
	PutInForce []string `json:"put_in_force"`
}

// CheckNotInForce decides a call with the rules not in force, as Check
// would once they were, and returns the first that would stop it, or nil.
// It reads the rule entries anew (not kept with the snapshot, unlike the
// guards in force): it is for a person asking (`ocmem check`), never for
// the check before each tool call.
func (e *Engine) CheckNotInForce(c ToolCall) (*NotInForce, error) {
	s, err := e.Load()
	if err != nil {
		return nil, err
	}
	var rules []GuardedRule
	var states []trust.RuleState
	for _, r := range tiers.Entries(s, e.roots(), e.stableOf(s).gate) {
		if r.InForce || r.Status == trust.RuleSuperseded || len(r.Enforce) == 0 {
			continue
		}
		rules = append(rules, GuardedRule{ID: r.ID, Scope: r.Scope, Path: r.Path, Summary: r.Summary, Guards: r.Enforce})
		states = append(states, r.Status)
	}
	if c.Root == "" {
		c.Root = e.projectWorktree()
	}
	d := guard.Decide(guard.Call{Tool: c.Tool, Args: c.Args, Root: c.Root, Dir: c.Dir}, guardRules(rules))
	if d.Action == "" {
		return nil, nil
	}
	r := rules[d.Rule]
	n := &NotInForce{Action: d.Action, Rule: &r, Tool: d.Guard.Tool, Pattern: d.Guard.Pattern, Subject: d.Subject, Status: states[d.Rule]}
	if d.Unreadable != nil {
		n.Unreadable = d.Unreadable.Error()
	}
	switch {
	case n.Status == trust.RuleUntrusted:
		n.PutInForce = []string{"ocmem trust"}
	case n.Status == trust.RuleProposal && r.Scope == store.Global:
		n.PutInForce = []string{"ocmem accept --scope global " + r.ID}
	case n.Status == trust.RuleProposal:
		n.PutInForce = []string{"ocmem accept " + r.ID}
	default: // a project rule new or changed since accepted
		n.PutInForce = []string{"ocmem accept " + r.ID, "ocmem trust"}
	}
	return n, nil
}

// projectWorktree is the folder the project's memory belongs to: the
// canonical project root for a .memory folder.
func (e *Engine) projectWorktree() string {
	if d := e.project.Dir; d != "" && filepath.Base(d) == ".memory" {
		return filepath.Dir(d)
	}
	return ""
}

// stopMessage is what the model reads instead of the call's result: which
// rule stopped it, where the rule lives, and what it may do instead.
func stopMessage(tool string, v *Verdict) string {
	var b strings.Builder
	if v.Rule.Broken != "" {
		fmt.Fprintf(&b, "ocmem: this %s call was stopped because a hard rule file the user wrote does not load: %s (%s); the rule in it guarded %s calls and is not in force, so such a call is left to the user. ", tool, v.Rule.Path, v.Rule.Broken, v.Tool)
		if v.Action == string(memory.ActionAsk) {
			b.WriteString("If no prompt could ask them here, it did not run. ")
		}
		b.WriteString("Do not try to get around this by another route; ask the user to fix the file (`ocmem inspect` names the problem) or to run the call themselves.")
		return b.String()
	}
	fmt.Fprintf(&b, "ocmem: this %s call was stopped by the hard rule %q (%s, %s), which the user set: ", tool, v.Rule.Summary, v.Rule.ID, v.Rule.Path)
	if v.Unreadable != "" {
		fmt.Fprintf(&b, "the rule guards %s calls and this one could not be read (%s), so it was not run. ", v.Tool, v.Unreadable)
	} else {
		fmt.Fprintf(&b, "%q matches its guard %s %q → %s. ", v.Subject, v.Tool, v.Pattern, v.Action)
	}
	if v.Action == string(memory.ActionAsk) && v.Unreadable == "" {
		b.WriteString("The rule leaves such a call to the user, and no prompt could ask them here, so it did not run. ")
	} else {
		b.WriteString("The call did not run. ")
	}
	b.WriteString("Do not try to get around the rule by another route; if the call is really needed, ask the user to run it themselves or to change the rule.")
	return b.String()
}
