package snapshot

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/store"
)

// findFrom, called along a sorted listing as unchanged calls it, finds what
// find finds, for paths in order, with gaps, repeated and out of order.
func TestFindFromAgreesWithFind(t *testing.T) {
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
		s := New(store.Root{}, store.Root{}, len(global)+len(project))
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
			at, hi := s.Span(scope)
			for _, rel := range listed {
				var got int
				got, at = s.findFrom(at, hi, scope, rel)
				if want := s.Find(scope, rel); got != want {
					t.Fatalf("round %d, %s: findFrom(%q) = %d, find = %d (rels %q, nGlobal %d, listed %q)", round, scope, rel, got, want, s.rels, s.nGlobal, listed)
				}
			}
		}
	}
}
