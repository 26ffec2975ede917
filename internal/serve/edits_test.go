package serve

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEditsNameTheRootWritten: before a write, serve names the root it
// acts on and the files it touches, as the edit permission names them. A
// forget without a scope of an id only the global root holds deletes the
// global file, so the question must name it, not ".memory/…" (which the
// plugin asked about before, while the global memory was deleted); a
// remember without a scope goes to the project's root when there is one,
// else the global one.
func TestEditsNameTheRootWritten(t *testing.T) {
	d := t.TempDir()
	home := filepath.Join(d, "home")
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	global := filepath.Join(home, ".config", "opencode", "memory")
	repo := filepath.Join(d, "repo")
	for _, dir := range []string{filepath.Join(repo, ".git"), filepath.Join(repo, ".memory", "facts"), filepath.Join(global, "facts")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file := func(dir, id string) {
		body := fmt.Sprintf("---\nid: %s\nkind: fact\nsummary: %s\n---\n", id, id)
		if err := os.WriteFile(filepath.Join(dir, id+".md"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file(global, "facts/only-global")
	file(global, "facts/both")
	file(filepath.Join(repo, ".memory"), "facts/both")
	file(filepath.Join(repo, ".memory"), "facts/only-project")

	c := start(t, Config{GlobalDir: global})
	tests := []struct {
		name     string
		tool     string
		worktree string
		args     map[string]any
		scope    string
		files    string
		err      string
	}{
		{"forget, no scope, global id", "forget", repo, map[string]any{"id": "facts/only-global"}, "global", "~/.config/opencode/memory/facts/only-global.md", ""},
		{"forget, no scope, project id", "forget", repo, map[string]any{"id": "facts/only-project.md"}, "project", ".memory/facts/only-project.md", ""},
		{"forget, scope named", "forget", repo, map[string]any{"id": "facts/both", "scope": "global"}, "global", "~/.config/opencode/memory/facts/both.md", ""},
		{"forget, in both roots", "forget", repo, map[string]any{"id": "facts/both"}, "", "", "both roots"},
		{"forget, nowhere", "forget", repo, map[string]any{"id": "facts/none"}, "", "", "not found"},
		{"forget, leaves the root", "forget", repo, map[string]any{"id": "../x"}, "", "", `".."`},
		{"remember, no scope, in a project", "remember", repo, map[string]any{"category": "facts", "summary": "s", "body": "b", "kind": "fact"}, "project", ".memory/facts/*.md", ""},
		{"remember, no scope, no project (the home folder)", "remember", home, map[string]any{"category": "facts", "summary": "s", "body": "b", "kind": "fact"}, "global", "~/.config/opencode/memory/facts/*.md", ""},
		{"remember, supersedes", "remember", repo, map[string]any{"category": "notes", "summary": "s", "body": "b", "kind": "fact", "supersedes": "facts/only-project"}, "project", ".memory/notes/*.md .memory/facts/only-project.md", ""},
		{"remember, a key outside the contract", "remember", repo, map[string]any{"category": "facts", "summary": "s", "worktree": "/elsewhere"}, "", "", "worktree"},
		{"remember, a bad scope", "remember", repo, map[string]any{"category": "facts", "summary": "s", "scope": "elsewhere"}, "", "", "scope"},
		{"not a writer", "recall", repo, map[string]any{"query": "q"}, "", "", "not a tool that writes"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i + 1, "method": "edits",
				"params": map[string]any{"worktree": tt.worktree, "directory": tt.worktree, "tool": tt.tool, "args": tt.args}})
			fmt.Fprintln(c.in, string(line))
			if !c.out.Scan() {
				t.Fatal("no reply")
			}
			var resp struct {
				Result struct {
					Scope string
					Files []string
				}
				Error *struct{ Message string }
			}
			if err := json.Unmarshal(c.out.Bytes(), &resp); err != nil {
				t.Fatalf("%s: %v", c.out.Bytes(), err)
			}
			if tt.err != "" {
				if resp.Error == nil || !strings.Contains(resp.Error.Message, tt.err) {
					t.Fatalf("reply %s, want an error with %q", c.out.Bytes(), tt.err)
				}
				return
			}
			if resp.Error != nil {
				t.Fatalf("error %q", resp.Error.Message)
			}
			if got := strings.Join(resp.Result.Files, " "); resp.Result.Scope != tt.scope || got != tt.files {
				t.Errorf("scope %q, files %q; want %q, %q", resp.Result.Scope, got, tt.scope, tt.files)
			}
		})
	}
	// Asking wrote nothing.
	if _, err := os.Stat(filepath.Join(global, "facts", "only-global.md")); err != nil {
		t.Errorf("asking deleted: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(repo, ".memory", "notes")); len(ents) != 0 {
		t.Errorf("asking wrote %v", ents)
	}
}
