package tiers

import (
	"context"
	"sync"
	"time"

	"github.com/ocmem/ocmem/internal/anchor"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/prompt"
	"github.com/ocmem/ocmem/internal/snapshot"
	"github.com/ocmem/ocmem/internal/stale"
	"github.com/ocmem/ocmem/internal/store"
)

// Marks is a worktree's outline with its gone memories marked, kept for
// one snapshot and one state of the repository. The zero Marks is ready
// to use.
type Marks struct {
	mu       sync.Mutex
	snap     *snapshot.Snapshot
	repo     string
	anchored []int // the snapshot's anchored memories, found once
	plain    string
	marked   string
}

// Outline returns a snapshot's outline (Render's, masked, within budget)
// with each gone memory's line marked, still within budget; t is the
// worktree's tracker (nil: no code to check in, nothing is marked gone),
// and timeout bounds each of its git checks. It is worked out again when
// the snapshot or the repository (HEAD, its branch, the index) moves; an
// anchored file deleted without either moving is marked at the next
// commit or `git add`. The bodies tier and recall see such a deletion at
// once.
//
// With a memory gone the outline is rendered again with its mark counted
// in its line (Outline), not marked in the text: a mark added after the
// lines were chosen would take the outline over its budget. That costs
// about what Render's whole pass does (BenchmarkStableRenderers in
// internal/engine, outline-gone against single-pass: 6–10 ms each at
// 10,000 memories on a shared 2-core machine), once per move, not per
// turn. Render has already left out the outdated memories' lines.
func (g *Marks) Outline(t *stale.Tracker, s *snapshot.Snapshot, roots []store.Root, outline string, budget int, timeout time.Duration) string {
	if outline == "" || t == nil {
		return outline
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	repo := t.Repository(ctx)
	if g.snap == s && g.repo == repo && g.plain == outline {
		return g.marked
	}
	if g.snap != s {
		g.anchored = g.anchored[:0]
		for _, r := range roots {
			s.Each(r.Scope, func(i int, m *memory.Memory) {
				if m.SupersededBy == "" && m.Outdated.IsZero() && len(m.Anchors) > 0 {
					g.anchored = append(g.anchored, i)
				}
			})
		}
	}
	g.snap, g.repo, g.plain, g.marked = s, repo, outline, outline
	mems := make([]stale.Memory, len(g.anchored))
	for j, i := range g.anchored {
		f := s.File(i)
		mems[j] = stale.Memory{Key: outlineKey(f.Scope, f.Memory), Anchors: f.Memory.Anchors, Verified: f.Memory.Verified}
	}
	if len(mems) == 0 {
		return g.marked
	}
	ctx, cancel = context.WithTimeout(context.Background(), timeout)
	defer cancel()
	states, err := t.States(ctx, mems)
	if err != nil {
		return g.marked // an unknown state is no reason to fail a turn
	}
	var gone map[int]bool
	for j, st := range states {
		if st.State == anchor.Gone {
			if gone == nil {
				gone = map[int]bool{}
			}
			gone[g.anchored[j]] = true
		}
	}
	if gone != nil {
		// Masked as the engine masks Render's outline: a hand-written
		// memory may hold a secret no write would have taken.
		g.marked = prompt.Mask(Outline(s, roots, budget, gone))
	}
	return g.marked
}

// outlineKey names a memory as its outline line does ("scope:id").
func outlineKey(scope store.Scope, m *memory.Memory) string {
	return string(scope) + ":" + m.ID
}
