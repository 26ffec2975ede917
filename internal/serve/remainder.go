package serve

import (
	"context"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
)

// armRemainder (re)starts the session's remainder timer: when it fires, the
// session has had no message and no idle for the extractIdleSeconds option
// (Config.IdleRemainderAfter overrides it), and its
// remaining turns are extracted, however few. A restarted serve loses the
// timer; the turns then wait for the session's next idle.
func (s *Server) armRemainder(ctx context.Context, e *engine.Engine, req IdleRequest) {
	after := s.cfg.IdleRemainderAfter
	if after <= 0 {
		after = req.Options.ExtractIdle()
	}
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
