package reliability_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestRepositoryWithLinkedMemoryRoot: a cloned repository that ships
// `.memory -> ..` sits among other repositories and folders that hold
// their own index.md. Every write through the CLI and serve (the model's
// memory_remember) is refused with an error naming the link; nothing
// outside the repository is created, changed or deleted; the memories
// there are still read.
func TestRepositoryWithLinkedMemoryRoot(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	w := newWorld(t)
	src := filepath.Join(w.dir, "src")
	files := map[string]string{
		"evil/.git/HEAD":        "ref: refs/heads/main\n",
		"evil/README.md":        "nothing to see\n",
		"other/.git/HEAD":       "ref: refs/heads/main\n",
		"other/index.md":        "# Other\n\nThe other project's own index.\n",
		"docs/index.md":         "# Docs\n\n- [setup](setup.md) — how to set up\n",
		"facts/index.md":        "# facts\n\nA folder named like a category, not ocmem's.\n",
		"notes/a-note.md":       "---\nid: notes/a-note\nkind: fact\nsummary: a note beside the repositories\ncreated: 1785585600000\nupdated: 1785585600000\n---\n",
		"lonely/index.md":       "# lonely\n\nonly an index here\n",
		"keys/id_ed25519.pub":   "ssh-ed25519 AAAA test\n",
		"other/src/main.go":     "package main\n",
		"other/.memory/ROOT.md": "# Other's memory\n",
	}
	for rel, data := range files {
		p := filepath.Join(src, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	evil := filepath.Join(src, "evil")
	if err := os.Symlink("..", filepath.Join(evil, ".memory")); err != nil {
		t.Fatal(err)
	}
	// ocmem finds the project root itself, as in a session of OpenCode
	// opened in the repository.
	w.project = filepath.Join(evil, ".memory")
	env := w.env[:0:0]
	for _, kv := range w.env {
		if !strings.HasPrefix(kv, "OCMEM_PROJECT=") {
			env = append(env, kv)
		}
	}
	w.env = env
	before := hashTree(t, src)

	refused := func(how, msg string) {
		t.Helper()
		if !strings.Contains(msg, "refusing to write: the project root "+filepath.Join(evil, ".memory")+" is a link to "+src) ||
			!strings.Contains(msg, "OCMEM_PROJECT") {
			t.Errorf("%s: want a refusal naming the link and its target, got: %s", how, msg)
		}
	}
	for _, args := range [][]string{
		{"remember", "--category", "notes", "--kind", "fact", "--summary", "deploy with make", "--body", "make deploy"},
		{"remember", "--scope", "project", "--category", "facts", "--kind", "fact", "--summary", "a fact", "--body", "a body"},
		{"compile"},
		{"forget", "--scope", "project", "notes/a-note"},
	} {
		r := w.ocmem(t, "", args...)
		if r.code == 0 {
			t.Errorf("ocmem %s: exit 0, want a refusal\n%s", strings.Join(args, " "), r.stdout)
			continue
		}
		refused("ocmem "+args[0], r.stderr)
	}

	sp := startServe(t, w)
	rep := sp.call(t, "remember", map[string]any{"sessionID": "ses_link", "worktree": evil, "directory": evil,
		"category": "notes", "kind": "fact", "summary": "the model remembers this", "body": "a body"})
	if rep.Error == nil {
		t.Errorf("serve remember: written: %s", rep.Result.Text)
	} else {
		refused("serve remember", rep.Error.Message)
	}
	sp.close(t)

	if d := treeDiff(before, hashTree(t, src)); len(d) > 0 {
		t.Errorf("refused writes changed the folders around the repository:\n%s", strings.Join(d, "\n"))
	}
	// Read-only use: the note beside the repositories is found.
	if r := w.ocmem(t, "", "recall", "note beside the repositories"); r.code != 0 || !strings.Contains(r.stdout, "notes/a-note") {
		t.Errorf("recall through the link: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if d := treeDiff(before, hashTree(t, src)); len(d) > 0 {
		t.Errorf("recall changed the folders around the repository:\n%s", strings.Join(d, "\n"))
	}
}
