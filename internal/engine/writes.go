package engine

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"runtime"
	"runtime/metrics"
	"slices"
	"time"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/snapshot"
	"github.com/ocmem/ocmem/internal/store"
)

// Writes that cost what they change
//
// A write (Remember, Forget) starts from the loaded snapshot: the roots are
// listed before the root's lock is taken, as any load lists them, and
// under the lock only the root's write generation is compared with the
// snapshot's (store/generation.go): when another process wrote meanwhile,
// the roots are listed again, reading only the files that changed. The
// write then changes its files, and the compiled files are brought up to
// date from compile.Tables, the root's compiled files as their parts, kept
// by the engine between writes and built from the snapshot on first use:
// the index.md of each category the write changed and ROOT.md's tables.
// The result is what a full compile of the files on disk writes
// (TestWritesEqualFullCompile). The categories that events named or a
// load found changed (Engine.touched) are compiled too; an index.md that
// was stale before the write for a reason no event or load saw (a hand
// edit while no serve process ran, read by no command since) stays so
// until its category changes or `ocmem compile` runs. ROOT.md's tables
// are always made whole.
//
// The files written become the engine's next snapshot by patching the
// previous one (snapshot.Loader.Patch), so a serve process never lists the roots again
// after its own write; the next write starts from the files alone (wview)
// and the next read renumbers the index once. The file-system events a
// write causes are judged when it ends (deferEvent), recognised, and
// change nothing.

// tablesFor returns the tables of a root brought up to date with s: built
// from s on first use, else changed by the files in which s differs from
// the snapshot they were synced with. The caller holds writeMu.
func (e *Engine) tablesFor(r store.Root, s *Snapshot) *snapshot.Tables {
	ri := snapshot.ScopeIndex(r.Scope)
	rt := e.tables[ri]
	if rt == nil || rt.Root != r {
		e.mu.Lock()
		base := e.tablesBase[ri]
		e.tablesBase[ri], e.built[ri] = nil, true
		e.mu.Unlock()
		if base == nil {
			base = s
		}
		rt = e.buildTables(r, base)
		e.tables[ri] = rt
	}
	e.mu.Lock()
	touched, all := e.touched[ri], e.all[ri]
	e.touched[ri], e.all[ri] = nil, false
	e.mu.Unlock()
	for c := range touched {
		if c == snapshot.AllCategories {
			all = true
		} else {
			rt.T.Touch(c)
		}
	}
	if all {
		rt.T.TouchAll()
	}
	if rt.InStep(s) {
		return rt
	}
	rels := rt.Diff(s)
	if len(rels) > snapshot.MaxPatched && len(rels) > s.Len()/8 {
		// Most of the root changed (a checkout): built again, and every
		// compiled file counts as changed.
		rt = e.buildTables(r, s)
		rt.T.TouchAll()
		e.tables[ri] = rt
		return rt
	}
	rt.Sync(s, rels)
	return rt
}

// tablesBeside returns the tables of the write's root. When they must be
// made first (a fresh process's one write, a serve process's first), scan,
// a look through the records that the tables would only narrow or spare,
// runs on the other core meanwhile, and ran says so; otherwise scan is not
// called. The caller holds writeMu.
func (w *write) tablesBeside(scan func()) (rt *snapshot.Tables, ran bool) {
	if t := w.e.tables[snapshot.ScopeIndex(w.r.Scope)]; t != nil && t.Root == w.r {
		return w.e.tablesFor(w.r, w.s), false
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		scan()
	}()
	rt = w.e.tablesFor(w.r, w.s)
	<-done
	return rt, true
}

// buildTables builds a root's tables from a snapshot.
func (e *Engine) buildTables(r store.Root, s *Snapshot) *snapshot.Tables {
	t := compile.NewTables(e.opts.CategoriesOrDefault())
	// A snapshot without its corpus is a fresh process's (loadForWrite),
	// which writes once.
	t.OneShot = s.Corpus == nil
	rt := snapshot.NewTables(t, s, r)
	if t.OneShot {
		if kept := e.keptTables(r, s); kept != nil {
			return kept
		}
		buildOneShot(t, s, r.Scope)
		return rt
	}
	rt.Build()
	return rt
}

