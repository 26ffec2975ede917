package engine

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/store"
)

// A write's load whose listing fails keeps the cache it opened beside the
// listing for the next one, which starts from it: a mapping is never
// undone, so mapping the cache again at each failed load would pile them
// up.
func TestFailedListingKeepsTheOpenedCache(t *testing.T) {
	t.Setenv("OCMEM_CACHE_DIR", t.TempDir())
	rs := newRoots(t)
	mustRemember(t, rs.engine(options.Options{}), RememberRequest{Scope: store.Project, Category: "facts", Kind: memory.KindFact, Summary: "kafka keeps seven days"})
	loadCache(t, rs)
	// The global root is a file: its listing fails.
	if err := os.WriteFile(rs.global, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := rs.engine(options.Options{})
	if err := e.loadForWrite(); err == nil {
		t.Fatal("the load did not fail")
	}
	kept := e.loader.Unlisted()
	if kept == nil {
		t.Fatal("the cache opened beside the failed listing is not kept")
	}
	if err := os.Remove(rs.global); err != nil {
		t.Fatal(err)
	}
	if err := e.loadForWrite(); err != nil {
		t.Fatal(err)
	}
	if e.loader.Unlisted() != nil || e.writeView() == nil || !e.writeView().SameSource(kept) {
		t.Errorf("the kept cache was not used")
	}
	if _, err := e.Forget(store.Project, "facts/kafka-keeps-seven-days", FromPerson); err != nil {
		t.Fatal(err)
	}
}

// A fresh write turns the collector off up to a limit above the Go memory
// the process already holds: a limit below it (an engine in a process
// that holds more, as a benchmark's) makes the collector run without end.
func TestFreshWriteLimitIsAboveTheHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("OCMEM_CACHE_DIR", t.TempDir())
	rs := newRoots(t)
	mustRemember(t, rs.engine(options.Options{}), RememberRequest{Scope: store.Project, Category: "facts", Kind: memory.KindFact, Summary: "kafka keeps seven days"})
	loadCache(t, rs)
	held := make([]byte, 192<<20) // more than the write's headroom
	for i := 0; i < len(held); i += 4096 {
		held[i] = 1
	}
	e := rs.engine(options.Options{})
	if err := e.loadForWrite(); err != nil {
		t.Fatal(err)
	}
	limit := debug.SetMemoryLimit(-1)
	e.mu.Lock()
	e.gcRestore()
	e.mu.Unlock()
	if inUse := goMemory(); limit < inUse+writeHeadroom/2 {
		t.Errorf("the write's memory limit is %d MiB, with %d MiB held", limit>>20, inUse>>20)
	}
	runtime.KeepAlive(held)
}
