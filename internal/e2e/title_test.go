package e2e

import (
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/fakellm"
)

// TestTitleRequestGetsNoMemory: OpenCode's title request (its title agent,
// no tools) does not need the hard rules and the outline; only the agent's
// requests get them.
func TestTitleRequestGetsNoMemory(t *testing.T) {
	e := newOcmemEnv(t)
	e.rememberRule()
	e.Ask("hello")
	var titles, agents int
	for _, r := range e.Fake.Requests() {
		sys := r.SystemText()
		switch {
		case r.IsTitle():
			titles++
			if strings.Contains(sys, "Memory outline (ocmem)") || strings.Contains(sys, "Hard rules (ocmem)") {
				t.Errorf("the title request got ocmem's system text:\n%s", sys)
			}
		case r.IsAgent():
			agents++
			if !strings.Contains(sys, "Hard rules (ocmem)") {
				t.Errorf("agent request %d lacks the hard rules", r.Seq)
			}
		}
	}
	if titles == 0 || agents == 0 {
		t.Fatalf("%d title and %d agent requests; want both (%d requests)", titles, agents, len(fakellm.Agent(e.Fake.Requests())))
	}
}
