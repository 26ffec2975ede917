package stale

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

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
// a person to decide. `ocmem stale` then lists the rule, and not those
// two. A fourth memory, given in a later session, the model finds no
// longer true: it is marked outdated, listed by `ocmem stale`, and the
// next turn about it is given neither its body nor its outline line.
func TestRecheck(t *testing.T) {
	e, ms := recheckEnv(t, e2e.EnvOptions{})
	srv := e.Serve()
	id := e.Conversation(srv, "", "what does kestrel do on start?")
	recheckDone(t, e, id, ms)
	outdatedDone(t, e, ms, func(msg string) string { return e.Conversation(srv, "", msg) })
}

func TestV2Recheck(t *testing.T) {
	e, ms := recheckEnv(t, e2e.EnvOptions{V2: true})
	srv := e.Serve()
	e.MustRun("run", "--server", srv.URL, "what does kestrel do on start?")
	recheckDone(t, e, e2e.V2Session(t, e), ms)
	outdatedDone(t, e, ms, func(msg string) string {
		seen := map[string]bool{}
		for _, r := range e.AllRecords() {
			seen[r.Str("session")] = true
		}
		e.MustRun("run", "--server", srv.URL, msg)
		id := newSession(t, e, seen)
		e2e.WaitEnd(t, e, id, 1)
		return id
	})
}

