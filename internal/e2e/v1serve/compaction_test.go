package v1serve

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// TestCompactionGivesMemoriesAgain: a memory's body is given once per
// session; after OpenCode compacts the session (POST /session/:id/summarize,
// which emits session.compacted in 1.18.33), the summary may have dropped
// it, so the next relevant turn gets it again.
func TestCompactionGivesMemoriesAgain(t *testing.T) {
	e2e.SkipShort(t)
	e := e2e.NewOcmemEnv(t)
	e.RememberDeploy()
	srv := e.Serve()
	ctx := context.Background()
	events, err := srv.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sess := e2e.MustSession(t, srv, ctx)
	e2e.MustPrompt(t, srv, ctx, sess, "部署前要做什么?")
	e2e.MustPrompt(t, srv, ctx, sess, "部署之后呢?")
	before := len(e.Fake.Requests())
	cctx, cancel := context.WithTimeout(ctx, e2e.RunTimeout)
	defer cancel()
	if err := srv.Do(cctx, "POST", "/session/"+sess+"/summarize", map[string]any{"providerID": e2e.ProviderID, "modelID": e2e.ModelID}, nil); err != nil {
		t.Fatalf("summarize: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(events.Of("session.compacted")) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no session.compacted event within 30 s; model requests during compaction: %d", len(e.Fake.Requests())-before)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := events.Of("session.compacted")[0]["sessionID"]; got != sess {
		t.Fatalf("session.compacted for %v, want %s", got, sess)
	}
	// The plugin tells serve without waiting; give it a moment to land.
	deadline = time.Now().Add(10 * time.Second)
	for !strings.Contains(e2e.ReadFileString(e.OcmemLog()), "session compacted") {
		if time.Now().After(deadline) {
			t.Fatalf("serve was not told of the compaction:\n%s", e2e.Tail(e2e.ReadFileString(e.OcmemLog()), 3000))
		}
		time.Sleep(100 * time.Millisecond)
	}
	e2e.MustPrompt(t, srv, ctx, sess, "部署还要注意什么?")

	reqs := fakellm.Agent(e.Fake.Requests())
	var turns []string
	for _, r := range reqs {
		if u := r.LastUserText(); strings.Contains(u, "部署") {
			turns = append(turns, u)
		}
	}
	if len(turns) < 3 {
		t.Fatalf("%d turns about deploying reached the model, want 3", len(turns))
	}
	first, second, after := turns[0], turns[1], turns[len(turns)-1]
	if !strings.Contains(first, e2e.DeployBody) || strings.Contains(second, "DEPLOY-BODY") {
		t.Errorf("before compaction: the body should be given once\nturn 1: %s\nturn 2: %s", first, second)
	}
	if !strings.Contains(after, e2e.DeployBody) {
		t.Errorf("after compaction the body was not given again:\n%s", after)
	}
}
