package engine

import (
	"fmt"

	"github.com/ocmem/ocmem/internal/store"
)

// unlinkForgotten repairs, in the write's root, the supersede links that
// point at a memory about to be deleted from it. Left alone they dangle:
// inspect reports a broken link, and a memory whose replacement was deleted
// stays hidden behind a replacement that no longer exists. So a memory the
// deleted one had replaced (superseded_by it) is live again, and one that
// had replaced it (supersedes it) keeps no pointer to nothing. Only those
// lines of those files change (Format); a file that does not parse is not
// touched. It returns the ids made live again.
//
// The snapshot says which files link to id without reading the others: a
// memory that supersedes it names it in the ranking's columns, and only a
// memory marked superseded can have it as superseded_by. Each of those
// files is read again before it is changed.
func (w *write) unlinkForgotten(id string) (restored []string, err error) {
	r, s := w.r, w.s
	var rels []string
	rt, ran := w.tablesBeside(func() { rels = linksTo(s, r.Scope, id) })
	if kept, ok := rt.LinksTo(id); ok { // a serve process's tables keep the links
		rels = kept
	} else if !ran {
		rels = linksTo(s, r.Scope, id)
	}
	for _, rel := range rels {
		f, err := r.LoadFile(rel)
		if err != nil {
			continue
		}
		m := f.Memory
		if m.ID == id || m.SupersededBy != id && m.Supersedes != id {
			continue
		}
		if m.SupersededBy == id {
			m.SupersededBy = ""
			restored = append(restored, m.ID)
		}
		if m.Supersedes == id {
			m.Supersedes = ""
		}
		if _, err := r.WriteFile(f.Rel, m.Format()); err != nil {
			return restored, fmt.Errorf("unlink %s: %w", m.ID, err)
		}
		w.wrote(f.Rel, false)
	}
	return restored, nil
}

// linksTo lists the files of a root that name id as supersedes or
// superseded_by. A snapshot made by a write has no corpus yet (wview): its
// memories are then read in place.
func linksTo(s *Snapshot, scope store.Scope, id string) []string {
	var out []string
	if s.Corpus == nil {
		lo, hi := s.Span(scope)
		for i := lo; i < hi; i++ {
			if mid, sup, by := s.LinksAt(i); mid != id && (sup == id || by == id) {
				out = append(out, s.Rel(i))
			}
		}
		return out
	}
	lo, hi := s.Span(scope)
	for d := lo; d < hi; d++ {
		meta := s.Corpus.Meta(d)
		if meta.ID == id || meta.Supersedes != id && (!meta.Superseded || s.Peek(d).Memory.SupersededBy != id) {
			continue
		}
		out = append(out, s.Rel(d))
	}
	return out
}