// newSession waits for ocmem's log to name a session not in seen: the
// one a run just opened, whose turn ocmem logs before its idle.
func newSession(t *testing.T, e *e2e.ExtractEnv, seen map[string]bool) string {
	t.Helper()
	deadline := time.Now().Add(e2e.ExtractWait)
	for time.Now().Before(deadline) {
		for _, r := range e.AllRecords() {
			if s := r.Str("session"); strings.HasPrefix(s, "ses_") && !seen[s] {
				return s
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("no new session in the ocmem log")
	return ""
}

// recheckMems are the four memories the re-check is about.
type recheckMems struct{ still, updated, rule, wrong e2e.Memory }

// gatewayBody marks the body of the memory found no longer true.
const gatewayBody = "GATEWAY-BODY: `srv/gateway.go` retries three times."

// recheckEnv is an ExtractEnv (minTurns 1) holding four memories anchored
// to the files of srv/ their text names, verified before a commit that
// changed each file, and a fake model that answers each as its name says.
func recheckEnv(t *testing.T, opts e2e.EnvOptions) (*e2e.ExtractEnv, recheckMems) {
	e := e2e.NewExtractEnvWith(t, opts)
	e2e.SetPluginOptions(t, e.Env, map[string]any{"minTurns": 1})
	e.WriteFile("srv/start.go", "package srv\n\n// Start warms the cache.\nfunc Start() {}\n")
	e.WriteFile("srv/port.go", "package srv\n\n// Port is where kestrel listens.\nconst Port = 7000\n")
	e.WriteFile("srv/restart.go", "package srv\n\n// Restart is what make restart runs.\nfunc Restart() {}\n")
	e.WriteFile("srv/gateway.go", "package srv\n\n// Retries is how often the gateway retries.\nconst Retries = 3\n")
	e.Git("add", "-A")
	e.Git("commit", "-q", "-m", "start")
	ms := recheckMems{
		still: e.Remember("facts", "fact", "kestrel warms its cache on start", "RECHECK-BODY: `srv/start.go` warms the cache first.",
			"--load-when", "kestrel"),
		updated: e.Remember("facts", "fact", "kestrel listens on port 7000 from start", "`srv/port.go` sets the port kestrel opens on start.",
			"--load-when", "kestrel"),
		rule: e.Remember("rules", "rule", "Restart kestrel with make restart, never by killing it", "`srv/restart.go` drains the queue first."),
		wrong: e.Remember("facts", "fact", "the gateway retries three times before failing", gatewayBody,
			"--load-when", "gateway"),
	}
	for _, m := range []e2e.Memory{ms.still, ms.updated, ms.rule, ms.wrong} {
		if got := e2e.ReadFileString(m.Path); !strings.Contains(got, "  - srv/") {
			t.Fatalf("%s is not anchored to the file its text names:\n%s", m.ID, got)
		}
	}
	e.WriteFile("srv/start.go", "package srv\n\n// Start warms the cache, then opens the port.\nfunc Start() {}\n")
	e.WriteFile("srv/port.go", "package srv\n\n// Port is where kestrel listens.\nconst Port = 7100\n")
	e.WriteFile("srv/restart.go", "package srv\n\n// Restart is what make restart runs; it no longer drains.\nfunc Restart() {}\n")
	e.WriteFile("srv/gateway.go", "package srv\n\n// The gateway no longer retries.\n")
	e.Git("commit", "-q", "-a", "-m", "open the port after warming; port 7100; restart without draining; no retries")
	out := e.RunOcmem("stale")
	for _, m := range []e2e.Memory{ms.still, ms.updated, ms.rule, ms.wrong} {
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
		case strings.Contains(all, recheckMarker) && strings.Contains(all, ms.wrong.ID+")"):
			return fakellm.Text(`{"verdict": "no_longer_true", "reason": "the gateway no longer retries"}`)
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
		t.Errorf("ocmem stale after the re-check, want the rule and not the two others:\n%s", out)
	}
}

// outdatedDone asks about the gateway (ask runs a turn in a new session
// and waits for its idle to be handled): the memory given, the model finds
// it no longer true, and it is marked outdated; the next turn about it is
// given neither its body nor its outline line.
func outdatedDone(t *testing.T, e *e2e.ExtractEnv, ms recheckMems, ask func(msg string) string) {
	t.Helper()
	if got := lastAgentText(t, e); strings.Contains(got, "GATEWAY-BODY") {
		t.Fatalf("the gateway memory was given about kestrel:\n%s", got)
	}
	id := ask("how often does the gateway retry?")
	if got := lastAgentText(t, e); !strings.Contains(got, "GATEWAY-BODY") {
		t.Fatalf("the gateway memory was not given before the re-check:\n%s", got)
	}
	var action string
	for _, r := range e2e.WithMsg(e.LogRecords(id), "recheck done") {
		if r.Str("memory") == "project:"+ms.wrong.ID {
			action = r.Str("action")
		}
	}
	if action != "no-longer-true" {
		t.Fatalf("the gateway memory's re-check: %q, want no-longer-true", action)
	}
	if got := e2e.ReadFileString(ms.wrong.Path); !strings.Contains(got, "\noutdated:\n") || !strings.Contains(got, "reason: the gateway no longer retries") {
		t.Errorf("the memory found no longer true is not marked:\n%s", got)
	}
	if out := e.RunOcmem("stale"); !strings.Contains(out, "outdated project:"+ms.wrong.ID) || !strings.Contains(out, "the gateway no longer retries") {
		t.Errorf("ocmem stale lacks the outdated memory:\n%s", out)
	}
	ask("how often does the gateway retry now?")
	if got := lastAgentText(t, e); strings.Contains(got, "GATEWAY-BODY") || strings.Contains(got, "the gateway retries three times before failing") {
		t.Errorf("the outdated memory reached the model:\n%s", got)
	}
	if out := e.RunOcmem("recall", "gateway retries"); !strings.Contains(out, ms.wrong.ID) || !strings.Contains(out, "(outdated): ranked last") {
		t.Errorf("ocmem recall does not find the outdated memory with why:\n%s", out)
	}
}

// lastAgentText is everything the model got in the last agent request:
// its system prompt and user messages.
func lastAgentText(t *testing.T, e *e2e.ExtractEnv) string {
	t.Helper()
	reqs := fakellm.Agent(e.Fake.Requests())
	if len(reqs) == 0 {
		t.Fatal("no agent request")
	}
	r := reqs[len(reqs)-1]
	var b strings.Builder
	b.WriteString(r.SystemText())
	for _, u := range r.UserMessages() {
		b.WriteString("\n" + u.Text())
	}
	return b.String()
}
