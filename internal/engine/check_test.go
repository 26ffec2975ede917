package engine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/secrets/secrettest"
	"github.com/ocmem/ocmem/internal/store"
)

// guardedFile is a memory file with an enforce block.
func guardedFile(id, kind, summary, enforce string) string {
	return "---\nid: " + id + "\nkind: " + kind + "\nsummary: " + summary + "\nenforce:\n" + enforce + "---\nbody of " + id + "\n"
}

func bashCall(line string) ToolCall {
	return ToolCall{Tool: "bash", Args: map[string]any{"command": line}}
}

func mustCheck(t *testing.T, e *Engine, c ToolCall) *Verdict {
	t.Helper()
	e.Invalidate()
	v, err := e.Check(c)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Only rules in force bind: a global rule; a project rule once the user
// trusts the project, and again after a change of its guards only once
// accepted again; never a proposal.
func TestCheckOnlyRulesInForce(t *testing.T) {
	rs := newRoots(t)
	writeString(t, filepath.Join(rs.global, "rules", "push.md"),
		guardedFile("rules/push", "rule", "never force-push", "  bash: { \"git push --force*\": deny, \"git push -f*\": deny }\n"))
	writeString(t, filepath.Join(rs.global, "rules", "proposed.md"),
		guardedFile("rules/proposed", "rule-proposal", "never run make clean", "  bash: { \"make clean*\": deny }\n"))
	writeString(t, filepath.Join(rs.project, "rules", "dist.md"),
		guardedFile("rules/dist", "rule", "dist is generated", "  edit: { \"dist/**\": deny }\n"))
	ft := &fakeTrust{}
	e := New(Config{GlobalDir: rs.global, ProjectDir: rs.project, Now: func() time.Time { return testNow }, Trust: ft})
	ft.e = e
	root := t.TempDir()
	edit := ToolCall{Tool: "edit", Args: map[string]any{"filePath": "dist/app.js"}, Root: root}

	v := mustCheck(t, e, bashCall("true && git push -f origin main"))
	if v.Action != "deny" || v.Rule == nil || v.Rule.ID != "rules/push" || v.Subject != "git push -f origin main" {
		t.Fatalf("a global rule's guard: %+v", v)
	}
	for _, want := range []string{"never force-push", "rules/push", filepath.Join(rs.global, "rules", "push.md"), "ask the user"} {
		if !strings.Contains(v.Message, want) {
			t.Errorf("the model's message lacks %q: %s", want, v.Message)
		}
	}
	if v := mustCheck(t, e, bashCall("make clean")); v.Stopped() {
		t.Errorf("a proposal's guard stopped a call: %+v", v)
	}
	if v := mustCheck(t, e, edit); v.Stopped() {
		t.Errorf("an untrusted project's guard stopped a call: %+v", v)
	}

	if _, err := e.Trust(""); err != nil {
		t.Fatal(err)
	}
	if v := mustCheck(t, e, edit); v.Action != "deny" || v.Rule.ID != "rules/dist" {
		t.Fatalf("after trust, the project's guard: %+v", v)
	}

	// A pull changes the guard: the rule is no longer the one accepted,
	// so neither its old nor its new guard binds until accepted again.
	writeString(t, filepath.Join(rs.project, "rules", "dist.md"),
		guardedFile("rules/dist", "rule", "dist is generated", "  edit: { \"build/**\": deny }\n"))
	build := edit
	build.Args = map[string]any{"filePath": "build/app.js"}
	if v := mustCheck(t, e, edit); v.Stopped() {
		t.Errorf("the old guard of a changed rule: %+v", v)
	}
	if v := mustCheck(t, e, build); v.Stopped() {
		t.Errorf("the new guard of a changed rule binds without acceptance: %+v", v)
	}
	rules, err := e.Rules()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if r.ID == "rules/dist" && (r.Status != RuleChanged || len(r.Enforce) != 1 || r.Enforce[0].Pattern != "build/**") {
			t.Errorf("ocmem rules shows the changed rule as %s with guards %+v", r.Status, r.Enforce)
		}
	}
	if _, err := e.Accept("project", "rules/dist", ""); err != nil {
		t.Fatal(err)
	}
	if v := mustCheck(t, e, build); v.Action != "deny" {
		t.Errorf("the accepted new guard: %+v", v)
	}
	if got := GuardedTools(mustGuards(t, e)); strings.Join(got, ",") != "apply_patch,bash,edit,multiedit,patch,shell,write" {
		t.Errorf("GuardedTools = %v", got)
	}

	// A person accepts the proposal: its guard binds as written.
	if _, err := e.Accept("global", "rules/proposed", ""); err != nil {
		t.Fatal(err)
	}
	if v := mustCheck(t, e, bashCall("make clean")); v.Action != "deny" || v.Rule.ID != "rules/proposed" {
		t.Errorf("the accepted proposal's guard: %+v", v)
	}
}

