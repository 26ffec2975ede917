package engine

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/ocmem/ocmem/internal/guard"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/rank"
	"github.com/ocmem/ocmem/internal/snapfile"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/trust"
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
	// reading only the files reported changed (InvalidateFile).
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

	// stable holds the rules and outline, computed once per snapshot and
	// shared with a snapshot of the same files (withCorpus).
	stable *stableTiers
}

type stableTiers struct {
	once sync.Once
	text [2]string   // rules, outline
	gate *trust.Gate // the trust decisions the rules were rendered with
	// news are the project's rules not in force that the person should
	// hear of (InjectedRuleNews).
	news []ProjectRule
	// guards are the rules in force that carry guards, in the tier's
	// order: what Check decides with.
	guards     []GuardedRule
	guardRules []guard.Rule // guards as the matcher takes them
	// rootMD is the project's ROOT.md section against those decisions,
	// made on first use (InjectedRootMD).
	rootMDOnce sync.Once
	rootMD     *ProjectRule
}

func (e *Engine) newSnapshot(n int) *Snapshot {
	return &Snapshot{
		RootMD: map[store.Scope][]byte{}, roots: [2]store.Root{e.global, e.project},
		rels: make([]string, 0, n), sizes: make([]int64, 0, n), mtimes: make([]int64, 0, n), stamps: make([]uint64, 0, n),
		files: make([]atomic.Pointer[store.File], n), rec: make([]int32, n), stable: &stableTiers{},
	}
}

// withCorpus returns a snapshot of the same files with another corpus.
func (s *Snapshot) withCorpus(c *rank.Corpus) *Snapshot {
	return &Snapshot{
		Problems: s.Problems, RootMD: s.RootMD, Corpus: c, Patched: s.Patched, roots: s.roots, nGlobal: s.nGlobal,
		rels: s.rels, sizes: s.sizes, mtimes: s.mtimes, stamps: s.stamps, files: s.files, seg: s.seg, rec: s.rec,
		stable: s.stable, // the tiers do not depend on the corpus
	}
}

// Len is the number of memory files.
func (s *Snapshot) Len() int { return len(s.rels) }

func (s *Snapshot) root(i int) store.Root {
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
	f := s.seg.file(int(s.rec[i]), s.root(i), s.rels[i], s.sizes[i], s.mtimes[i])
	if !s.files[i].CompareAndSwap(nil, f) {
		return s.files[i].Load()
	}
	return f
}

// peek returns memory file i without keeping a file it had to make.
func (s *Snapshot) peek(i int) *store.File {
	if f := s.files[i].Load(); f != nil {
		return f
	}
	return s.seg.file(int(s.rec[i]), s.root(i), s.rels[i], s.sizes[i], s.mtimes[i])
}

// memoryInto returns the memory of file i, decoded into m when the file
// is not made (valid until m is used again), as each does.
func (s *Snapshot) memoryInto(i int, m *memory.Memory) *memory.Memory {
	if f := s.files[i].Load(); f != nil {
		return f.Memory
	}
	if snapfile.DecodeRecordInto(s.seg.records.At(int(s.rec[i])), m) == nil {
		return m
	}
	return s.peek(i).Memory
}

// summaryAt returns the summary of file i, read from its record alone when
// the file is not made; ok is false when it could not be read so.
func (s *Snapshot) summaryAt(i int) (summary string, ok bool) {
	if f := s.files[i].Load(); f != nil {
		return f.Memory.Summary, true
	}
	return snapfile.RecordSummary(s.seg.records.At(int(s.rec[i])))
}

// linksAt returns the id and the supersede links of file i, read from its
// record alone when the file is not made.
func (s *Snapshot) linksAt(i int) (id, supersedes, supersededBy string) {
	if f := s.files[i].Load(); f == nil {
		if id, sup, by, ok := snapfile.RecordLinks(s.seg.records.At(int(s.rec[i]))); ok {
			return id, sup, by
		}
	}
	m := s.peek(i).Memory
	return m.ID, m.Supersedes, m.SupersededBy
}

// Files returns every memory file, global files first, each root's sorted
// by path. The files it makes from the load cache are not kept (File
// keeps them): a caller that goes through the whole store once should not
// leave a Go value per memory behind (some 60 MB at 100,000 memories).
func (s *Snapshot) Files() []*store.File {
	out := make([]*store.File, s.Len())
	for i := range out {
		out[i] = s.peek(i)
	}
	return out
}

// each calls fn with the memory of every file of a root, in order, without
// making files: m is valid only during the call (for a file the cache
// holds, it is one value reused from call to call, its strings sharing the
// cache's memory).
func (s *Snapshot) each(scope store.Scope, fn func(i int, m *memory.Memory)) {
	lo, hi := s.span(scope)
	s.eachIn(lo, hi, fn)
}

// eachIn is each for the files at positions lo to hi (not included). It
// may run beside itself on other ranges.
func (s *Snapshot) eachIn(lo, hi int, fn func(i int, m *memory.Memory)) {
	var m memory.Memory
	for i := lo; i < hi; i++ {
		if f := s.files[i].Load(); f != nil {
			fn(i, f.Memory)
		} else if snapfile.DecodeRecordInto(s.seg.records.At(int(s.rec[i])), &m) == nil {
			fn(i, &m)
		} else {
			fn(i, s.peek(i).Memory)
		}
	}
}

// find returns the position of a file, or -1.
func (s *Snapshot) find(scope store.Scope, rel string) int {
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
	if i := s.find(scope, id+".md"); i >= 0 {
		return s.File(i)
	}
	return nil
}
