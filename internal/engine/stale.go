package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ocmem/ocmem/internal/anchor"
	"github.com/ocmem/ocmem/internal/inspect"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/pathsafe"
	"github.com/ocmem/ocmem/internal/rank"
	"github.com/ocmem/ocmem/internal/stale"
	"github.com/ocmem/ocmem/internal/store"
)

// Memories anchored to code (SPEC §10) are checked against the worktree in
// use, the project's code: Config.CodeDir, else the folder holding the
// project root (.memory's parent). Global memories are checked there too,
// since they are used in whichever project is open. With neither, every
// memory is fresh.
//
// A state is worked out when the repository or an anchored path moved, not
// per turn (internal/stale): a turn asks about the memories it shows, and
// for those already checked pays a few stat calls. What a turn does with
// the states:
//
//   - a changed memory keeps its rank and is shown with one line saying
//     what changed since it was verified (Hit.Stale, the bodies tier,
//     memory_recall), so that the model checks before relying on it;
//   - a gone memory ranks below every fresh match, is shown with its line
//     and is marked in the outline.

// staleTimeout bounds the git commands of one check: a state that could
// not be worked out in time is left unknown (fresh) rather than hold up a
// turn.
const staleTimeout = 10 * time.Second

// codeDir is where anchors are checked: the configured worktree, else the
// folder a project root named .memory lies in.
func codeDir(c Config) string {
	switch {
	case c.CodeDir != "":
		return c.CodeDir
	case c.ProjectDir != "" && filepath.Base(c.ProjectDir) == ".memory":
		return filepath.Dir(c.ProjectDir)
	}
	return ""
}

func newTracker(c Config) *stale.Tracker {
	if d := codeDir(c); d != "" {
		return stale.NewTracker(d)
	}
	return nil
}

func staleMemory(scope store.Scope, m *memory.Memory) stale.Memory {
	return stale.Memory{Key: string(scope) + ":" + m.ID, Anchors: m.Anchors, Verified: m.Verified}
}

// staleStates is the tracker's answer, or nil when there is no code to
// check in or git failed: an unknown state is no reason to fail a turn.
func staleStates(t *stale.Tracker, mems []stale.Memory) []stale.State {
	if t == nil || len(mems) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), staleTimeout)
	defer cancel()
	st, err := t.States(ctx, mems)
	if err != nil {
		return nil
	}
	return st
}

// markStale fills in the staleness of hits (made of docs, in order) and
// moves the gone ones below the others, keeping each group's order. It
// returns how many are gone.
func markStale(c codeView, s *Snapshot, docs []rank.Hit, hits []Hit) int {
	if c.t == nil {
		return 0
	}
	var mems []stale.Memory
	var at []int
	for i, h := range docs {
		f := s.File(h.Doc)
		if len(f.Memory.Anchors) > 0 {
			mems = append(mems, staleMemory(f.Scope, f.Memory))
			at = append(at, i)
		}
	}
	gone := 0
	for j, st := range staleStates(c.t, mems) {
		hits[at[j]].Stale = stale.Shown(st)
		if hits[at[j]].Stale.Gone() {
			gone++
		}
	}
	if gone > 0 {
		slices.SortStableFunc(hits, func(a, b Hit) int { return boolOrder(a.Stale.Gone(), b.Stale.Gone()) })
	}
	return gone
}

func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// goneOutline is the outline with its gone memories marked, kept for one
// snapshot and one state of the repository.
type goneOutline struct {
	mu       sync.Mutex
	snap     *Snapshot
	repo     string
	anchored []int // the snapshot's anchored memories, found once
	plain    string
	marked   string
}

