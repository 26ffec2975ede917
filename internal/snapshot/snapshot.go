// Package snapshot is everything loaded from the two memory roots at one
// moment (Snapshot): how a load lists the roots, keeps the files that did
// not change and reads the others (Loader.Load), the load cache that lets a
// fresh process skip reading them, and a snapshot patched from the previous
// one and the files known to have changed (Loader.Patch); the tables a
// root's compiled files are made of, kept in step with its snapshots and
// the files a write changes (Tables); and the memories of a root that say
// what a new one says (Snapshot.Twins). The engine holds the current
// snapshot and decides when to load.
package snapshot

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/rank"
	"github.com/ocmem/ocmem/internal/snapfile"
	"github.com/ocmem/ocmem/internal/store"
)

// Snapshot is everything loaded from both roots at one moment.
//
// Files are global files, then project files, each sorted by path; file i
// is document i of the Corpus. A snapshot read from the load cache holds no
// Go value per memory until one is asked for: File makes it from the cache
// on first use, and keeps it.
type Snapshot struct {
	Problems []store.Problem
	RootMD   map[store.Scope][]byte
	Corpus   *rank.Corpus // the inverted index and each file's ranking metadata
	// Patched is set when the snapshot was made from the previous one by
	// reading only the files reported changed (Loader.Patch).
	Patched bool

	roots   [2]store.Root // global, project
	nGlobal int           // files [0, nGlobal) are global
	rels    []string      // per file: its path in its root
	sizes   []int64       // per file: size and modification time (Unix ns)
	mtimes  []int64       //   when it was read,
	stamps  []uint64      //   and its stamp (store.File.Stamp)
	files   []atomic.Pointer[store.File]
	seg     *segment // where files not yet made come from
	rec     []int32  // per file: its record in seg, or -1

	// gens is each root's write generation read before the load listed
	// it (index 0 is global); zero for a snapshot made by patching another.
	gens [2]uint64
	// touched is what a full load found changed (touchedBy).
	touched [2]map[string]bool
	// temps are the temp files the load's listing of each root saw; nil
	// for a root not listed, and for a snapshot made by patching another.
	temps [2]*listedTemps

	// shared is what a user derived from the files (Shared).
	shared *Shared
}

// Shared is what a user of a snapshot derives from its files once: Once
// guards Value. A snapshot with the same files and another corpus
// (WithCorpus) shares it.
type Shared struct {
	Once  sync.Once
	Value any
}

// New is an empty snapshot of the roots, with room for n files.
func New(global, project store.Root, n int) *Snapshot {
	return &Snapshot{
		RootMD: map[store.Scope][]byte{}, roots: [2]store.Root{global, project},
		rels: make([]string, 0, n), sizes: make([]int64, 0, n), mtimes: make([]int64, 0, n), stamps: make([]uint64, 0, n),
		files: make([]atomic.Pointer[store.File], n), rec: make([]int32, n), shared: &Shared{},
	}
}

// WithCorpus returns a snapshot of the same files with another corpus.
func (s *Snapshot) WithCorpus(c *rank.Corpus) *Snapshot {
	return &Snapshot{
		Problems: s.Problems, RootMD: s.RootMD, Corpus: c, Patched: s.Patched, roots: s.roots, nGlobal: s.nGlobal,
		rels: s.rels, sizes: s.sizes, mtimes: s.mtimes, stamps: s.stamps, files: s.files, seg: s.seg, rec: s.rec,
		shared: s.shared, // what is derived from the files does not depend on the corpus
	}
}

// Len is the number of memory files.
func (s *Snapshot) Len() int { return len(s.rels) }

// Root is the root of file i.
func (s *Snapshot) Root(i int) store.Root {
	if i < s.nGlobal {
		return s.roots[0]
	}
	return s.roots[1]
}

// File returns memory file i, and keeps it.
func (s *Snapshot) File(i int) *store.File {
	if f := s.files[i].Load(); f != nil {
		return f
	}
	f := s.seg.file(int(s.rec[i]), s.Root(i), s.rels[i], s.sizes[i], s.mtimes[i])
	if !s.files[i].CompareAndSwap(nil, f) {
		return s.files[i].Load()
	}
	return f
}

// Peek returns memory file i without keeping a file it had to make.
func (s *Snapshot) Peek(i int) *store.File {
	if f := s.files[i].Load(); f != nil {
		return f
	}
	return s.seg.file(int(s.rec[i]), s.Root(i), s.rels[i], s.sizes[i], s.mtimes[i])
}

// MemoryInto returns the memory of file i, decoded into m when the file
// is not made (valid until m is used again), as each does.
func (s *Snapshot) MemoryInto(i int, m *memory.Memory) *memory.Memory {
	if f := s.files[i].Load(); f != nil {
		return f.Memory
	}
	if snapfile.DecodeRecordInto(s.seg.records.At(int(s.rec[i])), m) == nil {
		return m
	}
	return s.Peek(i).Memory
}

// SummaryAt returns the summary of file i, read from its record alone when
// the file is not made; ok is false when it could not be read so.
func (s *Snapshot) SummaryAt(i int) (summary string, ok bool) {
	if f := s.files[i].Load(); f != nil {
		return f.Memory.Summary, true
	}
	return snapfile.RecordSummary(s.seg.records.At(int(s.rec[i])))
}

