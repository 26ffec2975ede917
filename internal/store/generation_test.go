package store_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/store"
)

// A memory write counts twice in the root's generation, once when it takes
// the lock and once when it lets go; a state update does not count.
func TestGeneration(t *testing.T) {
	r := store.Root{Scope: store.Project, Dir: filepath.Join(t.TempDir(), "root")}
	if g := r.Generation(); g != 0 {
		t.Fatalf("a root that does not exist: generation %d, want 0", g)
	}
	unlock, err := r.Lock()
	if err != nil {
		t.Fatal(err)
	}
	if g := r.Generation(); g != 1 {
		t.Errorf("holding the first lock: generation %d, want 1", g)
	}
	unlock()
	if g := r.Generation(); g != 2 {
		t.Errorf("after the first write: generation %d, want 2", g)
	}
	if err := r.UpdateState(func(s *store.State) { s.Hits = map[string]int{"facts/a": 1} }); err != nil {
		t.Fatal(err)
	}
	if g := r.Generation(); g != 2 {
		t.Errorf("after a state update: generation %d, want 2", g)
	}
	for range 3 {
		unlock, err := r.Lock()
		if err != nil {
			t.Fatal(err)
		}
		unlock()
	}
	if g := r.Generation(); g != 8 {
		t.Errorf("after four writes: generation %d, want 8", g)
	}
	// A lock file a person emptied, or one of an older ocmem, reads 0 and
	// counts on from there.
	if err := os.WriteFile(filepath.Join(r.Dir, store.LockFile), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if g := r.Generation(); g != 0 {
		t.Errorf("an empty lock file: generation %d, want 0", g)
	}
	unlock, err = r.Lock()
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if g := r.Generation(); g != 2 {
		t.Errorf("after a write from an empty lock file: generation %d, want 2", g)
	}
}

// CleanTempIn, and CleanListedTemp given what List saw, remove stale temp
// files in the folders named, not below or beside them, and leave fresh
// ones and other dot files. CleanListedTemp touches no file the listing did
// not name.
func TestCleanTempIn(t *testing.T) {
	for _, tc := range []struct {
		name   string
		listed bool
	}{{"CleanTempIn", false}, {"CleanListedTemp", true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			r := store.Root{Scope: store.Project, Dir: dir}
			old := time.Now().Add(-2 * store.TempMaxAge)
			mk := func(rel string, stale bool) string {
				p := filepath.Join(dir, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
				if stale {
					if err := os.Chtimes(p, old, old); err != nil {
						t.Fatal(err)
					}
				}
				return p
			}
			gone := []string{mk("facts/.a.md.123.tmp", true), mk(".ROOT.md.9.tmp", true)}
			kept := []string{mk("facts/.b.md.124.tmp", false), mk("facts/.notes", true), mk("rules/.c.md.5.tmp", true), mk("facts/sub/.d.md.6.tmp", true)}
			var removed []string
			if tc.listed {
				l, err := r.List(nil)
				if err != nil {
					t.Fatal(err)
				}
				want := []string{".ROOT.md.9.tmp", "facts/.a.md.123.tmp", "facts/.b.md.124.tmp", "facts/sub/.d.md.6.tmp", "rules/.c.md.5.tmp"}
				if !slices.Equal(l.Temps, want) {
					t.Fatalf("List's temps: %q, want %q", l.Temps, want)
				}
				// Made after the listing: not named by it, so left alone.
				kept = append(kept, mk("facts/.e.md.7.tmp", true))
				removed = r.CleanListedTemp(time.Now(), store.TempMaxAge, l.Temps, "facts", "")
			} else {
				removed = r.CleanTempIn(time.Now(), store.TempMaxAge, "facts", "")
			}
			slices.Sort(removed)
			slices.Sort(gone)
			if !slices.Equal(removed, gone) {
				t.Errorf("removed %q, want %q", removed, gone)
			}
			for _, p := range gone {
				if _, err := os.Stat(p); !os.IsNotExist(err) {
					t.Errorf("%s is still there", p)
				}
			}
			for _, p := range kept {
				if _, err := os.Stat(p); err != nil {
					t.Errorf("%s was removed", p)
				}
			}
		})
	}
}