// buildOneShot builds tables from the memories of a root in s, as a
// process that writes once needs them. Decoding 90,000 records and routing
// their triggers is most of the build: split over the cores (about 60 ms
// of CPU at 100,000).
func buildOneShot(t *compile.Tables, s *Snapshot, scope store.Scope) {
	lo, hi := s.Span(scope)
	n := max(1, min(runtime.GOMAXPROCS(0), (hi-lo)/4096))
	parts := make([]func(add func(*memory.Memory)), n)
	for k := range parts {
		from, to := lo+(hi-lo)*k/n, lo+(hi-lo)*(k+1)/n
		parts[k] = func(add func(*memory.Memory)) {
			s.EachIn(from, to, func(_ int, m *memory.Memory) { add(m) })
		}
	}
	t.BuildParallel(parts...)
}

// keptTables returns the tables of a root in s (for a process that writes
// once, or for the cache a load writes), read from the load cache s
// started from rather than built from every memory, and brought up to
// date with the files s did not take from the cache (read because they
// changed since it was written, added, or gone): as a write changes them,
// each memory the cache held taken out and the one now read put in. It
// returns nil, and the tables are built, when s has no such cache, the
// cache holds no tables for the root or tables that do not read, a memory
// it held does not decode, or most of the root changed since.
func (e *Engine) keptTables(r store.Root, s *Snapshot) *snapshot.Tables {
	if e.seams.tablesNotFromCache {
		return nil
	}
	data, read, gone, ok := s.CachedTables(r.Scope)
	if !ok {
		return nil
	}
	lo, hi := s.Span(r.Scope)
	if n := len(read) + len(gone); n > snapshot.MaxPatched && n > (hi-lo)/8 {
		return nil
	}
	t, err := compile.ReadTables(e.opts.CategoriesOrDefault(), data)
	if err != nil {
		return nil
	}
	t.OneShot = true
	for _, j := range gone {
		// As the cache holds it, which is what its tables were made of.
		m, err := s.CachedMemory(j)
		if err != nil {
			return nil
		}
		t.Remove(m)
	}
	for _, i := range read {
		t.Add(s.Peek(i).Memory)
	}
	return snapshot.NewTables(t, s, r)
}

// write is one write to a root, from its lock to the snapshot it leaves.
type write struct {
	e       *Engine
	r       store.Root
	s       *Snapshot // the snapshot the write started from, current under the lock
	gen     uint64    // the root's write generation while the lock is held
	unlock  func()
	changes []snapshot.FileChange
	rootMD  []byte // ROOT.md as the write left it; nil when not written
	rt      *snapshot.Tables
	// unknown is set when a file written did not load back: the next load
	// lists the roots.
	unknown bool
	// rootRead, when not nil, is where ROOT.md's reading under the lock
	// (readRootAhead) will deliver it.
	rootRead chan rootReading
}

// rootReading is ROOT.md as read, where its markers lie, or the error
// reading it.
type rootReading struct {
	md     []byte
	layout compile.RootLayout
	buf    []byte // touched memory for the new ROOT.md, of about its size
	err    error
}

// readRootAhead starts reading ROOT.md, which writeRoot will compare with
// and take the person's text from, and finding its markers, on the other
// core, while the write makes its tables and files: 10 MB at 100,000
// memories. Nothing is read when the file is as this engine last wrote it
// (rootAsWritten).
func (w *write) readRootAhead() {
	if _, ok := w.e.rootAsWritten(w.r); ok {
		return
	}
	ch := make(chan rootReading, 1)
	held := w.s.RootMD[w.r.Scope]
	go func() {
		md, err := w.r.ReadRootMDAs(held)
		// The new ROOT.md is made in memory touched here: a write
		// changes a few of its rows.
		ch <- rootReading{md, compile.LayoutOf(md), touchedBuffer(len(md) + len(md)/8 + 64<<10), err}
	}()
	w.rootRead = ch
}

