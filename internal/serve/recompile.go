package serve

import (
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
)

// recompileDelay is how long a root must stay quiet after a memory file
// changed before its compiled files are brought up to date: an editor or a
// git checkout writes several files in a row.
const recompileDelay = 500 * time.Millisecond

// recompiler keeps the compiled files (each category's index.md, ROOT.md's
// registry and routing table) in step with memories edited by hand while
// serve runs. They are derived from the memories; without this, a normal
// hand edit left them stale until the next write or `ocmem compile`.
// Nothing is written when nothing differs.
type recompiler struct {
	mu     sync.Mutex
	timers map[string]*time.Timer // root dir → pending compile
	// done, for tests, is called after each compile with what it wrote.
	done func(root string, wrote []string, err error)
}

// isMemoryFile reports whether a changed path is a memory (not a compiled
// file, nor anything else in the root).
func isMemoryFile(root, path string) bool {
	base := filepath.Base(path)
	if !strings.HasSuffix(base, ".md") || base == engine.IndexFile || strings.HasPrefix(base, ".") {
		return false
	}
	rel, err := filepath.Rel(root, path)
	return err == nil && !strings.HasPrefix(rel, "..") && strings.Contains(filepath.ToSlash(rel), "/")
}

// memoryChanged schedules a compile of root after a change to path.
func (s *Server) memoryChanged(root, path string) {
	if !isMemoryFile(root, path) {
		return
	}
	rc := &s.recompile
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.timers == nil {
		rc.timers = map[string]*time.Timer{}
	}
	if t, ok := rc.timers[root]; ok {
		t.Reset(recompileDelay)
		return
	}
	s.wg.Add(1)
	rc.timers[root] = time.AfterFunc(recompileDelay, func() {
		defer s.wg.Done()
		rc.mu.Lock()
		delete(rc.timers, root)
		rc.mu.Unlock()
		s.compileRoot(root)
	})
}

// compileRoot compiles one root with the engine of any project that has it.
func (s *Server) compileRoot(root string) {
	var e *engine.Engine
	var scope engine.Scope
	s.mu.Lock()
	for _, p := range s.projects {
		for _, sc := range []engine.Scope{engine.Global, engine.Project} {
			if p.engine.Root(sc).Dir == root {
				e, scope = p.engine, sc
			}
		}
	}
	s.mu.Unlock()
	if e == nil {
		return
	}
	// A memory whose text a person changed gets the edit's time as its
	// `updated` first (engine.TouchEdited), never one git wrote.
	touched, err := e.TouchEdited(scope, true)
	switch {
	case err != nil:
		s.log.Warn("`updated` of memories edited by hand not moved", "root", root, "err", err)
	case len(touched) > 0:
		s.log.Info("`updated` of memories edited by hand moved to the edit's time", "root", root, "files", strings.Join(touched, ","))
	}
	// Only what the edits changed: the categories of the files the
	// watcher named and ROOT.md, from the engine's snapshot, which the
	// same events keep current (engine.CompileChanged).
	wrote, err := e.CompileChanged(scope)
	switch {
	case err != nil:
		s.log.Warn("compiled files not updated after a memory changed; `ocmem inspect` shows why", "root", root, "err", err)
	case len(wrote) > 0:
		s.log.Info("compiled files updated after a memory changed", "root", root, "wrote", strings.Join(wrote, ","))
	}
	if s.recompile.done != nil {
		s.recompile.done(root, wrote, err)
	}
}
