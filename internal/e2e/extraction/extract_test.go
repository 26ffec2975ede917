package extraction

// Automatic extraction in the real OpenCode: `opencode serve` driven over
// HTTP as the TUI drives it, the ocmem plugin installed as a user installs
// it. A session goes idle after each turn; the plugin forwards the idle to
// `ocmem serve`, which asks the fake model through OpenCode's own HTTP API
// and writes what the model returned. The fake model's recorded requests
// show what extraction sent; ocmem's log (OCMEM_LOG) shows what it decided;
// the memory files show what it wrote.

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
	"github.com/ocmem/ocmem/internal/memory"
)

func readMemory(t *testing.T, path string) *memory.Memory {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := memory.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestExtraction: four turns, then idle → the fake model's candidates
// become memory files: a new one written, a duplicate skipped, a rule
// stored as a proposal, an updated fact superseding its old memory, a
// pinned memory left alone; the cheap model is asked, with no tools. A
// fifth turn sends only itself; a token in a candidate is refused.
func TestExtraction(t *testing.T) {
	e := e2e.NewExtractEnv(t)
	deploy := e.RememberDeploy()
	pnpm := e.Remember("preferences", "preference", "Use pnpm 8 for installs", "The lockfile is pnpm-lock.yaml.",
		"--highlight", "pnpm install", "--load-when", "pnpm", "--load-when", "package manager", "--load-when", "包管理器")
	api := e.Remember("decisions", "decision", "The API is versioned in the URL path", "Header versioning breaks caches.",
		"--highlight", "/v1/", "--load-when", "API versioning", "--load-when", "接口版本", "--pinned")
	apiBefore, err := os.ReadFile(api.Path)
	if err != nil {
		t.Fatal(err)
	}
	e.Reply("SCENARIO-MAIN", e2e.MemoriesReply(
		map[string]any{"category": "pitfalls", "kind": "pitfall", "summary": "Integration tests need Docker running",
			"highlight": "docker compose up -d", "load_when": []string{"integration tests", "集成测试", "docker"},
			"body": "The test containers start through Docker; without it every integration test times out."},
		map[string]any{"category": "pitfalls", "kind": "pitfall", "summary": "Run the database migrations before you deploy",
			"highlight": "make migrate", "load_when": []string{"deploy", "部署"}, "body": "Otherwise the schema does not match."},
		map[string]any{"category": "rules", "kind": "rule", "summary": "Never deploy on Fridays",
			"load_when": []string{"deploy", "部署", "Friday", "周五"}, "body": "The user said so after the failed deploy."},
		map[string]any{"category": "preferences", "kind": "preference", "summary": "Use pnpm 9 for installs",
			"highlight": "pnpm install", "load_when": []string{"pnpm", "package manager", "包管理器"},
			"body": "The project moved to pnpm 9.", "supersedes": pnpm.ID},
		map[string]any{"category": "decisions", "kind": "decision", "summary": "The API is versioned in a request header",
			"highlight": "Accept-Version", "load_when": []string{"API versioning", "接口版本"},
			"body": "Moved to a header.", "supersedes": api.ID},
	))
	token := e2e.GithubToken(t)
	e.Reply("SCENARIO-TOKEN", e2e.MemoriesReply(map[string]any{
		"category": "facts", "kind": "fact", "summary": "The CI token for deploys",
		"body": "Deploys authenticate with " + token + " as the CI token.", "load_when": []string{"CI token"},
	}))
	// The remainder of a session is taken after it stayed idle this long;
	// long enough that the gap between two turns here never reaches it.
	const idleSeconds = 8
	e2e.SetPluginOptions(t, e.Env, map[string]any{"extractIdleSeconds": idleSeconds})
	srv := e.Serve()

	session := e.Conversation(srv, "SCENARIO-MAIN", e2e.FourTurns...)
	recs := e.LogRecords(session)
	if n := len(e2e.WithMsg(recs, "extraction skipped")); n != 3 {
		t.Errorf("%d skips before the fourth turn, want 3 (minTurns 4)", n)
	}
	reqs := e.Extractions()
	if len(reqs) != 1 {
		t.Fatalf("%d extraction requests, want 1", len(reqs))
	}
	req := reqs[0]
	if req.Body.Model != "cheap" {
		t.Errorf("extraction asked model %q, want cheap (the cheapest with a window of 8k or more)", req.Body.Model)
	}
	if len(req.Body.Tools) != 0 {
		t.Errorf("extraction request offered tools %v", req.ToolNames())
	}
	// Its session is ocmem's own: the plugin injects no memory into it.
	if sys := req.SystemText(); strings.Contains(sys, pnpm.ID) || strings.Contains(sys, "Use pnpm 8 for installs") {
		t.Errorf("ocmem's outline was injected into the extraction request:\n%s", sys)
	}
	prompt := req.LastUserText()
	for _, want := range []string{"部署失败了", "thanks, that fixed it", "id: " + deploy.ID, "id: " + pnpm.ID} {
		if !strings.Contains(prompt, want) {
			t.Errorf("extraction prompt lacks %q:\n%s", want, prompt)
		}
	}
	if strings.Contains(prompt, "DEPLOY-BODY") {
		t.Errorf("a memory body ocmem injects (into user turns, or into the extraction session if it were not marked as ocmem's) reached the extraction request:\n%s", prompt)
	}

	files := e.MemoryFiles()
	want := []string{
		api.ID + ".md", deploy.ID + ".md",
		"pitfalls/integration-tests-need-docker-running.md",
		pnpm.ID + ".md", "preferences/use-pnpm-9-installs.md",
		"rules/never-deploy-fridays.md",
	}
	slices.Sort(want)
	if !slices.Equal(files, want) {
		t.Errorf("memory files %q, want %q", files, want)
	}
	root := filepath.Join(e.Project, ".memory")
	if m := readMemory(t, filepath.Join(root, "rules/never-deploy-fridays.md")); m.Kind != memory.KindRuleProposal {
		t.Errorf("the extracted rule has kind %q, want rule-proposal", m.Kind)
	}
	if m := readMemory(t, pnpm.Path); m.SupersededBy != "preferences/use-pnpm-9-installs" {
		t.Errorf("old pnpm memory superseded_by %q", m.SupersededBy)
	}
	if m := readMemory(t, filepath.Join(root, "preferences/use-pnpm-9-installs.md")); m.Supersedes != pnpm.ID {
		t.Errorf("new pnpm memory supersedes %q", m.Supersedes)
	}
	if now, _ := os.ReadFile(api.Path); string(now) != string(apiBefore) {
		t.Errorf("the pinned memory changed:\n%s", now)
	}
	recs = e.LogRecords(session)
	if l := e2e.WithMsg(recs, "extraction candidate skipped"); len(l) != 1 || l[0].Str("action") != "duplicate" || l[0].Str("match") != "project:"+deploy.ID {
		t.Errorf("duplicate log lines %v", l)
	}
	if l := e2e.WithMsg(recs, "extraction candidate left for a person"); len(l) != 1 || !strings.Contains(l[0].Str("candidate"), "Accept-Version") {
		t.Errorf("pinned log lines %v", l)
	}
	if l := e2e.WithMsg(recs, "extraction request"); len(l) != 1 || !strings.Contains(l[0].Str("prompt"), "部署失败了") || l[0].Str("model") != "fake/cheap" {
		t.Errorf("request log lines %v", l)
	}
	if l := e2e.WithMsg(recs, "extraction reply"); len(l) != 1 || !strings.Contains(l[0].Str("reply"), "Integration tests need Docker running") {
		t.Errorf("reply log lines %v", l)
	}
	cursor := e.Cursor(session)
	if !strings.HasPrefix(cursor, "msg") {
		t.Errorf("cursor %q", cursor)
	}
	// The extraction session is gone from OpenCode.
	var sessions []struct{ ID, Title string }
	if err := srv.Do(context.Background(), "GET", "/session", nil, &sessions); err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		if strings.HasPrefix(s.Title, "ocmem extraction") {
			t.Errorf("extraction session %s left behind", s.ID)
		}
	}

	// A fifth turn: one of minTurns 4, it waits; once the session has
	// stayed idle (extractIdleSeconds), only it is extracted from, and its
	// token is refused.
	e.Turn(srv, session, "the CI token is in the vault now SCENARIO-TOKEN")
	if l := e2e.WithMsg(e.LogRecords(session), "extraction skipped"); len(l) == 0 || !strings.Contains(l[len(l)-1].Str("reason"), "1 of minTurns 4 new user turns") {
		t.Errorf("the fifth turn's idle: %v", l)
	}
	if n := len(e.Extractions()); n != 1 {
		t.Fatalf("%d extraction requests right after the fifth turn, want 1", n)
	}
	deadline := time.Now().Add(e2e.ExtractWait + idleSeconds*time.Second)
	for len(e.Extractions()) < 2 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	reqs = e.Extractions()
	if len(reqs) != 2 {
		t.Fatalf("%d extraction requests after the session stayed idle, want 2", len(reqs))
	}
	for deadline := time.Now().Add(e2e.ExtractWait); len(e2e.WithMsg(e.LogRecords(session), "extraction done")) < 2 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	second := reqs[1].LastUserText()
	newTurns := second[strings.Index(second, "### New turns"):]
	if !strings.Contains(newTurns, "SCENARIO-TOKEN") || strings.Contains(newTurns, "部署失败了") {
		t.Errorf("second extraction sent:\n%s", newTurns)
	}
	if files2 := e.MemoryFiles(); !slices.Equal(files2, want) {
		t.Errorf("after the token candidate: files %q", files2)
	}
	recs = e.LogRecords(session)
	if l := e2e.WithMsg(recs, "extraction candidate refused"); len(l) != 1 || !strings.Contains(l[0].Str("reason"), "GitHub Personal Access Token") {
		t.Errorf("refusal log lines %v", l)
	}
	if b, _ := os.ReadFile(e.Log); strings.Contains(string(b), token) {
		t.Errorf("the ocmem log holds the token")
	}
	if c := e.Cursor(session); c <= cursor {
		t.Errorf("cursor %q did not move past %q", c, cursor)
	}
}

