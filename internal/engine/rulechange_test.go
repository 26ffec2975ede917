package engine

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/store"
)

// Only a person removes or replaces a hard rule in force: a model's or an
// extraction's forget of a rule (or a pinned memory) is refused, and its
// supersede of a rule is stored as a rule proposal that leaves the rule in
// force until a person accepts it.

const ruleSummary = "Never force-push to main"

func seedRule(t *testing.T, e *Engine, scope store.Scope) *Written {
	t.Helper()
	return mustRemember(t, e, RememberRequest{Scope: scope, Category: "rules", Kind: memory.KindRule,
		Summary: ruleSummary, Body: "RULE-BODY: open a pull request instead.", Source: FromPerson})
}

func rulesInForce(t *testing.T, e *Engine) string {
	t.Helper()
	inj, err := e.Stable()
	if err != nil {
		t.Fatal(err)
	}
	return inj.Rules
}

func TestForgetRuleNeedsPerson(t *testing.T) {
	for _, src := range []Source{FromModel, FromExtraction} {
		for _, scope := range []store.Scope{store.Global, store.Project} {
			rs := newRoots(t)
			e := rs.engine(options.Options{})
			rule := seedRule(t, e, scope)
			pinned := mustRemember(t, e, RememberRequest{Scope: scope, Category: "facts", Kind: memory.KindFact,
				Summary: "The staging database is read-only on Fridays", Body: "b", Pinned: true, Source: FromPerson})
			for _, w := range []*Written{rule, pinned} {
				_, err := e.Forget(scope, w.ID, src)
				if !errors.Is(err, ErrNeedsPerson) || !strings.Contains(err.Error(), "ocmem forget "+w.ID) {
					t.Errorf("source %d, %s: forget %s: %v, want a refusal that names `ocmem forget`", src, scope, w.ID, err)
				}
				if _, err := os.Stat(w.Path); err != nil {
					t.Errorf("source %d, %s: %s deleted: %v", src, scope, w.ID, err)
				}
			}
			if !strings.Contains(rulesInForce(t, e), ruleSummary) {
				t.Errorf("source %d, %s: the rule left the hard-rules tier:\n%s", src, scope, rulesInForce(t, e))
			}
			// A person may.
			if _, err := e.Forget(scope, rule.ID, FromPerson); err != nil {
				t.Errorf("a person's forget of the rule: %v", err)
			}
		}
	}
}

func TestForgetBrokenFileNeedsPerson(t *testing.T) {
	rs := newRoots(t)
	e := rs.engine(options.Options{})
	path := rs.dir(store.Project) + "/rules/broken.md"
	writeString(t, path, "---\nid: rules/broken\nkind: rule\nsummary: [unclosed\n---\nbody\n")
	if _, err := e.Forget(store.Project, "rules/broken", FromModel); !errors.Is(err, ErrNeedsPerson) {
		t.Errorf("a model's forget of a file that does not parse: %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the broken file was deleted: %v", err)
	}
}

func TestSupersedeRuleBecomesProposal(t *testing.T) {
	for _, tt := range []struct {
		name             string
		ruleScope, scope store.Scope
		src              Source
	}{
		{"model, global rule, global memory", store.Global, store.Global, FromModel},
		{"extraction, global rule, global memory", store.Global, store.Global, FromExtraction},
		{"model, project rule, project memory", store.Project, store.Project, FromModel},
		{"model, global rule, project memory", store.Global, store.Project, FromModel},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs := newRoots(t)
			e := rs.engine(options.Options{})
			rule := seedRule(t, e, tt.ruleScope)
			w, err := e.Remember(RememberRequest{Scope: tt.scope, Category: "facts", Kind: memory.KindFact,
				Summary: "Force-pushing is fine now", Body: "b", Supersedes: rule.ID, Source: tt.src})
			if err != nil {
				t.Fatal(err)
			}
			if w.Kind != memory.KindRuleProposal || w.ReplacesRule != rule.ID || w.Superseded != "" {
				t.Errorf("written %+v, want a rule proposal that would replace %s", w, rule.ID)
			}
			if m := readMemory(t, rule.Path); m.SupersededBy != "" {
				t.Errorf("the rule was marked superseded_by %s", m.SupersededBy)
			}
			if m := readMemory(t, w.Path); m.Supersedes != rule.ID || m.Kind != memory.KindRuleProposal {
				t.Errorf("the proposal: kind %s, supersedes %q", m.Kind, m.Supersedes)
			}
			if got := rulesInForce(t, e); !strings.Contains(got, ruleSummary) {
				t.Errorf("the rule left the hard-rules tier:\n%s", got)
			}
			// The rule is still recalled: a proposal replaces nothing yet.
			hits, err := e.Recall("force-push main", RecallOptions{Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, h := range hits {
				found = found || h.ID == rule.ID
			}
			if !found {
				t.Errorf("recall lost the rule while the proposal waits: %v", hits)
			}
			mustInspectClean(t, e)
			if tt.ruleScope != tt.scope {
				return // accepting a project rule over a global one leaves the global file alone
			}
			// Accepting it replaces the rule.
			if _, err := e.Accept(tt.scope, w.ID, ""); err != nil {
				t.Fatal(err)
			}
			if m := readMemory(t, rule.Path); m.SupersededBy != w.ID {
				t.Errorf("after accept the rule's superseded_by is %q, want %s", m.SupersededBy, w.ID)
			}
			if got := rulesInForce(t, e); strings.Contains(got, ruleSummary) || !strings.Contains(got, "Force-pushing is fine now") {
				t.Errorf("after accept the rules tier:\n%s", got)
			}
		})
	}
}

// A person's supersede of a rule replaces it at once, as before.
func TestPersonSupersedesRule(t *testing.T) {
	rs := newRoots(t)
	e := rs.engine(options.Options{})
	rule := seedRule(t, e, store.Global)
	w := mustRemember(t, e, RememberRequest{Scope: store.Global, Category: "rules", Kind: memory.KindRule,
		Summary: "Force-push only to your own branches", Body: "b", Supersedes: rule.ID, Source: FromPerson})
	if w.Kind != memory.KindRule || w.Superseded != rule.ID {
		t.Errorf("written %+v", w)
	}
	if m := readMemory(t, rule.Path); m.SupersededBy != w.ID {
		t.Errorf("superseded_by %q", m.SupersededBy)
	}
}
