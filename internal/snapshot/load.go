package snapshot

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/index"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/rank"
	"github.com/ocmem/ocmem/internal/snapfile"
	"github.com/ocmem/ocmem/internal/store"
)

// touchedBy returns, by root, the categories of the files a load found
// added, removed or changed since prev ("*": every category, when there
// was no prev): their compiled files may be stale, as after a git pull
// (the engine compiles them again).
func touchedBy(prev, s *Snapshot, remap []int32, added map[int]*store.File) [2]map[string]bool {
	var out [2]map[string]bool
	mark := func(ri int, rel string) {
		if out[ri] == nil {
			out[ri] = map[string]bool{}
		}
		c, _, _ := strings.Cut(rel, "/")
		out[ri][c] = true
	}
	if prev == nil {
		mark(0, AllCategories)
		mark(1, AllCategories)
		return out
	}
	for j, to := range remap {
		if to < 0 {
			mark(ScopeIndex(prev.Root(j).Scope), prev.rels[j])
		}
	}
	for d := range added {
		mark(ScopeIndex(s.Root(d).Scope), s.rels[d])
	}
	return out
}

// AllCategories, among the touched categories, stands for all of them.
const AllCategories = "*"

// Loader loads the snapshots of two roots (either may be unused: an empty
// Dir), and keeps their load cache.
type Loader struct {
	Global, Project store.Root
	// Categories are the configured categories, which the compiled tables
	// the cache keeps are made for.
	Categories []string
	// Now returns the current time (time.Now when nil).
	Now func() time.Time
	// Watch, when set, returns what a root's listing tells of each folder
	// it lists (store.Root.List).
	Watch func(r store.Root) func(dir string)
	// Kept, when set, returns a root's compiled tables as s holds its
	// memories, kept rather than built (CachedTables); nil builds them.
	Kept func(r store.Root, s *Snapshot) *compile.Tables
	// BeforeBuild, when set, runs before a files-only load builds a
	// snapshot with nothing to start from (a write's load that needs the
	// collector back on).
	BeforeBuild func()
	// Analysis, when set, stands for this build's analysis stamp
	// (analysisStamp): a cache written under another is not used.
	Analysis func() string
	// TuneGC lowers the collector's target while a snapshot is built
	// (TuneGC, buildGCPercent). The collector's settings are the process's:
	// only the program that owns main may ask for them, so a library
	// caller's process keeps its own.
	TuneGC bool

	// unlisted holds the files of the load cache a files-only load opened
	// beside a listing that failed: the next such load starts from them
	// rather than map the file again, as a mapping is never undone. The
	// caller serializes files-only loads.
	unlisted *Snapshot
}

// Unlisted is what a files-only load whose listing failed kept of the load
// cache for the next one, or nil.
func (l *Loader) Unlisted() *Snapshot { return l.unlisted }

func (l *Loader) root(s store.Scope) store.Root {
	if s == store.Global {
		return l.Global
	}
	return l.Project
}

// roots lists the roots in use, global first.
func (l *Loader) roots() []store.Root {
	var rs []store.Root
	for _, r := range []store.Root{l.Global, l.Project} {
		if r.Dir != "" {
			rs = append(rs, r)
		}
	}
	return rs
}

func (l *Loader) now() time.Time {
	if l.Now == nil {
		return time.Now()
	}
	return l.Now()
}

// Load lists both roots and builds their snapshot. With useCache, it starts
// from prev, or when there is none from the on-disk load cache: the files
// whose size and modification time did not change are taken from there
// with their place in the index, only the others are read, parsed and
// tokenized, and the index is renumbered around them. A load that started
// from no previous snapshot writes the cache when it changed. With
// filesOnly, a load that starts from the cache leaves the corpus out (nil)
// rather than renumbering the index and rewriting the cache, and reads only
// the files' part of the cache: what a write needs.
func (l *Loader) Load(prev *Snapshot, useCache, filesOnly bool) (*Snapshot, error) {
	// Read before listing: a write that ends meanwhile changes it, and the
	// next write then lists again (store/generation.go).
	gens := [2]uint64{l.Global.Generation(), l.Project.Generation()}
	// A write's load opens the cache's files and checks their CRC (48 MB
	// at 100,000 memories) beside the listing, which leaves a core idle
	// now and then (a folder's names read by one worker, the last
	// chunk's stats). A read's opens it after the listing: beside it,
	// the two grew the heap at once, and a warm `ocmem recall` peaked
	// 3–4 MB higher.
	var cached chan *Snapshot
	if useCache && prev == nil && filesOnly {
		cached = make(chan *Snapshot, 1)
		if s := l.unlisted; s != nil {
			l.unlisted = nil
			cached <- s
		} else {
			go func() { cached <- l.readCache(filesOnly) }()
		}
	}
	lists, total, err := l.list()
	if err != nil {
		if cached != nil {
			l.unlisted = <-cached
		}
		return nil, err
	}
	fromCache := false
	switch {
	case !useCache:
		prev = nil
	case prev == nil && cached != nil:
		prev = <-cached
		fromCache = prev != nil
	case prev == nil:
		prev = l.readCache(filesOnly)
		fromCache = prev != nil
	}
	olds, kept := unchanged(prev, lists)
	s := New(l.Global, l.Project, total)
	s.gens = gens
	for _, l := range lists {
		s.temps[ScopeIndex(l.r.Scope)] = &l.temps
	}
	var b *builder
	if kept == 0 {
		if filesOnly && l.BeforeBuild != nil {
			l.BeforeBuild()
		}
		b = newBuilder(s, lists, !useCache, l.TuneGC)
	}
	remap, added := s.read(prev, lists, olds, b, useCache)
	s.touched = touchedBy(prev, s, remap, added)
	if filesOnly && b == nil && (prev.Corpus == nil || kept != prev.Len() || len(added) > 0) {
		// A write view: its write reads ROOT.md under the lock anyway, so
		// it is not read here too (10 MB at 100,000 memories).
		return s, nil
	}
	for _, l := range lists {
		s.readRootMD(l.r)
	}
	sortProblems(s.Problems)
	s.assemble(prev, b, kept, remap, added)
	s.Corpus = s.Corpus.WithHits(l.readHits(s))
	if useCache && (prev == nil || fromCache) && !(fromCache && prev.Corpus != nil && s.Corpus.Index() == prev.Corpus.Index()) {
		l.writeCache(s)
	}
	return s, nil
}

