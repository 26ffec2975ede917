package tiers

import (
	"context"
	"sync"
	"time"

	"github.com/ocmem/ocmem/internal/anchor"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/snapshot"
	"github.com/ocmem/ocmem/internal/stale"
	"github.com/ocmem/ocmem/internal/store"
)

// Marks is a worktree's outline with its gone memories marked and its
// outdated ones left out, kept for one snapshot and one state of the
// repository. The zero Marks is ready to use.
type Marks struct {
	mu       sync.Mutex
	snap     *snapshot.Snapshot
	repo     string
	anchored []int    // the snapshot's anchored memories, found once
	outdated []string // and the keys of those marked outdated
	plain    string
	marked   string
}

// Outline returns a snapshot's outline with each gone memory's line marked
// and each outdated memory's line left out; t is the worktree's tracker
// (nil: no code to check in, nothing is marked gone), and timeout bounds
// each of its git checks. It is worked out again when the snapshot or the
// repository (HEAD, its branch, the index) moves; an anchored file deleted
// without either moving is marked at the next commit or `git add`. The
// bodies tier and recall see such a deletion at once.
//
// An outdated memory's line goes rather than being marked: the line is its
// summary, the very claim judged false, and the outline is before the
// model on every turn. Recall still finds the memory, last, with why.
func (g *Marks) Outline(t *stale.Tracker, s *snapshot.Snapshot, roots []store.Root, outline string, timeout time.Duration) string {
	if outline == "" {
		return outline
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	repo := ""
	if t != nil {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		repo = t.Repository(ctx)
	}
	if g.snap == s && g.repo == repo && g.plain == outline {
		return g.marked
	}
	if g.snap != s {
		g.anchored, g.outdated = g.anchored[:0], g.outdated[:0]
		for _, r := range roots {
			s.Each(r.Scope, func(i int, m *memory.Memory) {
				switch {
				case m.SupersededBy != "":
				case !m.Outdated.IsZero():
					g.outdated = append(g.outdated, outlineKey(r.Scope, m))
				case len(m.Anchors) > 0:
					g.anchored = append(g.anchored, i)
				}
			})
		}
	}
	g.snap, g.repo, g.plain, g.marked = s, repo, outline, outline
	for _, key := range g.outdated {
		g.marked = stale.DropOutline(g.marked, key)
	}
	if t == nil {
		return g.marked
	}
	mems := make([]stale.Memory, len(g.anchored))
	for j, i := range g.anchored {
		f := s.File(i)
		mems[j] = stale.Memory{Key: outlineKey(f.Scope, f.Memory), Anchors: f.Memory.Anchors, Verified: f.Memory.Verified}
	}
	if len(mems) == 0 {
		return g.marked
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	states, err := t.States(ctx, mems)
	if err != nil {
		return g.marked // an unknown state is no reason to fail a turn
	}
	for j, st := range states {
		if st.State == anchor.Gone {
			g.marked = stale.MarkOutline(g.marked, mems[j].Key)
		}
	}
	return g.marked
}

// outlineKey names a memory as its outline line does ("scope:id").
func outlineKey(scope store.Scope, m *memory.Memory) string {
	return string(scope) + ":" + m.ID
}