// beginWrite lists the roots if the engine has no snapshot (before the
// lock, so that other writers do not wait for it), takes r's lock, and
// makes sure the snapshot holds every other process's writes.
func (e *Engine) beginWrite(r store.Root) (*write, error) {
	if e.writeView() == nil {
		if err := e.loadForWrite(); err != nil {
			return nil, err
		}
	}
	e.writeMu.Lock()
	unlock, err := r.Lock()
	if err != nil {
		e.writeMu.Unlock()
		return nil, err
	}
	w := &write{e: e, r: r, gen: r.Generation(), unlock: unlock}
	e.mu.Lock()
	e.inWrite[snapshot.ScopeIndex(r.Scope)] = true
	e.mu.Unlock()
	if w.s, err = e.currentAt(r.Scope, w.gen); err != nil {
		w.end()
		return nil, err
	}
	return w, nil
}

// currentAt returns a snapshot that holds every write to the root of
// scope up to generation gen, which its caller holds the lock at.
func (e *Engine) currentAt(scope store.Scope, gen uint64) (*Snapshot, error) {
	for range 3 {
		s := e.writeView()
		if s == nil {
			var err error
			if s, err = e.Load(); err != nil {
				return nil, err
			}
		}
		e.mu.Lock()
		cur, known := e.snap == s || e.wview == s && e.wepoch == e.epoch, e.gens[snapshot.ScopeIndex(scope)]
		e.mu.Unlock()
		if cur && gen != 0 && known+1 == gen {
			return s, nil
		}
		if cur {
			break
		}
	}
	// Another process wrote since the snapshot (or its generation is
	// unknown): list the roots again, reading only the files that changed.
	e.invalidate()
	return e.Load()
}

// wrote records that the write changed the file at rel (nil m: removed
// it); the file is read back as a load would read it.
func (w *write) wrote(rel string, removed bool) {
	var f *store.File
	if !removed {
		var err error
		if f, err = w.r.LoadFile(rel); err != nil {
			w.unknown = true
			return
		}
	}
	w.changes = append(w.changes, snapshot.FileChange{Scope: w.r.Scope, Rel: rel, F: f})
	// Known to the engine at once: the file-system event of this write
	// may arrive before the write ends, and must find it (fileUnchanged).
	e := w.e
	e.mu.Lock()
	if e.written == nil {
		e.written = map[store.Scope]map[string]*store.File{}
	}
	if e.written[w.r.Scope] == nil {
		e.written[w.r.Scope] = map[string]*store.File{}
	}
	e.written[w.r.Scope][rel] = f
	e.mu.Unlock()
}

// compile brings the root's compiled files up to date with the write:
// the index.md of each category it changed, and ROOT.md. It returns what
// it wrote, as compileRoot does.
func (w *write) compile() ([]string, error) {
	if w.unknown {
		changed, _, err := w.e.compileRoot(w.r)
		return changed, err
	}
	rt := w.e.tablesFor(w.r, w.s)
	for _, c := range w.changes {
		var m *memory.Memory
		if c.F != nil {
			m = c.F.Memory.Fields()
		}
		rt.Wrote(c.Rel, m)
	}
	w.rt = rt
	return w.writeCompiled(rt)
}

