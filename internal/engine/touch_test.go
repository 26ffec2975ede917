package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/testenv"
)

const (
	touchOld  = "1700000000000" // updated as committed
	touchEdit = 1760000000000   // the hand edit's modification time, ms
)

func touchMemory(body, updated string) string {
	return "---\nid: facts/kafka\nkind: fact\n# retention is per topic\nsummary: kafka retention\ncreated: " + touchOld +
		"\nupdated: " + updated + "\nload_when: [kafka]\n---\n" + body + "\n"
}

// touchRepo is a project root at repo/.memory, in a git repository when
// inGit, holding facts/kafka.md (committed when in git).
type touchRepo struct {
	t          *testing.T
	repo, root string
	e          *Engine
}

func newTouchRepo(t *testing.T, inGit bool) *touchRepo {
	t.Helper()
	x := &touchRepo{t: t, repo: t.TempDir()}
	x.root = filepath.Join(x.repo, ".memory")
	if inGit {
		if _, err := exec.LookPath("git"); err != nil {
			testenv.Missing(t, "git is not installed")
		}
		t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(x.repo, "no-gitconfig"))
		t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
		x.git("init", "-q")
	}
	x.write("facts/kafka.md", touchMemory("Retention is seven days.", touchOld), time.UnixMilli(1700000000000))
	if inGit {
		x.git("add", ".")
		x.git("commit", "-q", "-m", "seed")
	}
	x.e = New(Config{ProjectDir: x.root, TouchEdits: true})
	if _, err := x.e.Load(); err != nil {
		t.Fatal(err)
	}
	return x
}

func (x *touchRepo) git(args ...string) string {
	x.t.Helper()
	return testenv.Git(x.t, x.repo, args...)
}

// write writes a file of the root, with mtime, and tells the engine as
// the watcher does.
func (x *touchRepo) write(rel, data string, mtime time.Time) {
	x.t.Helper()
	p := filepath.Join(x.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		x.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		x.t.Fatal(err)
	}
	x.setTime(rel, mtime)
}

func (x *touchRepo) setTime(rel string, mtime time.Time) {
	x.t.Helper()
	p := filepath.Join(x.root, filepath.FromSlash(rel))
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		x.t.Fatal(err)
	}
	if x.e != nil {
		x.e.InvalidateFile(x.root, p)
	}
}

func (x *touchRepo) read(rel string) string {
	x.t.Helper()
	data, err := os.ReadFile(filepath.Join(x.root, filepath.FromSlash(rel)))
	if err != nil {
		x.t.Fatal(err)
	}
	return string(data)
}

