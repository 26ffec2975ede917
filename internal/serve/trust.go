package serve

import "os"

// noticeTrustChange drops every cached snapshot when the trust list changed
// since the last request (`ocmem trust` ran meanwhile): the list lives
// outside the watched roots, and one stat per request is cheaper than
// another watch. The stable tiers are computed once per snapshot, so the
// next turn then renders the rules with the new decision.
func (s *Server) noticeTrustChange() {
	if s.cfg.TrustFile == "" {
		return
	}
	info, err := os.Stat(s.cfg.TrustFile)
	if err != nil {
		info = nil
	}
	s.mu.Lock()
	prev := s.trustSeen
	s.trustSeen = info
	changed := (prev == nil) != (info == nil) || info != nil &&
		(!os.SameFile(prev, info) || !prev.ModTime().Equal(info.ModTime()) || prev.Size() != info.Size())
	var stale []*project
	if changed {
		for _, p := range s.projects {
			stale = append(stale, p)
		}
	}
	s.mu.Unlock()
	for _, p := range stale {
		p.engine.Invalidate()
	}
}