// writeCompiled writes what changed in the tables, and the compiled files
// that are missing. ROOT.md is rendered and written beside the index.md
// files: each is its own file, replaced atomically, and the parts of the
// tables they render (the routes and the counts; a category's lines) are
// apart, so the two cores and the disk's syncs overlap.
func (w *write) writeCompiled(rt *snapshot.Tables) (changed []string, err error) {
	r := w.r
	dirty, rootDirty := rt.T.Changed()
	var rootDone chan error
	rootChanged := false
	if rootDirty || !r.Exists(store.RootFile) {
		rootDone = make(chan error, 1)
		go func() {
			var err error
			rootChanged, err = w.writeRoot(rt)
			rootDone <- err
		}()
	}
	changed, dirs, err := w.writeIndexes(rt, dirty)
	if rootDone != nil {
		if rerr := <-rootDone; err == nil {
			err = rerr
		}
		if rootChanged {
			changed = append(changed, store.RootFile)
		}
	}
	if err != nil {
		return changed, err
	}
	rt.T.Clean()
	// Temp files a killed writer left where this one wrote.
	for _, c := range w.changes {
		if d := path.Dir(c.Rel); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	w.cleanTemp(append(dirs, ""))
	return changed, nil
}

// tempCleanEvery is how long a folder's temp files are not looked for
// again after a write looked (tempCleaned): a folder of 20,000 memories
// costs 2–3 ms to read, which a serve process's every write would pay,
// while a killed writer's temp file only counts as one after
// store.TempMaxAge. It is then removed at most this much later.
const tempCleanEvery = store.TempMaxAge / 4

// cleanTemp removes killed writers' temp files from the folders of the
// root (see store.Root.CleanTempIn) not looked at in tempCleanEvery. The
// caller holds writeMu.
func (w *write) cleanTemp(dirs []string) {
	e, now := w.e, w.e.now()
	if e.tempCleaned == nil {
		e.tempCleaned = map[string]time.Time{}
	}
	var due []string
	for _, d := range dirs {
		key := w.r.Dir + "\x00" + d
		if at, ok := e.tempCleaned[key]; ok && now.Sub(at) < tempCleanEvery && !now.Before(at) {
			continue
		}
		e.tempCleaned[key] = now
		due = append(due, d)
	}
	if len(due) == 0 {
		return
	}
	// A fresh process's write lists the root first: the temp files its
	// listing saw are all that can be stale (CleanListedTemp), and the
	// folders, 20,000 names each at 100,000 memories, are not read again.
	if at, rels, ok := w.s.Temps(w.r.Scope); ok && !now.Before(at) && now.Sub(at) < store.TempMaxAge {
		w.r.CleanListedTemp(now, store.TempMaxAge, rels, due...)
		return
	}
	w.r.CleanTempIn(now, store.TempMaxAge, due...)
}

// writeIndexes writes the index.md of the categories in dirty and of those
// that have none, and removes the stale ones; dirs are the folders
// written in.
func (w *write) writeIndexes(rt *snapshot.Tables, dirty []string) (changed, dirs []string, err error) {
	r := w.r
	cats := rt.T.Categories()
	for _, c := range cats {
		if !slices.Contains(dirty, c) && !r.Exists(c+"/"+store.IndexFile) {
			dirty = append(dirty, c)
		}
	}
	// The lines not made yet are of memories the tables were built with:
	// each is decoded from the load cache into one reused value, not made
	// into a file (the category of a write at 100,000 memories holds some
	// 20,000), as Tables.Index uses it only to make its line.
	var scratch memory.Memory
	lineOf := func(id string) *memory.Memory {
		if i := rt.Snap.Find(r.Scope, id+".md"); i >= 0 {
			return rt.Snap.MemoryInto(i, &scratch)
		}
		return nil
	}
	for _, c := range dirty {
		if checkCategory(c) != nil {
			continue
		}
		rel := c + "/" + store.IndexFile
		dirs = append(dirs, c)
		if !slices.Contains(cats, c) {
			ok, err := removeStaleIndex(r, rel)
			if err != nil {
				return changed, dirs, err
			}
			if ok {
				changed = append(changed, rel)
			}
			continue
		}
		var ok bool
		var err error
		if rt.T.OneShot {
			// Tables read back from the load cache know their lines'
			// sums: the lines of the index.md on disk that are as they
			// would make them are taken from it, and the file is read
			// once for that and for the comparison.
			old, rerr := r.ReadFile(rel)
			if rerr != nil {
				old = nil
			}
			ok, err = r.WriteFileOver(rel, old, rt.T.IndexOver(c, old, lineOf))
		} else {
			ok, err = r.WriteFile(rel, rt.T.Index(c, lineOf))
		}
		if err != nil {
			return changed, dirs, fmt.Errorf("write %s: %w", rel, err)
		}
		if ok {
			changed = append(changed, rel)
		}
	}
	return changed, dirs, nil
}

// writeRoot renders ROOT.md from the tables and writes it when it changed.
func (w *write) writeRoot(rt *snapshot.Tables) (changed bool, err error) {
	r := w.r
	// Read again under the lock (a person may have edited it since the
	// snapshot), but as the snapshot's copy when it is unchanged, and not
	// at all when its status says it is as this engine wrote it.
	old, as := w.e.rootAsWritten(r)
	var layout *compile.RootLayout
	var buf []byte
	switch {
	case as:
	case w.rootRead != nil:
		got := <-w.rootRead
		w.rootRead = nil
		if old, err = got.md, got.err; err != nil {
			return false, err
		}
		layout, buf = &got.layout, got.buf
	default:
		if old, err = r.ReadRootMDAs(w.s.RootMD[r.Scope]); err != nil {
			return false, err
		}
	}
	// A serve process's ROOT.md is spliced from the one it wrote last:
	// its pieces are written while the other core joins them into the
	// snapshot's copy, so that a write of 10 MB does not wait for 10 MB
	// of fresh memory to be filled first.
	sp, spliced := rt.T.Splice(old)
	var joined chan []byte
	var root []byte
	if spliced {
		joined = make(chan []byte, 1)
		go func() { joined <- sp.Join() }()
	} else if root, err = rt.T.RootOver(old, layout, buf); err != nil {
		return false, err
	}
	var ok bool
	switch {
	case spliced && old != nil && sp.Equal(old):
	case spliced:
		ok, err = true, r.WriteFileFunc(store.RootFile, func(f io.Writer) error {
			_, err := sp.WriteTo(f)
			return err
		})
	default:
		// Known before it is written, as the files are (wrote).
		w.e.setWrittenRoot(r, root)
		ok, err = r.WriteFileOver(store.RootFile, old, root)
	}
	if spliced {
		root = <-joined
		w.e.setWrittenRoot(r, root)
	}
	if err != nil {
		w.unknown = true // what ROOT.md holds now is not known
		return false, fmt.Errorf("write %s: %w", store.RootFile, err)
	}
	if ok {
		w.rootMD = root
		w.e.holdRoot(r, root)
	}
	return ok, nil
}

// touchedBuffer returns an empty slice of capacity n whose pages are
// touched, so that filling it takes no page faults.
func touchedBuffer(n int) []byte {
	b := make([]byte, n)
	for i := 0; i < n; i += 4096 {
		b[i] = 1
	}
	return b[:0]
}

// setWrittenRoot records that this engine's write left ROOT.md of r as md.
func (e *Engine) setWrittenRoot(r store.Root, md []byte) {
	e.mu.Lock()
	if e.writtenRoot == nil {
		e.writtenRoot = map[store.Scope][]byte{}
	}
	e.writtenRoot[r.Scope] = md
	e.mu.Unlock()
}

// holdRoot records that ROOT.md of r is now md, as this engine wrote it.
// The caller holds r's lock, so only a person's edit in the moment after
// the rename can come before the stat, and the watcher's event for it is
// then taken for this write's own.
func (e *Engine) holdRoot(r store.Root, md []byte) {
	h := heldRoot{md: md}
	if p, err := r.Path(store.RootFile); err == nil {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			h.size, h.stamp = fi.Size(), store.StatStamp(p)
		}
	}
	if h.stamp == 0 {
		h.md = nil // no stamp on this platform: always read
	}
	e.mu.Lock()
	e.heldRoot[snapshot.ScopeIndex(r.Scope)] = h
	e.mu.Unlock()
}

