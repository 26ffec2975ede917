package extraction

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// TestRecordSessionLog records the session log the viewer's browser test
// shows (internal/ui/testdata/session.jsonl): a real OpenCode session with
// the ocmem plugin, four turns in which the model calls memory_recall,
// memory_remember and OpenCode's read, then an automatic extraction that writes one memory,
// skips a duplicate and refuses one holding a token. It checks that the log
// holds what the timeline shows (the turn's ranked memories as a list, each
// tool call named, OpenCode's own tools included, each message's text, the
// matched words and the session's title), and keeps the log where
// OCMEM_RECORD_SESSION_LOG says:
//
//	OCMEM_RECORD_SESSION_LOG=$PWD/internal/ui/testdata/session.jsonl go test ./internal/e2e/extraction -run TestRecordSessionLog
func TestRecordSessionLog(t *testing.T) {
	out := os.Getenv("OCMEM_RECORD_SESSION_LOG")
	e := e2e.NewExtractEnv(t)
	e.RememberDeploy()
	e.Remember("preferences", "preference", "Use pnpm 9 for installs", "The lockfile is pnpm-lock.yaml.",
		"--load-when", "pnpm", "--load-when", "包管理器")
	notes := e.WriteFile("NOTES.md", "Deploy notes: run the migrations first.\n")
	extracted := e2e.MemoriesReply(
		map[string]any{"category": "pitfalls", "kind": "pitfall", "summary": "Integration tests need Docker running",
			"highlight": "docker compose up -d", "load_when": []string{"integration tests", "集成测试", "docker"},
			"body": "The test containers start through Docker; without it every integration test times out."},
		map[string]any{"category": "preferences", "kind": "preference", "summary": "Use pnpm 9 for installs",
			"load_when": []string{"pnpm"}, "body": "The lockfile is pnpm-lock.yaml."},
		map[string]any{"category": "facts", "kind": "fact", "summary": "The CI token for deploys",
			"body": "Deploys authenticate with " + e2e.GithubToken(t) + " as the CI token.", "load_when": []string{"CI token"}},
	)
	e.Fake.SetResponder(func(r fakellm.Request) fakellm.Reply {
		if strings.Contains(r.SystemText(), e2e.ExtractionMarker) {
			return extracted
		}
		if !r.IsAgent() || r.AfterToolResult() {
			return fakellm.Text("ok")
		}
		switch text := r.LastUserText(); {
		case strings.Contains(text, "the deploy failed again"):
			return fakellm.Call("memory_recall", map[string]any{"query": "deploy migrations"})
		case strings.Contains(text, "thanks, that fixed it"):
			return fakellm.Call("read", map[string]any{"filePath": notes})
		case strings.Contains(text, "integration tests need Docker"):
			return fakellm.Call("memory_remember", map[string]any{"category": "rules", "kind": "rule",
				"summary": "Start Docker before the integration tests", "body": "docker compose up -d first."})
		}
		return fakellm.Text("ok")
	})
	srv := e.Serve()
	// A session titled as OpenCode titles one, for the viewer's list.
	id, err := srv.NewSession(context.Background(), "Fix the failing deploy")
	if err != nil {
		t.Fatal(err)
	}
	for _, turn := range e2e.FourTurns {
		e.Turn(srv, id, turn+" SCENARIO-UI")
	}
	if len(e.Extractions()) != 1 {
		t.Fatalf("%d extraction requests, want 1", len(e.Extractions()))
	}
	data, err := os.ReadFile(e.Log)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"msg":"tool called","tool":"read"`, `"tool":"memory_recall"`, `"tool":"memory_remember"`,
		`"injected":[{"key":"project:pitfalls/run-database-migrations-before-deploying"`, `"msg":"extraction remembered"`,
		`"msg":"extraction candidate refused"`, `"msg":"extraction done","session":`,
		`"text":"the deploy failed again SCENARIO-UI"`, `"words":[`, `"msg":"session title","session":"` + id + `","title":"Fix the failing deploy"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the log lacks %s", want)
		}
	}
	if out == "" {
		return
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %d bytes of log to %s", len(data), out)
}
