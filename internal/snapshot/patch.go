package snapshot

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ocmem/ocmem/internal/index"
	"github.com/ocmem/ocmem/internal/rank"
	"github.com/ocmem/ocmem/internal/store"
)

// A snapshot made from the previous one and what is known to have changed
// (the files file-system events named, the files a write wrote), without
// listing the roots.

// MaxPatched bounds the files a reload patches into the previous snapshot;
// past it, a load that lists the roots is as cheap and simpler.
const MaxPatched = 64

// FileChange is one memory file of a root as it now is; F is nil when the
// file is gone.
type FileChange struct {
	Scope store.Scope
	Rel   string
	F     *store.File
}

// SameStat reports whether the file at rel is f as it was read (for f nil:
// whether there is no file).
func SameStat(r store.Root, rel string, f *store.File) bool {
	p, err := r.Path(rel)
	if err != nil {
		return false
	}
	info, err := os.Lstat(p)
	if f == nil || err != nil {
		return f == nil && errors.Is(err, fs.ErrNotExist)
	}
	if info.Size() != f.Size || !info.ModTime().Equal(f.ModTime) || !info.Mode().IsRegular() {
		return false
	}
	st, err := r.Stamp(rel)
	return err == nil && st == f.Stamp
}

// SameAsDisk reports whether file i of s is as it is on disk now.
func (s *Snapshot) SameAsDisk(r store.Root, i int) bool {
	f := &store.File{Size: s.sizes[i], ModTime: time.Unix(0, s.mtimes[i]), Stamp: s.stamps[i]}
	return SameStat(r, s.rels[i], f)
}

// Patch returns prev with the files of changes in their new state and the
// ROOT.md files of roots replaced: what a load would make of the roots as
// they are now, when those are all that changed. Nothing changed returns
// prev. A file added or removed renumbers the index around it
// (index.Index.Remap) and an edit patches it in place
// (index.Index.Replace); neither tokenizes another file.
func (l *Loader) Patch(prev *Snapshot, changes []FileChange, roots map[store.Scope][]byte) *Snapshot {
	if len(changes) == 0 && len(roots) == 0 {
		return prev
	}
	inPlace := true
	for _, c := range changes {
		if c.F == nil || prev.Find(c.Scope, c.Rel) < 0 {
			inPlace = false
		}
	}
	var s *Snapshot
	if inPlace {
		s = prev.replaced(changes)
	} else {
		s = l.renumbered(prev, changes)
	}
	s.Problems = PatchedProblems(prev.Problems, changes)
	if len(roots) > 0 {
		s.RootMD = map[store.Scope][]byte{}
		for scope, md := range prev.RootMD {
			s.RootMD[scope] = md
		}
		for scope, md := range roots {
			s.RootMD[scope] = md
			s.Problems = slices.DeleteFunc(s.Problems, func(p store.Problem) bool { return p.Scope == scope && p.Rel == store.RootFile })
			if p, bad := l.root(scope).RootMDProblem(md); md != nil && bad {
				s.Problems = append(s.Problems, p)
			}
		}
		sortProblems(s.Problems)
	}
	return s
}

// PatchedProblems drops the problems of the files that changed: each now
// loads, or is gone.
func PatchedProblems(problems []store.Problem, changes []FileChange) []store.Problem {
	if len(problems) == 0 {
		return problems
	}
	out := slices.Clone(problems)
	for _, c := range changes {
		out = slices.DeleteFunc(out, func(p store.Problem) bool { return p.Scope == c.Scope && p.Rel == c.Rel })
	}
	return out
}

