package extraction

// Extraction on OpenCode 2: the twins of extract_run_test.go.

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// TestV2Extraction is TestExtractionThroughPlugin on OpenCode 2, against a
// long-lived `opencode serve` (as the TUI keeps one) reached with `opencode
// run --server`. A finished turn (session.execution.succeeded) sends the
// idle; with minTurns 1 the turn is extracted through the plugin: the
// transcript from the session's context, the model call from
// generate.text, which sends only the instructions and no tools, and adds
// nothing to the person's session. The memory the model proposes is
// written; minTurns 2 makes the next turn wait.
func TestV2Extraction(t *testing.T) {
	e := e2e.NewExtractEnvWith(t, e2e.EnvOptions{V2: true})
	e2e.SetPluginOptions(t, e.Env, map[string]any{"minTurns": 1})
	e.Reply(e2e.PnpmMarker, e2e.MemoriesReply(e2e.PnpmMemory))
	srv := e.Serve()
	e.MustRun("run", "--server", srv.URL, "we moved to pnpm 9 last week "+e2e.PnpmMarker)
	session := e2e.V2Session(t, e)
	recs := e2e.WaitEnd(t, e, session, 1)
	if len(e2e.WithMsg(recs, "extraction done")) != 1 {
		t.Fatalf("no finished extraction: %v", recs)
	}
	if tr := e2e.WithMsg(recs, "extraction transport"); len(tr) != 1 || tr[0].Str("msg") != "extraction transport: plugin" {
		t.Errorf("transport records %v", tr)
	}
	if files := e2e.WaitMemory(t, e, 5*time.Second); len(files) != 1 {
		t.Errorf("memory files %v", files)
	}
	x := e.Extractions()
	if len(x) != 1 {
		t.Fatalf("%d extraction requests reached the model", len(x))
	}
	if text := x[0].LastUserText(); !strings.Contains(text, "we moved to pnpm 9 last week") {
		t.Errorf("the extraction request lacks the turn:\n%s", e2e.Tail(text, 3000))
	}
	// The next turn of the person's session: the extraction left nothing
	// in it.
	e.MustRun("run", "--server", srv.URL, "--continue", "thanks")
	reqs := fakellm.Agent(e.Fake.Requests())
	last := reqs[len(reqs)-1]
	if strings.Contains(string(last.Raw), e2e.ExtractionMarker) {
		t.Errorf("the extraction is in the person's session:\n%s", e2e.Tail(string(last.Raw), 3000))
	}
	if users := last.UserMessages(); len(users) != 2 {
		t.Errorf("the person's session holds %d user messages, want 2", len(users))
	}
	srv.Stop()
	e2e.AssertNothingLeft(t, e.Env)
}

// TestV2ExtractionUnderRun is TestExtractionUnderRun on OpenCode 2:
// `opencode run --standalone` ends its private server (and with it ocmem
// serve) right after the turn, so the extraction the turn's end starts,
// through the plugin, races the exit. Whichever wins, nothing is logged as
// a failure, and what is written is the memory the model proposed, whole
// (docs/OPENCODE-NOTES.md); the turns not extracted wait for the next
// session end.
func TestV2ExtractionUnderRun(t *testing.T) {
	e := e2e.NewExtractEnvWith(t, e2e.EnvOptions{V2: true})
	e2e.SetPluginOptions(t, e.Env, map[string]any{"minTurns": 1})
	e.Reply(e2e.PnpmMarker, e2e.MemoriesReply(e2e.PnpmMemory))
	e.Ask("we moved to pnpm 9 last week " + e2e.PnpmMarker)
	e2e.AssertNothingLeft(t, e.Env)
	session := e2e.V2Session(t, e)
	recs := e.LogRecords(session)
	// The exit may come before the turn's end reaches serve at all (on a
	// loaded machine it does): then nothing started, and nothing is
	// logged. An extraction that started went through the plugin.
	tr := e2e.WithMsg(recs, "extraction transport")
	if len(tr) > 1 || len(tr) == 1 && tr[0].Str("msg") != "extraction transport: plugin" {
		t.Errorf("transport records %v", tr)
	}
	if f := e2e.WithMsg(recs, "extraction failed"); len(f) != 0 {
		t.Errorf("an OpenCode that exited is logged as a failure: %v", f)
	}
	files := e2e.WaitMemory(t, e, time.Second)
	if len(files) > 1 {
		t.Errorf("memory files %v, want at most the one proposed", files)
	}
	if len(files) > 0 && len(tr) == 0 {
		t.Errorf("a memory was written with no extraction transport logged: %v", recs)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || !strings.Contains(string(data), "summary: Use pnpm 9 for installs in this repo") || !strings.Contains(string(data), "npm install breaks the lockfile") {
			t.Errorf("%s is not the proposed memory whole (%v):\n%s", f, err, data)
		}
	}
	t.Logf("extraction under run: started %v, finished before the exit %v", len(tr) == 1, len(files) == 1)
}
