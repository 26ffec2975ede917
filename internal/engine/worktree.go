package engine

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/ocmem/ocmem/internal/stale"
	"github.com/ocmem/ocmem/internal/tiers"
)

// A project's memories are shared by every worktree of its repository (a
// long-lived process keeps one engine per project), but the code they are
// anchored to is the worktree's own: a linked worktree on another branch
// has other files and another HEAD. A caller that knows the worktree in
// use passes it (InjectOptions.CodeDir, RecallOptions.CodeDir,
// RememberRequest.CodeDir, StableIn, InspectIn) and gets the states of
// that worktree, kept by a tracker of its own, so that each is still
// worked out only when that worktree's repository or anchored files move.

// maxWorktrees bounds the trackers kept for worktrees other than the
// engine's own; past it the one used longest ago is dropped, to be
// rebuilt (one check) if its worktree is used again.
const maxWorktrees = 8

// codeView is where anchors are checked for a call: the tracker of a
// worktree (nil: none to check in) and its outline with the gone memories
// marked.
type codeView struct {
	t     *stale.Tracker
	marks *tiers.Marks
}

// worktrees are the views of the worktrees other than the engine's own,
// most recently used last.
type worktrees struct {
	mu    sync.Mutex
	views []worktreeView
}

type worktreeView struct {
	dir  string
	view codeView
}

// code is the view of the worktree dir: the engine's own for "" or for
// its own worktree (Config.CodeDir, else .memory's parent), else one kept
// for dir.
func (e *Engine) code(dir string) codeView {
	own := codeView{t: e.stale, marks: &e.marks}
	if dir == "" {
		return own
	}
	dir = filepath.Clean(dir)
	if e.stale != nil && filepath.Clean(e.stale.Root()) == dir {
		return own
	}
	w := &e.worktrees
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, v := range w.views {
		if v.dir == dir {
			w.views = append(append(w.views[:i:i], w.views[i+1:]...), v)
			return v.view
		}
	}
	if len(w.views) == maxWorktrees {
		w.views = append(w.views[:0:0], w.views[1:]...)
	}
	v := worktreeView{dir: dir, view: codeView{t: stale.NewTracker(dir), marks: &tiers.Marks{}}}
	w.views = append(w.views, v)
	return v.view
}

// CodeState is the engine's own worktree (where anchors are checked when
// no call names one) and its repository's fingerprint now, which moves on
// a commit, checkout, reset, pull or `git add` (stale.Tracker.Repository);
// both "" with no worktree, the fingerprint "" outside git. It costs a
// few stat calls, so that an edge showing the states (the viewer) can
// look on a timer for a move no memory file makes.
func (e *Engine) CodeState() (dir, fingerprint string) {
	if e.stale == nil {
		return "", ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), staleTimeout)
	defer cancel()
	return e.stale.Root(), e.stale.Repository(ctx)
}
