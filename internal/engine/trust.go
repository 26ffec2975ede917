package engine

import (
	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/store"
)

// ProjectRules is what trusting the project root puts in force: its live
// kind: rule memories and its ROOT.md hard-rules section (see renderRules).
type ProjectRules struct {
	Memories []Entry `json:"memories"`
	RootMD   string  `json:"root_md,omitempty"` // the hard-rules section's text
}

// Empty reports whether the project has no hard rules.
func (p *ProjectRules) Empty() bool { return len(p.Memories) == 0 && p.RootMD == "" }

// ProjectRules lists the project root's hard rules, as loaded now.
func (e *Engine) ProjectRules() (*ProjectRules, error) {
	s, err := e.Load()
	if err != nil {
		return nil, err
	}
	out := &ProjectRules{RootMD: compile.HardRules(s.RootMD[store.Project])}
	for _, f := range s.Files() {
		m := f.Memory
		if f.Scope == store.Project && m.Kind == memory.KindRule && m.SupersededBy == "" {
			out.Memories = append(out.Memories, Entry{ID: m.ID, Scope: f.Scope, Path: f.Path, Kind: m.Kind,
				Summary: m.Summary, LoadWhen: m.LoadWhen, Pinned: m.Pinned, Updated: m.Updated})
		}
	}
	return out, nil
}
