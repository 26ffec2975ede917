package snapshot

import (
	"hash/maphash"
	"slices"
	"strings"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/store"
)

// Tables is a root's compile.Tables with the snapshot they hold the
// memories of, kept in step with later snapshots of the root by the files
// in which they differ (Diff, Sync) and with the files a write changes
// (Wrote), so that a write brings the compiled files up to date without a
// pass over every memory.
type Tables struct {
	T    *compile.Tables
	Snap *Snapshot
	Root store.Root
	// extra holds, by path, the memories the tables hold instead of the
	// snapshot's since they were written (nil: removed).
	extra map[string]*memory.Memory
	// summaries counts the memories in the tables by summaryKey, so a
	// serve process's duplicate check (Twins) passes over every memory
	// only when one has the new memory's summary; nil for a fresh process's tables,
	// which are used once.
	summaries map[uint64]int32
	seed      maphash.Seed
	// links lists by id the files of the memories that name it as
	// supersedes or superseded_by, so that a serve process's forget
	// finds them without reading every memory; nil with summaries.
	links map[string][]string
}

// NewTables returns t as the tables of root r in s.
func NewTables(t *compile.Tables, s *Snapshot, r store.Root) *Tables {
	return &Tables{T: t, Snap: s, Root: r}
}

// Build builds the tables from every memory of the root in Snap, and keeps
// their summaries and links, for tables used by many writes.
func (rt *Tables) Build() {
	s := rt.Snap
	rt.seed = maphash.MakeSeed()
	rt.summaries = make(map[uint64]int32, s.Len())
	rt.links = map[string][]string{}
	rt.T.Build(func(add func(*memory.Memory)) {
		s.Each(rt.Root.Scope, func(i int, m *memory.Memory) {
			add(m)
			rt.count(m, 1)
			rt.link(s.Rel(i), m, true)
		})
	})
}

// InStep reports whether the tables hold exactly the root's memories in s.
func (rt *Tables) InStep(s *Snapshot) bool {
	return rt.Snap == s && len(rt.extra) == 0
}

// Diff lists the files of the root in which the tables differ from s.
func (rt *Tables) Diff(s *Snapshot) []string {
	rels := DiffRoot(rt.Snap, s, rt.Root.Scope)
	for rel := range rt.extra {
		if !slices.Contains(rels, rel) {
			rels = append(rels, rel)
		}
	}
	return rels
}

// Sync brings the tables in step with s, given the files in which they
// differ (Diff).
func (rt *Tables) Sync(s *Snapshot, rels []string) {
	for _, rel := range rels {
		held, ok := rt.extra[rel]
		if !ok {
			held = rt.Snap.MemoryAt(rt.Root.Scope, rel)
		}
		rt.set(rel, held, s.MemoryAt(rt.Root.Scope, rel))
	}
	rt.Snap, rt.extra = s, nil
}

// LinksTo lists, sorted, the files of the memories that name id as
// supersedes or superseded_by; ok is false when the tables do not keep
// the links (a fresh process's, which are used once).
func (rt *Tables) LinksTo(id string) (rels []string, ok bool) {
	if rt.links == nil {
		return nil, false
	}
	rels = slices.Clone(rt.links[id])
	slices.Sort(rels)
	return rels, true
}

// count adds n to the memories counted with m's summary.
func (rt *Tables) count(m *memory.Memory, n int32) {
	if rt.summaries == nil {
		return
	}
	k := rt.summaryKey(m.Summary)
	if c := rt.summaries[k] + n; c != 0 {
		rt.summaries[k] = c
	} else {
		delete(rt.summaries, k)
	}
}

// link adds (or removes) the file rel of m to the links of the ids m
// names as supersedes or superseded_by.
func (rt *Tables) link(rel string, m *memory.Memory, add bool) {
	if rt.links == nil || m == nil {
		return
	}
	for i, id := range []string{m.Supersedes, m.SupersededBy} {
		if id == "" || i == 1 && id == m.Supersedes {
			continue
		}
		rels := rt.links[id]
		if j := slices.Index(rels, rel); add && j < 0 {
			rt.links[id] = append(rels, rel)
		} else if !add && j >= 0 {
			if rels = slices.Delete(rels, j, j+1); len(rels) == 0 {
				delete(rt.links, id)
			} else {
				rt.links[id] = rels
			}
		}
	}
}

// summaryKey hashes a summary as sameText folds it, without folding it.
func (rt *Tables) summaryKey(summary string) uint64 {
	var h maphash.Hash
	h.SetSeed(rt.seed)
	first := true
	for w := range strings.FieldsSeq(summary) {
		if !first {
			h.WriteByte(' ')
		}
		h.WriteString(w)
		first = false
	}
	return h.Sum64()
}

// MayHaveSummary reports whether a memory in the tables may have the
// summary (sameText aside): false only when none has.
func (rt *Tables) MayHaveSummary(summary string) bool {
	return rt.summaries == nil || rt.summaries[rt.summaryKey(summary)] > 0
}

// set changes the memory the tables hold for the file rel from held to m
// (either nil).
func (rt *Tables) set(rel string, held, m *memory.Memory) {
	rt.link(rel, held, false)
	rt.link(rel, m, true)
	if sameCompiled(held, m) {
		return
	}
	if held != nil {
		rt.T.Remove(held)
		rt.count(held, -1)
	}
	if m != nil {
		rt.T.Add(m)
		rt.count(m, 1)
	}
}

// Wrote records that the file at rel is now m (nil: removed).
func (rt *Tables) Wrote(rel string, m *memory.Memory) {
	held, ok := rt.extra[rel]
	if !ok {
		held = rt.Snap.MemoryAt(rt.Root.Scope, rel)
	}
	rt.set(rel, held, m)
	if rt.extra == nil {
		rt.extra = map[string]*memory.Memory{}
	}
	rt.extra[rel] = m
}

// sameCompiled reports whether two versions of a memory (either nil) give
// the same lines in the compiled files.
func sameCompiled(a, b *memory.Memory) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.ID == b.ID && a.Kind == b.Kind && a.Summary == b.Summary && a.Pinned == b.Pinned &&
		a.SupersededBy == b.SupersededBy && slices.Equal(a.LoadWhen, b.LoadWhen)
}
