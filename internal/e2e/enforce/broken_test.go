package enforce

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// brokenGuard is a global rule's file a hand edit broke: a tab in an
// indent. Its bash guard cannot be read pattern by pattern.
const brokenGuard = "---\nid: rules/no-stop-files\nkind: rule\nsummary: Never create stop files\n" +
	"enforce:\n  bash:\n    \"touch stop-*\": deny\n\t\"touch halt-*\": deny\n---\nStop files halt the deploy robot.\n"

// TestBrokenRuleFileAsksV2: on OpenCode 2.0.15 a hard rule whose file
// stops loading is not silently off: a call of the tool it guarded does
// not run (its ask, which no prompt can put to the person from a hook),
// the model's tool result names the file; a tool it never named runs.
func TestBrokenRuleFileAsksV2(t *testing.T) {
	e := e2e.NewOcmemEnv2(t)
	path := filepath.Join(e.ConfigDir(), "memory", "rules", "no-stop-files.md")
	e.WriteFile(path, brokenGuard)
	e.WriteFile("notes.txt", "KEEP\n")
	e.Fake.SetResponder(fakellm.Script(
		fakellm.Call("shell", map[string]any{"command": "touch stop-x", "description": "run touch"}),
		fakellm.Call("edit", map[string]any{"path": filepath.Join(e.Project, "notes.txt"), "oldString": "KEEP", "newString": "CHANGED"}),
		fakellm.Text("done"),
	))
	e.Ask("make the files")
	if exists(e, "stop-x") {
		t.Error("stop-x exists: the broken rule's guarded tool ran unasked")
	}
	results := toolResults(e.Fake.Requests())
	if len(results) < 2 {
		t.Fatalf("%d tool results, want 2: %q", len(results), results)
	}
	t.Logf("what the model read of the stopped call: %q", results[0])
	if !strings.Contains(results[0], "does not load") || !strings.Contains(results[0], "no-stop-files.md") {
		t.Errorf("the stopped call's result does not name the file: %q", results[0])
	}
	if b, err := os.ReadFile(filepath.Join(e.Project, "notes.txt")); err != nil || string(b) != "CHANGED\n" {
		t.Errorf("notes.txt after an edit no rule guards: %q, %v", b, err)
	}
}
