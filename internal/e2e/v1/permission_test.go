package v1

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// TestWritesFollowEditPermission: memory_remember and memory_forget write
// files, so they follow the agent's edit permission, as OpenCode's own edit
// tools do. The Plan agent (read-only) and a config that denies edits get a
// refusal that says why, and nothing changes (the default agent writes:
// TestMemoryTools).
func TestWritesFollowEditPermission(t *testing.T) {
	e := e2e.NewOcmemEnv(t)
	keep := e.RememberUnrelated()
	memDir := filepath.Join(e.Project, ".memory")
	calls := func() {
		e.Fake.SetResponder(fakellm.Script(
			fakellm.Call("memory_remember", map[string]any{
				"category": "decisions", "kind": "decision",
				"summary": "Use SQLite for the session cache", "body": "PLAN-BODY: one file, no server.",
			}),
			fakellm.Call("memory_forget", map[string]any{"id": keep.ID}),
			fakellm.Text("done"),
		))
	}
	written := filepath.Join(memDir, "decisions", "use-sqlite-session-cache.md")
	refused := func(name string) {
		t.Helper()
		reqs := fakellm.Agent(e.Fake.Requests())
		if len(reqs) < 3 {
			t.Fatalf("%s: %d agent requests, want 3", name, len(reqs))
		}
		reqs = reqs[len(reqs)-3:]
		for i, tool := range []string{"memory_remember", "memory_forget"} {
			if r := reqs[i+1].LastToolResult(); !strings.Contains(r, "not allowed to edit files") || !strings.Contains(r, "nothing was written") && !strings.Contains(r, "nothing was deleted") {
				t.Errorf("%s: %s result: %q", name, tool, r)
			}
		}
		if _, err := os.Stat(written); !os.IsNotExist(err) {
			t.Errorf("%s: remember wrote %s", name, written)
		}
		if _, err := os.Stat(keep.Path); err != nil {
			t.Errorf("%s: forget deleted %s", name, keep.Path)
		}
	}

	// The Plan agent may not edit.
	calls()
	e.MustRun("run", "--agent", "plan", "remember and forget, please")
	refused("plan agent")

	// A config that denies edits to every agent.
	e.Config["permission"] = map[string]any{"edit": "deny"}
	e.WriteConfig()
	calls()
	e.Ask("remember and forget, please")
	refused("edit: deny")
	// The default agent with the default permission writes and deletes:
	// TestMemoryTools.
}