func TestTouchEdited(t *testing.T) {
	edited := touchMemory("Retention is thirty days.", touchOld)
	touched := strings.Replace(edited, "updated: "+touchOld, "updated: 1760000000000", 1)
	at := time.UnixMilli(touchEdit)
	tests := []struct {
		name  string
		inGit bool
		heard bool // as serve, after the watcher's events; else as `ocmem compile`
		edit  func(x *touchRepo)
		want  map[string]string // file → content after; every other file unchanged
		wrote []string
	}{{
		name: "hand edit in git", inGit: true, heard: true,
		edit:  func(x *touchRepo) { x.write("facts/kafka.md", edited, at) },
		want:  map[string]string{"facts/kafka.md": touched},
		wrote: []string{"project:facts/kafka.md"},
	}, {
		name: "hand edit in git, compile", inGit: true,
		edit:  func(x *touchRepo) { x.write("facts/kafka.md", edited, at) },
		want:  map[string]string{"facts/kafka.md": touched},
		wrote: []string{"project:facts/kafka.md"},
	}, {
		name: "hand edit outside git", heard: true,
		edit:  func(x *touchRepo) { x.write("facts/kafka.md", edited, at) },
		want:  map[string]string{"facts/kafka.md": touched},
		wrote: []string{"project:facts/kafka.md"},
	}, {
		// The engine held the edited version; git then puts back the
		// committed one: a change, but git's.
		name: "checkout of another commit", inGit: true, heard: true,
		edit: func(x *touchRepo) {
			x.write("facts/kafka.md", edited, at)
			x.git("commit", "-q", "-am", "thirty")
			if _, err := x.e.TouchEdited(store.Project, true); err != nil {
				x.t.Fatal(err)
			}
			x.git("checkout", "-q", "HEAD~1")
			x.setTime("facts/kafka.md", at.Add(time.Hour))
		},
		want: map[string]string{"facts/kafka.md": touchMemory("Retention is seven days.", touchOld)},
	}, {
		name: "checkout of another commit, compile", inGit: true,
		edit: func(x *touchRepo) {
			x.write("facts/kafka.md", edited, at)
			x.git("commit", "-q", "-am", "thirty")
			x.git("checkout", "-q", "HEAD~1")
			x.setTime("facts/kafka.md", at.Add(time.Hour))
		},
		want: map[string]string{"facts/kafka.md": touchMemory("Retention is seven days.", touchOld)},
	}, {
		name: "updated set by hand", inGit: true, heard: true,
		edit: func(x *touchRepo) {
			x.write("facts/kafka.md", touchMemory("Retention is thirty days.", "1750000000000"), at)
		},
		want: map[string]string{"facts/kafka.md": touchMemory("Retention is thirty days.", "1750000000000")},
	}, {
		name: "does not parse", heard: true,
		edit: func(x *touchRepo) {
			x.write("facts/kafka.md", strings.Replace(edited, "kind: fact", "kind: [fact", 1), at)
		},
		want: map[string]string{"facts/kafka.md": strings.Replace(edited, "kind: fact", "kind: [fact", 1)},
	}, {
		name: "only the date moved", heard: true,
		edit: func(x *touchRepo) { x.setTime("facts/kafka.md", at) },
		want: map[string]string{"facts/kafka.md": touchMemory("Retention is seven days.", touchOld)},
	}, {
		name: "moved in git", inGit: true, heard: true,
		edit: func(x *touchRepo) {
			x.git("mv", ".memory/facts/kafka.md", ".memory/facts/kafka-retention.md")
			moved := strings.Replace(touchMemory("Retention is seven days.", touchOld), "id: facts/kafka", "id: facts/kafka-retention", 1)
			x.write("facts/kafka-retention.md", moved, at)
			x.e.InvalidateFile(x.root, filepath.Join(x.root, "facts", "kafka.md"))
		},
		want: map[string]string{"facts/kafka-retention.md": strings.Replace(touchMemory("Retention is seven days.", touchOld), "id: facts/kafka", "id: facts/kafka-retention", 1)},
	}, {
		name: "moved outside git", heard: true,
		edit: func(x *touchRepo) {
			moved := strings.Replace(edited, "id: facts/kafka", "id: facts/kafka-retention", 1)
			if err := os.Remove(filepath.Join(x.root, "facts", "kafka.md")); err != nil {
				x.t.Fatal(err)
			}
			x.e.InvalidateFile(x.root, filepath.Join(x.root, "facts", "kafka.md"))
			x.write("facts/kafka-retention.md", moved, at)
		},
		want: map[string]string{"facts/kafka-retention.md": strings.Replace(edited, "id: facts/kafka", "id: facts/kafka-retention", 1)},
	}, {
		// superseded_by, as another ocmem process's forget or accept
		// writes it: not the memory's text.
		name: "bookkeeping only", heard: true,
		edit: func(x *touchRepo) {
			x.write("facts/kafka.md", strings.Replace(touchMemory("Retention is seven days.", touchOld), "load_when", "superseded_by: facts/other\nload_when", 1), at)
		},
		want: map[string]string{"facts/kafka.md": strings.Replace(touchMemory("Retention is seven days.", touchOld), "load_when", "superseded_by: facts/other\nload_when", 1)},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newTouchRepo(t, tt.inGit)
			tt.edit(x)
			wrote, err := x.e.TouchEdited(store.Project, tt.heard)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(wrote, tt.wrote) {
				t.Errorf("wrote %v, want %v", wrote, tt.wrote)
			}
			for rel, want := range tt.want {
				if got := x.read(rel); got != want {
					t.Errorf("%s:\n%s\nwant:\n%s", rel, got, want)
				}
			}
			if again, err := x.e.TouchEdited(store.Project, tt.heard); err != nil || len(again) > 0 {
				t.Errorf("a second pass wrote %v (%v)", again, err)
			}
		})
	}
}

// The date moved is what recall and the compiled files see next.
func TestTouchEditedSeenByLoad(t *testing.T) {
	x := newTouchRepo(t, false)
	x.write("facts/kafka.md", touchMemory("Retention is thirty days.", touchOld), time.UnixMilli(touchEdit))
	if _, err := x.e.TouchEdited(store.Project, true); err != nil {
		t.Fatal(err)
	}
	s, err := x.e.Load()
	if err != nil {
		t.Fatal(err)
	}
	if m := s.MemoryAt(store.Project, "facts/kafka.md"); m == nil || m.Updated != touchEdit {
		t.Errorf("loaded %+v; want updated %d", m, int64(touchEdit))
	}
}
