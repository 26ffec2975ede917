package engine

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
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

	if _, err := e.Trust(); err != nil {
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
	if _, err := e.Accept("project", "rules/dist"); err != nil {
		t.Fatal(err)
	}
	if v := mustCheck(t, e, build); v.Action != "deny" {
		t.Errorf("the accepted new guard: %+v", v)
	}
	if got := GuardedTools(mustGuards(t, e)); strings.Join(got, ",") != "apply_patch,bash,edit,multiedit,patch,shell,write" {
		t.Errorf("GuardedTools = %v", got)
	}

	// A person accepts the proposal: its guard binds as written.
	if _, err := e.Accept("global", "rules/proposed"); err != nil {
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
	e := rs.engine(Options{})
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
	e := rs.engine(Options{})
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
