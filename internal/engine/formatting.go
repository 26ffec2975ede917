package engine

import (
	"github.com/ocmem/ocmem/internal/stale"
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
// formatting, when the verified commit is not in this clone or none was
// recorded (a digest tells that a file changed, not how), when an anchor
// is a folder or a glob (its evidence names one changed file of possibly
// many), when an anchored file has uncommitted changes (verified over
// them, it would keep digests and no commit, and a later formatting
// change could not be judged), or when some of its anchors were not
// checked. With dryRun it only says what it
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
	fm := stale.NewFormatting(e.stale.Root(), staleTimeout)
	for _, m := range list {
		v := FormattingVerdict{Scope: m.Scope, ID: m.ID, Summary: m.Summary}
		var anchors []string
		if f := s.Lookup(m.Scope, m.ID); f != nil {
			anchors = f.Memory.Anchors
		}
		if v.Why = fm.Why(m, anchors); v.Why != "" {
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
