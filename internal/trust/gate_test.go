package trust

import (
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/store"
)

// The gate's one decision of a rule's state, case by case: what every
// report of rules and both tiers apply.
func TestRuleGateState(t *testing.T) {
	text := []byte("- Use pnpm [tools/pnpm]\n")
	pinned := func(key, text string) map[string]map[string]string {
		return map[string]map[string]string{key: {Digest(text): text}}
	}
	trustedWith := &Gate{trusted: true, pins: pinned("tools/pnpm", string(text))}
	editedSince := &Gate{trusted: true, pins: pinned("tools/pnpm", "- Use npm [tools/pnpm]\n")}
	untrusted := &Gate{pins: map[string]map[string]string{}}
	rule := func(scope store.Scope) Rule {
		return Rule{Scope: scope, Kind: memory.KindRule, Key: "tools/pnpm", Text: text}
	}
	rootSec := Rule{Scope: store.Project, Kind: memory.KindRule, Key: RootMDSectionKey, Text: []byte("Never do these:\n- push to main")}
	with := func(r Rule, f func(*Rule)) Rule { f(&r); return r }
	for _, c := range []struct {
		name string
		g    *Gate
		r    Rule
		want RuleState
	}{
		{"not a rule", untrusted, with(rule(store.Project), func(r *Rule) { r.Kind = memory.KindFact }), ""},
		{"global", untrusted, rule(store.Global), RuleInForce},
		{"no trust list", &Gate{all: true, trusted: true}, rule(store.Project), RuleInForce},
		{"accepted", trustedWith, rule(store.Project), RuleInForce},
		{"accepted, untrusted project", &Gate{pins: trustedWith.pins}, rule(store.Project), RuleInForce},
		{"changed", editedSince, rule(store.Project), RuleChanged},
		{"changed, untrusted project", &Gate{pins: editedSince.pins}, rule(store.Project), RuleChanged},
		{"new", &Gate{trusted: true}, rule(store.Project), RuleNew},
		{"untrusted", untrusted, rule(store.Project), RuleUntrusted},
		{"superseded", trustedWith, with(rule(store.Project), func(r *Rule) { r.SupersededBy = "tools/bun" }), RuleSuperseded},
		{"proposal", trustedWith, with(rule(store.Global), func(r *Rule) { r.Kind = memory.KindRuleProposal }), RuleProposal},
		{"unfit ROOT.md", AllInForce(), with(rootSec, func(r *Rule) { r.Unfit = true }), RuleUnfit},
		{"ROOT.md section new", &Gate{trusted: true}, rootSec, RuleNew},
		{"ROOT.md section changed", &Gate{trusted: true, pins: pinned(RootMDSectionKey, "Always do these:\n- push to main")}, rootSec, RuleChanged},
		{"ROOT.md section accepted line by line before", &Gate{trusted: true, pins: pinned(RootMDKey, "- push to main")}, with(rootSec, func(r *Rule) { r.LineByLine = true }), RuleChanged},
		{"ROOT.md section accepted", &Gate{pins: pinned(RootMDSectionKey, "Never do these:\n- push to main")}, rootSec, RuleInForce},
		{"global ROOT.md section", untrusted, with(rootSec, func(r *Rule) { r.Scope = store.Global }), RuleInForce},
	} {
		if got := c.g.State(c.r); got != c.want {
			t.Errorf("%s: state %q, want %q", c.name, got, c.want)
		}
	}
}
