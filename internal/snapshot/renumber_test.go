package snapshot

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/store"
)

// renumberFilesOracle is renumberFiles as it was before it copied runs: one
// comparison and map lookup per file.
func renumberFilesOracle(prev *Snapshot, changes []FileChange) (s *Snapshot, remap []int32, added map[int]*store.File) {
	byRoot := [2]map[string]*store.File{{}, {}}
	for _, c := range changes {
		byRoot[ScopeIndex(c.Scope)][c.Rel] = c.F
	}
	s = newSnapshotLike(prev, prev.Len()+len(changes))
	s.Patched, s.seg, s.RootMD = true, prev.seg, prev.RootMD
	remap = make([]int32, prev.Len())
	added = map[int]*store.File{}
	for ri, scope := range []store.Scope{store.Global, store.Project} {
		lo, hi := 0, prev.nGlobal
		if ri == 1 {
			lo, hi = prev.nGlobal, prev.Len()
		}
		news := make([]string, 0, len(byRoot[ri]))
		for rel, f := range byRoot[ri] {
			if f != nil && prev.Find(scope, rel) < 0 {
				news = append(news, rel)
			}
		}
		slices.Sort(news)
		for j := lo; j <= hi; j++ {
			for len(news) > 0 && (j == hi || news[0] < prev.Rel(j)) {
				f := byRoot[ri][news[0]]
				added[len(s.rels)] = f
				s.place(f)
				news = news[1:]
			}
			if j == hi {
				break
			}
			remap[j] = -1
			f, ok := byRoot[ri][prev.Rel(j)]
			switch {
			case !ok:
				d := len(s.rels)
				remap[j] = int32(d)
				s.files[d].Store(prev.files[j].Load())
				s.rec[d] = prev.rec[j]
				s.rels = append(s.rels, prev.Rel(j))
				s.sizes = append(s.sizes, prev.sizes[j])
				s.mtimes = append(s.mtimes, prev.mtimes[j])
				s.stamps = append(s.stamps, prev.stamps[j])
			case f != nil:
				added[len(s.rels)] = f
				s.place(f)
			}
		}
		if ri == 0 {
			s.nGlobal = len(s.rels)
		}
	}
	n := len(s.rels)
	s.files, s.rec = s.files[:n], s.rec[:n]
	return s, remap, added
}

// renumberFiles places every file as the one-file-at-a-time version did,
// for random snapshots and changes (files added, changed, removed, and
// removals of files that are not there), in either root.
func TestRenumberFilesAsOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	name := func() string { return fmt.Sprintf("c%d/m%02d.md", rng.IntN(3), rng.IntN(30)) }
	for round := range 500 {
		var roots [2][]string
		for ri := range roots {
			for range rng.IntN(25) {
				roots[ri] = append(roots[ri], name())
			}
			slices.Sort(roots[ri])
			roots[ri] = slices.Compact(roots[ri])
		}
		prev := New(store.Root{}, store.Root{}, len(roots[0])+len(roots[1]))
		k := 0
		for ri, rels := range roots {
			for _, rel := range rels {
				prev.add(rel, int64(k), time.Unix(0, int64(k)), uint64(k))
				prev.rec[k] = int32(k)
				if k%3 == 0 {
					prev.files[k].Store(&store.File{Rel: rel})
				}
				k++
			}
			if ri == 0 {
				prev.nGlobal = len(prev.rels)
			}
		}
		var changes []FileChange
		for range rng.IntN(8) {
			c := FileChange{Scope: []store.Scope{store.Global, store.Project}[rng.IntN(2)], Rel: name()}
			if rng.IntN(3) > 0 {
				c.F = &store.File{Rel: c.Rel, Size: int64(1000 + round)}
			}
			changes = append(changes, c)
		}
		got, gotRemap, gotAdded := RenumberFiles(prev, changes)
		want, wantRemap, wantAdded := renumberFilesOracle(prev, changes)
		if !slices.Equal(got.rels, want.rels) || !slices.Equal(got.sizes, want.sizes) || !slices.Equal(got.mtimes, want.mtimes) ||
			!slices.Equal(got.stamps, want.stamps) || !slices.Equal(got.rec, want.rec) || got.nGlobal != want.nGlobal ||
			!slices.Equal(gotRemap, wantRemap) || len(gotAdded) != len(wantAdded) {
			t.Fatalf("round %d: changes %+v over %q (%d global):\ngot  %q %v %v %d\nwant %q %v %v %d", round, changes, prev.rels, prev.nGlobal,
				got.rels, got.rec, gotRemap, got.nGlobal, want.rels, want.rec, wantRemap, want.nGlobal)
		}
		for d, f := range wantAdded {
			if gotAdded[d] != f {
				t.Fatalf("round %d: added[%d] = %v, want %v", round, d, gotAdded[d], f)
			}
		}
		for i := range got.Len() {
			if got.files[i].Load() != want.files[i].Load() {
				t.Fatalf("round %d: file %d differs", round, i)
			}
		}
	}
}
