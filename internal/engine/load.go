package engine

import (
	"bytes"
	"errors"
	"io/fs"

	"github.com/ocmem/ocmem/internal/snapshot"
	"github.com/ocmem/ocmem/internal/store"
)

// Load returns the current snapshot, loading it if needed.
func (e *Engine) Load() (*Snapshot, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.snap != nil {
		return e.snap, nil
	}
	var s *Snapshot
	if e.last != nil && !e.walk && (len(e.changed) > 0 || len(e.written) > 0 || len(e.writtenRoot) > 0) {
		s = e.reloadChanged(e.last, e.changed)
	}
	if s == nil {
		var err error
		if s, err = e.load(e.last, true); err != nil {
			return nil, err
		}
		e.gens = s.Gens()
	}
	e.install(s)
	return s, nil
}

// install makes s the current snapshot. The caller holds mu.
func (e *Engine) install(s *Snapshot) {
	e.snap, e.last, e.changed, e.walk = s, nil, nil, false
	e.written, e.writtenRoot, e.wview = nil, nil, nil
	for ri, cats := range s.Touched() {
		for c := range cats {
			if e.touched[ri] == nil {
				e.touched[ri] = map[string]bool{}
			}
			e.touched[ri][c] = true
		}
	}
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
	if e.seams.afterFreshLoad != nil {
		e.seams.afterFreshLoad()
	}
	// A file changed while this load listed and read the roots (the
	// watcher invalidated meanwhile) may be missing from s or stale in it:
	// s answers this call, but the next Load reads again.
	e.mu.Lock()
	if e.epoch == epoch {
		e.install(s)
		e.gens = s.Gens()
	}
	e.mu.Unlock()
	return s, nil
}

// load lists both roots and builds their snapshot (snapshot.Loader.Load).
func (e *Engine) load(prev *Snapshot, useCache bool) (*Snapshot, error) {
	return e.loader.Load(prev, useCache, false)
}

// reloadChanged builds a snapshot from prev in which only the files in
// changed, the files e wrote and the ROOT.md files either names are read
// again (or taken as written), patched into prev (snapshot.Loader.Patch).
// A file that no
// longer loads, a change of a folder, or too many files return nil, and
// the caller does a full reload. The caller holds e.mu.
func (e *Engine) reloadChanged(prev *Snapshot, changed map[store.Scope]map[string]bool) *Snapshot {
	count := 0
	for _, rels := range changed {
		count += len(rels)
	}
	for _, rels := range e.written {
		count += len(rels)
	}
	if count > snapshot.MaxPatched {
		return nil
	}
	var changes []snapshot.FileChange
	roots := map[store.Scope][]byte{}
	for scope, md := range e.writtenRoot {
		roots[scope] = md
	}
	for _, scope := range []store.Scope{store.Global, store.Project} {
		r := e.Root(scope)
		for rel, f := range e.written[scope] {
			if changed[scope][rel] && !snapshot.SameStat(r, rel, f) {
				continue // changed again since: read below
			}
			changes = append(changes, snapshot.FileChange{Scope: scope, Rel: rel, F: f})
		}
		for rel := range changed[scope] {
			if rel == store.RootFile {
				md, err := r.ReadRootMD()
				if err != nil {
					return nil
				}
				roots[scope] = md
				continue
			}
			if f, ok := e.written[scope][rel]; ok && snapshot.SameStat(r, rel, f) {
				continue // this engine's own write
			}
			if i := prev.Find(scope, rel); i >= 0 && prev.SameAsDisk(r, i) {
				continue // an event for nothing new
			}
			f, err := r.LoadFile(rel)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				f = nil
			case err != nil:
				return nil // broken, or renamed in place: its problem needs a full load
			}
			changes = append(changes, snapshot.FileChange{Scope: scope, Rel: rel, F: f})
		}
	}
	for scope, md := range roots {
		if bytes.Equal(md, prev.RootMD[scope]) {
			delete(roots, scope)
		}
	}
	return e.loader.Patch(prev, changes, roots)
}
