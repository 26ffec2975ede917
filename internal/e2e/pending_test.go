package e2e

// A short session — a few turns, then OpenCode ends — before it has stayed
// idle for extractIdleSeconds (docs/EXTRACTION.md, "When it runs"): its
// turns are taken by the next OpenCode of the project.

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestShortSessionExtractedAtNextStart: three turns with `opencode run`
// (each run ends OpenCode, and with it ocmem serve, right after its turn;
// minTurns 4 is never reached), then OpenCode starts again (`opencode
// serve`) and a turn in another session goes idle: the ended session's
// three turns are sent to the model then, together, and its memory is
// written.
func TestShortSessionExtractedAtNextStart(t *testing.T) {
	SkipShort(t)
	const idle = 3 // extractIdleSeconds, so the ended session's wait is over by the next start
	e := newExtractEnv(t)
	setPluginOptions(t, e.Env, map[string]any{"extractIdleSeconds": idle})
	e.reply(pnpmMarker, memoriesReply(pnpmMemory))
	turns := []string{"the deploy failed again", "we moved to pnpm 9 last week", "thanks, that fixed it"}
	e.Ask(turns[0] + " " + pnpmMarker)
	for _, turn := range turns[1:] {
		e.Continue(turn + " " + pnpmMarker)
	}
	if n := len(e.extractions()); n != 0 {
		t.Fatalf("%d extraction requests before OpenCode started again", n)
	}
	var ended string
	for _, r := range e.allRecords() {
		if r.str("session") != "" && strings.HasPrefix(r.str("msg"), "extraction") {
			ended = r.str("session")
		}
	}
	if ended == "" {
		t.Fatal("no extraction record of the short session in the ocmem log")
	}
	time.Sleep(idle * time.Second)

	srv := e.Serve()
	other := mustSession(t, srv, context.Background())
	mustPrompt(t, srv, context.Background(), other, "hello")
	if files := waitMemory(t, e, extractWait); len(files) != 1 {
		t.Fatalf("memory files %v; the ended session's turns were not extracted", files)
	}
	reqs := e.extractions()
	if len(reqs) != 1 {
		t.Fatalf("%d extraction requests, want 1", len(reqs))
	}
	text := reqs[0].LastUserText()
	for _, turn := range turns {
		if !strings.Contains(text, turn) {
			t.Errorf("the extraction request lacks the turn %q:\n%s", turn, text)
		}
	}
	if len(withMsg(e.logRecords(ended), "session ended with turns not extracted")) != 1 {
		t.Errorf("no log line about taking the ended session's turns: %v", e.logRecords(ended))
	}
	// The memory is written before the run logs its end.
	deadline := time.Now().Add(10 * time.Second)
	for len(withMsg(e.logRecords(ended), "extraction done")) == 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if len(withMsg(e.logRecords(ended), "extraction done")) != 1 {
		t.Errorf("the ended session's extraction did not finish: %v", e.logRecords(ended))
	}
}
