package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/snapshot"
	"github.com/ocmem/ocmem/internal/store"
)

// WatchFolders tells w, from now on, of each folder of the roots before a
// load lists it, so that a watcher sees every change that load misses
// without walking the roots itself; the next load lists them.
func (e *Engine) WatchFolders(w FolderWatcher) {
	e.folders.Store(&w)
	e.invalidate()
}

// Invalidate drops the cached snapshot; the next call reloads.
func (e *Engine) Invalidate() {
	e.mu.Lock()
	e.all = [2]bool{true, true}
	e.mu.Unlock()
	e.invalidate()
}

// invalidate is Invalidate for a reason that marks no category touched.
func (e *Engine) invalidate() {
	e.mu.Lock()
	e.keepBase()
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
// file. A path that is not a memory file (a folder, a temporary file)
// falls back to Invalidate, except the compiled files: index.md, which the
// engine does not read, and ROOT.md, which the next load reads alone. An
// event for a file as the engine holds it (one it wrote itself) changes
// nothing. A path of "" (the watcher's "anything may have changed") is
// Invalidate, so that every edge hands the watcher's events on as they
// come.
func (e *Engine) InvalidateFile(root, path string) {
	if path == "" {
		e.Invalidate()
		return
	}
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
	r := e.Root(scope)
	if rel == store.RootFile {
		// Its hard rules are in the snapshot; nothing else of it is. A
		// ROOT.md this engine just wrote is not news.
		md, ok := e.rootAsWritten(r)
		var err error
		if !ok {
			md, err = r.ReadRootMD()
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.deferEvent(scope, rel) {
			return
		}
		if e.rootMDChanged(scope, md, err) {
			e.changeFile(scope, rel)
		}
		return
	}
	if !strings.HasSuffix(rel, ".md") || strings.Count(rel, "/") != 1 || strings.Contains(rel, "/.") {
		e.Invalidate()
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.deferEvent(scope, rel) || e.fileUnchanged(r, rel) {
		return
	}
	e.changeFile(scope, rel)
}

// deferEvent keeps an event for a file of a root this engine is writing,
// to be judged when the write ends (inWrite). The caller holds mu.
func (e *Engine) deferEvent(scope store.Scope, rel string) bool {
	ri := snapshot.ScopeIndex(scope)
	if !e.inWrite[ri] {
		return false
	}
	if e.deferred[ri] == nil {
		e.deferred[ri] = map[string]bool{}
	}
	e.deferred[ri][rel] = true
	return true
}

// changeFile drops the snapshot because one file changed, so that the next
// load reads just that file. The caller holds mu.
func (e *Engine) changeFile(scope store.Scope, rel string) {
	e.keepBase()
	ri := snapshot.ScopeIndex(scope)
	if e.touched[ri] == nil {
		e.touched[ri] = map[string]bool{}
	}
	cat, _, _ := strings.Cut(rel, "/")
	if rel == store.RootFile {
		cat = ""
	}
	e.touched[ri][cat] = true
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
	e.noteEdited(scope, rel)
}

// keepBase keeps the current snapshot as the base of the tables not built
// yet (tablesBase). The caller holds mu.
func (e *Engine) keepBase() {
	for i := range e.tablesBase {
		if !e.built[i] && e.tablesBase[i] == nil {
			e.tablesBase[i] = e.snap
		}
	}
}

// maxEdited bounds the versions noteEdited keeps per root between two
// TouchEdited runs; a file past it is judged against git's HEAD alone.
const maxEdited = 4096

// noteEdited keeps the version of a memory file the engine held before an
// event said it changed, the first one since TouchEdited last ran. The
// caller holds mu.
func (e *Engine) noteEdited(scope store.Scope, rel string) {
	if !e.touchEdits {
		return
	}
	if strings.Count(rel, "/") != 1 || !strings.HasSuffix(rel, ".md") || strings.HasSuffix(rel, "/"+store.IndexFile) {
		return
	}
	ri := snapshot.ScopeIndex(scope)
	if _, ok := e.edited[ri][rel]; ok || len(e.edited[ri]) >= maxEdited {
		return
	}
	var prev *memory.Memory
	if f, ok := e.written[scope][rel]; ok {
		if f != nil {
			prev = f.Memory
		}
	} else if s := e.heldView(); s != nil {
		prev = s.MemoryAt(scope, rel)
	}
	if e.edited[ri] == nil {
		e.edited[ri] = map[string]*memory.Memory{}
	}
	e.edited[ri][rel] = prev
}

// heldView is the snapshot the engine holds, current or last. The caller
// holds mu.
func (e *Engine) heldView() *Snapshot {
	if e.snap != nil {
		return e.snap
	}
	return e.last
}

// rootAsWritten returns ROOT.md of r when the file's size and stamp are
// those it had once this engine wrote it, without reading it; ok is false
// when it may have changed since (or was never written here, or the
// platform stamps files by their content).
func (e *Engine) rootAsWritten(r store.Root) (md []byte, ok bool) {
	e.mu.Lock()
	h := e.heldRoot[snapshot.ScopeIndex(r.Scope)]
	e.mu.Unlock()
	return h.asDisk(r)
}

// asDisk returns the held ROOT.md when the file's status is as it was
// once written.
func (h heldRoot) asDisk(r store.Root) (md []byte, ok bool) {
	if h.md == nil {
		return nil, false
	}
	p, err := r.Path(store.RootFile)
	if err != nil {
		return nil, false
	}
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() || fi.Size() != h.size || store.StatStamp(p) != h.stamp {
		return nil, false
	}
	return h.md, true
}

// judgeDeferred ends a write's holding of the events for its root
// (deferEvent): each file that is not as the write left it is a change.
// The caller holds mu.
func (e *Engine) judgeDeferred(r store.Root) {
	ri := snapshot.ScopeIndex(r.Scope)
	e.inWrite[ri] = false
	for rel := range e.deferred[ri] {
		if rel == store.RootFile {
			md, ok := e.heldRoot[ri].asDisk(r)
			var err error
			if !ok {
				md, err = r.ReadRootMD()
			}
			if e.rootMDChanged(r.Scope, md, err) {
				e.changeFile(r.Scope, rel)
			}
		} else if !e.fileUnchanged(r, rel) {
			e.changeFile(r.Scope, rel)
		}
	}
	e.deferred[ri] = nil
}

// rootMDChanged reports whether ROOT.md of a root differs from what the
// engine's view holds, so that an event for a ROOT.md this engine wrote
// costs nothing. The caller holds mu. The comparison is bytes.Equal's,
// which takes no time for the held copy itself (the usual case: the
// event is this engine's own write) and 0.8 ms for another 10 MB copy;
// slices.Equal's loop byte by byte took 13–17 ms for either, on a serve
// write's path under mu.
func (e *Engine) rootMDChanged(scope store.Scope, md []byte, err error) bool {
	if err != nil {
		return true
	}
	if held, ok := e.writtenRoot[scope]; ok {
		return !bytes.Equal(held, md)
	}
	s := e.snap
	if s == nil {
		s = e.last
	}
	return s == nil || !bytes.Equal(s.RootMD[scope], md)
}

// fileUnchanged reports whether a memory file an event names is as the
// engine's view holds it (a file this engine wrote, or an event for
// nothing new). The caller holds mu.
func (e *Engine) fileUnchanged(r store.Root, rel string) bool {
	if e.walk || e.changed[r.Scope][rel] {
		return false
	}
	if f, ok := e.written[r.Scope][rel]; ok {
		return snapshot.SameStat(r, rel, f)
	}
	s := e.snap
	if s == nil {
		s = e.last
	}
	if s == nil {
		return false
	}
	if i := s.Find(r.Scope, rel); i >= 0 {
		return s.SameAsDisk(r, i)
	}
	return false
}
