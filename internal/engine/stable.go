package engine

import (
	"sync"

	"github.com/ocmem/ocmem/internal/guard"
	"github.com/ocmem/ocmem/internal/prompt"
	"github.com/ocmem/ocmem/internal/tiers"
	"github.com/ocmem/ocmem/internal/trust"
)

// stableTiers are the rules and outline of a snapshot, computed once per
// snapshot (Snapshot.Shared) and shared with a snapshot of the same files.
type stableTiers struct {
	text [2]string   // rules, outline
	gate *trust.Gate // the trust decisions the rules were rendered with
	// news are the project's rules not in force that the person should
	// hear of (InjectedRuleNews).
	news []ProjectRule
	// guards are the rules in force that carry guards, in the tier's
	// order: what Check decides with.
	guards     []GuardedRule
	guardRules []guard.Rule // guards as the matcher takes them
	// problems are the files that do not load, read once per snapshot;
	// the rule-looking ones among them add their asks to guards.
	problems []LoadProblem
	// rootMD is the project's ROOT.md section against those decisions,
	// made on first use (InjectedRootMD).
	rootMDOnce sync.Once
	rootMD     *ProjectRule
}

// stableOf computes a snapshot's stable tiers once, with the trust
// decisions read then.
func (e *Engine) stableOf(s *Snapshot) *stableTiers {
	sh := s.Shared()
	sh.Once.Do(func() { sh.Value = e.stableTiersOf(s) })
	return sh.Value.(*stableTiers)
}

// stableTiersOf computes a snapshot's stable tiers.
func (e *Engine) stableTiersOf(s *Snapshot) *stableTiers {
	st := &stableTiers{gate: e.gate()}
	st.text[0], st.text[1], st.news, st.guards = tiers.Render(s, e.roots(), e.project, st.gate, e.opts.MaxOutlineCharsOrDefault())
	st.problems = loadProblems(s, st.gate)
	st.guards = append(st.guards, brokenGuards(st.problems)...)
	st.guardRules = guardRules(st.guards)
	// A hand-written memory may hold a secret no write would have taken:
	// the tiers show it masked.
	st.text[0], st.text[1] = prompt.Mask(st.text[0]), prompt.Mask(st.text[1])
	return st
}

// stableGate is the trust decisions of the current snapshot's rules tier,
// so the bodies tier agrees with it.
func (e *Engine) stableGate() *trust.Gate {
	s, err := e.Load()
	if err != nil {
		return e.gate()
	}
	return e.stableOf(s).gate
}

// gate reads the trust list.
func (e *Engine) gate() *trust.Gate {
	if e.trust == nil {
		return trust.AllInForce()
	}
	return trust.NewGate(e.trust.State())
}

// guardRules is the guards of rules as the matcher takes them: made once
// per snapshot with the rules tier, not on every call.
func guardRules(rules []GuardedRule) []guard.Rule {
	out := make([]guard.Rule, len(rules))
	for i, r := range rules {
		gs := make([]guard.Guard, len(r.Guards))
		for j, g := range r.Guards {
			gs[j] = guard.Guard{Tool: g.Tool, Pattern: g.Pattern, Action: string(g.Action)}
		}
		out[i] = guard.Rule{Guards: gs}
	}
	return out
}