// markGone returns a snapshot's outline with each gone memory's line
// marked. It is worked out again when the snapshot or the repository
// (HEAD, its branch, the index) moves; an anchored file deleted without
// either moving is marked at the next commit or `git add`. The bodies
// tier and recall see such a deletion at once.
func (e *Engine) markGone(c codeView, s *Snapshot, outline string) string {
	if c.t == nil || outline == "" {
		return outline
	}
	g := c.gone
	g.mu.Lock()
	defer g.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), staleTimeout)
	defer cancel()
	repo := c.t.Repository(ctx)
	if g.snap == s && g.repo == repo && g.plain == outline {
		return g.marked
	}
	if g.snap != s {
		g.anchored = g.anchored[:0]
		for _, r := range e.roots() {
			s.Each(r.Scope, func(i int, m *memory.Memory) {
				if len(m.Anchors) > 0 && m.SupersededBy == "" {
					g.anchored = append(g.anchored, i)
				}
			})
		}
	}
	g.snap, g.repo, g.plain, g.marked = s, repo, outline, outline
	mems := make([]stale.Memory, len(g.anchored))
	for j, i := range g.anchored {
		f := s.File(i)
		mems[j] = staleMemory(f.Scope, f.Memory)
	}
	for j, st := range staleStates(c.t, mems) {
		if st.State == anchor.Gone {
			g.marked = stale.MarkOutline(g.marked, mems[j].Key)
		}
	}
	return g.marked
}

// withAnchors fills in a request's anchors and where they are true now.
// Anchors given are checked: one that cannot be checked, or that names
// nothing in the worktree, refuses the write. Without them, a project
// memory is anchored to the paths and identifiers its own text names that
// exist in the worktree (anchor.Named); a global one only to anchors
// given, since the code its text names is of the project it was written
// in, and it is used in others.
func (e *Engine) withAnchors(req RememberRequest) (RememberRequest, error) {
	given := req.Anchors != nil
	req.Anchors = stale.TrimAnchors(req.Anchors)
	if given {
		if err := stale.CheckGiven(req.Anchors); err != nil {
			return req, badRequest("%v", err)
		}
	}
	t := e.code(req.CodeDir).t
	if t == nil {
		return req, nil // no worktree to check them in, or to name them from
	}
	root := t.Root()
	switch {
	case given:
		if miss := stale.Missing(root, req.Anchors); len(miss) > 0 {
			return req, badRequest("anchors name nothing in %s: %s", root, strings.Join(miss, "; "))
		}
	case req.Scope == store.Project:
		req.Anchors = stale.Named(root, req.Summary+"\n"+req.Highlight+"\n"+req.Body)
	}
	if len(req.Anchors) == 0 {
		return req, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), staleTimeout)
	defer cancel()
	v, err := t.Reference(ctx, req.Anchors, e.now())
	if err != nil {
		return req, fmt.Errorf("record where the anchors are true: %w", err)
	}
	req.verified = v
	return req, nil
}

// ErrNoCode is returned where there is no worktree to check anchors in.
var ErrNoCode = refusal("no project worktree to check anchors in")

// Stale lists the live memories of both roots whose anchored code changed
// or went since they were verified, gone first, then by scope and id. It
// changes nothing.
func (e *Engine) Stale() ([]StaleMemory, error) {
	if e.stale == nil {
		return nil, ErrNoCode
	}
	s, err := e.Load()
	if err != nil {
		return nil, err
	}
	// Only the anchored memories are made into files: a store of
	// 100,000 memories is read through once, without a Go value each.
	var files []*store.File
	for _, r := range e.roots() {
		s.Each(r.Scope, func(i int, m *memory.Memory) {
			if len(m.Anchors) > 0 && m.SupersededBy == "" {
				files = append(files, s.File(i))
			}
		})
	}
	return staleOf(e.stale, files)
}

// AnchorText is the current text of the files a memory is anchored to
// (stale.AnchorText): what a model re-checking the memory reads.
func (e *Engine) AnchorText(scope store.Scope, id string) (string, error) {
	if e.stale == nil {
		return "", ErrNoCode
	}
	s, err := e.Load()
	if err != nil {
		return "", err
	}
	f := s.Lookup(scope, id)
	if f == nil {
		return "", fmt.Errorf("%s:%s: %w", scope, id, ErrNotFound)
	}
	return stale.AnchorText(e.stale.Root(), f.Memory.Anchors), nil
}

