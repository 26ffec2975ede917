package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/store"
)

// A reload that reads only the changed file must give what a full load of
// the same files gives: the same hits, scores and reasons, the same stable
// tiers.
func TestInvalidateFileEqualsFullLoad(t *testing.T) {
	root := t.TempDir()
	for i := range 30 {
		writeMem(t, root, fmt.Sprintf("facts/m%02d.md", i), fmt.Sprintf("kafka topic %d retention 部署 %d", i, i%7))
	}
	writeMem(t, root, "rules/r.md", "部署前跑完测试")
	e := New(Config{ProjectDir: root})
	if _, err := e.Load(); err != nil {
		t.Fatal(err)
	}
	check := func(name string, patched bool) {
		t.Helper()
		if s, err := e.Load(); err != nil || s.Patched != patched {
			t.Errorf("%s: patched %v, want %v (%v)", name, s != nil && s.Patched, patched, err)
		}
		fresh := New(Config{ProjectDir: root})
		for _, q := range []string{"kafka retention", "部署 retention 3", "haiku"} {
			got, _ := e.Recall(q, RecallOptions{Now: devNow})
			want, _ := fresh.Recall(q, RecallOptions{Now: devNow})
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %q: reload %+v\nfull load %+v", name, q, got, want)
			}
		}
		a, _ := e.Stable()
		b, _ := fresh.Stable()
		if a.System() != b.System() {
			t.Errorf("%s: stable tiers differ:\n%s\n---\n%s", name, a.System(), b.System())
		}
	}
	touch := func(rel string) {
		later := time.Now().Add(time.Duration(len(rel)) * time.Second)
		os.Chtimes(filepath.Join(root, filepath.FromSlash(rel)), later, later)
	}

	// An edit in place: the patched path.
	writeMem(t, root, "facts/m03.md", "redis cluster failover 部署 切换")
	touch("facts/m03.md")
	e.InvalidateFile(root, filepath.Join(root, "facts", "m03.md"))
	check("edit", true)

	// Two edits, one of them a supersede link.
	writeMem(t, root, "facts/m04.md", "nginx buffers uploads")
	os.WriteFile(filepath.Join(root, "facts", "m05.md"), []byte("---\nid: facts/m05\nkind: fact\nsummary: kafka retention is now 30 days\nsupersedes: facts/m06\n---\n"), 0o644)
	touch("facts/m04.md")
	touch("facts/m05.md")
	e.InvalidateFile(root, filepath.Join(root, "facts", "m04.md"))
	e.InvalidateFile(root, filepath.Join(root, "facts", "m05.md"))
	check("two edits and a supersede", true)

	// Removed and added: the index renumbered around them, no listing.
	os.Remove(filepath.Join(root, "facts", "m07.md"))
	e.InvalidateFile(root, filepath.Join(root, "facts", "m07.md"))
	check("remove", true)
	writeMem(t, root, "facts/new.md", "kafka retention for the new topic")
	e.InvalidateFile(root, filepath.Join(root, "facts", "new.md"))
	check("add", true)

	// An event for a file as the snapshot holds it changes nothing.
	s0, _ := e.Load()
	e.InvalidateFile(root, filepath.Join(root, "facts", "new.md"))
	if s, _ := e.Load(); s != s0 {
		t.Error("an event for an unchanged file dropped the snapshot")
	}

	// Broken: the full path, which reports it.
	os.WriteFile(filepath.Join(root, "facts", "m08.md"), []byte("---\nsummary: [broken\n---\n"), 0o644)
	e.InvalidateFile(root, filepath.Join(root, "facts", "m08.md"))
	check("broken", false)

	// A compiled index changes nothing the engine reads.
	s, _ := e.Load()
	e.InvalidateFile(root, filepath.Join(root, "facts", "index.md"))
	if s2, _ := e.Load(); s2 != s {
		t.Error("an index.md event must not drop the snapshot")
	}
}

