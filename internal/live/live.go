// Package live keeps the engines of a long-lived process (ocmem serve, the
// MCP server, the viewer) in step with the memory files on disk while
// people edit them by hand, git checks out other versions and other
// processes write: one watcher over the roots of every engine it holds,
// which reads again just the file that changed, polls the roots it cannot
// watch, and, where asked, brings the compiled files up to date after a
// hand edit.
//
//	l := live.New(live.Config{Log: log})
//	l.Watch()
//	defer l.Close()
//	l.Add(e)
//	l.Fresh(e) // before each answer
package live

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/watch"
)

// DefaultRecompileDelay is how long a root must stay quiet after a memory
// file changed before its compiled files are brought up to date: an editor
// or a git checkout writes several files in a row.
const DefaultRecompileDelay = 500 * time.Millisecond

// Config configures the engines' watch. The zero value works: nothing is
// recompiled, and until Watch the roots are polled.
type Config struct {
	// Log is where watching and recompiling say what they did; nil
	// discards.
	Log *slog.Logger
	// Recompile keeps the compiled files (each category's index.md,
	// ROOT.md's registry and routing table) in step with memories edited
	// by hand: once a root stays quiet for RecompileDelay, the `updated`
	// of the memories edited is moved to the edit's time (for engines
	// made with engine.Config.TouchEdits) and what the edits changed is
	// compiled. They are derived from the memories; without this, a hand
	// edit leaves them stale until the next write or `ocmem compile`.
	Recompile bool
	// RecompileDelay is the quiet time before a recompile; 0 means
	// DefaultRecompileDelay.
	RecompileDelay time.Duration
}

// Engines holds the engines of one process and the watcher of their roots.
// It is safe for concurrent use.
type Engines struct {
	cfg Config
	log *slog.Logger

	mu        sync.Mutex
	w         *watch.Watcher
	watching  bool
	engines   []*engine.Engine
	listeners []func(root, path string)
	timers    map[string]*time.Timer // root dir → pending recompile
	// code is each engine's repository fingerprint as Poll last saw it
	// (engine.CodeState).
	code map[*engine.Engine]string
	wg   sync.WaitGroup
}

// New returns engines kept live by polling their roots on Fresh until
// Watch is called.
func New(cfg Config) *Engines {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.RecompileDelay <= 0 {
		cfg.RecompileDelay = DefaultRecompileDelay
	}
	l := &Engines{cfg: cfg, log: cfg.Log, timers: map[string]*time.Timer{}, code: map[*engine.Engine]string{}}
	l.w = watch.NewPolling(cfg.Log, l.Changed)
	return l
}

// Watch starts watching the roots for file events, where the platform
// offers it; without it, a process only polls. Engines added before are
// watched too. Close stops it.
func (l *Engines) Watch() {
	w := watch.New(l.log, l.Changed)
	l.mu.Lock()
	if l.watching {
		l.mu.Unlock()
		w.Close()
		return
	}
	l.w, l.watching = w, true
	engines := slices.Clone(l.engines)
	l.mu.Unlock()
	for _, e := range engines {
		l.watchRoots(w, e)
	}
}

// Close stops watching. A recompile already scheduled still runs (Wait).
func (l *Engines) Close() {
	l.mu.Lock()
	w := l.w
	l.mu.Unlock()
	w.Close()
}

// Wait returns once no recompile is scheduled or running.
func (l *Engines) Wait() { l.wg.Wait() }

// Add watches the roots of e and tells e of each change under them.
func (l *Engines) Add(e *engine.Engine) {
	l.mu.Lock()
	if slices.Contains(l.engines, e) {
		l.mu.Unlock()
		return
	}
	l.engines = append(l.engines, e)
	w := l.w
	l.mu.Unlock()
	l.watchRoots(w, e)
}

func (l *Engines) watchRoots(w *watch.Watcher, e *engine.Engine) {
	for _, d := range roots(e) {
		w.Add(d) // a root missing now is added by Fresh once it exists
	}
	e.WatchFolders(w)
}

// OnChange calls f after each change the engines were told of (path "":
// anything under root may have changed), for an edge that shows the
// change itself, as the viewer's open pages do. Under Poll, a move of an
// engine's repository (a commit, checkout or `git add`), which can change
// whether its memories are stale without changing a memory file, is told
// too, as a change of its worktree (root the worktree, path "").
func (l *Engines) OnChange(f func(root, path string)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.listeners = append(l.listeners, f)
}

// Fresh makes sure e sees the files as they are now: the roots the watcher
// cannot see (missing when added, watching refused, or not watching at all)
// are polled, and one that changed is read again whole.
func (l *Engines) Fresh(e *engine.Engine) {
	l.mu.Lock()
	w := l.w
	l.mu.Unlock()
	for _, d := range w.Unseen(roots(e)...) {
		l.Changed(d, "")
	}
}

