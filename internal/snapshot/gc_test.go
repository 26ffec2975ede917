package snapshot

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/ocmem/ocmem/internal/store"
)

// Spans that overlap and end in any order leave the process's collector
// setting as it was; while any is open the strictest applies. Two cold
// builds of two projects in one serve process once left it at the build's
// target for good: each put back what it found, the other's setting.
func TestTuneGCOverlapping(t *testing.T) {
	orig := debug.SetGCPercent(140)
	origLimit := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetGCPercent(orig)
	defer debug.SetMemoryLimit(origLimit)
	percent := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	limit := func() int64 { return debug.SetMemoryLimit(-1) }

	a := TuneGC(buildGCPercent, NoLimit)
	b := TuneGC(buildGCPercent, NoLimit)
	if p := percent(); p != buildGCPercent {
		t.Fatalf("two builds open: GC %d, want %d", p, buildGCPercent)
	}
	a() // the first to open ends first
	b()
	if p := percent(); p != 140 {
		t.Errorf("both builds ended: GC %d, want the process's 140", p)
	}

	w := TuneGC(-1, 1<<30) // a write turns the collector off, bounded
	c := TuneGC(buildGCPercent, NoLimit)
	if p, l := percent(), limit(); p != -1 || l != 1<<30 {
		t.Errorf("a write and a build open: GC %d, limit %d; want off and 1 GiB", p, l)
	}
	w()
	if p, l := percent(), limit(); p != buildGCPercent || l != math.MaxInt64 {
		t.Errorf("the build alone: GC %d, limit %d; want %d and none", p, l, buildGCPercent)
	}
	c()
	c() // a second call changes nothing
	if p, l := percent(), limit(); p != 140 || l != math.MaxInt64 {
		t.Errorf("all ended: GC %d, limit %d; want 140 and none", p, l)
	}

	// A process that turned the collector off keeps it off.
	debug.SetGCPercent(-1)
	d := TuneGC(buildGCPercent, NoLimit)
	if p := percent(); p != -1 {
		t.Errorf("a build in a process without GC turned it on (%d)", p)
	}
	d()
	if p := percent(); p != -1 {
		t.Errorf("after the build: GC %d, want off", p)
	}
}

// A build sets the collector only for a loader whose program may
// (Loader.TuneGC): the setting is the whole process's, and a library
// caller's process keeps its own.
func TestBuildTunesGCOnlyWhenAsked(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	percent := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	for _, tc := range []struct {
		tune bool
		want int
	}{
		{false, 100},
		{true, buildGCPercent},
	} {
		b := newBuilder(New(store.Root{}, store.Root{}, 0), nil, false, tc.tune)
		if p := percent(); p != tc.want {
			t.Errorf("TuneGC %v: GC %d during the build, want %d", tc.tune, p, tc.want)
		}
		if b.restoreGC != nil {
			b.restoreGC()
		}
		if p := percent(); p != 100 {
			t.Errorf("TuneGC %v: GC %d after the build, want the process's 100", tc.tune, p)
		}
	}
}
