package snapshot

import (
	"math"
	"runtime/debug"
	"sync"
)

// The collector's settings are the process's, and a serve process runs
// one engine per project at once: a build or a write that set them and put
// back what it found would, overlapping another, put back the other's
// setting and leave the process there for good. gcSpans keeps every span
// that asks for a setting; the strictest asked applies while any is open,
// and the process's own setting comes back when the last one ends.
var gcSpans gcState

// gcState is the open spans and the setting to come back to.
type gcState struct {
	mu    sync.Mutex
	open  map[int]gcRequest
	next  int
	saved gcRequest // the process's setting before the first open span
}

// gcRequest is a span's collector setting: percent as debug.SetGCPercent
// takes it (-1: off), limit as debug.SetMemoryLimit (math.MaxInt64: none).
type gcRequest struct {
	percent int
	limit   int64
}

// TuneGC lowers the collector's target to percent (-1 turns it off) and
// its memory limit to limit (math.MaxInt64: unchanged) until the returned
// function is called; it never raises what the process or another open
// span set. The returned function is safe to call more than once.
func TuneGC(percent int, limit int64) (restore func()) {
	g := &gcSpans
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.open) == 0 {
		g.saved = gcRequest{percent: debug.SetGCPercent(100), limit: debug.SetMemoryLimit(-1)}
		debug.SetGCPercent(g.saved.percent)
		g.open = map[int]gcRequest{}
	}
	id := g.next
	g.next++
	g.open[id] = gcRequest{percent, limit}
	g.apply()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			delete(g.open, id)
			g.apply()
		})
	}
}

// apply sets the strictest of the saved setting and the open spans'; with
// no span open, the saved setting itself. g.mu is held.
func (g *gcState) apply() {
	eff := g.saved
	for _, r := range g.open {
		eff.percent = stricterPercent(eff.percent, r.percent)
		eff.limit = min(eff.limit, r.limit)
	}
	debug.SetGCPercent(eff.percent)
	debug.SetMemoryLimit(eff.limit)
}

// stricterPercent is the lower of two collector targets, -1 (off) being
// the lowest.
func stricterPercent(a, b int) int {
	if a < 0 || b < 0 {
		return -1
	}
	return min(a, b)
}

// NoLimit leaves the memory limit as it is.
const NoLimit = math.MaxInt64
