// Package stale runs memories anchored to code through the real OpenCode
// 1.x and 2.x with the fake model: a commit that removes an anchored symbol
// makes the next turn's injected body carry the stale line, and `ocmem
// stale` list the memory; once a person verifies it, neither does.
package stale

import (
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

const (
	body     = "PORT-BODY: `ListenPort()` in `srv/server.go` returns the kestrel port."
	staleTag = "[ocmem: the code this memory is about is gone since it was verified: ListenPort no longer appears in srv/server.go."
)

func TestStaleLine(t *testing.T) { staleLine(t, e2e.NewOcmemEnv(t)) }

func TestV2StaleLine(t *testing.T) { staleLine(t, e2e.NewOcmemEnv2(t)) }

func staleLine(t *testing.T, e *e2e.Env) {
	e.WriteFile("srv/server.go", "package srv\n\nfunc ListenPort() int { return 8080 }\n")
	e.Git("add", "-A")
	e.Git("commit", "-q", "-m", "server")
	m := e.Remember("facts", "fact", "The kestrel port comes from ListenPort", body, "--load-when", "kestrel")
	if got := e2e.ReadFileString(m.Path); !strings.Contains(got, "  - srv/server.go#ListenPort\n") {
		t.Fatalf("the memory is not anchored to the symbol its text names:\n%s", got)
	}

	// turn asks in a new session and returns the memory's body as the
	// model received it with the message.
	turn := func(name string) string {
		t.Helper()
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

	if got := turn("before"); strings.Contains(got, "[ocmem:") {
		t.Errorf("before the commit, the body carries a stale line:\n%s", got)
	}
	if out := e.RunOcmem("stale"); out != "No stale memory.\n" {
		t.Errorf("before the commit, ocmem stale:\n%s", out)
	}

	e.WriteFile("srv/server.go", "package srv\n\nfunc Port() int { return 8080 }\n")
	e.Git("commit", "-q", "-a", "-m", "rename ListenPort to Port")
	if got := turn("after the commit"); !strings.Contains(got, staleTag) {
		t.Errorf("after the commit, the body lacks the stale line %q:\n%s", staleTag, got)
	}
	out := e.RunOcmem("stale")
	if !strings.Contains(out, "gone project:"+m.ID) || !strings.Contains(out, "srv/server.go#ListenPort: ListenPort no longer appears in srv/server.go") {
		t.Errorf("after the commit, ocmem stale:\n%s", out)
	}

	e.RunOcmem("verify", "--anchor", "srv/server.go#Port", m.ID)
	if got := turn("after verify"); strings.Contains(got, "[ocmem:") {
		t.Errorf("after verify, the body carries a stale line:\n%s", got)
	}
	if out := e.RunOcmem("stale"); out != "No stale memory.\n" {
		t.Errorf("after verify, ocmem stale:\n%s", out)
	}
	e2e.AssertNothingLeft(t, e)
}