// sortProblems orders problems as a load does: global first, then by path.
func sortProblems(ps []store.Problem) {
	slices.SortStableFunc(ps, func(a, b store.Problem) int {
		if a.Scope != b.Scope {
			if a.Scope == store.Global {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Rel, b.Rel)
	})
}

// replaced is patch for files that all were in prev and still load: the
// index and the columns are patched in place.
func (prev *Snapshot) replaced(changes []FileChange) *Snapshot {
	s := &Snapshot{
		RootMD: prev.RootMD, Patched: true, roots: prev.roots, nGlobal: prev.nGlobal,
		rels: prev.rels, sizes: slices.Clone(prev.sizes), mtimes: slices.Clone(prev.mtimes), stamps: slices.Clone(prev.stamps),
		files: make([]atomic.Pointer[store.File], prev.Len()), seg: prev.seg, rec: slices.Clone(prev.rec),
		shared: &Shared{},
	}
	for i := range s.files {
		s.files[i].Store(prev.files[i].Load())
	}
	ix := prev.Corpus.Index()
	metas := map[int]rank.Meta{}
	for _, c := range changes {
		i, f := prev.Find(c.Scope, c.Rel), c.F
		// What the index holds of the old file is its analysis: the same
		// text analyzes the same way.
		ix = ix.Replace(i, index.Analyze(docOf(prev.File(i).Memory)), index.Analyze(docOf(f.Memory)))
		s.files[i].Store(f)
		s.rec[i], s.sizes[i], s.mtimes[i], s.stamps[i] = -1, f.Size, f.ModTime.UnixNano(), f.Stamp
		metas[i] = metaOf(f.Scope, f.Memory, prev.Corpus.Meta(i).Hits)
	}
	s.Corpus = prev.Corpus.Replace(ix, metas)
	return s
}

// renumbered is patch for changes that add or remove files: every file
// moves to its place in the new listing, and the index is renumbered
// around the files read (index.Index.Remap), as a load that found only
// those files changed would do.
func (l *Loader) renumbered(prev *Snapshot, changes []FileChange) *Snapshot {
	s, remap, added := RenumberFiles(prev, changes)
	n := s.Len()
	analyzed := make(map[int]index.Analyzed, len(added))
	metas := make(map[int]rank.Meta, len(added))
	hits := l.hitsOf(added)
	for d, f := range added {
		analyzed[d] = index.Analyze(docOf(f.Memory))
		metas[d] = metaOf(f.Scope, f.Memory, hits[d])
	}
	ix := prev.Corpus.Index().Remap(n, remap, analyzed)
	s.Corpus = prev.Corpus.Remap(ix, remap, metas)
	return s
}

// RenumberFiles is the patch of changes that add or remove files, without
// the corpus: the files in their new
// places, remap from prev's places to them, and the files read, by place.
// It costs a copy of the per-file columns, made in runs between the
// places the changes fall at: at 100,000 memories one file's comparison
// and map lookup each was most of a serve process's patching after a
// write.
func RenumberFiles(prev *Snapshot, changes []FileChange) (s *Snapshot, remap []int32, added map[int]*store.File) {
	byRoot := [2]map[string]*store.File{{}, {}}
	for _, c := range changes {
		byRoot[ScopeIndex(c.Scope)][c.Rel] = c.F
	}
	s = newSnapshotLike(prev, prev.Len()+len(changes))
	s.Patched, s.seg, s.RootMD = true, prev.seg, prev.RootMD
	remap = make([]int32, prev.Len())
	added = map[int]*store.File{}
	// changeAt is where a change falls among a root's files of prev: on
	// the file at pos (changed or removed), or before it (added).
	type changeAt struct {
		pos int
		rel string
		on  bool
	}
	for ri, scope := range []store.Scope{store.Global, store.Project} {
		lo, hi := prev.Span(scope)
		var ats []changeAt
		for rel, f := range byRoot[ri] {
			i := lo + sort.SearchStrings(prev.rels[lo:hi], rel)
			if on := i < hi && prev.rels[i] == rel; on || f != nil {
				ats = append(ats, changeAt{i, rel, on})
			}
		}
		// At one place, the files added (which sort before the file
		// there), by path, then that file.
		slices.SortFunc(ats, func(a, b changeAt) int {
			switch {
			case a.pos != b.pos:
				return a.pos - b.pos
			case a.on != b.on:
				if a.on {
					return 1
				}
				return -1
			}
			return strings.Compare(a.rel, b.rel)
		})
		j := lo // prev's files before j are placed
		for _, a := range ats {
			s.keep(prev, remap, j, a.pos)
			j = a.pos
			if a.on {
				remap[j] = -1
				j++
			}
			if f := byRoot[ri][a.rel]; f != nil {
				added[len(s.rels)] = f
				s.place(f)
			}
		}
		s.keep(prev, remap, j, hi)
		if ri == 0 {
			s.nGlobal = len(s.rels)
		}
	}
	n := len(s.rels)
	s.files, s.rec = s.files[:n], s.rec[:n]
	return s, remap, added
}

// keep appends prev's files [from, to) to the snapshot's columns, as they
// are, and records their places in remap.
func (s *Snapshot) keep(prev *Snapshot, remap []int32, from, to int) {
	d := len(s.rels)
	s.rels = append(s.rels, prev.rels[from:to]...)
	s.sizes = append(s.sizes, prev.sizes[from:to]...)
	s.mtimes = append(s.mtimes, prev.mtimes[from:to]...)
	s.stamps = append(s.stamps, prev.stamps[from:to]...)
	copy(s.rec[d:], prev.rec[from:to])
	for k := from; k < to; k++ {
		s.files[d+k-from].Store(prev.files[k].Load())
		remap[k] = int32(d + k - from)
	}
}

// newSnapshotLike is an empty snapshot of the roots of prev, with room for
// n files.
func newSnapshotLike(prev *Snapshot, n int) *Snapshot {
	return &Snapshot{
		RootMD: map[store.Scope][]byte{}, roots: prev.roots,
		rels: make([]string, 0, n), sizes: make([]int64, 0, n), mtimes: make([]int64, 0, n), stamps: make([]uint64, 0, n),
		files: make([]atomic.Pointer[store.File], n), rec: make([]int32, n), shared: &Shared{},
	}
}

// place appends a file read now to the snapshot's columns.
func (s *Snapshot) place(f *store.File) {
	d := len(s.rels)
	s.files[d].Store(f)
	s.rec[d] = -1
	s.add(f.Rel, f.Size, f.ModTime, f.Stamp)
}

// hitsOf returns the recall counters of files read now, by their place in
// the snapshot, as a load reads them (readHits); a root's state is read
// only when one of its files is among them.
func (l *Loader) hitsOf(files map[int]*store.File) map[int]int {
	out := map[int]int{}
	states := map[store.Scope]*store.State{}
	for d, f := range files {
		st := states[f.Scope]
		if st == nil {
			st = l.root(f.Scope).ReadState()
			states[f.Scope] = st
		}
		if n := st.Hits[f.Memory.ID]; n > 0 {
			out[d] = n
		}
	}
	return out
}

// ScopeIndex is a root's index in what is kept per root: 0 for global, 1
// for project.
func ScopeIndex(s store.Scope) int {
	if s == store.Global {
		return 0
	}
	return 1
}
