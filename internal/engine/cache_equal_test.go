package engine

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/snapfile"
	"github.com/ocmem/ocmem/internal/snapshot"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/testenv"
)

// copyDevSet copies the development set's two roots to a temporary
// directory, so a test can change them, and returns the roots and queries.
func copyDevSet(t *testing.T) (roots, []string) {
	t.Helper()
	f, err := os.Open(filepath.Join(*devSet, "queries.jsonl"))
	if err != nil {
		testenv.Missing(t, "development set not found (%v)", err)
	}
	defer f.Close()
	var queries []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var q devQuery
		if json.Unmarshal(sc.Bytes(), &q) == nil && q.Q != "" {
			queries = append(queries, q.Q)
		}
	}
	r := newRoots(t)
	if err := os.CopyFS(r.global, os.DirFS(filepath.Join(*devSet, "global"))); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(r.project, os.DirFS(filepath.Join(*devSet, "project"))); err != nil {
		t.Fatal(err)
	}
	return r, queries
}

// fromCache reports whether an engine's snapshot came from a cache file.
func fromCache(e *Engine) bool { return e.snap.FromCache() }

// sameSnapshot fails unless two engines hold the same files and answer
// every query and the stable tiers identically.
func sameSnapshot(t *testing.T, name string, got, want *Engine, queries []string) {
	t.Helper()
	a, err := got.Load()
	if err != nil {
		t.Fatal(err)
	}
	b, err := want.Load()
	if err != nil {
		t.Fatal(err)
	}
	_, aGlobal := a.Span(store.Global)
	_, bGlobal := b.Span(store.Global)
	if a.Len() != b.Len() || aGlobal != bGlobal {
		t.Fatalf("%s: %d files (%d global), want %d (%d)", name, a.Len(), aGlobal, b.Len(), bGlobal)
	}
	for i := range a.Len() {
		fa, fb := a.File(i), b.File(i)
		ma, mb := *fa.Memory.Fields(), *fb.Memory.Fields()
		if fa.Scope != fb.Scope || fa.Rel != fb.Rel || fa.Path != fb.Path || fa.Size != fb.Size || !fa.ModTime.Equal(fb.ModTime) || !reflect.DeepEqual(ma, mb) {
			t.Errorf("%s: file %d: %+v %+v, want %+v %+v", name, i, fa, ma, fb, mb)
		}
	}
	if !reflect.DeepEqual(a.Problems, b.Problems) {
		t.Errorf("%s: problems %v, want %v", name, a.Problems, b.Problems)
	}
	for _, q := range queries {
		x, _ := got.Recall(q, RecallOptions{Limit: 10, Now: devNow})
		y, _ := want.Recall(q, RecallOptions{Limit: 10, Now: devNow})
		if !reflect.DeepEqual(x, y) {
			t.Errorf("%s: %q:\n got  %+v\n want %+v", name, q, x, y)
		}
	}
	sa, _ := got.Stable()
	sb, _ := want.Stable()
	if sa.System() != sb.System() {
		t.Errorf("%s: stable tiers differ", name)
	}
}

