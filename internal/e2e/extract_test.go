package e2e

// Automatic extraction in the real OpenCode: `opencode serve` driven over
// HTTP as the TUI drives it, the ocmem plugin installed as a user installs
// it. A session goes idle after each turn; the plugin forwards the idle to
// `ocmem serve`, which asks the fake model through OpenCode's own HTTP API
// and writes what the model returned. The fake model's recorded requests
// show what extraction sent; ocmem's log (OCMEM_LOG) shows what it decided;
// the memory files show what it wrote.

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/fakellm"
	"github.com/ocmem/ocmem/internal/memory"
)

// extractWait bounds the wait for an extraction to finish after the idle
// that starts it (a run is bounded at 60 s; it takes 1–3 s here).
const extractWait = 90 * time.Second

// extractionMarker is in the system prompt of every extraction request.
const extractionMarker = "ocmem's memory extractor"

// extractEnv is an Env with ocmem installed, its log in a known place, and
// the three models of SPEC §6 beside the session's own model: expensive;
// cheap; cheaper but with a 4k window. Extraction must pick "cheap".
type extractEnv struct {
	*Env
	t   *testing.T
	log string

	mu      sync.Mutex
	replies map[string]fakellm.Reply // extraction reply by scenario marker in the turns
}

func newExtractEnv(t *testing.T) *extractEnv {
	t.Helper()
	return newExtractEnvWith(t, EnvOptions{})
}

// isExtraction reports whether a model request is extraction's. On 1.x the
// instructions are its system prompt; OpenCode 2's generate.text sends no
// system message, so there they open the one user message of a request
// that offers no tools.
func isExtraction(r fakellm.Request) bool {
	return strings.Contains(r.SystemText(), extractionMarker) ||
		len(r.Body.Tools) == 0 && strings.Contains(r.LastUserText(), extractionMarker)
}

// newExtractEnvWith is newExtractEnv with options for the Env.
func newExtractEnvWith(t *testing.T, opts EnvOptions) *extractEnv {
	t.Helper()
	e := &extractEnv{Env: installOcmem(t, NewEnvWith(t, opts)), t: t, replies: map[string]fakellm.Reply{}}
	e.log = filepath.Join(e.Home, "ocmem.log")
	e.Vars = append(e.Vars, "OCMEM_LOG="+e.log)
	models := e.Config["provider"].(map[string]any)[ProviderID].(map[string]any)["models"].(map[string]any)
	model := func(input, output float64, context int) map[string]any {
		return map[string]any{"name": "m", "limit": map[string]any{"context": context, "output": 1024},
			"cost": map[string]any{"input": input, "output": output}}
	}
	models["expensive"] = model(15, 75, 200000)
	models["cheap"] = model(0.25, 1.25, 16000)
	models["tiny"] = model(0.01, 0.02, 4096)
	e.WriteConfig()
	e.Fake.SetResponder(func(r fakellm.Request) fakellm.Reply {
		if !isExtraction(r) {
			return fakellm.Text("ok") // the agent answering the user
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		// The reply of the scenario whose marker is among the new turns.
		text := r.LastUserText()
		if i := strings.Index(text, "### New turns"); i >= 0 {
			text = text[i:]
		}
		for marker, reply := range e.replies {
			if strings.Contains(text, marker) {
				return reply
			}
		}
		return fakellm.Text(`{"memories": []}`)
	})
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(e.log)
			t.Logf("ocmem log:\n%s", tail(string(b), 40000))
		}
	})
	return e
}

func (e *extractEnv) reply(marker string, r fakellm.Reply) {
	e.mu.Lock()
	e.replies[marker] = r
	e.mu.Unlock()
}

// memoriesReply is the model's answer holding these candidates.
func memoriesReply(cands ...map[string]any) fakellm.Reply {
	b, err := json.Marshal(map[string]any{"memories": cands})
	if err != nil {
		panic(err)
	}
	return fakellm.Text(string(b))
}

// extractions returns the extraction requests the fake model received.
func (e *extractEnv) extractions() []fakellm.Request {
	var out []fakellm.Request
	for _, r := range e.Fake.Requests() {
		if isExtraction(r) {
			out = append(out, r)
		}
	}
	return out
}

type logRecord map[string]any

func (r logRecord) str(k string) string { s, _ := r[k].(string); return s }

// logRecords returns ocmem's log records about a session.
func (e *extractEnv) logRecords(session string) []logRecord {
	f, err := os.Open(e.log)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []logRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var r logRecord
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.str("session") == session {
			out = append(out, r)
		}
	}
	return out
}

func withMsg(recs []logRecord, prefix string) []logRecord {
	var out []logRecord
	for _, r := range recs {
		if strings.HasPrefix(r.str("msg"), prefix) {
			out = append(out, r)
		}
	}
	return out
}

// runEnds are the log messages that end an extraction run of a session.
var runEnds = []string{"extraction done", "extraction failed", "extraction stopped", "extraction reply unusable", "extraction skipped"}

