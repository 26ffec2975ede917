package extraction

// A short session — a few turns, then OpenCode Ends — before it has stayed
// idle for extractIdleSeconds (docs/EXTRACTION.md, "When it runs"): its
// turns are taken by the next OpenCode of the project.

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/e2e"
)

// TestShortSessionExtractedAtNextStart: three turns with `opencode run`
// (each run Ends OpenCode, and with it ocmem serve, right after its turn;
// minTurns 4 is never reached), then OpenCode starts again (`opencode
// serve`) and a turn in another session goes idle: the ended session's
// three turns are sent to the model then, together, and its memory is
// written.
func TestShortSessionExtractedAtNextStart(t *testing.T) {
	e2e.SkipShort(t)
	const idle = 3 // extractIdleSeconds, so the ended session's wait is over by the next start
	e := e2e.NewExtractEnv(t)
	e2e.SetPluginOptions(t, e.Env, map[string]any{"extractIdleSeconds": idle})
	e.Reply(e2e.PnpmMarker, e2e.MemoriesReply(e2e.PnpmMemory))
	turns := []string{"the deploy failed again", "we moved to pnpm 9 last week", "thanks, that fixed it"}
	e.Ask(turns[0] + " " + e2e.PnpmMarker)
	for _, turn := range turns[1:] {
		e.Continue(turn + " " + e2e.PnpmMarker)
	}
	if n := len(e.Extractions()); n != 0 {
		t.Fatalf("%d extraction requests before e2e.OpenCode started again", n)
	}
	var ended string
	for _, r := range e.AllRecords() {
		if r.Str("session") != "" && strings.HasPrefix(r.Str("msg"), "extraction") {
			ended = r.Str("session")
		}
	}
	if ended == "" {
		t.Fatal("no extraction record of the short session in the ocmem log")
	}
	time.Sleep(idle * time.Second)

	srv := e.Serve()
	other := e2e.MustSession(t, srv, context.Background())
	e2e.MustPrompt(t, srv, context.Background(), other, "hello")
	if files := e2e.WaitMemory(t, e, e2e.ExtractWait); len(files) != 1 {
		t.Fatalf("memory files %v; the ended session's turns were not extracted", files)
	}
	reqs := e.Extractions()
	if len(reqs) != 1 {
		t.Fatalf("%d extraction requests, want 1", len(reqs))
	}
	text := reqs[0].LastUserText()
	for _, turn := range turns {
		if !strings.Contains(text, turn) {
			t.Errorf("the extraction request lacks the turn %q:\n%s", turn, text)
		}
	}
	if len(e2e.WithMsg(e.LogRecords(ended), "session ended with turns not extracted")) != 1 {
		t.Errorf("no log line about taking the ended session's turns: %v", e.LogRecords(ended))
	}
	// The memory is written before the run logs its end.
	deadline := time.Now().Add(10 * time.Second)
	for len(e2e.WithMsg(e.LogRecords(ended), "extraction done")) == 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if len(e2e.WithMsg(e.LogRecords(ended), "extraction done")) != 1 {
		t.Errorf("the ended session's extraction did not finish: %v", e.LogRecords(ended))
	}
}