// TestExtractionFailures: a 500 from the model and a garbage reply leave
// no file and a log line; an idle without new turns asks nothing.
func TestExtractionFailures(t *testing.T) {
	e := e2e.NewExtractEnv(t)
	e.Reply("SCENARIO-500", fakellm.Error500("model exploded"))
	e.Reply("SCENARIO-GARBAGE", fakellm.Text("Sure! Deploys are tricky; I would keep an eye on migrations."))
	srv := e.Serve()

	start := time.Now()
	failed := e.Conversation(srv, "SCENARIO-500", e2e.FourTurns...)
	recs := e.LogRecords(failed)
	if l := e2e.WithMsg(recs, "extraction failed"); len(l) != 1 || !strings.Contains(l[0].Str("err"), "model exploded") {
		t.Errorf("failure log lines %v", l)
	}
	if n := len(e.Extractions()); n != 1 {
		t.Errorf("%d extraction requests for a failing model, want 1 (OpenCode's retries are cut short)", n)
	}
	if e.Cursor(failed) != "" {
		t.Errorf("cursor moved after a failure to reach the model: %q", e.Cursor(failed))
	}
	t.Logf("four turns and a failed extraction took %v", time.Since(start).Round(time.Millisecond))

	garbage := e.Conversation(srv, "SCENARIO-GARBAGE", e2e.FourTurns...)
	if l := e2e.WithMsg(e.LogRecords(garbage), "extraction reply unusable"); len(l) != 1 {
		t.Errorf("garbage log lines %v", l)
	}
	if files := e.MemoryFiles(); len(files) != 0 {
		t.Errorf("memory files written: %q", files)
	}
	cursor := e.Cursor(garbage)
	if cursor == "" {
		t.Errorf("cursor did not move after an unusable reply")
	}

	// The garbage session goes idle again without a new turn: nothing is
	// asked. Aborting an idle session raises session.idle on 1.18.33,
	// which is how an idle without a turn is made here.
	n := len(e.Extractions())
	before := e2e.Ends(e.LogRecords(garbage))
	if err := srv.Do(context.Background(), "POST", "/session/"+garbage+"/abort", nil, nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for e2e.Ends(e.LogRecords(garbage)) == before && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	recs = e.LogRecords(garbage)
	if e2e.Ends(recs) == before {
		t.Fatalf("aborting an idle session raised no session.idle (or ocmem logged nothing for it) in 10 s")
	}
	if last := recs[len(recs)-1]; !strings.Contains(last.Str("reason"), "no new turns") {
		t.Errorf("idle without new turns: %v", last)
	}
	if len(e.Extractions()) != n {
		t.Errorf("an idle without new turns sent an extraction request")
	}
	if c := e.Cursor(garbage); c != cursor {
		t.Errorf("cursor moved from %q to %q", cursor, c)
	}
}