func ends(recs []logRecord) int {
	n := 0
	for _, r := range recs {
		for _, m := range runEnds {
			if strings.HasPrefix(r.str("msg"), m) {
				n++
				break
			}
		}
	}
	return n
}

// turn sends one user message and waits until ocmem has handled the idle
// that follows it (a skip, a failure, or a finished extraction).
func (e *extractEnv) turn(srv *OpenCodeServe, session, text string) {
	e.t.Helper()
	before := ends(e.logRecords(session))
	mustPrompt(e.t, srv, context.Background(), session, text)
	deadline := time.Now().Add(extractWait)
	for ends(e.logRecords(session)) <= before {
		if time.Now().After(deadline) {
			e.t.Fatalf("no extraction outcome in the ocmem log %v after the turn %q", extractWait, text)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// conversation opens a session and runs the turns, each carrying marker.
func (e *extractEnv) conversation(srv *OpenCodeServe, marker string, turns ...string) string {
	e.t.Helper()
	id := mustSession(e.t, srv, context.Background())
	for _, t := range turns {
		e.turn(srv, id, t+" "+marker)
	}
	return id
}

var fourTurns = []string{
	"the deploy failed again",
	"部署失败了, 表结构不匹配",
	"we moved to pnpm 9 last week, and integration tests need Docker running now",
	"thanks, that fixed it",
}

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

// memoryFiles lists the memory files under the project's .memory/.
func (e *extractEnv) memoryFiles() []string {
	var out []string
	filepath.WalkDir(filepath.Join(e.Project, ".memory"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && filepath.Base(p) != "index.md" && filepath.Base(p) != "ROOT.md" {
			rel, _ := filepath.Rel(filepath.Join(e.Project, ".memory"), p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out
}

func (e *extractEnv) cursor(session string) string {
	var st struct{ Cursors map[string]string }
	b, _ := os.ReadFile(filepath.Join(e.Project, ".memory", ".state.json"))
	json.Unmarshal(b, &st)
	return st.Cursors[session]
}

// githubToken is a token of GitHub's real shape, made at test time so no
// token-shaped string is committed: "ghp_" and 36 random letters and digits.
func githubToken(t *testing.T) string {
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 36)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	for i := range b {
		b[i] = alnum[int(b[i])%len(alnum)]
	}
	return "ghp_" + string(b)
}

// TestExtraction: four turns, then idle → the fake model's candidates
// become memory files: a new one written, a duplicate skipped, a rule
// stored as a proposal, an updated fact superseding its old memory, a
// pinned memory left alone; the cheap model is asked, with no tools. A
// fifth turn sends only itself; a token in a candidate is refused.
func TestExtraction(t *testing.T) {
	e := newExtractEnv(t)
	deploy := e.rememberDeploy()
	pnpm := e.Remember("preferences", "preference", "Use pnpm 8 for installs", "The lockfile is pnpm-lock.yaml.",
		"--highlight", "pnpm install", "--load-when", "pnpm", "--load-when", "package manager", "--load-when", "包管理器")
	api := e.Remember("decisions", "decision", "The API is versioned in the URL path", "Header versioning breaks caches.",
		"--highlight", "/v1/", "--load-when", "API versioning", "--load-when", "接口版本", "--pinned")
	apiBefore, err := os.ReadFile(api.Path)
	if err != nil {
		t.Fatal(err)
	}
	e.reply("SCENARIO-MAIN", memoriesReply(
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
	token := githubToken(t)
	e.reply("SCENARIO-TOKEN", memoriesReply(map[string]any{
		"category": "facts", "kind": "fact", "summary": "The CI token for deploys",
		"body": "Deploys authenticate with " + token + " as the CI token.", "load_when": []string{"CI token"},
	}))
	// The remainder of a session is taken after it stayed idle this long;
	// long enough that the gap between two turns here never reaches it.
	const idleSeconds = 8
	setPluginOptions(t, e.Env, map[string]any{"extractIdleSeconds": idleSeconds})
	srv := e.Serve()

	session := e.conversation(srv, "SCENARIO-MAIN", fourTurns...)
	recs := e.logRecords(session)
	if n := len(withMsg(recs, "extraction skipped")); n != 3 {
		t.Errorf("%d skips before the fourth turn, want 3 (minTurns 4)", n)
	}
	reqs := e.extractions()
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

	files := e.memoryFiles()
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
	recs = e.logRecords(session)
	if l := withMsg(recs, "extraction candidate skipped"); len(l) != 1 || l[0].str("action") != "duplicate" || l[0].str("match") != "project:"+deploy.ID {
		t.Errorf("duplicate log lines %v", l)
	}
	if l := withMsg(recs, "extraction candidate left for a person"); len(l) != 1 || !strings.Contains(l[0].str("candidate"), "Accept-Version") {
		t.Errorf("pinned log lines %v", l)
	}
	if l := withMsg(recs, "extraction request"); len(l) != 1 || !strings.Contains(l[0].str("prompt"), "部署失败了") || l[0].str("model") != "fake/cheap" {
		t.Errorf("request log lines %v", l)
	}
	if l := withMsg(recs, "extraction reply"); len(l) != 1 || !strings.Contains(l[0].str("reply"), "Integration tests need Docker running") {
		t.Errorf("reply log lines %v", l)
	}
	cursor := e.cursor(session)
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
	e.turn(srv, session, "the CI token is in the vault now SCENARIO-TOKEN")
	if l := withMsg(e.logRecords(session), "extraction skipped"); len(l) == 0 || !strings.Contains(l[len(l)-1].str("reason"), "1 of minTurns 4 new user turns") {
		t.Errorf("the fifth turn's idle: %v", l)
	}
	if n := len(e.extractions()); n != 1 {
		t.Fatalf("%d extraction requests right after the fifth turn, want 1", n)
	}
	deadline := time.Now().Add(extractWait + idleSeconds*time.Second)
	for len(e.extractions()) < 2 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	reqs = e.extractions()
	if len(reqs) != 2 {
		t.Fatalf("%d extraction requests after the session stayed idle, want 2", len(reqs))
	}
	for deadline := time.Now().Add(extractWait); len(withMsg(e.logRecords(session), "extraction done")) < 2 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	second := reqs[1].LastUserText()
	newTurns := second[strings.Index(second, "### New turns"):]
	if !strings.Contains(newTurns, "SCENARIO-TOKEN") || strings.Contains(newTurns, "部署失败了") {
		t.Errorf("second extraction sent:\n%s", newTurns)
	}
	if files2 := e.memoryFiles(); !slices.Equal(files2, want) {
		t.Errorf("after the token candidate: files %q", files2)
	}
	recs = e.logRecords(session)
	if l := withMsg(recs, "extraction candidate refused"); len(l) != 1 || !strings.Contains(l[0].str("reason"), "GitHub Personal Access Token") {
		t.Errorf("refusal log lines %v", l)
	}
	if b, _ := os.ReadFile(e.log); strings.Contains(string(b), token) {
		t.Errorf("the ocmem log holds the token")
	}
	if c := e.cursor(session); c <= cursor {
		t.Errorf("cursor %q did not move past %q", c, cursor)
	}
}

// TestExtractionFailures: a 500 from the model and a garbage reply leave
// no file and a log line; an idle without new turns asks nothing.
func TestExtractionFailures(t *testing.T) {
	e := newExtractEnv(t)
	e.reply("SCENARIO-500", fakellm.Error500("model exploded"))
	e.reply("SCENARIO-GARBAGE", fakellm.Text("Sure! Deploys are tricky; I would keep an eye on migrations."))
	srv := e.Serve()

	start := time.Now()
	failed := e.conversation(srv, "SCENARIO-500", fourTurns...)
	recs := e.logRecords(failed)
	if l := withMsg(recs, "extraction failed"); len(l) != 1 || !strings.Contains(l[0].str("err"), "model exploded") {
		t.Errorf("failure log lines %v", l)
	}
	if n := len(e.extractions()); n != 1 {
		t.Errorf("%d extraction requests for a failing model, want 1 (OpenCode's retries are cut short)", n)
	}
	if e.cursor(failed) != "" {
		t.Errorf("cursor moved after a failure to reach the model: %q", e.cursor(failed))
	}
	t.Logf("four turns and a failed extraction took %v", time.Since(start).Round(time.Millisecond))

	garbage := e.conversation(srv, "SCENARIO-GARBAGE", fourTurns...)
	if l := withMsg(e.logRecords(garbage), "extraction reply unusable"); len(l) != 1 {
		t.Errorf("garbage log lines %v", l)
	}
	if files := e.memoryFiles(); len(files) != 0 {
		t.Errorf("memory files written: %q", files)
	}
	cursor := e.cursor(garbage)
	if cursor == "" {
		t.Errorf("cursor did not move after an unusable reply")
	}

	// The garbage session goes idle again without a new turn: nothing is
	// asked. Aborting an idle session raises session.idle on 1.18.33,
	// which is how an idle without a turn is made here.
	n := len(e.extractions())
	before := ends(e.logRecords(garbage))
	if err := srv.Do(context.Background(), "POST", "/session/"+garbage+"/abort", nil, nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for ends(e.logRecords(garbage)) == before && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	recs = e.logRecords(garbage)
	if ends(recs) == before {
		t.Fatalf("aborting an idle session raised no session.idle (or ocmem logged nothing for it) in 10 s")
	}
	if last := recs[len(recs)-1]; !strings.Contains(last.str("reason"), "no new turns") {
		t.Errorf("idle without new turns: %v", last)
	}
	if len(e.extractions()) != n {
		t.Errorf("an idle without new turns sent an extraction request")
	}
	if c := e.cursor(garbage); c != cursor {
		t.Errorf("cursor moved from %q to %q", cursor, c)
	}
}
