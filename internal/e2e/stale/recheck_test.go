package stale

import (
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// recheckMarker opens the re-check's instructions (internal/extract's
// recheck.go).
const recheckMarker = "You check whether a stored note about a code base is still true"

// The idle re-check in the real OpenCode with the fake model: a memory
// given in a turn, whose anchored file changed in a commit, is shown to
// the extraction model with the file as it is now; the model finds it
// still true, and its reference point moves: `ocmem stale` lists nothing.
func TestRecheck(t *testing.T) {
	e := recheckEnv(t, e2e.EnvOptions{})
	srv := e.Serve()
	id := e.Conversation(srv, "", "what does kestrel do on start?")
	recheckDone(t, e, id)
}

func TestV2Recheck(t *testing.T) {
	e := recheckEnv(t, e2e.EnvOptions{V2: true})
	srv := e.Serve()
	e.MustRun("run", "--server", srv.URL, "what does kestrel do on start?")
	recheckDone(t, e, e2e.V2Session(t, e))
}

// recheckEnv is an ExtractEnv (minTurns 1) holding a memory anchored to
// srv/start.go, verified before a commit that changed the file, and a fake
// model that finds a re-checked memory still true.
func recheckEnv(t *testing.T, opts e2e.EnvOptions) *e2e.ExtractEnv {
	e := e2e.NewExtractEnvWith(t, opts)
	e2e.SetPluginOptions(t, e.Env, map[string]any{"minTurns": 1})
	e.WriteFile("srv/start.go", "package srv\n\n// Start warms the cache.\nfunc Start() {}\n")
	e.Git("add", "-A")
	e.Git("commit", "-q", "-m", "start")
	m := e.Remember("facts", "fact", "kestrel warms its cache on start", "RECHECK-BODY: `srv/start.go` warms the cache first.", "--load-when", "kestrel")
	if got := e2e.ReadFileString(m.Path); !strings.Contains(got, "  - srv/start.go\n") {
		t.Fatalf("the memory is not anchored to the file its text names:\n%s", got)
	}
	e.WriteFile("srv/start.go", "package srv\n\n// Start warms the cache, then opens the port.\nfunc Start() {}\n")
	e.Git("commit", "-q", "-a", "-m", "open the port after warming")
	if out := e.RunOcmem("stale"); !strings.Contains(out, "changed project:"+m.ID) {
		t.Fatalf("ocmem stale before the re-check:\n%s", out)
	}
	e.Fake.SetResponder(func(r fakellm.Request) fakellm.Reply {
		all := r.SystemText() + "\n" + r.LastUserText()
		switch {
		case strings.Contains(all, recheckMarker):
			return fakellm.Text(`{"verdict": "still_true"}`)
		case strings.Contains(all, e2e.ExtractionMarker):
			return fakellm.Text(`{"memories": []}`)
		}
		return fakellm.Text("ok")
	})
	return e
}

func recheckDone(t *testing.T, e *e2e.ExtractEnv, session string) {
	t.Helper()
	recs := e2e.WaitEnd(t, e, session, 1)
	done := e2e.WithMsg(recs, "recheck done")
	if len(done) != 1 || done[0].Str("action") != "verified" {
		t.Fatalf("re-check records %v", done)
	}
	var asked []fakellm.Request
	for _, r := range e.Fake.Requests() {
		if strings.Contains(r.SystemText()+"\n"+r.LastUserText(), recheckMarker) {
			asked = append(asked, r)
		}
	}
	if len(asked) != 1 || !strings.Contains(asked[0].LastUserText(), "// Start warms the cache, then opens the port.") {
		t.Fatalf("%d re-check requests; the code now should be in it", len(asked))
	}
	if out := e.RunOcmem("stale"); out != "No stale memory.\n" {
		t.Errorf("ocmem stale after the re-check:\n%s", out)
	}
}
