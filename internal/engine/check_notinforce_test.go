package engine

import (
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestCheckNotInForce: for a call the rules in force allow, the rule not
// in force that would stop it, with how to put it in force; nothing for a
// superseded rule, nor for a call no rule guards.
func TestCheckNotInForce(t *testing.T) {
	rs := newRoots(t)
	writeString(t, filepath.Join(rs.global, "rules", "clean.md"),
		guardedFile("rules/clean", "rule-proposal", "never run make clean", "  bash: { \"make clean*\": deny }\n"))
	writeString(t, filepath.Join(rs.project, "rules", "dist.md"),
		guardedFile("rules/dist", "rule", "dist is generated", "  edit: { \"dist/**\": deny }\n"))
	writeString(t, filepath.Join(rs.project, "rules", "old.md"),
		"---\nid: rules/old\nkind: rule\nsummary: old\nsuperseded_by: rules/dist\nenforce:\n  edit: { \"old/**\": deny }\n---\nold\n")
	ft := &fakeTrust{}
	e := New(Config{GlobalDir: rs.global, ProjectDir: rs.project, Now: func() time.Time { return testNow }, Trust: ft})
	ft.e = e
	root := t.TempDir()
	edit := func(p string) ToolCall {
		return ToolCall{Tool: "edit", Args: map[string]any{"filePath": p}, Root: root}
	}
	for _, tt := range []struct {
		name string
		call ToolCall
		id   string // "": none
		fix  []string
	}{
		{"an untrusted project's rule", edit("dist/app.js"), "rules/dist", []string{"ocmem trust"}},
		{"a global proposal", bashCall("make clean"), "rules/clean", []string{"ocmem accept --scope global rules/clean"}},
		{"a superseded rule", edit("old/a.js"), "", nil},
		{"no guard", edit("src/a.js"), "", nil},
	} {
		n, err := e.CheckNotInForce(tt.call)
		switch {
		case err != nil:
			t.Fatalf("%s: %v", tt.name, err)
		case tt.id == "" && n != nil:
			t.Errorf("%s: %+v; want none", tt.name, n)
		case tt.id != "" && (n == nil || n.Rule.ID != tt.id || n.Action != "deny" || !slices.Equal(n.PutInForce, tt.fix)):
			t.Errorf("%s: %+v; want %s, deny, put in force by %q", tt.name, n, tt.id, tt.fix)
		}
		if v := mustCheck(t, e, tt.call); v.Stopped() {
			t.Errorf("%s: a rule not in force stopped the call: %+v", tt.name, v)
		}
	}

	if _, err := e.Trust(""); err != nil {
		t.Fatal(err)
	}
	if n, err := e.CheckNotInForce(edit("dist/app.js")); err != nil || n != nil {
		t.Errorf("trusted, the rule is in force, not among those out of it: %+v, %v", n, err)
	}
	writeString(t, filepath.Join(rs.project, "rules", "dist.md"),
		guardedFile("rules/dist", "rule", "dist is generated", "  edit: { \"build/**\": deny }\n"))
	e.Invalidate()
	n, err := e.CheckNotInForce(edit("build/app.js"))
	if err != nil || n == nil || n.Status != RuleChanged || !slices.Equal(n.PutInForce, []string{"ocmem accept rules/dist", "ocmem trust"}) {
		t.Errorf("changed since accepted: %+v, %v", n, err)
	}
}
