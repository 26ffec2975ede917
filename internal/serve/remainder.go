package serve

import (
	"context"
	"sort"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/extract"
	"github.com/ocmem/ocmem/internal/options"
)

// armRemainder (re)starts the session's remainder timer: when it fires, the
// session has had no message and no idle for the extractIdleSeconds option
// (Config.IdleRemainderAfter overrides it), and its remaining turns are
// extracted, however few. A serve that stops loses the timer, not the
// turns: the idle marked them pending (extract.MarkPending), and the next
// serve of the root takes them (resumePending).
func (s *Server) armRemainder(ctx context.Context, e *engine.Engine, req IdleRequest) {
	s.armRemainderAfter(ctx, e, req, s.idleRemainderAfter(req.Options))
}

// idleRemainderAfter is how long a session stays idle before its remainder
// is taken.
func (s *Server) idleRemainderAfter(opts options.Options) time.Duration {
	if s.cfg.IdleRemainderAfter > 0 {
		return s.cfg.IdleRemainderAfter
	}
	return opts.ExtractIdle()
}

// armRemainderAfter is armRemainder with the wait given.
func (s *Server) armRemainderAfter(ctx context.Context, e *engine.Engine, req IdleRequest, after time.Duration) {
	req.Remainder = true
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.remainders == nil {
		s.remainders = map[string]*time.Timer{}
	}
	if t, ok := s.remainders[req.SessionID]; ok {
		t.Stop()
	}
	var t *time.Timer
	t = time.AfterFunc(after, func() {
		s.mu.Lock()
		current := s.remainders[req.SessionID] == t
		if current {
			delete(s.remainders, req.SessionID)
		}
		s.mu.Unlock()
		if current {
			s.log.Info("session stayed idle; extracting its remaining turns", "session", req.SessionID)
			s.extract(ctx, e, req)
		}
	})
	s.remainders[req.SessionID] = t
}

// cancelRemainder drops a session's pending remainder: it is busy again.
func (s *Server) cancelRemainder(session string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.remainders[session]; ok {
		t.Stop()
		delete(s.remainders, session)
	}
}

// stopRemainders drops every pending remainder (serve is stopping).
func (s *Server) stopRemainders() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, t := range s.remainders {
		t.Stop()
		delete(s.remainders, id)
	}
}

// resumePending takes the pending turns of the sessions of e's root that no
// run of this serve has seen: sessions of an OpenCode that ended before
// they stayed idle for extractIdleSeconds (the person asked a few things
// and quit). It runs once per root per serve, at the first idle, through
// the plugin of that idle (OpenCode keeps the ended session's messages). A
// session idle long enough already is extracted now; one idle for less is
// given a timer for the rest of the wait, as its own serve would have.
func (s *Server) resumePending(ctx context.Context, e *engine.Engine, req IdleRequest) {
	key := e.Root(engine.Project).Dir + "\x00" + e.Root(engine.Global).Dir
	s.mu.Lock()
	if s.resumed == nil {
		s.resumed = map[string]bool{}
	}
	done := s.resumed[key]
	s.resumed[key] = true
	s.mu.Unlock()
	if done {
		return
	}
	after := s.idleRemainderAfter(req.Options)
	pending := extract.PendingSessions(e)
	ids := make([]string, 0, len(pending))
	for id := range pending {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if id == req.SessionID {
			continue // this idle takes care of it
		}
		s.mu.Lock()
		_, armed := s.remainders[id]
		s.mu.Unlock()
		if armed {
			continue
		}
		wait := max(time.Until(pending[id].Add(after)), 0)
		s.log.Info("session ended with turns not extracted; taking them", "session", id,
			"idle_since", pending[id].UTC().Format(time.RFC3339), "in_seconds", int(wait.Seconds()))
		r := req
		r.SessionID = id
		s.armRemainderAfter(ctx, e, r, wait)
	}
}