// removeStaleIndex removes an index.md that compile wrote in a folder that
// holds no memories and is not a configured category (see compileRoot).
func removeStaleIndex(r store.Root, rel string) (bool, error) {
	data, err := r.ReadFile(rel)
	if err != nil || data == nil || !compile.Generated(data) {
		return false, nil
	}
	if err := r.Remove(rel); err != nil {
		return false, fmt.Errorf("remove stale %s: %w", rel, err)
	}
	return true, nil
}

// end releases the lock, and leaves the engine with the snapshot the write
// made: the previous one with the files written patched in, at the
// generation the root has once the lock is released.
func (w *write) end() {
	w.unlock()
	e := w.e
	e.mu.Lock()
	e.gcRestore()
	defer e.writeMu.Unlock()
	defer e.mu.Unlock()
	defer e.judgeDeferred(w.r)
	if len(w.changes) == 0 && w.rootMD == nil && !w.unknown {
		// Nothing the snapshot holds changed: it stays, and is current
		// at the generation the lock's release left.
		if w.s != nil && e.snap == w.s {
			e.gens[snapshot.ScopeIndex(w.r.Scope)] = w.gen + 1
		}
		return
	}
	e.epoch++
	if e.snap != nil {
		e.last = e.snap
	}
	e.snap = nil
	if w.unknown || e.last == nil {
		e.walk = true
	}
	// The files and ROOT.md written are in written and writtenRoot
	// already (wrote, writeCompiled).
	if w.s != nil && !w.unknown {
		e.gens[snapshot.ScopeIndex(w.r.Scope)] = w.gen + 1
	}
	e.wview = nil
	if !e.walk && len(e.changed) == 0 && e.last != nil {
		e.wview, e.wepoch = e.viewOfWritten(), e.epoch
	}
}

