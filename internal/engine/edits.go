package engine

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ocmem/ocmem/internal/store"
)

// Edits names what a write would touch, before it runs, so that a question
// to the person ("may the agent edit these files?") names the files the
// write really changes: a write without a scope goes to a root the engine
// picks (Remember: the project's when there is one; Forget: the one that
// holds the id), which a caller cannot guess.
type Edits struct {
	// Scope is the root the write acts on; a caller that asked passes it
	// to the write, so the write cannot land in another root than the one
	// asked about.
	Scope store.Scope
	// Files are absolute paths of the files written or deleted; a new
	// memory's, whose name is chosen as it is written, as the pattern
	// <root>/<category>/*.md.
	Files []string
}

// RememberEdits is what Remember(req) would touch: the new memory's file
// and, for a memory it supersedes in the same root, that memory's file,
// which gets its superseded_by. It reads, never writes.
func (e *Engine) RememberEdits(req RememberRequest) (_ *Edits, err error) {
	defer func() { err = asRefusal(err) }()
	if req.Scope == "" {
		req.Scope = e.defaultScope()
	}
	r := e.Root(req.Scope)
	if r.Dir == "" {
		return nil, fmt.Errorf("%w: no %s root", ErrNoRoot, req.Scope)
	}
	if err := e.mayWriteGlobal(req.Scope, req.Source); err != nil {
		return nil, err
	}
	if err := checkCategory(req.Category); err != nil {
		return nil, err
	}
	ed := &Edits{Scope: req.Scope, Files: []string{filepath.Join(r.Dir, req.Category, "*.md")}}
	if req.Supersedes != "" {
		rel := strings.TrimSuffix(req.Supersedes, ".md") + ".md"
		if p, err := r.Path(rel); err == nil && r.Exists(rel) {
			ed.Files = append(ed.Files, p)
		}
	}
	return ed, nil
}

// ForgetEdits is what Forget(scope, id) would delete. It reads, never
// writes; an id Forget would refuse is refused the same way.
func (e *Engine) ForgetEdits(scope store.Scope, id string) (_ *Edits, err error) {
	defer func() { err = asRefusal(err) }()
	rel, id, err := memoryRel(id)
	if err != nil {
		return nil, err
	}
	scope, err = e.forgetScope(scope, id)
	if err != nil {
		return nil, err
	}
	r := e.Root(scope)
	if r.Dir == "" {
		return nil, fmt.Errorf("%w: no %s root", ErrNoRoot, scope)
	}
	p, err := r.Path(rel)
	if err != nil {
		return nil, err
	}
	return &Edits{Scope: scope, Files: []string{p}}, nil
}
