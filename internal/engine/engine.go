// Package engine is the one API every edge of ocmem calls (the CLI, the
// OpenCode plugin's serve process, the MCP server): Recall, Remember, Forget,
// Inspect, Compile and Inject over the two memory roots.
//
//	e := engine.New(engine.Config{GlobalDir: g, ProjectDir: p})
//	hits, err := e.Recall("部署前要做什么", engine.RecallOptions{Limit: 4})
//
// An Engine caches what it loaded (files, the inverted index) until
// Invalidate is called or it writes itself; the serve process invalidates on
// file-system events, the CLI loads once per command.
package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/index"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/rank"
	"github.com/ocmem/ocmem/internal/snapfile"
	"github.com/ocmem/ocmem/internal/store"
)

// Config locates the roots. An empty dir means that root is not used.
type Config struct {
	GlobalDir  string
	ProjectDir string
	// ProjectChosen says the user named ProjectDir (a flag,
	// OCMEM_PROJECT), so it is written wherever it leads; a project root
	// found from the working directory is written only when it is no
	// link (store.Root.CheckWritable).
	ProjectChosen bool
	Options       Options
	// Now returns the current time; nil means time.Now. Tests fix it.
	Now func() time.Time
	// Trust is the user's record of which of the project root's hard rules
	// they accepted (internal/trust); the others are shown only as the
	// repository's proposals (see renderRules). nil puts every rule in
	// force: a library caller chose its roots itself. The CLI, serve and
	// MCP pass the user's trust list.
	Trust RuleTrust
}

// Engine serves both roots. It is safe for concurrent use.
type Engine struct {
	global, project store.Root
	opts            Options
	now             func() time.Time
	trust           RuleTrust

	mu   sync.Mutex
	snap *Snapshot
	// last is the previous snapshot, kept after Invalidate so a reload
	// reuses the files that did not change.
	last *Snapshot
	// changed lists the files reported changed since last (InvalidateFile),
	// by root; walk says a full reload (every file stat'ed) is needed.
	changed map[store.Scope]map[string]bool
	walk    bool
	// epoch counts invalidations and counted recalls: a load that ran
	// without mu installs its snapshot only if nothing was invalidated or
	// counted meanwhile.
	epoch uint64
}

// New returns an engine over the configured roots; nothing is read yet.
func New(c Config) *Engine {
	now := c.Now
	if now == nil {
		now = time.Now
	}
	return &Engine{
		global:  store.Root{Scope: store.Global, Dir: c.GlobalDir},
		project: store.Root{Scope: store.Project, Dir: c.ProjectDir, Chosen: c.ProjectChosen},
		opts:    c.Options,
		now:     now,
		trust:   c.Trust,
	}
}

// Options returns the engine's options.
func (e *Engine) Options() Options { return e.opts }

// Root returns the root of a scope.
func (e *Engine) Root(s store.Scope) store.Root {
	if s == store.Global {
		return e.global
	}
	return e.project
}

// roots lists the configured roots, global first: the order hard rules are
// shown in.
func (e *Engine) roots() []store.Root {
	var rs []store.Root
	for _, r := range []store.Root{e.global, e.project} {
		if r.Dir != "" {
			rs = append(rs, r)
		}
	}
	return rs
}

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

	// stable holds the rules and outline, computed once per snapshot and
	// shared with a snapshot of the same files (withCorpus).
	stable *stableTiers
}

