package engine

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/store"
)

// findFrom, called along a sorted listing as unchanged calls it, finds what
// find finds, for paths in order, with gaps, repeated and out of order.
func TestFindFromAgreesWithFind(t *testing.T) {
	e := &Engine{}
	rng := rand.New(rand.NewPCG(7, 9))
	for round := range 200 {
		var global, project []string
		for i := range rng.IntN(12) {
			global = append(global, fmt.Sprintf("c%d/g%02d.md", rng.IntN(3), i))
		}
		for i := range rng.IntN(12) {
			project = append(project, fmt.Sprintf("c%d/p%02d.md", rng.IntN(3), i))
		}
		// The same names in both roots now and then.
		if round%3 == 0 && len(global) > 0 {
			project = append(project, global[0])
		}
		slices.Sort(global)
		slices.Sort(project)
		global, project = slices.Compact(global), slices.Compact(project)
		s := e.newSnapshot(len(global) + len(project))
		for _, rel := range global {
			s.add(rel, 0, time.Time{}, 0)
		}
		s.nGlobal = len(global)
		for _, rel := range project {
			s.add(rel, 0, time.Time{}, 0)
		}
		for _, scope := range []store.Scope{store.Global, store.Project} {
			// What a listing holds: most of the root's files, others
			// added, sorted; then now and then a path out of order.
			var listed []string
			for _, rel := range append(slices.Clone(global), project...) {
				if rng.IntN(4) > 0 {
					listed = append(listed, rel)
				}
			}
			for range rng.IntN(4) {
				listed = append(listed, fmt.Sprintf("c%d/n%d.md", rng.IntN(4), rng.IntN(20)))
			}
			slices.Sort(listed)
			if len(listed) > 1 && rng.IntN(3) == 0 {
				k := rng.IntN(len(listed))
				listed = append(listed, listed[k])
				if rng.IntN(2) == 0 {
					listed[len(listed)-1], listed[k] = listed[k], listed[len(listed)-1]
				}
			}
			at, hi := s.span(scope)
			for _, rel := range listed {
				var got int
				got, at = s.findFrom(at, hi, scope, rel)
				if want := s.find(scope, rel); got != want {
					t.Fatalf("round %d, %s: findFrom(%q) = %d, find = %d (rels %q, nGlobal %d, listed %q)", round, scope, rel, got, want, s.rels, s.nGlobal, listed)
				}
			}
		}
	}
}

// A write's load whose listing fails keeps the cache it opened beside the
// listing for the next one, which starts from it: a mapping is never
// undone, so mapping the cache again at each failed load would pile them
// up.
func TestFailedListingKeepsTheOpenedCache(t *testing.T) {
	t.Setenv("OCMEM_CACHE_DIR", t.TempDir())
	rs := newRoots(t)
	mustRemember(t, rs.engine(Options{}), RememberRequest{Scope: store.Project, Category: "facts", Kind: memory.KindFact, Summary: "kafka keeps seven days"})
	loadCache(t, rs)
	// The global root is a file: its listing fails.
	if err := os.WriteFile(rs.global, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := rs.engine(Options{})
	if err := e.loadForWrite(); err == nil {
		t.Fatal("the load did not fail")
	}
	kept := e.unlisted
	if kept == nil {
		t.Fatal("the cache opened beside the failed listing is not kept")
	}
	if err := os.Remove(rs.global); err != nil {
		t.Fatal(err)
	}
	if err := e.loadForWrite(); err != nil {
		t.Fatal(err)
	}
	if e.unlisted != nil || e.writeView() == nil || e.writeView().seg != kept.seg {
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
	mustRemember(t, rs.engine(Options{}), RememberRequest{Scope: store.Project, Category: "facts", Kind: memory.KindFact, Summary: "kafka keeps seven days"})
	loadCache(t, rs)
	held := make([]byte, 192<<20) // more than the write's headroom
	for i := 0; i < len(held); i += 4096 {
		held[i] = 1
	}
	e := rs.engine(Options{})
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