// An engine started from the load cache answers exactly as one that read
// every file, before and after files change under it.
func TestCacheEqualsFullLoad(t *testing.T) {
	r, queries := copyDevSet(t)
	defer func(m int64) { snapfile.MapMin = m }(snapfile.MapMin)
	snapfile.MapMin = 0 // map the cache where the platform can, however small
	open := func(cache string) *Engine {
		t.Setenv("OCMEM_CACHE_DIR", cache)
		e := New(Config{GlobalDir: r.global, ProjectDir: r.project})
		if _, err := e.Load(); err != nil {
			t.Fatal(err)
		}
		return e
	}
	cache := t.TempDir()
	cold := open(cache)
	matches, _ := filepath.Glob(filepath.Join(cache, "roots", "*.bin"))
	if len(matches) != 1 {
		t.Fatalf("want one cache file, got %v", matches)
	}
	warm := open(cache)
	if !fromCache(warm) {
		t.Fatal("the second engine did not start from the cache")
	}
	sameSnapshot(t, "from the cache", warm, cold, queries)

	// Edit one file (a supersede link too), add one, remove one, break one.
	later := time.Now().Add(3 * time.Second)
	edit := filepath.Join(r.project, "pitfalls", "zz-edit.md")
	writeString(t, edit, "---\nid: pitfalls/zz-edit\nkind: pitfall\nsummary: 部署前必须先跑数据库迁移 migrations\nload_when: [部署, deploy]\n---\nmake migrate\n")
	var some []string
	for _, sc := range []string{r.global, r.project} {
		ms, _ := filepath.Glob(filepath.Join(sc, "*", "*.md"))
		for _, m := range ms {
			if filepath.Base(m) != store.IndexFile && !strings.Contains(m, "zz-edit") {
				some = append(some, m)
			}
		}
	}
	data, _ := os.ReadFile(some[3])
	writeString(t, some[3], strings.Replace(string(data), "summary:", "summary: kafka retention 三十天,", 1))
	os.Chtimes(some[3], later, later)
	os.Remove(some[10])
	writeString(t, some[20], "---\nsummary: [broken\n---\n")
	changed := open(cache)
	if !fromCache(changed) {
		t.Fatal("the engine after the edits did not start from the cache")
	}
	sameSnapshot(t, "after edits", changed, open(t.TempDir()), queries)
	// The edits were written back: the next engine needs to read nothing.
	again := open(cache)
	sameSnapshot(t, "after edits, again", again, open(t.TempDir()), queries)
}

// A damaged cache is ignored, never trusted and never a crash.
func TestDamagedCache(t *testing.T) {
	r, queries := copyDevSet(t)
	cache := t.TempDir()
	t.Setenv("OCMEM_CACHE_DIR", cache)
	want := New(Config{GlobalDir: r.global, ProjectDir: r.project})
	if _, err := want.Load(); err != nil {
		t.Fatal(err)
	}
	p, _ := filepath.Glob(filepath.Join(cache, "roots", "*.bin"))
	good, err := os.ReadFile(p[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&snapshot.Loader{Global: want.global, Project: want.project}).OpenSegment(good, false); err != nil {
		t.Fatalf("the cache written does not open: %v", err)
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"truncated", good[:len(good)/2]},
		{"one byte flipped", func() []byte { b := []byte(string(good)); b[len(b)/3] ^= 0x40; return b }()},
		{"other version", func() []byte { b := []byte(string(good)); b[8] = 2; return b }()},
		{"format 2", []byte("OCMEMLC\ngarbage")},
	} {
		if _, err := (&snapshot.Loader{Global: want.global, Project: want.project}).OpenSegment(tc.data, false); err == nil {
			t.Errorf("%s: opened", tc.name)
		}
		os.WriteFile(p[0], tc.data, 0o644)
		e := New(Config{GlobalDir: r.global, ProjectDir: r.project})
		sameSnapshot(t, tc.name, e, want, queries[:20])
		if fromCache(e) {
			t.Errorf("%s: a damaged cache was used", tc.name)
		}
	}
	// Written by a build that analyzes text differently: the same format,
	// but terms this build would not produce.
	os.WriteFile(p[0], good, 0o644)
	e0 := New(Config{GlobalDir: r.global, ProjectDir: r.project})
	e0.loader.Analysis = func() string { return "a tokenizer that cuts differently" }
	sameSnapshot(t, "other analysis", e0, want, queries[:20])
	if fromCache(e0) {
		t.Error("a cache of another analysis was used")
	}

	// For other roots: the project root moved.
	moved := filepath.Join(filepath.Dir(r.project), "moved")
	os.Rename(r.project, moved)
	key, _ := snapshot.CachePath(r.global, moved)
	os.MkdirAll(filepath.Dir(key), 0o755)
	os.WriteFile(key, good, 0o644)
	e := New(Config{GlobalDir: r.global, ProjectDir: moved})
	if _, err := e.Load(); err != nil || fromCache(e) {
		t.Errorf("a cache of other roots was used (%v)", err)
	}
}