// Poll calls Fresh for every engine each interval until ctx is done, for
// an edge that must notice a change with no request to notice it on (the
// viewer's live pages), and tells the OnChange listeners when an engine's
// repository moved. The repository is polled, not watched: its fingerprint
// costs a few stat calls, where watching .git would mean following HEAD,
// the branch it names, packed-refs and the index through every rewrite git
// makes of them.
func (l *Engines) Poll(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		l.mu.Lock()
		engines := slices.Clone(l.engines)
		l.mu.Unlock()
		for _, e := range engines {
			l.Fresh(e)
			l.noticeCode(e)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// noticeCode tells the listeners when e's repository moved since the last
// look; the first look only records it. The engine needs no telling: its
// states are worked out again when it next asks for them.
func (l *Engines) noticeCode(e *engine.Engine) {
	dir, fp := e.CodeState()
	l.mu.Lock()
	last, seen := l.code[e]
	l.code[e] = fp
	listeners := slices.Clone(l.listeners)
	l.mu.Unlock()
	if !seen || fp == last {
		return
	}
	l.log.Info("repository moved; memories' states are checked again", "worktree", dir)
	for _, f := range listeners {
		f(dir, "")
	}
}

// Changed tells every engine over root that path changed ("": anything
// under root may have), so that each reads just that file again; the
// watcher calls it, and so may whatever learns of a change another way.
func (l *Engines) Changed(root, path string) {
	l.mu.Lock()
	engines := slices.Clone(l.engines)
	listeners := slices.Clone(l.listeners)
	l.mu.Unlock()
	for _, e := range engines {
		if slices.Contains(roots(e), root) {
			e.InvalidateFile(root, path)
		}
	}
	if l.cfg.Recompile && isMemoryFile(root, path) {
		l.schedule(root)
	}
	for _, f := range listeners {
		f(root, path)
	}
}

// isMemoryFile reports whether a changed path is a memory (not a compiled
// file, nor anything else in the root).
func isMemoryFile(root, path string) bool {
	base := filepath.Base(path)
	if path == "" || !strings.HasSuffix(base, ".md") || base == engine.IndexFile || strings.HasPrefix(base, ".") {
		return false
	}
	rel, err := filepath.Rel(root, path)
	return err == nil && !strings.HasPrefix(rel, "..") && strings.Contains(filepath.ToSlash(rel), "/")
}

// schedule recompiles root once it has been quiet for the delay.
func (l *Engines) schedule(root string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t, ok := l.timers[root]; ok {
		t.Reset(l.cfg.RecompileDelay)
		return
	}
	l.wg.Add(1)
	l.timers[root] = time.AfterFunc(l.cfg.RecompileDelay, func() {
		defer l.wg.Done()
		l.mu.Lock()
		delete(l.timers, root)
		l.mu.Unlock()
		l.Recompile(root)
	})
}

// Recompile brings the compiled files of root up to date with its
// memories, through the engine of any that holds it, and returns the files
// it wrote (none when nothing differs).
func (l *Engines) Recompile(root string) ([]string, error) {
	var e *engine.Engine
	var scope engine.Scope
	l.mu.Lock()
	for _, c := range l.engines {
		for _, sc := range []engine.Scope{engine.Global, engine.Project} {
			if c.Root(sc).Dir == root {
				e, scope = c, sc
			}
		}
	}
	l.mu.Unlock()
	if e == nil || root == "" {
		return nil, nil
	}
	// A memory whose text a person changed gets the edit's time as its
	// `updated` first (engine.TouchEdited), never one git wrote.
	touched, err := e.TouchEdited(scope, true)
	switch {
	case err != nil:
		l.log.Warn("`updated` of memories edited by hand not moved", "root", root, "err", err)
	case len(touched) > 0:
		l.log.Info("`updated` of memories edited by hand moved to the edit's time", "root", root, "files", strings.Join(touched, ","))
	}
	// Only what the edits changed: the categories of the files the
	// watcher named and ROOT.md, from the engine's snapshot, which the
	// same events keep current (engine.CompileChanged).
	wrote, err := e.CompileChanged(scope)
	switch {
	case err != nil:
		l.log.Warn("compiled files not updated after a memory changed; `ocmem inspect` shows why", "root", root, "err", err)
	case len(wrote) > 0:
		l.log.Info("compiled files updated after a memory changed", "root", root, "wrote", strings.Join(wrote, ","))
	}
	return wrote, err
}

// roots are the root folders of e that are set.
func roots(e *engine.Engine) []string {
	var out []string
	for _, sc := range []engine.Scope{engine.Global, engine.Project} {
		if d := e.Root(sc).Dir; d != "" {
			out = append(out, d)
		}
	}
	return out
}