func mustGuards(t *testing.T, e *Engine) []GuardedRule {
	t.Helper()
	g, err := e.Guards()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// A guard edited mid-session binds from the next call after the reload.
func TestCheckFollowsEdits(t *testing.T) {
	rs := newRoots(t)
	path := filepath.Join(rs.global, "rules", "push.md")
	writeString(t, path, guardedFile("rules/push", "rule", "never force-push", "  bash: { \"git push -f*\": deny }\n"))
	e := rs.engine(options.Options{})
	if v := mustCheck(t, e, bashCall("git reset --hard")); v.Stopped() {
		t.Fatalf("before the edit: %+v", v)
	}
	writeString(t, path, guardedFile("rules/push", "rule", "never force-push", "  bash: { \"git push -f*\": deny, \"git reset --hard*\": ask }\n"))
	e.InvalidateFile(rs.global, path)
	if v, err := e.Check(bashCall("git reset --hard")); err != nil || v.Action != "ask" {
		t.Errorf("after the edit: %+v, %v", v, err)
	}
}

// A wrong enforce block: the rule is still a rule (its text is in the
// tier), the wrong entry is reported with its line, and the good ones
// still bind.
func TestCheckMalformedBlock(t *testing.T) {
	rs := newRoots(t)
	path := filepath.Join(rs.global, "rules", "push.md")
	writeString(t, path, guardedFile("rules/push", "rule", "never force-push", "  bash:\n    \"git push -f*\": deny\n    \"git push --force*\": forbid\n"))
	e := rs.engine(options.Options{})
	if v := mustCheck(t, e, bashCall("git push -f")); v.Action != "deny" {
		t.Errorf("the good guard: %+v", v)
	}
	if v := mustCheck(t, e, bashCall("git push --force")); v.Stopped() {
		t.Errorf("the wrong guard: %+v", v)
	}
	if rules := mustStable(t, e).Rules; !strings.Contains(rules, "never force-push") || !strings.Contains(rules, `enforced: bash "git push -f*" → deny`) {
		t.Errorf("the rules tier:\n%s", rules)
	}
	rep, err := e.Inspect()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, i := range rep.Issues {
		if i.Check == "enforce" {
			found = true
			if i.Path != path || i.Line != 8 || i.Severity != SevError || !strings.Contains(i.Message, `"forbid"`) {
				t.Errorf("inspect: %v", i)
			}
		}
	}
	if !found || rep.OK() {
		t.Errorf("inspect did not report the wrong guard: %v", rep.Issues)
	}
}

// A model proposes a rule with guards: the file is a proposal carrying
// the block, its guard stops nothing, and once a person accepts it the
// guard stops the call, in either root.
func TestModelProposedGuardBindsOnceAccepted(t *testing.T) {
	for _, scope := range []store.Scope{store.Global, store.Project} {
		t.Run(string(scope), func(t *testing.T) {
			rs := newRoots(t)
			// A model writes the global root only from a trusted project.
			ft := &fakeTrust{trusted: scope == store.Global}
			e := New(Config{GlobalDir: rs.global, ProjectDir: rs.project, Now: func() time.Time { return testNow }, Trust: ft})
			ft.e = e
			w, err := e.Remember(RememberRequest{
				Scope: scope, Category: "rules", Kind: memory.KindRule, Summary: "Never force-push main", Body: "Open a pull request.",
				Source: FromModel, Enforce: []memory.Guard{
					{Tool: "bash", Pattern: "git push --force*", Action: memory.ActionDeny},
					{Tool: "edit", Pattern: "dist/**", Action: memory.ActionAsk},
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			if w.Kind != memory.KindRuleProposal {
				t.Fatalf("stored as %s, want a rule proposal", w.Kind)
			}
			data, err := os.ReadFile(w.Path)
			if err != nil {
				t.Fatal(err)
			}
			m, err := memory.Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			want := []memory.Guard{{Tool: "bash", Pattern: "git push --force*", Action: "deny"}, {Tool: "edit", Pattern: "dist/**", Action: "ask"}}
			if !slices.Equal(m.Enforce, want) || len(m.EnforceProblems) > 0 {
				t.Fatalf("the proposal's file holds guards %+v (%v), want %+v", m.Enforce, m.EnforceProblems, want)
			}
			push := bashCall("git push --force origin main")
			if v := mustCheck(t, e, push); v.Stopped() {
				t.Fatalf("a proposal's guard stopped a call: %+v", v)
			}
			// The person reads the guards before accepting: they are
			// part of the text accepting puts in force (and pins).
			rules, err := e.Rules()
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(rules, func(r RuleEntry) bool { return r.ID == w.ID })
			if i < 0 || rules[i].Status != RuleProposal || !strings.Contains(rules[i].Text, `enforced: bash "git push --force*" → deny`) {
				t.Fatalf("ocmem rules lists the proposal as %+v", rules)
			}
			if _, err := e.Accept(scope, w.ID, ""); err != nil {
				t.Fatal(err)
			}
			if v := mustCheck(t, e, push); v.Action != "deny" || v.Rule == nil || v.Rule.ID != w.ID {
				t.Errorf("the accepted proposal's guard: %+v", v)
			}
		})
	}
}

// Guards a file would not hold as given, or on a memory that is not a
// rule, refuse the write: nothing is written.
func TestRememberRefusesBadGuards(t *testing.T) {
	deny := memory.Guard{Tool: "bash", Pattern: "rm -rf *", Action: memory.ActionDeny}
	for _, c := range []struct {
		name   string
		kind   memory.Kind
		guards []memory.Guard
		want   string
	}{
		{"not a rule", memory.KindPitfall, []memory.Guard{deny}, "enforce is for a rule only"},
		{"unknown action", memory.KindRule, []memory.Guard{{Tool: "bash", Pattern: "rm *", Action: "block"}}, `want deny, ask or allow, got "block"`},
		{"pattern twice", memory.KindRule, []memory.Guard{deny, deny}, `pattern "rm -rf *" appears twice`},
		{"a secret", memory.KindRule, []memory.Guard{{Tool: "bash", Pattern: "curl -H 'Authorization: Bearer ghp_R8nT2kLq9vXw4ZbYc7HdJ3mF6pSa1uEgK0oW' *", Action: "deny"}}, "enforce"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rs := newRoots(t)
			e := New(Config{GlobalDir: rs.global, Now: func() time.Time { return testNow }})
			_, err := e.Remember(RememberRequest{Category: "rules", Kind: c.kind, Summary: "Never delete the tree", Body: "It holds the build.", Source: FromModel, Enforce: c.guards})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one with %q", err, c.want)
			}
			if entries, _ := os.ReadDir(filepath.Join(rs.global, "rules")); len(entries) > 0 {
				t.Errorf("%d files written by a refused write", len(entries))
			}
		})
	}
}

// TestCheckMasksTheRulesSecret: a rule written by hand with a token in its
// summary stops a call, and the model's message and the verdict name the
// rule with the token masked, as the rules tier shows it.
func TestCheckMasksTheRulesSecret(t *testing.T) {
	rs := newRoots(t)
	pat := "ghp_" + secrettest.NewGen(t.Name()).S(secrettest.Alnum, 36)
	writeString(t, filepath.Join(rs.global, "rules", "push.md"),
		guardedFile("rules/push", "rule", "push only with "+pat, "  bash: { \"git push --force*\": deny }\n"))
	e := New(Config{GlobalDir: rs.global, ProjectDir: rs.project, Now: func() time.Time { return testNow }})
	v := mustCheck(t, e, bashCall("git push --force"))
	if v.Action != "deny" || v.Rule == nil {
		t.Fatalf("the rule did not stop the call: %+v", v)
	}
	masked := "push only with ghp_" + strings.Repeat("*", 36)
	if strings.Contains(v.Message, pat) || strings.Contains(v.Rule.Summary, pat) || !strings.Contains(v.Message, masked) || v.Rule.Summary != masked {
		t.Errorf("the verdict shows the rule's token:\n%s\n%q", v.Message, v.Rule.Summary)
	}
}
