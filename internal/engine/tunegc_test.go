package engine

import (
	"runtime/debug"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/store"
)

// A fresh process's write turns the collector off only in an engine its
// program allowed to (Config.TuneGC, which cmd/ocmem sets): a library
// caller's process keeps its own setting.
func TestWriteTunesGCOnlyWhenAsked(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("OCMEM_CACHE_DIR", t.TempDir())
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	percent := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	rs := newRoots(t)
	mustRemember(t, rs.engine(options.Options{}), RememberRequest{Scope: store.Project, Category: "facts", Kind: memory.KindFact, Summary: "kafka keeps seven days"})
	// From a cache, as a command run after another: no cold build turns
	// the collector on again during the write.
	loadCache(t, rs)
	for _, tc := range []struct {
		tune bool
		want int
	}{
		{false, 100},
		{true, -1},
	} {
		e := New(Config{GlobalDir: rs.global, ProjectDir: rs.project, TuneGC: tc.tune})
		if err := e.loadForWrite(); err != nil {
			t.Fatal(err)
		}
		if p := percent(); p != tc.want {
			t.Errorf("TuneGC %v: GC %d during the write, want %d", tc.tune, p, tc.want)
		}
		e.mu.Lock()
		e.gcRestore()
		e.mu.Unlock()
		if p := percent(); p != 100 {
			t.Errorf("TuneGC %v: GC %d after the write, want the process's 100", tc.tune, p)
		}
	}
}
