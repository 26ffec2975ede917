package stale

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// recheckMarker opens the re-check's instructions (internal/extract's
// recheck.go).
const recheckMarker = "You check whether a stored note about a code base is still true"

// The idle re-check in the real OpenCode with the fake model: memories
// given in a turn, and a hard rule in force, whose anchored files changed
// in a commit, are shown to the extraction model with the files as they
// are now. One the model finds still true: its reference point moves. One
// it updates: a memory with the corrected text supersedes it. The rule it
// updates: the update is a rule proposal, and the rule stays in force for
// a person to decide. `ocmem stale` then lists the rule alone.
func TestRecheck(t *testing.T) {
	e, ms := recheckEnv(t, e2e.EnvOptions{})
	srv := e.Serve()
	id := e.Conversation(srv, "", "what does kestrel do on start?")
	recheckDone(t, e, id, ms)
}

func TestV2Recheck(t *testing.T) {
	e, ms := recheckEnv(t, e2e.EnvOptions{V2: true})
	srv := e.Serve()
	e.MustRun("run", "--server", srv.URL, "what does kestrel do on start?")
	recheckDone(t, e, e2e.V2Session(t, e), ms)
}

// recheckMems are the three memories the re-check is about.
type recheckMems struct{ still, updated, rule e2e.Memory }

// recheckEnv is an ExtractEnv (minTurns 1) holding three memories anchored
// to the files of srv/ their text names, verified before a commit that
// changed each file, and a fake model that answers each as its name says.
func recheckEnv(t *testing.T, opts e2e.EnvOptions) (*e2e.ExtractEnv, recheckMems) {
	e := e2e.NewExtractEnvWith(t, opts)
	e2e.SetPluginOptions(t, e.Env, map[string]any{"minTurns": 1})
	e.WriteFile("srv/start.go", "package srv\n\n// Start warms the cache.\nfunc Start() {}\n")
	e.WriteFile("srv/port.go", "package srv\n\n// Port is where kestrel listens.\nconst Port = 7000\n")
	e.WriteFile("srv/restart.go", "package srv\n\n// Restart is what make restart runs.\nfunc Restart() {}\n")
	e.Git("add", "-A")
	e.Git("commit", "-q", "-m", "start")
	ms := recheckMems{
		still: e.Remember("facts", "fact", "kestrel warms its cache on start", "RECHECK-BODY: `srv/start.go` warms the cache first.",
			"--load-when", "kestrel"),
		updated: e.Remember("facts", "fact", "kestrel listens on port 7000 from start", "`srv/port.go` sets the port kestrel opens on start.",
			"--load-when", "kestrel"),
		rule: e.Remember("rules", "rule", "Restart kestrel with make restart, never by killing it", "`srv/restart.go` drains the queue first."),
	}
	for _, m := range []e2e.Memory{ms.still, ms.updated, ms.rule} {
		if got := e2e.ReadFileString(m.Path); !strings.Contains(got, "  - srv/") {
			t.Fatalf("%s is not anchored to the file its text names:\n%s", m.ID, got)
		}
	}
	e.WriteFile("srv/start.go", "package srv\n\n// Start warms the cache, then opens the port.\nfunc Start() {}\n")
	e.WriteFile("srv/port.go", "package srv\n\n// Port is where kestrel listens.\nconst Port = 7100\n")
	e.WriteFile("srv/restart.go", "package srv\n\n// Restart is what make restart runs; it no longer drains.\nfunc Restart() {}\n")
	e.Git("commit", "-q", "-a", "-m", "open the port after warming; port 7100; restart without draining")
	out := e.RunOcmem("stale")
	for _, m := range []e2e.Memory{ms.still, ms.updated, ms.rule} {
		if !strings.Contains(out, "changed project:"+m.ID) {
			t.Fatalf("ocmem stale before the re-check lacks %s:\n%s", m.ID, out)
		}
	}
	e.Fake.SetResponder(func(r fakellm.Request) fakellm.Reply {
		all := r.SystemText() + "\n" + r.LastUserText()
		switch {
		case strings.Contains(all, recheckMarker) && strings.Contains(all, ms.still.ID+")"):
			return fakellm.Text(`{"verdict": "still_true"}`)
		case strings.Contains(all, recheckMarker) && strings.Contains(all, ms.updated.ID+")"):
			return fakellm.Text(`{"verdict": "updated", "summary": "kestrel listens on port 7100 from start", "body": "srv/port.go sets port 7100."}`)
		case strings.Contains(all, recheckMarker) && strings.Contains(all, ms.rule.ID+")"):
			return fakellm.Text(`{"verdict": "updated", "summary": "Restart kestrel with make restart, after draining by hand", "body": "make restart no longer drains."}`)
		case strings.Contains(all, e2e.ExtractionMarker):
			return fakellm.Text(`{"memories": []}`)
		}
		return fakellm.Text("ok")
	})
	return e, ms
}

func recheckDone(t *testing.T, e *e2e.ExtractEnv, session string, ms recheckMems) {
	t.Helper()
	recs := e2e.WaitEnd(t, e, session, 1)
	actions := map[string]string{}
	for _, r := range e2e.WithMsg(recs, "recheck done") {
		actions[r.Str("memory")] = r.Str("action")
	}
	want := map[string]string{"project:" + ms.still.ID: "verified", "project:" + ms.updated.ID: "superseded", "project:" + ms.rule.ID: "superseded"}
	if fmt.Sprint(actions) != fmt.Sprint(want) {
		t.Fatalf("re-checks %v, want %v", actions, want)
	}
	var asked []fakellm.Request
	for _, r := range e.Fake.Requests() {
		if strings.Contains(r.SystemText()+"\n"+r.LastUserText(), recheckMarker) {
			asked = append(asked, r)
		}
	}
	if len(asked) != 3 {
		t.Fatalf("%d re-check requests, want 3", len(asked))
	}
	for _, code := range []string{"// Start warms the cache, then opens the port.", "const Port = 7100", "it no longer drains"} {
		if !slices.ContainsFunc(asked, func(r fakellm.Request) bool { return strings.Contains(r.LastUserText(), code) }) {
			t.Errorf("no re-check request shows the code now: %q", code)
		}
	}
	if got := e2e.ReadFileString(ms.updated.Path); !strings.Contains(got, "superseded_by:") {
		t.Errorf("the updated memory is not superseded:\n%s", got)
	}
	if got := e2e.ReadFileString(ms.rule.Path); strings.Contains(got, "superseded_by:") || !strings.Contains(got, "kind: rule\n") {
		t.Errorf("the rule changed before a person decided:\n%s", got)
	}
	rules := e.RunOcmem("rules")
	if !strings.Contains(rules, "after draining by hand") || !strings.Contains(rules, "proposal") {
		t.Errorf("ocmem rules lacks the rule's update as a proposal:\n%s", rules)
	}
	if out := e.RunOcmem("stale"); !strings.Contains(out, "project:"+ms.rule.ID) ||
		strings.Contains(out, ms.still.ID) || strings.Contains(out, ms.updated.ID) {
		t.Errorf("ocmem stale after the re-check, want the rule alone:\n%s", out)
	}
}
