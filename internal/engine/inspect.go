package engine

import (
	"slices"
	"sort"

	"github.com/ocmem/ocmem/internal/inspect"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/prompt"
	"github.com/ocmem/ocmem/internal/store"
)

// Severity of an inspection finding (inspect.Severity).
type Severity = inspect.Severity

// Severities.
const (
	SevError   = inspect.SevError
	SevWarning = inspect.SevWarning
)

// Issue is one inspection finding (inspect.Issue).
type Issue = inspect.Issue

// Entry is one memory in an inspection listing.
type Entry struct {
	ID           string      `json:"id"`
	Scope        store.Scope `json:"scope"`
	Path         string      `json:"path"`
	Kind         memory.Kind `json:"kind"`
	Summary      string      `json:"summary"`
	LoadWhen     []string    `json:"load_when,omitempty"`
	Pinned       bool        `json:"pinned,omitempty"`
	SupersededBy string      `json:"superseded_by,omitempty"`
	Updated      int64       `json:"updated"`
}

// Report is the result of Inspect.
type Report struct {
	Roots    map[store.Scope]string `json:"roots"`
	Memories []Entry                `json:"memories"`
	Issues   []Issue                `json:"issues"`
}

// OK reports whether the inspection found no errors.
func (r *Report) OK() bool {
	for _, i := range r.Issues {
		if i.Severity == SevError {
			return false
		}
	}
	return true
}

// Inspect lists every memory and checks each root's consistency: files that
// do not parse, index.md drift (missing, extra or stale lines), a stale
// ROOT.md, broken supersede links, ids that collide on case-insensitive file
// systems. It reads from disk afresh and changes nothing. Anchors are
// checked in the engine's own worktree.
func (e *Engine) Inspect() (*Report, error) { return e.InspectIn("") }

// InspectIn is Inspect with anchors checked in the worktree codeDir ("" :
// the engine's own).
func (e *Engine) InspectIn(codeDir string) (*Report, error) {
	s, err := e.loadFresh()
	if err != nil {
		return nil, err
	}
	code := e.code(codeDir)
	rep := &Report{Roots: map[store.Scope]string{}, Memories: []Entry{}, Issues: []Issue{}}
	for _, r := range e.roots() {
		rep.Roots[r.Scope] = r.Dir
	}
	for _, p := range s.Problems {
		rep.Issues = append(rep.Issues, inspect.ProblemIssue(p))
	}
	for _, f := range s.Files() {
		m := f.Memory
		// The listing is shown: a summary's or a trigger's secret
		// (checkSecrets) masked.
		rep.Memories = append(rep.Memories, Entry{m.ID, f.Scope, f.Path, m.Kind, prompt.Mask(m.Summary), shownTriggers(m.LoadWhen), m.Pinned, m.SupersededBy, m.Updated})
	}
	for _, r := range e.roots() {
		if !dirExists(r.Dir) {
			continue
		}
		rep.Issues = append(rep.Issues, inspect.Root(r, s, e.opts.CategoriesOrDefault())...)
		var files []*store.File
		for _, f := range s.Files() {
			if f.Scope == r.Scope {
				files = append(files, f)
			}
		}
		rep.Issues = append(rep.Issues, checkAnchors(code.t, r, files)...)
	}
	sort.SliceStable(rep.Issues, func(i, j int) bool {
		a, b := rep.Issues[i], rep.Issues[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Line < b.Line
	})
	return rep, nil
}

// shownTriggers is a memory's load_when as shown: each trigger masked, in
// a new slice when any changes (the memory's own is never written to).
func shownTriggers(when []string) []string {
	out := when
	for i, t := range when {
		if mt := prompt.Mask(t); mt != t {
			if &out[0] == &when[0] {
				out = slices.Clone(when)
			}
			out[i] = mt
		}
	}
	return out
}
