package stale

import (
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// A session in a linked worktree on another branch is shown the state of
// its own worktree's code: after the main checkout commits the removal of
// an anchored symbol the worktree's branch still has, a session in the
// main checkout gets the stale line, one in the worktree does not.
func TestWorktreeStaleLine(t *testing.T) { worktreeStaleLine(t, e2e.NewOcmemEnv(t)) }

func TestV2WorktreeStaleLine(t *testing.T) { worktreeStaleLine(t, e2e.NewOcmemEnv2(t)) }

func worktreeStaleLine(t *testing.T, e *e2e.Env) {
	e.WriteFile("srv/server.go", "package srv\n\nfunc ListenPort() int { return 8080 }\n")
	e.Git("add", "-A")
	e.Git("commit", "-q", "-m", "server")
	wt := e.AddWorktree("feature")
	m := e.Remember("facts", "fact", "The kestrel port comes from ListenPort", body, "--load-when", "kestrel")
	if got := e2e.ReadFileString(m.Path); !strings.Contains(got, "  - srv/server.go#ListenPort\n") {
		t.Fatalf("the memory is not anchored to the symbol its text names:\n%s", got)
	}
	e.WriteFile("srv/server.go", "package srv\n\nfunc Port() int { return 8080 }\n")
	e.Git("commit", "-q", "-a", "-m", "rename ListenPort to Port")

	// turn asks in a new session in dir and returns the memory's body as
	// the model received it with the message.
	turn := func(name, dir string) string {
		t.Helper()
		e.Dir = dir
		n := len(fakellm.Agent(e.Fake.Requests()))
		e.Ask("what is the kestrel port?")
		reqs := fakellm.Agent(e.Fake.Requests())
		if len(reqs) <= n {
			t.Fatalf("%s: no agent request", name)
		}
		var got []string
		for _, u := range reqs[len(reqs)-1].UserMessages() {
			if text := u.Text(); strings.Contains(text, "PORT-BODY") {
				got = append(got, text)
			}
		}
		if len(got) != 1 {
			t.Fatalf("%s: the body reached the model %d times, want once", name, len(got))
		}
		return got[0]
	}
	if got := turn("linked worktree", wt); strings.Contains(got, "[ocmem:") {
		t.Errorf("in the worktree, whose branch keeps ListenPort, the body carries a stale line:\n%s", got)
	}
	if got := turn("main checkout", e.Project); !strings.Contains(got, staleTag) {
		t.Errorf("in the main checkout, the body lacks the stale line %q:\n%s", staleTag, got)
	}
	if got := turn("linked worktree again", wt); strings.Contains(got, "[ocmem:") {
		t.Errorf("in the worktree again, the body carries a stale line:\n%s", got)
	}
	e.Dir = e.Project
	e2e.AssertNothingLeft(t, e)
}
