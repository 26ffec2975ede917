package engine

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/snapshot"
	"github.com/ocmem/ocmem/internal/store"
)

// A temp file left by a writer killed mid-write is removed by the next
// write (not by a read), as is the cache's; fresh ones are left alone.
func TestKilledWritersTempFilesCleaned(t *testing.T) {
	rs := newRoots(t)
	cache := t.TempDir()
	t.Setenv("OCMEM_CACHE_DIR", cache)
	old := time.Now().Add(-2 * store.TempMaxAge)
	mk := func(p string, stale bool) string {
		t.Helper()
		writeString(t, p, "half a memory")
		if stale {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	stale := mk(filepath.Join(rs.project, "facts", ".x.md.2196.tmp"), true)
	fresh := mk(filepath.Join(rs.project, "facts", ".y.md.3001.tmp"), false)
	e := New(Config{GlobalDir: rs.global, ProjectDir: rs.project})
	if _, err := e.Inject("anything", InjectOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err != nil {
		t.Fatalf("a read removed a file: %v", err)
	}
	mustRemember(t, e, RememberRequest{Scope: store.Project, Category: "facts", Kind: memory.KindFact, Summary: "a write"})
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale temp file is still there after a write: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a fresh temp file was removed: %v", err)
	}

	// The load cache: a killed writer's temp file beside the cache file.
	p, err := snapshot.CachePath(rs.global, rs.project)
	if err != nil {
		t.Fatal(err)
	}
	staleCache := mk(p+".4242.tmp", true)
	os.Remove(p)
	if _, err := New(Config{GlobalDir: rs.global, ProjectDir: rs.project}).Load(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("no cache written: %v", err)
	}
	if _, err := os.Stat(staleCache); !os.IsNotExist(err) {
		t.Errorf("the cache's stale temp file is still there: %v", err)
	}
}

// A long-lived engine looks for a folder's temp files again a while after
// its last write there looked.
func TestKilledWritersTempFilesCleanedLater(t *testing.T) {
	rs := newRoots(t)
	t.Setenv("OCMEM_CACHE_DIR", t.TempDir())
	now := time.Now()
	e := New(Config{GlobalDir: rs.global, ProjectDir: rs.project, Now: func() time.Time { return now }})
	mustRemember(t, e, RememberRequest{Scope: store.Project, Category: "facts", Kind: memory.KindFact, Summary: "a first write", Body: "b"})
	stale := filepath.Join(rs.project, "facts", ".z.md.4711.tmp")
	writeString(t, stale, "half a memory")
	old := now.Add(-2 * store.TempMaxAge)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	now = now.Add(tempCleanEvery)
	mustRemember(t, e, RememberRequest{Scope: store.Project, Category: "facts", Kind: memory.KindFact, Summary: "a later write", Body: "b"})
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale temp file is still there after a later write: %v", err)
	}
}