// Counting a recall updates the loaded snapshot's counters in place of a
// reload, and ranks as an engine that reads the new counters from disk.
func TestCountWithoutReload(t *testing.T) {
	r, queries := copyDevSet(t)
	e := New(Config{GlobalDir: r.global, ProjectDir: r.project})
	before, err := e.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range queries[:10] {
		if _, err := e.Recall(q, RecallOptions{Limit: 4, Count: true, Now: devNow}); err != nil {
			t.Fatal(err)
		}
	}
	after, _ := e.Load()
	if after.Corpus.Index() != before.Corpus.Index() {
		t.Error("counting reloaded the store")
	}
	if after.Shared() != before.Shared() {
		t.Error("counting dropped the stable tiers, which do not depend on counters")
	}
	bumped := 0
	for _, h := range after.Corpus.Columns().Hits {
		bumped += int(h)
	}
	if bumped == 0 {
		t.Fatal("no counter moved")
	}
	sameSnapshot(t, "after counting", e, New(Config{GlobalDir: r.global, ProjectDir: r.project}), queries)
}

// A memory file that is a symlink inside the root is compared by what it
// leads to: an unchanged one does not make every load rewrite the cache,
// an edit of its target is seen.
func TestCacheSymlinkedFile(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("OCMEM_CACHE_DIR", cache)
	root := t.TempDir()
	writeMem(t, root, "facts/a.md", "kafka retention is seven days")
	target := filepath.Join(root, "shared", "b.txt") // not a memory file itself
	writeTarget := func(summary string) {
		writeString(t, target, "---\nid: facts/b\nkind: fact\nsummary: "+summary+"\n---\nbody\n")
	}
	writeTarget("redis keys command blocks the server")
	if err := os.Symlink(filepath.Join("..", "shared", "b.txt"), filepath.Join(root, "facts", "b.md")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	open := func() *Engine {
		e := New(Config{ProjectDir: root})
		if _, err := e.Load(); err != nil {
			t.Fatal(err)
		}
		return e
	}
	first := open()
	if first.snap.Len() != 2 || first.snap.Lookup(store.Project, "facts/b") == nil {
		t.Fatalf("%d files, want 2, the link among them (%v)", first.snap.Len(), first.snap.Problems)
	}
	p, _ := filepath.Glob(filepath.Join(cache, "roots", "*.bin"))
	before, _ := os.Stat(p[0])
	second := open()
	after, _ := os.Stat(p[0])
	if !fromCache(second) || second.snap.Corpus.Index() == nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("an unchanged symlinked file made the load rewrite the cache")
	}
	writeTarget("redis scan replaces keys")
	later := time.Now().Add(2 * time.Second)
	os.Chtimes(target, later, later)
	if hits, _ := open().Recall("redis scan replaces", RecallOptions{}); len(hits) != 1 || hits[0].Summary != "redis scan replaces keys" {
		t.Errorf("the edit behind the link was not seen: %+v", hits)
	}
}

// A snapshot from the cache makes files on first use from any goroutine;
// recalls (counted or not), injections and reloads run at once (run with
// -race to check them).
func TestCacheConcurrentUse(t *testing.T) {
	r, queries := copyDevSet(t)
	cache := t.TempDir()
	t.Setenv("OCMEM_CACHE_DIR", cache)
	if _, err := New(Config{GlobalDir: r.global, ProjectDir: r.project}).Load(); err != nil { // writes the cache
		t.Fatal(err)
	}
	e := New(Config{GlobalDir: r.global, ProjectDir: r.project})
	if _, err := e.Load(); err != nil || !fromCache(e) {
		t.Fatalf("not from the cache: %v", err)
	}
	ms, _ := filepath.Glob(filepath.Join(r.project, "*", "*.md"))
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Go(func() {
			for i := range 30 {
				q := queries[(w*31+i)%len(queries)]
				switch i % 3 {
				case 0:
					if _, err := e.Recall(q, RecallOptions{Limit: 4, Count: w%2 == 0}); err != nil {
						t.Error(err)
					}
				case 1:
					if _, err := e.Inject(q, InjectOptions{}); err != nil {
						t.Error(err)
					}
				default:
					s, err := e.Load()
					if err != nil {
						t.Error(err)
						continue
					}
					for j := range s.Len() {
						if s.File(j).Memory.ID == "" {
							t.Error("a file without an id")
						}
					}
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 10 {
			if i%2 == 0 {
				e.Invalidate()
			} else {
				e.InvalidateFile(r.project, ms[i])
			}
		}
	})
	wg.Wait()
}
