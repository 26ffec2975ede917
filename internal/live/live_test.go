package live

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
)

// memo writes a memory file as a person would, without the engine.
func memo(t *testing.T, root, id, summary string) string {
	t.Helper()
	file := filepath.Join(root, filepath.FromSlash(id)+".md")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("---\nid: "+id+"\nkind: fact\nsummary: "+summary+"\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// summaries is what e holds now, as "id: summary" lines.
func summaries(t *testing.T, e *engine.Engine) string {
	t.Helper()
	snap, err := e.Load()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range snap.Files() {
		out = append(out, f.Memory.ID+": "+f.Memory.Summary)
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

func newEngine(t *testing.T, global, project string) *engine.Engine {
	t.Helper()
	t.Setenv("OCMEM_CACHE_DIR", t.TempDir())
	return engine.New(engine.Config{GlobalDir: global, ProjectDir: project})
}

// A hand edit reaches the next answer whether the roots are watched or
// polled, and a root made after the engine was added is seen once it
// exists.
func TestHandEditSeen(t *testing.T) {
	for _, mode := range []string{"watching", "polling"} {
		t.Run(mode, func(t *testing.T) {
			d := t.TempDir()
			g, p := filepath.Join(d, "global"), filepath.Join(d, "project")
			memo(t, g, "facts/port", "the API listens on 8080")
			e := newEngine(t, g, p) // the project root does not exist yet
			l := New(Config{})
			if mode == "watching" {
				l.Watch()
			}
			defer l.Close()
			l.Add(e)
			l.Fresh(e)
			if got := summaries(t, e); got != "facts/port: the API listens on 8080" {
				t.Fatalf("before the edits: %q", got)
			}
			memo(t, g, "facts/port", "the API listens on 9090")
			memo(t, p, "guides/deploy", "deploys need the release tag")
			want := "facts/port: the API listens on 9090\nguides/deploy: deploys need the release tag"
			deadline := time.Now().Add(5 * time.Second)
			for {
				l.Fresh(e)
				got := summaries(t, e)
				if got == want {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("after the edits: %q, want %q", got, want)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// A change is told to the engines over its root only, and to every
// listener, with the path as the watcher gave it.
func TestChangedReachesTheEnginesOfItsRoot(t *testing.T) {
	d := t.TempDir()
	g, p1, p2 := filepath.Join(d, "global"), filepath.Join(d, "one"), filepath.Join(d, "two")
	memo(t, p1, "facts/a", "first")
	memo(t, p2, "facts/b", "second")
	e1, e2 := newEngine(t, g, p1), newEngine(t, g, p2)
	l := New(Config{})
	l.Add(e1)
	l.Add(e2)
	l.Add(e1) // once is enough
	var mu sync.Mutex
	var heard []string
	l.OnChange(func(root, path string) {
		mu.Lock()
		defer mu.Unlock()
		heard = append(heard, root+"|"+path)
	})
	summaries(t, e1)
	summaries(t, e2)
	f1 := memo(t, p1, "facts/a", "first, edited")
	memo(t, p2, "facts/b", "second, edited")
	l.Changed(p1, f1)
	if got := summaries(t, e1); got != "facts/a: first, edited" {
		t.Errorf("the engine over the changed root: %q", got)
	}
	if got := summaries(t, e2); got != "facts/b: second" {
		t.Errorf("the engine over another root read it again: %q", got)
	}
	l.Changed(p2, "")
	if got := summaries(t, e2); got != "facts/b: second, edited" {
		t.Errorf("after the whole root changed: %q", got)
	}
	if want := []string{p1 + "|" + f1, p2 + "|"}; !slices.Equal(heard, want) {
		t.Errorf("listeners heard %q, want %q", heard, want)
	}
}

// With Recompile, a hand edit to a memory brings its category's index.md
// up to date once the root is quiet; a change to anything else compiles
// nothing.
func TestRecompileAfterHandEdit(t *testing.T) {
	d := t.TempDir()
	g, p := filepath.Join(d, "global"), filepath.Join(d, "project")
	e := newEngine(t, g, p)
	if _, err := e.Remember(engine.RememberRequest{Category: "facts", Kind: "fact", Summary: "nginx buffers uploads", Body: "client_max_body_size"}); err != nil {
		t.Fatal(err)
	}
	l := New(Config{Recompile: true, RecompileDelay: 10 * time.Millisecond})
	l.Add(e)
	index := filepath.Join(p, "facts", engine.IndexFile)
	before, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(p, "notes.txt")
	os.WriteFile(notes, []byte("not a memory"), 0o644)
	l.Changed(p, notes)
	l.Wait()
	if after, _ := os.ReadFile(index); string(after) != string(before) {
		t.Fatalf("a file that is no memory recompiled the root:\n%s", after)
	}
	file := memo(t, p, "facts/kafka", "kafka retention is per partition")
	l.Changed(p, file)
	l.Wait()
	if after, _ := os.ReadFile(index); !strings.Contains(string(after), "[kafka](kafka.md)") {
		t.Errorf("index.md after a memory was added by hand:\n%s", after)
	}
	if wrote, err := l.Recompile(p); err != nil || len(wrote) != 0 {
		t.Errorf("recompiling an up-to-date root: wrote %v, %v", wrote, err)
	}
}

func TestIsMemoryFile(t *testing.T) {
	root := filepath.Join("r", "project")
	for _, tc := range []struct {
		path string
		want bool
	}{
		{filepath.Join(root, "facts", "kafka.md"), true},
		{filepath.Join(root, "guides", "deploy", "prod.md"), true},
		{filepath.Join(root, "facts", engine.IndexFile), false},
		{filepath.Join(root, "ROOT.md"), false},
		{filepath.Join(root, "facts", ".kafka.md"), false},
		{filepath.Join(root, "facts", "kafka.txt"), false},
		{filepath.Join("r", "other", "facts", "kafka.md"), false},
		{"", false},
	} {
		if got := isMemoryFile(root, tc.path); got != tc.want {
			t.Errorf("isMemoryFile(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}