// list scans both roots: the first step of a load.
func (l *Loader) list() (lists []listed, total int, err error) {
	var errs []error
	for _, r := range l.roots() {
		at := l.now()
		var watch func(dir string)
		if l.Watch != nil {
			watch = l.Watch(r)
		}
		ls, err := r.List(watch)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		lists = append(lists, listed{r, ls.Entries, ls.Problems, listedTemps{at, ls.Temps}})
		total += len(ls.Entries)
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
		// Both lists are sorted by path: each entry is looked for from
		// where the last one was found, in one pass over prev's files.
		var at, hi int
		if prev != nil {
			at, hi = prev.Span(l.r.Scope)
		}
		for i := range l.entries {
			olds[li][i] = -1
			if prev == nil {
				continue
			}
			var j int
			if j, at = prev.findFrom(at, hi, l.r.Scope, l.entries[i].Rel); j >= 0 {
				if j = prev.sameFile(l.r, &l.entries[i], j); j >= 0 {
					olds[li][i] = j
					kept++
				}
			}
		}
	}
	return olds, kept
}

// findFrom is find for a caller going through a root's paths in order:
// it returns the position of rel among the root's files in s (or -1),
// looking from at, which the last call returned, to hi, the root's end,
// and where the next call should look from. A path that does not sort
// after the last one is looked for in the whole root.
func (s *Snapshot) findFrom(at, hi int, scope store.Scope, rel string) (i, next int) {
	if lo, _ := s.Span(scope); at > lo && s.rels[at-1] >= rel {
		return s.Find(scope, rel), at
	}
	for at < hi && s.rels[at] < rel {
		at++
	}
	if at < hi && s.rels[at] == rel {
		return at, at + 1
	}
	return -1, at
}

// sameFile returns j, the position in s of the file an entry lists, when
// the file has not changed since s read it, or -1. A symlinked file (Scan
// lists only those that resolve inside the root) is compared by what it
// leads to, as it was read.
func (s *Snapshot) sameFile(r store.Root, en *store.Entry, j int) int {
	if en.Mode&fs.ModeSymlink != 0 {
		info, err := os.Stat(filepath.Join(r.Dir, filepath.FromSlash(en.Rel)))
		if err != nil || !info.Mode().IsRegular() {
			return -1
		}
		en.Size, en.ModTime, en.Stamp = info.Size(), info.ModTime(), 0
	}
	if s.sizes[j] != en.Size || s.mtimes[j] != en.ModTime.UnixNano() {
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
	}
	n := len(s.rels)
	s.files, s.rec = s.files[:n], s.rec[:n]
	sortProblems(s.Problems)
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

func newBuilder(s *Snapshot, lists []listed, keep, tuneGC bool) *builder {
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
	// leave it off if the process or a write turned it off (TuneGC).
	if tuneGC {
		b.restoreGC = TuneGC(buildGCPercent, NoLimit)
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
			panic("snapshot: a record just encoded does not decode: " + err.Error())
		}
		metas[d] = metaOf(s.Root(d).Scope, m, 0)
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
	temps    listedTemps
}

// listedTemps are the temp files a listing of a root saw (Listing.Temps),
// and when it began.
type listedTemps struct {
	at  time.Time
	rel []string
}

// readHits reads the recall counters of both roots, one per file.
func (l *Loader) readHits(s *Snapshot) []int32 {
	hits := make([]int32, s.Len())
	for _, r := range l.roots() {
		for id, n := range r.ReadState().Hits {
			if i := s.Find(r.Scope, id+".md"); i >= 0 {
				hits[i] = int32(min(n, math.MaxInt32))
			}
		}
	}
	return hits
}

// metaOf is what the ranker knows of a memory file besides its text. A
// rule proposal replaces nothing until a person accepts it: its supersedes
// is what it would replace, not a link the ranker follows.
func metaOf(sc store.Scope, m *memory.Memory, hits int) rank.Meta {
	supersedes := m.Supersedes
	if m.Kind == memory.KindRuleProposal {
		supersedes = ""
	}
	return rank.Meta{
		ID: m.ID, Scope: sc, Updated: m.Updated, Pinned: m.Pinned,
		Superseded: m.SupersededBy != "", Supersedes: supersedes,
		LoadWhen: m.LoadWhen, Hits: hits, Kind: m.Kind,
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