type stableTiers struct {
	once sync.Once
	text [2]string // rules, outline
	gate *ruleGate // the trust decisions the rules were rendered with
	// project is the project's rules against those decisions.
	project *ProjectRules
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
	lo, hi := 0, s.nGlobal
	if scope == store.Project {
		lo, hi = s.nGlobal, s.Len()
	}
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

// Invalidate drops the cached snapshot; the next call reloads.
func (e *Engine) Invalidate() {
	e.mu.Lock()
	e.epoch++
	if e.snap != nil {
		e.last = e.snap
	}
	e.snap = nil
	e.walk = true
	e.mu.Unlock()
}

// InvalidateFile drops the cached snapshot because one file of a root
// changed (a file-system event), so that the next load can read just that
// file. A path that is not a memory file (index.md, ROOT.md, a folder, a
// temporary file) falls back to Invalidate, except the compiled index.md
// files, which the engine does not read.
func (e *Engine) InvalidateFile(root, path string) {
	var scope store.Scope
	for _, r := range e.roots() {
		if r.Dir == root {
			scope = r.Scope
		}
	}
	rel, err := filepath.Rel(root, path)
	rel = filepath.ToSlash(rel)
	if scope == "" || err != nil {
		e.Invalidate()
		return
	}
	if strings.HasSuffix(rel, "/"+store.IndexFile) && strings.Count(rel, "/") == 1 {
		return
	}
	if !strings.HasSuffix(rel, ".md") || strings.Count(rel, "/") != 1 || strings.Contains(rel, "/.") {
		e.Invalidate()
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.epoch++
	if e.snap != nil {
		e.last = e.snap
	}
	e.snap = nil
	if e.changed == nil {
		e.changed = map[store.Scope]map[string]bool{}
	}
	if e.changed[scope] == nil {
		e.changed[scope] = map[string]bool{}
	}
	e.changed[scope][rel] = true
}

// Load returns the current snapshot, loading it if needed.
func (e *Engine) Load() (*Snapshot, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.snap != nil {
		return e.snap, nil
	}
	var s *Snapshot
	if e.last != nil && !e.walk && len(e.changed) > 0 {
		s = e.reloadChanged(e.last, e.changed)
	}
	if s == nil {
		var err error
		if s, err = e.load(e.last, true); err != nil {
			return nil, err
		}
	}
	e.snap, e.last, e.changed, e.walk = s, nil, nil, false
	return s, nil
}

// maxPatched bounds the files a reload patches into the previous index;
// past it, renumbering the index (load) is as cheap and simpler.
const maxPatched = 64

// reloadChanged builds a snapshot from prev in which only the files in
// changed are read again, patching the index and the corpus instead of
// rebuilding them. It handles edits of existing memory files that still
// load; anything else (a file added, removed, broken, or too many files)
// returns nil, and the caller does a full reload.
func (e *Engine) reloadChanged(prev *Snapshot, changed map[store.Scope]map[string]bool) *Snapshot {
	count := 0
	for _, rels := range changed {
		count += len(rels)
	}
	if count > maxPatched {
		return nil
	}
	docs := map[int]*store.File{}
	for scope, rels := range changed {
		for rel := range rels {
			i := prev.find(scope, rel)
			if i < 0 {
				return nil // a new file, or one that did not load before
			}
			f, err := e.Root(scope).LoadFile(rel)
			if err != nil || f.Memory.ID != prev.File(i).Memory.ID {
				return nil // removed, broken, or renamed in place: reload fully
			}
			docs[i] = f
		}
	}
	s := &Snapshot{
		Problems: prev.Problems, RootMD: prev.RootMD, Patched: true, roots: prev.roots, nGlobal: prev.nGlobal,
		rels: prev.rels, sizes: slices.Clone(prev.sizes), mtimes: slices.Clone(prev.mtimes), stamps: slices.Clone(prev.stamps),
		files: make([]atomic.Pointer[store.File], prev.Len()), seg: prev.seg, rec: slices.Clone(prev.rec),
		stable: &stableTiers{},
	}
	for i := range s.files {
		s.files[i].Store(prev.files[i].Load())
	}
	ix := prev.Corpus.Index()
	metas := map[int]rank.Meta{}
	for i, f := range docs {
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

// loadFresh reads and parses every file, trusting no cache: for Inspect,
// which must see each file as it is, with line numbers for its reports.
func (e *Engine) loadFresh() (*Snapshot, error) {
	e.mu.Lock()
	epoch := e.epoch
	e.mu.Unlock()
	s, err := e.load(nil, false)
	if err != nil {
		return nil, err
	}
	if afterFreshLoad != nil {
		afterFreshLoad()
	}
	// A file changed while this load listed and read the roots (the
	// watcher invalidated meanwhile) may be missing from s or stale in it:
	// s answers this call, but the next Load reads again.
	e.mu.Lock()
	if e.epoch == epoch {
		e.snap, e.last, e.changed, e.walk = s, nil, nil, false
	}
	e.mu.Unlock()
	return s, nil
}

// afterFreshLoad, when set (tests only), runs between loadFresh's load and
// the moment it installs the snapshot.
var afterFreshLoad func()

// load lists both roots and builds their snapshot. With useCache, it starts
// from prev, or when there is none from the on-disk load cache: the files
// whose size and modification time did not change are taken from there
// with their place in the index, only the others are read, parsed and
// tokenized, and the index is renumbered around them. A load that started
// from no previous snapshot writes the cache when it changed.
func (e *Engine) load(prev *Snapshot, useCache bool) (*Snapshot, error) {
	lists, total, err := e.list()
	if err != nil {
		return nil, err
	}
	fromCache := false
	switch {
	case !useCache:
		prev = nil
	case prev == nil:
		prev = e.readCache()
		fromCache = prev != nil
	}
	olds, kept := unchanged(prev, lists)
	s := e.newSnapshot(total)
	var b *builder
	if kept == 0 {
		b = newBuilder(s, lists, !useCache)
	}
	remap, added := s.read(prev, lists, olds, b, useCache)
	s.assemble(prev, b, kept, remap, added)
	s.Corpus = s.Corpus.WithHits(e.readHits(s))
	if useCache && (prev == nil || fromCache) && !(fromCache && s.Corpus.Index() == prev.Corpus.Index()) {
		e.writeCache(s)
	}
	return s, nil
}

// list scans both roots: the first step of a load.
func (e *Engine) list() (lists []listed, total int, err error) {
	var errs []error
	for _, r := range e.roots() {
		entries, problems, err := r.Scan()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		lists = append(lists, listed{r, entries, problems})
		total += len(entries)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, 0, err
	}
	return lists, total, nil
}

// unchanged says which listed files are as prev saw them: olds[root][i] is
// their position in prev, or -1 for a file that must be read; kept counts
// the others. It fills in what the comparison needs of an entry (a
// symlink's target's size and time, a stamp the listing lacks).
func unchanged(prev *Snapshot, lists []listed) (olds [][]int, kept int) {
	olds = make([][]int, len(lists))
	for li, l := range lists {
		olds[li] = make([]int, len(l.entries))
		for i := range l.entries {
			olds[li][i] = -1
			if prev == nil {
				continue
			}
			if j := prev.sameFile(l.r, &l.entries[i]); j >= 0 {
				olds[li][i] = j
				kept++
			}
		}
	}
	return olds, kept
}

// sameFile returns the position in s of the file an entry lists when the
// file has not changed since s read it, or -1. A symlinked file (Scan lists
// only those that resolve inside the root) is compared by what it leads
// to, as it was read.
func (s *Snapshot) sameFile(r store.Root, en *store.Entry) int {
	if en.Mode&fs.ModeSymlink != 0 {
		info, err := os.Stat(filepath.Join(r.Dir, filepath.FromSlash(en.Rel)))
		if err != nil || !info.Mode().IsRegular() {
			return -1
		}
		en.Size, en.ModTime, en.Stamp = info.Size(), info.ModTime(), 0
	}
	j := s.find(r.Scope, en.Rel)
	if j < 0 || s.sizes[j] != en.Size || s.mtimes[j] != en.ModTime.UnixNano() {
		return -1
	}
	// Size and modification time survive an edit made by cp -p, rsync -t,
	// tar or unzip, or on a filesystem with coarse times; the stamp does
	// not (store/stamp.go). Where the platform has no stamp in the
	// listing, it is the content's.
	if en.Stamp == 0 {
		st, err := r.Stamp(en.Rel)
		if err != nil {
			return -1
		}
		en.Stamp = st
	}
	if s.stamps[j] != en.Stamp {
		return -1
	}
	return j
}

// read fills the snapshot's files, in listing order: through the builder
// when nothing is kept, else taking unchanged files from prev and reading
// the others. remap maps prev's positions to s's (-1: gone); added holds
// the files read, by their position in s.
func (s *Snapshot) read(prev *Snapshot, lists []listed, olds [][]int, b *builder, useCache bool) (remap []int32, added map[int]*store.File) {
	if prev != nil {
		remap = make([]int32, prev.Len())
		for i := range remap {
			remap[i] = -1
		}
	}
	added = map[int]*store.File{}
	for li, l := range lists {
		s.Problems = append(s.Problems, l.problems...)
		if b != nil {
			s.Problems = append(s.Problems, b.readAll(l.r, l.entries, useCache)...)
		} else {
			s.readChanged(prev, l, olds[li], remap, added, useCache)
		}
		if l.r.Scope == store.Global {
			s.nGlobal = len(s.rels)
		}
		s.readRootMD(l.r)
	}
	n := len(s.rels)
	s.files, s.rec = s.files[:n], s.rec[:n]
	slices.SortStableFunc(s.Problems, func(a, b store.Problem) int {
		if a.Scope != b.Scope {
			if a.Scope == store.Global {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Rel, b.Rel)
	})
	return remap, added
}

// readChanged adds one root's files to the snapshot: those olds marks as
// unchanged from prev, the others read now.
func (s *Snapshot) readChanged(prev *Snapshot, l listed, olds []int, remap []int32, added map[int]*store.File, useCache bool) {
	var read []store.Entry
	for i, en := range l.entries {
		if olds[i] < 0 {
			read = append(read, en)
		}
	}
	files, problems := l.r.ReadEntries(read, useCache)
	s.Problems = append(s.Problems, problems...)
	k := 0
	for i, en := range l.entries {
		d := len(s.rels)
		if j := olds[i]; j >= 0 {
			remap[j] = int32(d)
			s.files[d].Store(prev.files[j].Load())
			s.rec[d] = prev.rec[j]
			s.seg = prev.seg
			s.add(en.Rel, en.Size, en.ModTime, en.Stamp)
			continue
		}
		f := files[k]
		k++
		if f == nil {
			continue // a problem
		}
		added[d] = f
		s.files[d].Store(f)
		s.rec[d] = -1
		s.add(f.Rel, f.Size, f.ModTime, f.Stamp)
	}
}

// readRootMD reads a root's ROOT.md into the snapshot, with its problem.
func (s *Snapshot) readRootMD(r store.Root) {
	md, err := r.ReadRootMD()
	if err != nil {
		s.Problems = append(s.Problems, store.Problem{Scope: r.Scope, Path: filepath.Join(r.Dir, store.RootFile), Rel: store.RootFile, Err: err})
	} else if p, bad := r.RootMDProblem(md); md != nil && bad {
		s.Problems = append(s.Problems, p)
	}
	s.RootMD[r.Scope] = md
}

// assemble gives the snapshot its corpus: the builder's, prev's when
// nothing changed, or prev's renumbered around the files added.
func (s *Snapshot) assemble(prev *Snapshot, b *builder, kept int, remap []int32, added map[int]*store.File) {
	switch {
	case b != nil:
		s.Corpus = b.corpus()
	case kept == prev.Len() && len(added) == 0:
		s.Corpus = prev.Corpus // nothing changed
	default:
		analyzed := make(map[int]index.Analyzed, len(added))
		metas := make(map[int]rank.Meta, len(added))
		for d, f := range added {
			analyzed[d] = index.Analyze(docOf(f.Memory))
			metas[d] = metaOf(f.Scope, f.Memory, 0)
		}
		ix := prev.Corpus.Index().Remap(len(s.rels), remap, analyzed)
		s.Corpus = prev.Corpus.Remap(ix, remap, metas)
	}
}

// add appends a file's place to the snapshot's per-file columns.
func (s *Snapshot) add(rel string, size int64, mtime time.Time, stamp uint64) {
	s.rels = append(s.rels, rel)
	s.sizes = append(s.sizes, size)
	s.mtimes = append(s.mtimes, mtime.UnixNano())
	s.stamps = append(s.stamps, stamp)
}

// builder loads a store with nothing to start from. It reads the files a
// batch at a time and keeps of each only its record, the fields encoded as
// the load cache stores them, and its terms in an index.Builder; the
// snapshot then makes files from the records, as from a cache. A hundred
// thousand parsed files never exist at once, nor their analyses.
type builder struct {
	s     *Snapshot
	ix    index.Builder
	recs  []byte
	ends  []uint32
	keep  bool // keep the files read (Inspect wants their line numbers)
	batch []index.Analyzed
	// restoreGC puts back the collector's target that newBuilder lowered.
	restoreGC func()
}

// buildBatch is how many files are read, parsed and tokenized at once.
const buildBatch = 512

// buildGCPercent is the garbage collector's target while building: most of
// what a build allocates is garbage at once (file bytes, parse trees,
// analyses) beside a live heap that only grows (records, terms, the
// index), so a heap twice the live one, Go's default, is mostly garbage.
// At 100,000 memories 50 brings the peak resident memory of a cold start
// from about 330 MB to under 300 MB.
const buildGCPercent = 50

func newBuilder(s *Snapshot, lists []listed, keep bool) *builder {
	// A record is rarely longer than its file: the files' sizes bound the
	// records' in one allocation, whose unused end is never touched.
	size := 0
	for _, l := range lists {
		for _, en := range l.entries {
			size += int(en.Size)
		}
	}
	b := &builder{s: s, recs: make([]byte, 0, size), keep: keep, batch: make([]index.Analyzed, buildBatch)}
	// Lower the collector's target for the build, never raise it, and
	// leave it off if the process turned it off.
	if prev := debug.SetGCPercent(buildGCPercent); prev < buildGCPercent {
		debug.SetGCPercent(prev)
	} else {
		b.restoreGC = func() { debug.SetGCPercent(prev) }
	}
	return b
}

// readAll reads a root's listed files, in order, and adds those that load.
func (b *builder) readAll(r store.Root, entries []store.Entry, fieldsOnly bool) []store.Problem {
	var problems []store.Problem
	workers := runtime.GOMAXPROCS(0)
	for start := 0; start < len(entries); start += buildBatch {
		files, ps := r.ReadEntries(entries[start:min(start+buildBatch, len(entries))], fieldsOnly)
		problems = append(problems, ps...)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := w; i < len(files); i += workers {
					if files[i] != nil {
						b.batch[i] = index.Analyze(docOf(files[i].Memory))
					}
				}
			})
		}
		wg.Wait()
		for i, f := range files {
			if f == nil {
				continue
			}
			d := len(b.s.rels)
			b.ix.Add(b.batch[i])
			b.batch[i] = index.Analyzed{}
			b.recs = snapfile.AppendRecord(b.recs, f.Memory)
			b.ends = append(b.ends, uint32(len(b.recs)))
			b.s.rec[d] = int32(d)
			if b.keep {
				b.s.files[d].Store(f)
			}
			b.s.add(f.Rel, f.Size, f.ModTime, f.Stamp)
		}
	}
	return problems
}

// corpus finishes the snapshot's records and returns its corpus.
func (b *builder) corpus() *rank.Corpus {
	s := b.s
	s.seg = &segment{records: snapfile.Table{Ends: b.ends, Data: b.recs}}
	b.batch = nil
	ix := b.ix.Build() // the build's peak: before the metadata exists
	metas := make([]rank.Meta, s.Len())
	for d := range metas {
		// The records are final: their strings can be shared.
		m, err := snapfile.DecodeRecord(s.seg.records.At(d))
		if err != nil {
			panic("engine: a record just encoded does not decode: " + err.Error())
		}
		metas[d] = metaOf(s.root(d).Scope, m, 0)
	}
	c := rank.NewCorpus(ix, metas)
	if b.restoreGC != nil {
		b.restoreGC()
	}
	return c
}

// listed is a root with what Scan found in it.
type listed struct {
	r        store.Root
	entries  []store.Entry
	problems []store.Problem
}

// readHits reads the recall counters of both roots, one per file.
func (e *Engine) readHits(s *Snapshot) []int32 {
	hits := make([]int32, s.Len())
	for _, r := range e.roots() {
		for id, n := range r.ReadState().Hits {
			if i := s.find(r.Scope, id+".md"); i >= 0 {
				hits[i] = int32(min(n, math.MaxInt32))
			}
		}
	}
	return hits
}

// metaOf is what the ranker knows of a memory file besides its text.
func metaOf(sc store.Scope, m *memory.Memory, hits int) rank.Meta {
	return rank.Meta{
		ID: m.ID, Scope: sc, Updated: m.Updated, Pinned: m.Pinned,
		Superseded: m.SupersededBy != "", Supersedes: m.Supersedes,
		LoadWhen: m.LoadWhen, Hits: hits,
	}
}

// docOf is the indexed text of a memory, by field.
func docOf(m *memory.Memory) index.Doc {
	return index.Doc{Fields: [index.NumFields]string{
		index.Summary:   m.Summary,
		index.Highlight: m.Highlight,
		index.LoadWhen:  joinTriggers(m.LoadWhen),
		index.Body:      m.Body,
	}}
}

// joinTriggers separates triggers so that no CJK bigram spans two of them.
func joinTriggers(ts []string) string {
	out := ""
	for i, t := range ts {
		if i > 0 {
			out += " ; "
		}
		out += t
	}
	return out
}

// compileRoot regenerates a root's index.md files and ROOT.md from its
// memory files on disk. The caller holds the root's lock.
func (e *Engine) compileRoot(r store.Root) (changed []string, err error) {
	files, _, err := r.Load()
	if err != nil {
		return nil, err
	}
	mems := make([]*memory.Memory, len(files))
	for i, f := range files {
		mems[i] = f.Memory
	}
	cats := compile.Categories(e.opts.categories(), mems)
	for _, c := range cats {
		rel := c + "/" + store.IndexFile
		if err := checkCategory(c); err != nil {
			continue
		}
		ok, err := r.WriteFile(rel, compile.Index(c, mems))
		if err != nil {
			return changed, fmt.Errorf("write %s: %w", rel, err)
		}
		if ok {
			changed = append(changed, rel)
		}
	}
	// An index.md that compile wrote, left in a folder that no longer
	// holds memories and is not a configured category, would list
	// memories that are gone. Only a file carrying compile's marker line
	// is removed, and never a folder: a folder's own index.md and the
	// folder itself are not ocmem's to delete.
	entries, _ := os.ReadDir(r.Dir)
	for _, de := range entries {
		name := de.Name()
		if !de.IsDir() || strings.HasPrefix(name, ".") || slices.Contains(cats, name) || checkCategory(name) != nil {
			continue
		}
		rel := name + "/" + store.IndexFile
		data, err := r.ReadFile(rel)
		if err != nil || data == nil || !compile.Generated(data) {
			continue
		}
		if err := r.Remove(rel); err != nil {
			return changed, fmt.Errorf("remove stale %s: %w", rel, err)
		}
		changed = append(changed, rel)
	}
	old, err := r.ReadRootMD()
	if err != nil {
		return changed, err
	}
	root, err := compile.Root(old, cats, mems)
	if err != nil {
		return changed, err
	}
	ok, err := r.WriteFile(store.RootFile, root)
	if err != nil {
		return changed, fmt.Errorf("write %s: %w", store.RootFile, err)
	}
	if ok {
		changed = append(changed, store.RootFile)
	}
	// Temp files a killed writer left behind (store.CleanTemp).
	r.CleanTemp(e.now(), store.TempMaxAge)
	return changed, nil
}

// Compile regenerates the compiled files of every configured root that
// exists, and reports what changed, as "scope:path".
func (e *Engine) Compile() ([]string, error) {
	return e.compile(e.roots())
}

// CompileScope is Compile for one root: it rewrites that root's index.md
// files and ROOT.md tables where they differ from the memories, and
// returns what it wrote.
func (e *Engine) CompileScope(scope store.Scope) ([]string, error) {
	r := e.Root(scope)
	if r.Dir == "" {
		return nil, nil
	}
	return e.compile([]store.Root{r})
}

func (e *Engine) compile(roots []store.Root) ([]string, error) {
	defer e.Invalidate()
	var out []string
	for _, r := range roots {
		if !dirExists(r.Dir) {
			continue
		}
		unlock, err := r.Lock()
		if err != nil {
			return out, err
		}
		changed, err := e.compileRoot(r)
		unlock()
		for _, c := range changed {
			out = append(out, string(r.Scope)+":"+c)
		}
		if err != nil {
			return out, fmt.Errorf("%s root: %w", r.Scope, err)
		}
	}
	return out, nil
}
