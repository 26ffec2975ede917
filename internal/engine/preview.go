package engine

import (
	"fmt"
	"strings"

	"github.com/ocmem/ocmem/internal/pathsafe"
	"github.com/ocmem/ocmem/internal/store"
)

// Preview is what a write would do to the memory file it is about, for a
// person asked to approve the write before it happens: the file's path and
// its bytes before (nil: the file is new) and after (nil: it is deleted).
// A preview only reads: it takes no lock and changes nothing, so a write
// that races it may pick another slug than the one shown.
type Preview struct {
	Path   string
	Before []byte
	After  []byte
}

// PreviewRemember returns the file Remember(req) would write, with the
// same checks; a request Remember would refuse before writing gets the
// same error. A superseded memory's file, which Remember also marks, is
// not part of the preview.
func (e *Engine) PreviewRemember(req RememberRequest) (_ *Preview, err error) {
	defer func() { err = asRefusal(err) }()
	r, req, w, summary, triggers, err := e.prepareRemember(req)
	if err != nil {
		return nil, err
	}
	if _, _, err := e.supersedeTarget(req, w); err != nil {
		return nil, err
	}
	_, _, path, data, err := e.draftMemory(r, req, w.Kind, summary, triggers)
	if err != nil {
		return nil, err
	}
	return &Preview{Path: path, After: data}, nil
}

// PreviewForget returns the file Forget(scope, id, …) would delete, found
// as Forget finds it.
func (e *Engine) PreviewForget(scope store.Scope, id string) (_ *Preview, err error) {
	defer func() { err = asRefusal(err) }()
	rel := strings.TrimSuffix(id, ".md") + ".md"
	if err := pathsafe.Check(rel); err != nil {
		return nil, err
	}
	if scope == "" {
		for _, s := range []store.Scope{store.Project, store.Global} {
			if r := e.Root(s); r.Dir != "" && r.Exists(rel) {
				scope = s
				break
			}
		}
	}
	r := e.Root(scope)
	if scope == "" || r.Dir == "" || !r.Exists(rel) {
		return nil, fmt.Errorf("%q: %w", strings.TrimSuffix(rel, ".md"), ErrNotFound)
	}
	path, err := r.Path(rel)
	if err != nil {
		return nil, err
	}
	data, err := r.ReadFile(rel)
	if err != nil {
		return nil, err
	}
	return &Preview{Path: path, Before: data}, nil
}