func staleOf(t *stale.Tracker, files []*store.File) ([]StaleMemory, error) {
	var mems []stale.Memory
	var at []*store.File
	for _, f := range files {
		if len(f.Memory.Anchors) > 0 && f.Memory.SupersededBy == "" {
			mems = append(mems, staleMemory(f.Scope, f.Memory))
			at = append(at, f)
		}
	}
	if len(mems) == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), staleTimeout)
	defer cancel()
	states, err := t.States(ctx, mems)
	if err != nil {
		return nil, err
	}
	return stale.Reports(at, states), nil
}

// checkAnchors is Inspect's look at a root's anchors (inspect.Anchors).
func checkAnchors(t *stale.Tracker, r store.Root, files []*store.File) []Issue {
	var reports []StaleMemory
	var err error
	if t != nil {
		reports, err = staleOf(t, files)
	}
	return inspect.Anchors(r, files, reports, err)
}

// Verify records that a memory's anchors are true as the worktree is now:
// its verified point moves to HEAD (and each anchor's digest), after a
// person checked it. The file is rewritten in place, only verified
// changing; its updated time stays, since its text did not change.
//
// anchors, when given, replace the memory's anchors first: the code it is
// about now (a renamed symbol's new name). Without them, a memory with an
// anchor that names nothing now (a gone file or symbol) is refused, since
// it would be verified as true and never flagged again.
func (e *Engine) Verify(scope store.Scope, id string, anchors []string) (*Written, error) {
	if e.stale == nil {
		return nil, ErrNoCode
	}
	rel := strings.TrimSuffix(id, ".md") + ".md"
	if err := pathsafe.Check(rel); err != nil {
		return nil, err
	}
	if !strings.Contains(rel, "/") {
		return nil, badRequest("id %q is not <category>/<slug>", id)
	}
	id = strings.TrimSuffix(rel, ".md")
	scope, err := e.scopeOf(scope, rel, id)
	if err != nil {
		return nil, err
	}
	r := e.Root(scope)
	wr, err := e.beginWrite(r)
	if err != nil {
		return nil, err
	}
	defer wr.end()
	path, err := r.Path(rel)
	if err != nil {
		return nil, err
	}
	data, err := r.ReadFile(rel)
	switch {
	case err != nil:
		return nil, err
	case data == nil:
		return nil, fmt.Errorf("%s:%s: %w", scope, id, ErrNotFound)
	}
	m, err := memory.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s does not parse (%v); fix it first", path, err)
	}
	if anchors != nil {
		if anchors = stale.TrimAnchors(anchors); len(anchors) == 0 {
			return nil, badRequest("no anchors given")
		}
		if err := stale.CheckGiven(anchors); err != nil {
			return nil, badRequest("%v", err)
		}
		m.Anchors = anchors
	}
	if len(m.Anchors) == 0 {
		return nil, badRequest("%s:%s has no anchors: there is nothing to verify", scope, id)
	}
	if miss := stale.Missing(e.stale.Root(), m.Anchors); len(miss) > 0 {
		return nil, badRequest("%s:%s: anchors name nothing in %s: %s; give the code it is about now (ocmem verify --anchor), then it is verified",
			scope, id, e.stale.Root(), strings.Join(miss, "; "))
	}
	ctx, cancel := context.WithTimeout(context.Background(), staleTimeout)
	defer cancel()
	v, err := e.stale.Reference(ctx, m.Anchors, e.now())
	if err != nil {
		return nil, fmt.Errorf("record where the anchors are true: %w", err)
	}
	m.Verified = v
	if _, err := r.WriteFile(rel, m.Format()); err != nil {
		return nil, fmt.Errorf("write %s: %w", rel, err)
	}
	wr.wrote(rel, false)
	return &Written{ID: id, Scope: scope, Path: path, Kind: m.Kind}, nil
}
