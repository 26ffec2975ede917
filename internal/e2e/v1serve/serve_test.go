package v1serve

// ocmem in a long-lived OpenCode 1.x, `opencode serve` driven over HTTP as
// the TUI and editor clients drive it: hand edits seen on the next turn,
// `ocmem serve` killed mid-session, the hidden extraction agent.

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// TestHandEditSeenNextTurn: a memory edited by hand between two turns of a
// long-lived OpenCode shows its new text on the next turn.
func TestHandEditSeenNextTurn(t *testing.T) {
	e := e2e.NewOcmemEnv(t)
	deploy := e.RememberDeploy()
	e.RememberUnrelated()
	srv := e.Serve()
	ctx := context.Background()

	sess := e2e.MustSession(t, srv, ctx)
	e2e.MustPrompt(t, srv, ctx, sess, "部署前要做什么?")
	old, err := os.ReadFile(deploy.Path)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.NewReplacer(
		"Run database migrations before deploying", "Run migrations AND smoke tests before deploying",
		"DEPLOY-BODY", "EDITED-DEPLOY-BODY",
	).Replace(string(old))
	if err := os.WriteFile(deploy.Path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	// The same session: the outline in the system prompt shows the new summary.
	e2e.MustPrompt(t, srv, ctx, sess, "thanks")
	// A new session on the same server: the body is given again, as edited.
	sess2 := e2e.MustSession(t, srv, ctx)
	e2e.MustPrompt(t, srv, ctx, sess2, "部署前要做什么?")

	reqs := fakellm.Agent(e.Fake.Requests())
	if len(reqs) != 3 {
		t.Fatalf("%d agent requests, want 3", len(reqs))
	}
	if !strings.Contains(reqs[0].LastUserText(), "DEPLOY-BODY") || !strings.Contains(reqs[0].SystemText(), "Run database migrations before deploying") {
		t.Errorf("turn 1 did not get the original memory")
	}
	for i, r := range reqs[1:] {
		if sys := r.SystemText(); !strings.Contains(sys, "Run migrations AND smoke tests before deploying") {
			t.Errorf("request %d after the edit: outline lacks the new summary", i+1)
		}
	}
	if u := reqs[2].LastUserText(); !strings.Contains(u, "EDITED-DEPLOY-BODY") {
		t.Errorf("new session after the edit got:\n%s", u)
	}
}

// TestServeKilledMidSession: `ocmem serve` killed in the middle of a turn of
// a long-lived OpenCode; the turn still finishes, the next tool call and the
// next turn have memory again.
func TestServeKilledMidSession(t *testing.T) {
	e := e2e.NewOcmemEnv(t)
	e.RememberRule()
	e.RememberDeploy()
	srv := e.Serve()
	ctx := context.Background()
	sess := e2e.MustSession(t, srv, ctx)
	e2e.MustPrompt(t, srv, ctx, sess, "hello")
	pids := e.ServePIDs()
	if len(pids) != 1 {
		t.Fatalf("ocmem serve pids %v, want one", pids)
	}

	// Turn 2: the model's first request kills serve, then calls a tool.
	var killed []int
	e.Fake.SetResponder(func(r fakellm.Request) fakellm.Reply {
		switch {
		case !r.IsAgent():
			return fakellm.Text(fakellm.TitleReply)
		case r.AfterToolResult():
			return fakellm.Text("done")
		}
		for _, pid := range e.ServePIDs() {
			e2e.KillPID(pid)
			killed = append(killed, pid)
		}
		return fakellm.Call("memory_recall", map[string]any{"query": "deploy migrations"})
	})
	start := time.Now()
	reply := e2e.MustPrompt(t, srv, ctx, sess, "what do you remember about deploys?")
	if reply != "done" {
		t.Errorf("turn 2 replied %q", reply)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("turn 2 took %v", d)
	}
	if !slices.Equal(killed, pids) {
		t.Errorf("killed %v, want %v", killed, pids)
	}
	reqs := fakellm.Agent(e.Fake.Requests())
	if r := reqs[len(reqs)-1].LastToolResult(); !strings.Contains(r, "DEPLOY-BODY") {
		t.Errorf("recall right after the kill returned %q", r)
	}

	// Turn 3: injection is back.
	e.Fake.SetResponder(nil)
	e2e.MustPrompt(t, srv, ctx, sess, "部署前要做什么?")
	reqs = fakellm.Agent(e.Fake.Requests())
	last := reqs[len(reqs)-1]
	if !strings.Contains(last.SystemText(), e2e.RuleBody) {
		t.Errorf("turn 3 system prompt lacks the hard rule")
	}
	if now := e.ServePIDs(); len(now) != 1 || now[0] == pids[0] {
		t.Errorf("serve pids after restart: %v (before %v)", now, pids)
	}
}

// TestExtractAgentRegistered: the plugin's config hook adds the hidden
// ocmem-extract agent, and a prompt sent to it over OpenCode's HTTP API (as
// extraction does) reaches the model without any tool.
func TestExtractAgentRegistered(t *testing.T) {
	e := e2e.NewOcmemEnv(t)
	srv := e.Serve()
	ctx := context.Background()
	agents, err := srv.Agents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(agents, func(a e2e.Agent) bool { return a.Name == "ocmem-extract" })
	if i < 0 || !agents[i].Hidden {
		t.Fatalf("agents: %+v", agents)
	}
	sess := e2e.MustSession(t, srv, ctx)
	e.Fake.SetResponder(func(fakellm.Request) fakellm.Reply { return fakellm.Text(`{"memories":[]}`) })
	var reply struct {
		Parts []struct{ Type, Text string }
	}
	body := map[string]any{
		"agent": "ocmem-extract",
		"model": map[string]any{"providerID": e2e.ProviderID, "modelID": e2e.ModelID},
		"parts": []any{map[string]any{"type": "text", "text": "EXTRACT-INPUT"}},
	}
	if err := srv.Do(ctx, "POST", "/session/"+sess+"/message", body, &reply); err != nil {
		t.Fatal(err)
	}
	reqs := e.Fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	if r := reqs[0]; len(r.ToolNames()) != 0 || !strings.Contains(r.LastUserText(), "EXTRACT-INPUT") {
		t.Errorf("extraction request offered tools %v, user text %q", r.ToolNames(), r.LastUserText())
	}
}
