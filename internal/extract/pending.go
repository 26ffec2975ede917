package extract

import (
	"errors"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/opencode"
	"github.com/ocmem/ocmem/internal/store"
)

// A session's turns are pending from its idle until a run takes them (or
// finds none to take). The mark is kept in the cursor root's .state.json,
// not in memory: a person who asks three things and quits ends OpenCode,
// and with it `ocmem serve` and its remainder timer, before the session
// has stayed idle for extractIdleSeconds. The next serve of that root finds
// the mark and takes those turns then (serve's resumePending).

// MarkPending records that session went idle at t with turns extraction
// may not have taken yet.
func MarkPending(e *engine.Engine, session string, t time.Time) error {
	root := cursorRoot(e)
	if root.Dir == "" || session == "" {
		return nil
	}
	return root.UpdateState(func(s *store.State) { s.SetPending(session, t.Unix()) })
}

// PendingSessions returns the sessions marked pending in e's cursor root,
// with the time each last went idle.
func PendingSessions(e *engine.Engine) map[string]time.Time {
	root := cursorRoot(e)
	if root.Dir == "" {
		return nil
	}
	out := map[string]time.Time{}
	for id, unix := range root.ReadState().Pending {
		out[id] = time.Unix(unix, 0)
	}
	return out
}

// settlePending drops the session's mark once a run has taken its turns or
// found none to take, or OpenCode no longer has the session (deleted). A run
// that failed otherwise, or that waits for minTurns, leaves it: the turns
// are still to be taken.
func (x *Extractor) settlePending(e *engine.Engine, req Request, res Result) {
	if res.Err != nil && !errors.Is(res.Err, opencode.ErrNotFound) || res.Waiting {
		return
	}
	root := cursorRoot(e)
	if root.Dir == "" {
		return
	}
	if _, ok := root.ReadState().Pending[req.SessionID]; !ok {
		return
	}
	if err := root.UpdateState(func(s *store.State) { delete(s.Pending, req.SessionID) }); err != nil {
		x.log.Warn("extraction: pending mark not cleared", "session", req.SessionID, "err", err)
	}
}
