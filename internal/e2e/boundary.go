package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/fakellm"
)

// ToolArgsCannotNameAnotherRepository is the check both OpenCode lines run
// in e: a model that adds "worktree" and "directory" to a memory tool's
// arguments (OpenCode passes keys the tool does not declare through) is
// refused, and the repository it names is neither written, read nor
// deleted from.
func ToolArgsCannotNameAnotherRepository(t testing.TB, e *Env) {
	t.Helper()
	other := filepath.Join(filepath.Dir(e.Project), "other")
	victim := filepath.Join(other, ".memory", "facts", "victim.md")
	if err := os.MkdirAll(filepath.Dir(victim), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(other, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(victim, []byte("---\nid: facts/victim\nkind: fact\nsummary: VICTIM-SUMMARY the other repository's plan\nload_when: [plan]\n---\nVICTIM-BODY\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	at := map[string]any{"worktree": other, "directory": other}
	with := func(args map[string]any) map[string]any {
		for k, v := range at {
			args[k] = v
		}
		return args
	}
	e.Fake.SetResponder(fakellm.Script(
		fakellm.Call("memory_remember", with(map[string]any{"category": "facts", "kind": "fact", "summary": "planted", "body": "PLANTED-BODY"})),
		fakellm.Call("memory_recall", with(map[string]any{"query": "VICTIM-SUMMARY plan"})),
		fakellm.Call("memory_forget", with(map[string]any{"id": "facts/victim"})),
		fakellm.Text("done"),
	))
	e.Ask("save, search and forget, please")

	reqs := fakellm.Agent(e.Fake.Requests())
	if len(reqs) != 4 {
		t.Fatalf("%d agent requests, want 4 (three tool calls and the end)", len(reqs))
	}
	for i, tool := range []string{"memory_remember", "memory_recall", "memory_forget"} {
		r := reqs[i+1].LastToolResult()
		if !strings.Contains(r, "does not take") || !strings.Contains(r, `"worktree"`) {
			t.Errorf("%s with another repository's root: %q", tool, r)
		}
		if strings.Contains(r, "VICTIM") {
			t.Errorf("%s returned the other repository's memory: %q", tool, r)
		}
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("the other repository's memory is gone: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(other, ".memory"))
	if len(entries) != 1 {
		t.Errorf("the other repository's .memory changed: %v", names(entries))
	}
	if n := CountFiles(t, filepath.Join(e.Project, ".memory")); n != 0 {
		t.Errorf("a refused remember wrote %d files in the session's own repository", n)
	}
}

func names(entries []os.DirEntry) []string {
	var out []string
	for _, d := range entries {
		out = append(out, d.Name())
	}
	return out
}
