package store_test

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/store"
)

// TestCleanTemp: only writeAtomic's own temp names, only old ones, only
// regular files, never in a dot-folder or through a symlinked folder.
func TestCleanTemp(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	old := now.Add(-2 * store.TempMaxAge)
	files := []struct {
		rel    string
		old    bool
		remove bool
	}{
		{".ROOT.md.123456.tmp", true, true},
		{"facts/.a.md.42.tmp", true, true},
		{"facts/deep/.b.md.7.tmp", true, true},
		{".state.json.99.tmp", true, true},
		{"facts/.fresh.md.1.tmp", false, false},   // a writer may still be at work
		{"facts/.notes.tmp", true, false},         // a person's file: no digits
		{"facts/a.md.12.tmp", true, false},        // no leading dot
		{"facts/.a.md.x12.tmp", true, false},      // not digits
		{"facts/.a.md.12.tmp.bak", true, false},   // not the end
		{".git/.index.md.5.tmp", true, false},     // inside .git
		{".ocmem-cache/.c.md.5.tmp", true, false}, // any dot-folder
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if f.old {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	outside := t.TempDir()
	victim := filepath.Join(outside, ".victim.md.1.tmp")
	if err := os.WriteFile(victim, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(victim, old, old)
	if runtime.GOOS != "windows" {
		if err := os.Symlink(outside, filepath.Join(dir, "linked")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(victim, filepath.Join(dir, ".link.md.1.tmp")); err != nil {
			t.Fatal(err)
		}
	}

	removed := store.Root{Scope: store.Project, Dir: dir}.CleanTemp(now, store.TempMaxAge)
	var want []string
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.rel))
		_, err := os.Stat(p)
		if gone := os.IsNotExist(err); gone != f.remove {
			t.Errorf("%s: removed %v, want %v", f.rel, gone, f.remove)
		}
		if f.remove {
			want = append(want, p)
		}
	}
	slices.Sort(removed)
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("CleanTemp returned %v, want %v", removed, want)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("a file outside the root, reached by a symlink, was removed: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".link.md.1.tmp")); runtime.GOOS != "windows" && err != nil {
		t.Errorf("a symlink named like a temp file was removed: %v", err)
	}
}
