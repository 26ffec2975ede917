package serve

import (
	"fmt"
	"strings"

	"github.com/ocmem/ocmem/internal/engine"
)

// newProblems reports memory files that do not load and were not reported
// by this process before: once each in the log, with the file and line,
// and as the text of a warning for the person. A file fixed and broken
// again the same way is not reported twice; broken another way, it is.
func (s *Server) newProblems(e *engine.Engine) string {
	snap, err := e.Load()
	if err != nil || len(snap.Problems) == 0 {
		return ""
	}
	var fresh []string
	s.mu.Lock()
	if s.reported == nil {
		s.reported = map[string]bool{}
	}
	for _, p := range snap.Problems {
		key := p.Path + "\x00" + p.Err.Error()
		if s.reported[key] {
			continue
		}
		s.reported[key] = true
		loc, why := p.Path, strings.Join(strings.Fields(p.Err.Error()), " ")
		if p.Line > 0 {
			// The location names the line; the error need not again.
			loc = fmt.Sprintf("%s:%d", p.Path, p.Line)
			why = strings.TrimPrefix(why, fmt.Sprintf("line %d: ", p.Line))
		}
		fresh = append(fresh, loc+": "+why)
		s.log.Warn("memory file skipped: it does not load", "path", p.Path, "line", p.Line, "err", p.Err.Error())
	}
	s.mu.Unlock()
	switch len(fresh) {
	case 0:
		return ""
	case 1:
		return "a memory file was skipped: " + fresh[0] + ". Fix it; `ocmem inspect` checks."
	}
	return fmt.Sprintf("%d memory files were skipped: %s. Fix them; `ocmem inspect` checks.", len(fresh), strings.Join(fresh, "; "))
}
