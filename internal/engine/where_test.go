package engine

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/store"
)

// TestCompileRemovesOnlyItsOwnIndexes: compile drops an index.md left in
// a folder that no longer holds memories only when compile wrote it (its
// marker line), and never removes a folder.
func TestCompileRemovesOnlyItsOwnIndexes(t *testing.T) {
	rs := newRoots(t)
	e := rs.engine(options.Options{})
	w := mustRemember(t, e, RememberRequest{Category: "conventions", Kind: memory.KindFact, Summary: "Tabs, not spaces"})
	// A folder of the root that holds a person's own index.md, and one
	// with a hand-written index.md that has no memory beside it.
	own := filepath.Join(rs.project, "design", store.IndexFile)
	writeFile(t, own, "# Design notes\n\nOur own table of contents.\n")
	alone := filepath.Join(rs.project, "drafts", store.IndexFile)
	writeFile(t, alone, "# drafts\n\nnothing generated here\n")
	if _, err := e.Forget("", w.ID, FromPerson); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Compile(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{own, alone} {
		if !fileExists(p) {
			t.Errorf("compile removed %s, which it did not write", p)
		}
	}
	stale := filepath.Join(rs.project, "conventions", store.IndexFile)
	if fileExists(stale) {
		t.Errorf("compile left its own stale %s:\n%s", stale, readString(t, stale))
	}
	if info, err := os.Stat(filepath.Dir(stale)); err != nil || !info.IsDir() {
		t.Errorf("compile removed the folder conventions/: %v", err)
	}
}

// TestLinkedProjectRootIsReadOnly: a project root found in a repository
// that is a link is read, never written; the error says why.
func TestLinkedProjectRootIsReadOnly(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(d, "elsewhere")
	there := New(Config{GlobalDir: filepath.Join(d, "global"), ProjectDir: elsewhere})
	a := mustRemember(t, there, RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "a memory living elsewhere"})
	repo := filepath.Join(d, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(repo, ".memory")
	if err := os.Symlink("../elsewhere", link); err != nil {
		t.Fatal(err)
	}
	before := tree(t, elsewhere)
	e := New(Config{GlobalDir: filepath.Join(d, "global"), ProjectDir: link})
	if _, err := e.Remember(RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "new", Body: "a body"}); !errors.Is(err, store.ErrRootElsewhere) ||
		!strings.Contains(err.Error(), link+" is a link to "+elsewhere) || !strings.Contains(err.Error(), "OCMEM_PROJECT") {
		t.Errorf("Remember: %v, want a refusal naming the link and its target", err)
	}
	if _, err := e.Compile(); !errors.Is(err, store.ErrRootElsewhere) {
		t.Errorf("Compile: %v, want a refusal", err)
	}
	if _, err := e.Forget(store.Project, a.ID, FromPerson); !errors.Is(err, store.ErrRootElsewhere) {
		t.Errorf("Forget: %v, want a refusal", err)
	}
	if d := treeDiff(before, tree(t, elsewhere)); len(d) > 0 {
		t.Errorf("refused writes changed the link's target: %v", d)
	}
	// Read-only use: the memory there is still recalled.
	hits, err := e.Recall("memory living elsewhere", RecallOptions{})
	if err != nil || len(hits) == 0 {
		t.Errorf("Recall through the link: %v, %v", hits, err)
	}
	// A root the user chose is written wherever it leads.
	chosen := New(Config{GlobalDir: filepath.Join(d, "global"), ProjectDir: link, ProjectChosen: true})
	if _, err := chosen.Remember(RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "new", Body: "a body"}); err != nil {
		t.Errorf("Remember to a chosen linked root: %v", err)
	}
}

// TestLinkedFolderInsideRoot: a category folder that is a link is not
// written through, in either root.
func TestLinkedFolderInsideRoot(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	rs := newRoots(t)
	outside := filepath.Join(filepath.Dir(rs.project), "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{rs.project, rs.global} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(dir, "facts")); err != nil {
			t.Fatal(err)
		}
	}
	e := rs.engine(options.Options{})
	for _, scope := range []store.Scope{store.Project, store.Global} {
		_, err := e.Remember(RememberRequest{Scope: scope, Category: "facts", Kind: memory.KindFact, Summary: "through a link", Body: "a body"})
		if err == nil || !strings.Contains(err.Error(), "link") {
			t.Errorf("%s: Remember: %v, want a refusal", scope, err)
		}
		// Compile writes the index.md of every category that holds
		// memories or is configured: facts is one.
		if _, err := e.Compile(); err == nil || !strings.Contains(err.Error(), "link") {
			t.Errorf("Compile: %v, want a refusal", err)
		}
	}
	if d := treeDiff(map[string]string{"./": ""}, tree(t, outside)); len(d) > 0 {
		t.Errorf("written through the link: %v", d)
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