// LinksAt returns the id and the supersede links of file i, read from its
// record alone when the file is not made.
func (s *Snapshot) LinksAt(i int) (id, supersedes, supersededBy string) {
	if f := s.files[i].Load(); f == nil {
		if id, sup, by, ok := snapfile.RecordLinks(s.seg.records.At(int(s.rec[i]))); ok {
			return id, sup, by
		}
	}
	m := s.Peek(i).Memory
	return m.ID, m.Supersedes, m.SupersededBy
}

// Files returns every memory file, global files first, each root's sorted
// by path. The files it makes from the load cache are not kept (File
// keeps them): a caller that goes through the whole store once should not
// leave a Go value per memory behind (some 60 MB at 100,000 memories).
func (s *Snapshot) Files() []*store.File {
	out := make([]*store.File, s.Len())
	for i := range out {
		out[i] = s.Peek(i)
	}
	return out
}

// Each calls fn with the memory of every file of a root, in order, without
// making files: m is valid only during the call (for a file the cache
// holds, it is one value reused from call to call, its strings sharing the
// cache's memory).
func (s *Snapshot) Each(scope store.Scope, fn func(i int, m *memory.Memory)) {
	lo, hi := s.Span(scope)
	s.EachIn(lo, hi, fn)
}

// EachIn is each for the files at positions lo to hi (not included). It
// may run beside itself on other ranges.
func (s *Snapshot) EachIn(lo, hi int, fn func(i int, m *memory.Memory)) {
	var m memory.Memory
	for i := lo; i < hi; i++ {
		if f := s.files[i].Load(); f != nil {
			fn(i, f.Memory)
		} else if snapfile.DecodeRecordInto(s.seg.records.At(int(s.rec[i])), &m) == nil {
			fn(i, &m)
		} else {
			fn(i, s.Peek(i).Memory)
		}
	}
}

// Find returns the position of a file, or -1.
func (s *Snapshot) Find(scope store.Scope, rel string) int {
	lo, hi := 0, s.nGlobal
	if scope == store.Project {
		lo, hi = s.nGlobal, len(s.rels)
	}
	i := lo + sort.SearchStrings(s.rels[lo:hi], rel)
	if i < hi && s.rels[i] == rel {
		return i
	}
	return -1
}

// Lookup returns the file of a memory, or nil.
func (s *Snapshot) Lookup(scope store.Scope, id string) *store.File {
	if i := s.Find(scope, id+".md"); i >= 0 {
		return s.File(i)
	}
	return nil
}

// Shared returns what users derived from the snapshot's files.
func (s *Snapshot) Shared() *Shared { return s.shared }

// Rel is the path of file i in its root.
func (s *Snapshot) Rel(i int) string { return s.rels[i] }

// Span returns the positions of a root's files: lo to hi, not included.
func (s *Snapshot) Span(scope store.Scope) (lo, hi int) {
	if scope == store.Project {
		return s.nGlobal, s.Len()
	}
	return 0, s.nGlobal
}

// Gens is each root's write generation read before the load listed it
// (index 0 is global); zero for a snapshot made by patching another.
func (s *Snapshot) Gens() [2]uint64 { return s.gens }

// Touched is, by root, the categories of the files a full load found
// added, removed or changed since the snapshot it started from
// (AllCategories: every category, when there was none).
func (s *Snapshot) Touched() [2]map[string]bool { return s.touched }

// Temps returns the temp files the load's listing of a root saw and when
// the listing began; ok is false for a root not listed, and for a
// snapshot made by patching another.
func (s *Snapshot) Temps(scope store.Scope) (at time.Time, rels []string, ok bool) {
	lt := s.temps[ScopeIndex(scope)]
	if lt == nil {
		return time.Time{}, nil, false
	}
	return lt.at, lt.rel, true
}

// SameSource reports whether the files of s and t not yet made come from
// one source: one opened cache file, or the records of one build.
func (s *Snapshot) SameSource(t *Snapshot) bool { return s.seg == t.seg }

// FromCache reports whether the snapshot's files not yet made come from
// an opened cache file.
func (s *Snapshot) FromCache() bool { return s.seg != nil && s.seg.data != nil }

// SameFiles reports whether file i of a and file j of b are one file as
// both read it: same path, size, modification time and stamp.
func SameFiles(a *Snapshot, i int, b *Snapshot, j int) bool {
	return a.rels[i] == b.rels[j] && a.sizes[i] == b.sizes[j] && a.mtimes[i] == b.mtimes[j] && a.stamps[i] == b.stamps[j]
}

// MemoryAt returns the memory of a file, or nil. A file the snapshot has
// not made is made and not kept (Peek).
func (s *Snapshot) MemoryAt(scope store.Scope, rel string) *memory.Memory {
	if i := s.Find(scope, rel); i >= 0 {
		return s.Peek(i).Memory
	}
	return nil
}

// DiffRoot lists the files of a root that differ between two snapshots:
// present in one only, or of another size, time or stamp.
func DiffRoot(a, b *Snapshot, scope store.Scope) []string {
	alo, ahi := a.Span(scope)
	blo, bhi := b.Span(scope)
	var out []string
	i, j := alo, blo
	for i < ahi || j < bhi {
		switch {
		case j == bhi || i < ahi && a.Rel(i) < b.Rel(j):
			out = append(out, a.Rel(i))
			i++
		case i == ahi || b.Rel(j) < a.Rel(i):
			out = append(out, b.Rel(j))
			j++
		default:
			if !SameFiles(a, i, b, j) {
				out = append(out, a.Rel(i))
			}
			i, j = i+1, j+1
		}
	}
	return out
}