// loadForWrite loads the roots for a write. An engine that never loaded
// (a CLI command) loads without renumbering the index or rewriting the
// cache for the files changed since the cache was written: the write
// needs the files, not the index, and a snapshot without its corpus is a
// write view only (the next read lists the roots again).
func (e *Engine) loadForWrite() error {
	e.mu.Lock()
	if e.snap != nil || e.last != nil || e.wview != nil {
		e.mu.Unlock()
		_, err := e.Load()
		return err
	}
	defer e.mu.Unlock()
	// A fresh process's write allocates 74 MiB at 100,000 memories (the
	// listing, the tables, ROOT.md's new text) beside the part of the
	// cache it maps, and ends: collecting it as it grows
	// costs more time than the memory it would free is worth. The
	// collector is off for the write, up to writeHeadroom more Go
	// memory than the process holds now (an engine may live in a process
	// that holds more), unless GOGC or GOMEMLIMIT was set or the engine
	// may not tune the collector (Config.TuneGC); a cold build
	// turns it on again for itself (snapshot.Loader.BeforeBuild).
	if e.tuneGC && os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		e.restoreGC = snapshot.TuneGC(-1, goMemory()+writeHeadroom)
	}
	s, err := e.loader.Load(nil, true, true)
	if err != nil {
		e.gcRestore()
		return err
	}
	e.gens = s.Gens()
	if s.Corpus != nil {
		e.install(s)
		return nil
	}
	e.install(s)
	e.snap, e.walk = nil, true
	e.wview, e.wepoch = s, e.epoch
	return nil
}

// writeHeadroom is the Go memory a fresh process's write may add before
// the collector runs (it is otherwise off during the write): at 100,000
// memories the write allocates 74 MiB in all, never collected, and peaks
// at 139–141 MiB RSS against 125–127 MiB at a target of 200 (the
// collector's four cycles then cost some 40 ms of CPU).
const writeHeadroom = 128 << 20

// goMemory is the Go memory the process holds, as its memory limit
// counts it (runtime/debug.SetMemoryLimit).
func goMemory() int64 {
	ms := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(ms)
	if ms[0].Value.Kind() != metrics.KindUint64 || ms[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(ms[0].Value.Uint64() - ms[1].Value.Uint64())
}

// gcRestore puts back the collector's target loadForWrite changed. The
// caller holds mu.
func (e *Engine) gcRestore() {
	if e.restoreGC != nil {
		e.restoreGC()
		e.restoreGC = nil
	}
}

// writeView returns the snapshot the next write starts from when it is the
// last one with this engine's writes patched in (wview), or nil.
func (e *Engine) writeView() *Snapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.snap != nil {
		return e.snap
	}
	if e.wview != nil && e.wepoch == e.epoch {
		return e.wview
	}
	return nil
}