// TestInspectDoesNotHideAChange: Inspect loads without holding the engine's
// lock. A memory written and reported (Invalidate, as the watcher does)
// while that load runs must be in the next Load: the load's older snapshot
// answers Inspect, and is not kept as the current one.
func TestInspectDoesNotHideAChange(t *testing.T) {
	rs := newRoots(t)
	writeMemory(t, rs.project, &memory.Memory{ID: "facts/before", Kind: memory.KindFact, Summary: "before"})
	e := New(Config{GlobalDir: rs.global, ProjectDir: rs.project, Now: func() time.Time { return testNow }})
	for _, invalidate := range []func(path string){
		func(string) { e.Invalidate() },
		func(path string) { e.InvalidateFile(rs.project, path) },
	} {
		id := fmt.Sprintf("facts/during-%d", time.Now().UnixNano())
		e.seams.afterFreshLoad = func() {
			writeMemory(t, rs.project, &memory.Memory{ID: id, Kind: memory.KindFact, Summary: "written during the inspect"})
			invalidate(filepath.Join(rs.project, filepath.FromSlash(id)+".md"))
		}
		_, err := e.Inspect()
		e.seams.afterFreshLoad = nil
		if err != nil {
			t.Fatal(err)
		}
		s, err := e.Load()
		if err != nil {
			t.Fatal(err)
		}
		if s.Lookup(store.Project, id) == nil {
			t.Errorf("%s, written and reported during Inspect's load, is missing from the next Load", id)
		}
	}
}

// TestRecallCountsSurviveConcurrentLoads: a counted recall updates
// .state.json and then the current snapshot. A load running meanwhile
// must neither put back the counters from before the recall (Inspect's
// load installs its snapshot when it ends) nor count the recall twice (a
// load that read the new .state.json before the snapshot was updated).
func TestRecallCountsSurviveConcurrentLoads(t *testing.T) {
	t.Setenv("OCMEM_CACHE_DIR", t.TempDir())
	rs := newRoots(t)
	writeMemory(t, rs.project, &memory.Memory{ID: "facts/canary", Kind: memory.KindFact, Summary: "deploy with a canary first"})
	writeMemory(t, rs.project, &memory.Memory{ID: "facts/other", Kind: memory.KindFact, Summary: "the logs rotate daily"})
	e := New(Config{GlobalDir: rs.global, ProjectDir: rs.project, Now: func() time.Time { return testNow }})
	recall := func() {
		t.Helper()
		hits, err := e.Recall("canary", RecallOptions{Limit: 1, Count: true})
		if err != nil || len(hits) != 1 || hits[0].ID != "facts/canary" {
			t.Fatalf("recall: %v %v", hits, err)
		}
	}
	hitsNow := func() int {
		t.Helper()
		s, err := e.Load()
		if err != nil {
			t.Fatal(err)
		}
		return s.Corpus.Meta(s.Find(store.Project, "facts/canary.md")).Hits
	}

	recall() // 1
	// A recall counted while Inspect's load runs.
	e.seams.afterFreshLoad = recall // 2
	_, err := e.Inspect()
	e.seams.afterFreshLoad = nil
	if err != nil {
		t.Fatal(err)
	}
	if got := hitsNow(); got != 2 {
		t.Errorf("after a recall during Inspect's load: %d hits, want 2", got)
	}
	// A load between the recall's write of .state.json and its update of
	// the snapshot.
	e.seams.afterCountWrite = func() {
		e.Invalidate()
		if _, err := e.Load(); err != nil {
			t.Error(err)
		}
	}
	recall() // 3
	e.seams.afterCountWrite = nil
	if got := hitsNow(); got != 3 {
		t.Errorf("after a load during a recall's count: %d hits, want 3", got)
	}
}

// folderLog records the folders a FolderWatcher is told of.
type folderLog struct {
	mu  sync.Mutex
	got []string
}

func (f *folderLog) Folder(root, dir string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		rel = "outside: " + dir
	}
	f.got = append(f.got, filepath.Base(root)+":"+filepath.ToSlash(rel))
}

func (f *folderLog) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.got
	f.got = nil
	slices.Sort(out)
	return out
}

// A load tells the folder watcher of every folder of both roots it
// lists, so that the watcher need not walk them; a snapshot loaded before
// WatchFolders is listed again, so no folder goes untold.
func TestLoadTellsFolderWatcher(t *testing.T) {
	base := t.TempDir()
	global, project := filepath.Join(base, "g"), filepath.Join(base, "p")
	writeMem(t, global, "facts/a.md", "kafka topic retention")
	writeMem(t, project, "guides/deploy/b.md", "deploy steps")
	e := New(Config{GlobalDir: global, ProjectDir: project})
	if _, err := e.Load(); err != nil {
		t.Fatal(err)
	}
	log := &folderLog{}
	e.WatchFolders(log)
	if _, err := e.Load(); err != nil {
		t.Fatal(err)
	}
	want := []string{"g:.", "g:facts", "p:.", "p:guides", "p:guides/deploy"}
	if got := log.take(); !slices.Equal(got, want) {
		t.Errorf("told of %q, want %q", got, want)
	}
	if _, err := e.Load(); err != nil {
		t.Fatal(err)
	}
	if got := log.take(); got != nil {
		t.Errorf("a load of the cached snapshot told of %q", got)
	}
}
