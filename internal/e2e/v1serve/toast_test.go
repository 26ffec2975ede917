package v1serve

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// toasts returns the messages of the ocmem toasts OpenCode has shown.
func toasts(ev *e2e.Events) []string {
	var out []string
	for _, p := range ev.Of("tui.toast.show") {
		if p["title"] == "ocmem" {
			out = append(out, fmt.Sprint(p["variant"], ": ", p["message"]))
		}
	}
	return out
}

// waitToasts waits until n ocmem toasts were shown (toasts are not awaited
// by the hooks, so they may trail the turn a little).
func waitToasts(ev *e2e.Events, n int) []string {
	deadline := time.Now().Add(5 * time.Second)
	for len(toasts(ev)) < n && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	return toasts(ev)
}

// TestToasts: the person sees, in OpenCode's own toasts, that memory works:
// once when a session is first given memories, when a tool writes or
// deletes a memory, and when a rule proposal waits for them. Nothing more.
func TestToasts(t *testing.T) {
	e := e2e.NewOcmemEnv(t)
	deploy := e.RememberDeploy()
	e.Fake.SetResponder(fakellm.Script(
		fakellm.Text("ok"), // turn 1
		fakellm.Text("ok"), // turn 2
		fakellm.Call("memory_remember", map[string]any{"category": "decisions", "kind": "decision",
			"summary": "Use SQLite for the session cache", "body": "One file, no server."}),
		fakellm.Call("memory_remember", map[string]any{"category": "rules", "kind": "rule",
			"summary": "Always run gofmt before committing", "body": "CI rejects unformatted code."}),
		fakellm.Call("memory_forget", map[string]any{"id": "decisions/use-sqlite-session-cache"}),
		fakellm.Text("done"),
	))
	srv := e.Serve()
	ctx := context.Background()
	ev, err := srv.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}
	session := e2e.MustSession(t, srv, ctx)
	e2e.MustPrompt(t, srv, ctx, session, "部署之前要做什么? deploy")
	got := waitToasts(ev, 1)
	if len(got) != 1 || !strings.Contains(got[0], "info: ") || !strings.Contains(got[0], "project:"+deploy.ID) {
		t.Fatalf("toasts after the first turn: %q", got)
	}
	// The same session's next injection is not announced again.
	e.Remember("pitfalls", "pitfall", "Deploys need a green CI run", "GREEN-BODY", "--load-when", "deploy")
	e2e.MustPrompt(t, srv, ctx, session, "and what else before a deploy?")
	// Tool writes: a memory, a rule proposal that waits for the person,
	// and the memory deleted again.
	e2e.MustPrompt(t, srv, ctx, session, "remember these, please")
	got = waitToasts(ev, 4)
	if len(got) != 4 {
		t.Fatalf("toasts: %q; want the first injection, the memory, the rule proposal and the forget", got)
	}
	if !strings.Contains(got[1], "remembered project:decisions/use-sqlite-session-cache") {
		t.Errorf("toast for a written memory: %q", got[1])
	}
	if !strings.Contains(got[2], "rule proposal") || !strings.Contains(got[2], "ocmem rules") {
		t.Errorf("toast for a rule proposal: %q", got[2])
	}
	if !strings.Contains(got[3], "info: forgot project:decisions/use-sqlite-session-cache") {
		t.Errorf("toast for a forgotten memory: %q", got[3])
	}
	// "toasts": false turns them off: the plugin tests (TestMissingBinaryToldOnce).
}