// viewOfWritten is last with the files written patched in, without a
// corpus (snapshot.RenumberFiles). The caller holds mu.
func (e *Engine) viewOfWritten() *Snapshot {
	var changes []snapshot.FileChange
	for _, scope := range []store.Scope{store.Global, store.Project} {
		for rel, f := range e.written[scope] {
			changes = append(changes, snapshot.FileChange{Scope: scope, Rel: rel, F: f})
		}
	}
	if len(changes) > snapshot.MaxPatched {
		return nil
	}
	s, _, _ := snapshot.RenumberFiles(e.last, changes)
	s.Problems = snapshot.PatchedProblems(e.last.Problems, changes)
	if len(e.writtenRoot) > 0 {
		s.RootMD = maps.Clone(e.last.RootMD)
		maps.Copy(s.RootMD, e.writtenRoot)
	}
	return s
}

// CompileChanged brings a root's compiled files up to date with the memory
// files changed since this engine last wrote them, as the serve process
// does after a hand edit: only the categories whose lines changed, and
// ROOT.md when its tables did. Nothing is locked or written when no
// compiled line changed. It returns what it wrote, as "scope:path".
func (e *Engine) CompileChanged(scope store.Scope) ([]string, error) {
	r := e.Root(scope)
	if !dirExists(r.Dir) {
		return nil, nil
	}
	// Nothing heard of since the last write: the events of this engine's
	// own writes, which serve's recompile follows too, cost no load.
	ri := snapshot.ScopeIndex(scope)
	e.mu.Lock()
	quiet := len(e.touched[ri]) == 0 && !e.all[ri] && len(e.changed[scope]) == 0 && !e.walk && e.built[ri]
	e.mu.Unlock()
	if quiet {
		return nil, nil
	}
	s, err := e.Load()
	if err != nil {
		return nil, err
	}
	e.writeMu.Lock()
	rt := e.tablesFor(r, s)
	dirty, rootDirty := rt.T.Changed()
	e.writeMu.Unlock()
	if len(dirty) == 0 && !rootDirty {
		return nil, nil
	}
	w, err := e.beginWrite(r)
	if err != nil {
		return nil, err
	}
	defer w.end()
	wrote, err := w.writeCompiled(e.tablesFor(r, w.s))
	for i, p := range wrote {
		wrote[i] = string(scope) + ":" + p
	}
	return wrote, err
}

// Written says where a memory went.
type Written struct {
	ID    string      `json:"id"`
	Scope store.Scope `json:"scope"`
	Path  string      `json:"path"`
	Kind  memory.Kind `json:"kind"`
	// Downgraded is set when a rule from a model was stored as a proposal.
	Downgraded bool `json:"downgraded,omitempty"`
	// ReplacesRule is the hard rule a memory from a model or extraction
	// would supersede: the memory was stored as a rule proposal, and the
	// rule stays in force until a person accepts it.
	ReplacesRule string `json:"replaces_rule,omitempty"`
	// Superseded is the id of the memory this one replaced, if any.
	Superseded string `json:"superseded,omitempty"`
	// SameSummary is the id of a live memory of the same root whose
	// summary the new one repeats with another body: both are kept, and
	// the reply says so, since one of them is likely stale.
	SameSummary string `json:"same_summary,omitempty"`
	// ByDigest is set when a Verify recorded the anchors' digests and no
	// commit: the anchored code held uncommitted changes, or is not in git.
	ByDigest bool `json:"by_digest,omitempty"`
	// Restored lists, for a Forget, the memories the forgotten one had
	// replaced: with their replacement gone they are live again.
	Restored []string `json:"restored,omitempty"`
	// NotLoaded is, for a Forget of a file that did not load as a memory
	// (a person may delete one), why it did not.
	NotLoaded string `json:"not_loaded,omitempty"`
	// Warning says the write is done but the compiled files (index.md,
	// ROOT.md) could not be brought up to date, as when the disk is full:
	// the write succeeded and must not be retried; the next write or
	// `ocmem compile` catches up.
	Warning string `json:"warning,omitempty"`
}

// indexNotUpdated is the Warning of a write whose compile failed.
func indexNotUpdated(what string, err error) string {
	return fmt.Sprintf("%s; index not updated (%v); the next write or `ocmem compile` updates it, so do not write it again",
		what, oneLineErr(err))
}
