package inspect

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ocmem/ocmem/internal/anchor"
	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/stale"
	"github.com/ocmem/ocmem/internal/store"
)

// Anchors warns of a root's memories (files) whose anchored code changed
// or went (reports, or checkErr when the check could not run), and of
// anchors that cannot be checked: a warning, never an error, since the
// memory may well still be true.
func Anchors(r store.Root, files []*store.File, reports []stale.Report, checkErr error) []Issue {
	var out []Issue
	for _, f := range files {
		for _, err := range f.Memory.AnchorProblems() {
			line := 0
			if pe, ok := errors.AsType[*memory.ParseError](err); ok {
				line, err = pe.Line, pe.Err
			}
			out = append(out, Issue{Severity: SevWarning, Check: "anchor", Scope: r.Scope, Path: f.Path, Line: line, Message: "not checked: " + err.Error()})
		}
	}
	if checkErr != nil {
		return append(out, Issue{Severity: SevWarning, Check: "stale", Scope: r.Scope, Path: r.Dir, Message: "anchors not checked: " + compile.OneLine(checkErr.Error())})
	}
	for _, m := range reports {
		i := slices.IndexFunc(files, func(f *store.File) bool { return f.Path == m.Path })
		if i < 0 {
			continue
		}
		if m.State == stale.StateOutdated {
			out = append(out, Issue{Severity: SevWarning, Check: "stale", Scope: r.Scope, Path: m.Path, Line: files[i].Memory.Line("outdated"),
				Message: fmt.Sprintf("%s: %s; out of injection: check it, then `ocmem verify %s` (still true), edit or forget it", m.State, m.Why, m.ID)})
			continue
		}
		verb := "changed"
		if m.State == string(anchor.Gone) {
			verb = "is gone"
		}
		// The message starts with the state, which the viewer's badge
		// shows.
		out = append(out, Issue{Severity: SevWarning, Check: "stale", Scope: r.Scope, Path: m.Path, Line: files[i].Memory.Line("anchors"),
			Message: fmt.Sprintf("%s: the code it is about %s since it was verified: %s; check it, then `ocmem verify %s`", m.State, verb, m.Why, m.ID)})
	}
	return out
}
