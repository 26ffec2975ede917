package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/ocmem/ocmem/internal/anchor"
	"github.com/ocmem/ocmem/internal/store"
)

// FormattingVerdict is one stale memory as VerifyFormatting judged it.
type FormattingVerdict struct {
	Scope   store.Scope `json:"scope"`
	ID      string      `json:"id"`
	Summary string      `json:"summary"`
	// Why, for a memory left stale, is the first reason its code changed
	// in more than formatting, or why that could not be told.
	Why string `json:"why,omitempty"`
}

// VerifyFormatting verifies, as Verify does, each changed memory whose
// anchored files all differ from their version at its verified commit only
// in formatting (anchor.FormattingOnly). Every other stale memory is left
// as it is, with why: a gone or outdated one is a person's to check; a
// changed one is left when any anchored file changed in more than
// formatting, when the verified commit is not in this clone (a digest
// tells that a file changed, not how), when an anchor is a folder or a
// glob (its evidence names one changed file of possibly many), when an
// anchored file has uncommitted changes (the reference point moves to
// HEAD, and they would still stand against it), or when some of its
// anchors were not checked. With dryRun it only says what it
// would verify, and writes nothing.
func (e *Engine) VerifyFormatting(dryRun bool) (verified, left []FormattingVerdict, err error) {
	if e.stale == nil {
		return nil, nil, ErrNoCode
	}
	list, err := e.Stale()
	if err != nil {
		return nil, nil, err
	}
	s, err := e.Load()
	if err != nil {
		return nil, nil, err
	}
	seen := map[[2]string]string{} // (commit, path) → why it is not formatting, "" when it is
	for _, m := range list {
		v := FormattingVerdict{Scope: m.Scope, ID: m.ID, Summary: m.Summary}
		var anchors []string
		if f := s.Lookup(m.Scope, m.ID); f != nil {
			anchors = f.Memory.Anchors
		}
		if v.Why = e.notFormatting(m, anchors, seen); v.Why != "" {
			left = append(left, v)
			continue
		}
		if !dryRun {
			if _, err := e.Verify(m.Scope, m.ID, nil); err != nil {
				v.Why = "not verified: " + err.Error()
				left = append(left, v)
				continue
			}
		}
		verified = append(verified, v)
	}
	return verified, left, nil
}

// notFormatting is why m's change is not known to be formatting only, or
// "" when every changed anchored file changed only in formatting.
func (e *Engine) notFormatting(m StaleMemory, anchors []string, seen map[[2]string]string) string {
	switch {
	case m.State == StateOutdated:
		return "outdated (" + m.Why + "): a person checks it"
	case m.State != string(anchor.Changed):
		return m.State + " (" + m.Why + "): a person checks it"
	case len(anchors) > anchor.MaxPerMemory:
		return fmt.Sprintf("%d anchors, and only the first %d are checked", len(anchors), anchor.MaxPerMemory)
	case len(m.Evidence) == 0:
		return "no evidence of what changed"
	}
	for _, s := range anchors {
		if _, err := anchor.Parse(strings.TrimSpace(s)); err != nil {
			return "an anchor is not checked: " + err.Error()
		}
	}
	for _, ev := range m.Evidence {
		a, err := anchor.Parse(strings.TrimSpace(ev.Anchor))
		switch {
		case err != nil:
			return err.Error()
		case ev.ByDigest:
			return ev.Anchor + ": the verified commit is not in this clone, so what changed cannot be seen"
		case ev.State != string(anchor.Changed):
			return ev.Anchor + ": " + ev.Why
		case ev.Uncommitted:
			// Verify moves the reference point to HEAD, and the change
			// not committed would still stand against it.
			return ev.Path + " has uncommitted changes: commit them first"
		case a.Glob || ev.Path != a.Path:
			return ev.Anchor + " is a folder or a glob: only anchored files are compared"
		}
		key := [2]string{m.Verified, ev.Path}
		why, ok := seen[key]
		if !ok {
			ctx, cancel := context.WithTimeout(context.Background(), staleTimeout)
			var same bool
			same, why = anchor.FormattingOnly(ctx, e.stale.Root(), m.Verified, ev.Path)
			cancel()
			if same {
				why = ""
			}
			seen[key] = why
		}
		if why != "" {
			return why
		}
	}
	return ""
}
