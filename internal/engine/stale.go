package engine

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ocmem/ocmem/internal/anchor"
	"github.com/ocmem/ocmem/internal/memory"
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

// Staleness is what a hit's anchors say: set only for a memory whose code
// changed or went since it was verified.
type Staleness struct {
	State string `json:"state"` // "changed" or "gone"
	// Why is the evidence, for a person: what changed, in how many
	// commits, the last one's subject and date; or what went, and where
	// a renamed file went.
	Why string `json:"why"`
	// Line is the one line the model is given with the memory.
	Line string `json:"line"`
}

// Gone reports a memory whose anchored code is no longer there.
func (z *Staleness) Gone() bool { return z != nil && z.State == string(anchor.Gone) }

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
func (e *Engine) staleStates(mems []stale.Memory) []stale.State {
	if e.stale == nil || len(mems) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), staleTimeout)
	defer cancel()
	st, err := e.stale.States(ctx, mems)
	if err != nil {
		return nil
	}
	return st
}

func staleness(st stale.State) *Staleness {
	if !st.Stale() {
		return nil
	}
	return &Staleness{State: string(st.State), Why: st.Why(), Line: st.Line()}
}

// markStale fills in the staleness of hits (made of docs, in order) and
// moves the gone ones below the others, keeping each group's order. It
// returns how many are gone.
func (e *Engine) markStale(s *Snapshot, docs []rank.Hit, hits []Hit) int {
	if e.stale == nil {
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
	for j, st := range e.staleStates(mems) {
		hits[at[j]].Stale = staleness(st)
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
func (e *Engine) markGone(s *Snapshot, outline string) string {
	if e.stale == nil || outline == "" {
		return outline
	}
	g := &e.goneOutline
	g.mu.Lock()
	defer g.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), staleTimeout)
	defer cancel()
	repo := e.stale.Repository(ctx)
	if g.snap == s && g.repo == repo && g.plain == outline {
		return g.marked
	}
	if g.snap != s {
		g.anchored = g.anchored[:0]
		for _, r := range e.roots() {
			s.each(r.Scope, func(i int, m *memory.Memory) {
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
	for j, st := range e.staleStates(mems) {
		if st.State == anchor.Gone {
			g.marked = markOutlineLine(g.marked, mems[j].Key)
		}
	}
	return g.marked
}

// goneMark follows a gone memory's name in the outline.
const goneMark = " (gone: the code it is about is no longer there)"

// markOutlineLine marks the outline line of the memory key ("scope:id").
func markOutlineLine(outline, key string) string {
	head := "- " + key + " — "
	at := 0
	if !strings.HasPrefix(outline, head) {
		i := strings.Index(outline, "\n"+head)
		if i < 0 {
			return outline // cut from the outline by its budget
		}
		at = i + 1
	}
	at += len(head) - len(" — ")
	return outline[:at] + goneMark + outline[at:]
}
