package v2

// The OpenCode 2 twins of the 1.18 tests: the same plugin module, installed
// the same way (`ocmem install`), run by the pinned 2.x binary with
// `opencode run --standalone`. What differs between the lines is said in
// each test; what cannot be tested on 2.x is in docs/OPENCODE-NOTES.md.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// ocmemPart returns the system text of a request that holds marker.
// OpenCode 2 joins every system part into one system message (ocmem's
// last), so this is the whole system prompt.
func ocmemPart(t *testing.T, r fakellm.Request, marker string) string {
	t.Helper()
	sys := r.SystemText()
	if !strings.Contains(sys, marker) {
		t.Fatalf("request %d: no system text contains %q", r.Seq, marker)
	}
	return sys
}

// TestV2ToolsAndStableSystem is TestToolsAndStableSystem on OpenCode 2: the
// four tools are offered to the model directly (not only through 2.x's
// `execute` tool), the system prompt holds the hard rule and the outline,
// byte for byte the same on the next turn, and the title request gets
// neither.
func TestV2ToolsAndStableSystem(t *testing.T) {
	e := e2e.NewOcmemEnv2(t)
	e.RememberRule()
	unrelated := e.RememberUnrelated()

	e.Ask("hello")
	e.Continue("hello again")
	e2e.AssertNothingLeft(t, e)

	reqs := fakellm.Agent(e.Fake.Requests())
	if len(reqs) != 2 {
		t.Fatalf("%d agent requests, want 2", len(reqs))
	}
	for _, r := range reqs {
		for _, name := range e2e.MemoryTools {
			if !r.HasTool(name) {
				t.Errorf("request %d does not offer %s (offers %v)", r.Seq, name, r.ToolNames())
			}
		}
	}
	first := ocmemPart(t, reqs[0], "Never force-push to main")
	for _, want := range []string{e2e.RuleBody, unrelated.ID, "The CLI uses the standard flag package"} {
		if !strings.Contains(first, want) {
			t.Errorf("system text lacks %q:\n%s", want, first)
		}
	}
	if strings.Contains(first, e2e.UnrelatedBody) {
		t.Errorf("a fact's body is in the system prompt; only its outline line belongs there")
	}
	if second := ocmemPart(t, reqs[1], "Never force-push to main"); second != first {
		t.Errorf("ocmem's system text changed between turns:\nturn 1:\n%s\nturn 2:\n%s", first, second)
	}
	if a, b := reqs[0].SystemText(), reqs[1].SystemText(); a != b {
		t.Errorf("the system prompt differs between turns:\nturn 1:\n%s\nturn 2:\n%s", a, b)
	}
	titles := 0
	for _, r := range e.Fake.Requests() {
		if r.IsTitle() {
			titles++
			if sys := r.SystemText(); strings.Contains(sys, "Memory outline (ocmem)") || strings.Contains(sys, "Hard rules (ocmem)") {
				t.Errorf("the title request got ocmem's system text:\n%s", sys)
			}
		}
	}
	if titles == 0 {
		t.Errorf("no title request seen")
	}
}

// TestV2BodiesKeptNotRepeated is TestRelevantBodyInjected on OpenCode 2,
// over three turns. The body comes as a message of its own (OpenCode 2's
// synthetic message, as its own reminders are), right before the person's
// message, whose text stays exactly what they typed; it stays in the
// session's history, so turns 2 and 3 still have it once, and it is never
// given again. The title request never sees it, nor the unrelated memory.
func TestV2BodiesKeptNotRepeated(t *testing.T) {
	e := e2e.NewOcmemEnv2(t)
	e.RememberDeploy()
	e.RememberUnrelated()

	e.Ask("部署前要做什么?")
	e.Continue("部署之后呢?")
	e.Continue("ok, thanks")
	e2e.AssertNothingLeft(t, e)

	reqs := fakellm.Agent(e.Fake.Requests())
	if len(reqs) != 3 {
		t.Fatalf("%d agent requests, want 3", len(reqs))
	}
	// `opencode run` quotes a message that holds a space.
	asked := []string{`部署前要做什么?`, `部署之后呢?`, `"ok, thanks"`}
	for i, r := range reqs {
		users := r.UserMessages()
		if got := users[len(users)-1].Text(); got != asked[i] {
			t.Errorf("turn %d: the person's message reached the model as %q, want %q", i+1, got, asked[i])
		}
		bodies := 0
		for j, u := range users {
			text := u.Text()
			if strings.Contains(text, "UNRELATED-BODY") {
				t.Errorf("turn %d: the unrelated body was injected", i+1)
			}
			if !strings.Contains(text, "DEPLOY-BODY") {
				continue
			}
			bodies++
			if strings.Contains(text, "部署前要做什么") {
				t.Errorf("turn %d: the body is inside the person's message:\n%s", i+1, text)
			}
			// The body's message comes right before the first question.
			if j+1 >= len(users) || users[j+1].Text() != asked[0] {
				t.Errorf("turn %d: the body's message is not followed by the first question", i+1)
			}
		}
		if bodies != 1 {
			t.Errorf("turn %d: the conversation holds the deploy body %d times, want 1 (from turn 1)", i+1, bodies)
		}
		if strings.Contains(r.SystemText(), "DEPLOY-BODY") {
			t.Errorf("turn %d: a body is in the system prompt", i+1)
		}
	}
	for _, r := range e.Fake.Requests() {
		if r.IsTitle() && strings.Contains(string(r.Raw), "DEPLOY-BODY") {
			t.Errorf("the title request got a body:\n%s", r.Raw)
		}
	}
}

// TestV2MemoryTools is TestMemoryTools on OpenCode 2: scripted tool calls
// do what they say, on disk and in the tool results the model sees.
// Arguments outside the tool's contract: TestV2ToolArgsCannotNameAnotherRepository.
func TestV2MemoryTools(t *testing.T) {
	e := e2e.NewOcmemEnv2(t)
	gone := e.RememberUnrelated()
	memDir := filepath.Join(e.Project, ".memory")
	e.Fake.SetResponder(fakellm.Script(
		fakellm.Call("memory_remember", map[string]any{
			"category": "decisions", "kind": "decision",
			"summary":   "Use SQLite for the session cache",
			"body":      "TOOL-DECISION-BODY: one file, no server; Postgres was rejected for local installs.",
			"load_when": []string{"cache", "缓存"},
		}),
		fakellm.Call("memory_recall", map[string]any{"query": "session cache SQLite"}),
		fakellm.Call("memory_forget", map[string]any{"id": "../../x"}),
		fakellm.Call("memory_forget", map[string]any{"id": gone.ID}),
		fakellm.Call("memory_remember", map[string]any{
			"category": "rules", "kind": "rule",
			"summary": "Always run gofmt before committing",
			"body":    "TOOL-RULE-BODY: CI rejects unformatted code.",
		}),
		fakellm.Call("memory_inspect", map[string]any{}),
		fakellm.Text("done"),
	))
	e.Ask("please manage memories")
	e2e.AssertNothingLeft(t, e)

	reqs := fakellm.Agent(e.Fake.Requests())
	if len(reqs) != 7 {
		t.Fatalf("%d agent requests, want 7 (six tool calls and the end)", len(reqs))
	}
	result := func(i int) string { return reqs[i+1].LastToolResult() }
	decision := filepath.Join(memDir, "decisions", "use-sqlite-session-cache.md")
	data, err := os.ReadFile(decision)
	if err != nil {
		t.Fatalf("remember did not write %s: %v (tool said %q)", decision, err, result(0))
	}
	for _, want := range []string{"id: decisions/use-sqlite-session-cache", "kind: decision", "TOOL-DECISION-BODY", "缓存"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("%s lacks %q:\n%s", decision, want, data)
		}
	}
	if r := result(1); !strings.Contains(r, "decisions/use-sqlite-session-cache") || !strings.Contains(r, "TOOL-DECISION-BODY") {
		t.Errorf("recall result: %q", r)
	}
	if r := result(2); !strings.HasPrefix(r, "ocmem refused: ") {
		t.Errorf("forget ../../x result: %q", r)
	}
	if _, err := os.Stat(gone.Path); !os.IsNotExist(err) {
		t.Errorf("forget %s left %s (tool said %q)", gone.ID, gone.Path, result(3))
	}
	rule := filepath.Join(memDir, "rules", "always-run-gofmt-before-committing.md")
	if data, err := os.ReadFile(rule); err != nil || !strings.Contains(string(data), "kind: rule-proposal") {
		t.Errorf("model rule %s: %v\n%s", rule, err, data)
	}
	if r := result(4); !strings.Contains(strings.ToLower(r), "proposal") {
		t.Errorf("remember rule result does not say it is a proposal: %q", r)
	}
	if r := result(5); !strings.Contains(r, "decisions/use-sqlite-session-cache") || strings.Contains(r, gone.ID) {
		t.Errorf("inspect result: %q", r)
	}
}

// TestV2WritesFollowEditPermission is TestWritesFollowEditPermission on
// OpenCode 2, where a plugin's tool cannot ask for a permission. The Plan
// agent is still offered the two writers and runs them: ocmem reads the
// agent's edit rules and refuses, with the reply 1.18 gives, nothing
// written. A config rule that denies edits to .memory/** refuses the same
// way. `"edit": "deny"` removes the writers from the tools offered (2.x
// does it, for tools that declare the edit permission), so the model
// cannot call them at all.
func TestV2WritesFollowEditPermission(t *testing.T) {
	e := e2e.NewOcmemEnv2(t)
	keep := e.RememberUnrelated()
	memDir := filepath.Join(e.Project, ".memory")
	calls := func() {
		e.Fake.SetResponder(fakellm.Script(
			fakellm.Call("memory_remember", map[string]any{
				"category": "decisions", "kind": "decision",
				"summary": "Use SQLite for the session cache", "body": "PLAN-BODY: one file, no server.",
			}),
			fakellm.Call("memory_forget", map[string]any{"id": keep.ID}),
			fakellm.Text("done"),
		))
	}
	written := filepath.Join(memDir, "decisions", "use-sqlite-session-cache.md")
	untouched := func(name string) {
		t.Helper()
		if _, err := os.Stat(written); !os.IsNotExist(err) {
			t.Errorf("%s: remember wrote %s", name, written)
		}
		if _, err := os.Stat(keep.Path); err != nil {
			t.Errorf("%s: forget deleted %s", name, keep.Path)
		}
	}
	refused := func(name string) {
		t.Helper()
		reqs := fakellm.Agent(e.Fake.Requests())
		if len(reqs) < 3 {
			t.Fatalf("%s: %d agent requests, want 3", name, len(reqs))
		}
		reqs = reqs[len(reqs)-3:]
		for i, tool := range []string{"memory_remember", "memory_forget"} {
			if r := reqs[i+1].LastToolResult(); !strings.Contains(r, "not allowed to edit files") || !strings.Contains(r, "nothing was written") && !strings.Contains(r, "nothing was deleted") {
				t.Errorf("%s: %s result: %q", name, tool, r)
			}
		}
		untouched(name)
	}

	calls()
	e.MustRun("run", "--agent", "plan", "remember and forget, please")
	refused("plan agent")

	e.Config["permission"] = map[string]any{"edit": map[string]any{"*": "allow", ".memory/**": "deny"}}
	e.WriteConfig()
	calls()
	e.Ask("remember and forget, please")
	refused("edit: .memory/** deny")

	e.Config["permission"] = map[string]any{"edit": "deny"}
	e.WriteConfig()
	calls()
	e.Ask("remember and forget, please")
	reqs := fakellm.Agent(e.Fake.Requests())
	last := reqs[len(reqs)-1]
	for _, name := range []string{"memory_remember", "memory_forget"} {
		if last.HasTool(name) {
			t.Errorf(`"edit": "deny": %s is still offered`, name)
		}
	}
	for _, name := range []string{"memory_recall", "memory_inspect"} {
		if !last.HasTool(name) {
			t.Errorf(`"edit": "deny": %s is not offered`, name)
		}
	}
	untouched("edit: deny")
	e2e.AssertNothingLeft(t, e)
}

// TestV2InstallPluginsShape: a person whose global config is in OpenCode
// 2's shape ("plugins": [{"package", "options"}]) gets ocmem's entry there
// from `ocmem install`, with the options they gave an earlier entry, and
// OpenCode 2 loads it.
func TestV2InstallPluginsShape(t *testing.T) {
	e := e2e.NewEnvWith(t, e2e.EnvOptions{V2: true})
	cfg := filepath.Join(e.ConfigDir(), "opencode.json")
	e.WriteJSON(cfg, map[string]any{"plugins": []any{map[string]any{"package": "ocmem@0.0.1", "options": map[string]any{"maxInjectEntries": 2}}}})
	e2e.WithOcmem(t, e)
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	lists, _ := json.Marshal([]any{got["plugin"], got["plugins"]})
	want := `[null,[{"options":{"maxInjectEntries":2},"package":` + strconv.Quote(filepath.Join(e.ConfigDir(), "ocmem")) + `}]]`
	if string(lists) != want {
		t.Errorf("global config after install:\n%s\nwant the lists %s", data, want)
	}
	e.RememberDeploy()
	e.Ask("部署前要做什么?")
	agent := fakellm.Agent(e.Fake.Requests())
	if len(agent) != 1 || !agent[0].HasTool("memory_recall") || !strings.Contains(string(agent[0].Raw), "DEPLOY-BODY") {
		t.Errorf("OpenCode 2 did not load ocmem from the plugins list")
	}
}

// v2Summary is a compaction summary in OpenCode 2.0.15's template.
const v2Summary = "## Objective\n- Deploy safely.\n\n## Requirements\n- (none)\n\n## Decisions\n- (none)\n\n" +
	"## Work State\n### Completed\n- (none)\n\n### Active\n- (none)\n\n### Blocked\n- (none)\n\n" +
	"## Next Move\n1. (none)\n\n## Relevant Files\n(none)\n\n## Important Context\n- (none)\n"

// TestV2CompactionGivesMemoriesAgain is TestCompactionGivesMemoriesAgain on
// OpenCode 2: a body is given once per session; after OpenCode compacts the
// session (POST /api/session/:id/compact, which ends with
// session.compaction.ended), the summary may have dropped it, so the next
// relevant turn gets it again.
func TestV2CompactionGivesMemoriesAgain(t *testing.T) {
	e := e2e.NewOcmemEnv2(t)
	e.RememberDeploy()
	// OpenCode 2 fails a compaction whose summary lacks its template's
	// headings.
	e.Fake.SetResponder(func(r fakellm.Request) fakellm.Reply {
		if strings.Contains(r.LastUserText(), "summarize the conversation above") {
			return fakellm.Text(v2Summary)
		}
		return fakellm.Default(r)
	})
	srv := e.Serve()
	run := func(args ...string) { e.MustRun(append([]string{"run", "--server", srv.URL}, args...)...) }
	run("部署前要做什么?")
	run("--continue", "部署之后呢?")
	log := e2e.ReadFileString(e.OcmemLog())
	i := strings.Index(log, `"session":"ses_`)
	if i < 0 {
		t.Fatalf("no session in the ocmem log:\n%s", log)
	}
	session := log[i+len(`"session":"`):]
	session = session[:strings.IndexByte(session, '"')]
	e.MustRun("api", "--server", srv.URL, "POST", "/api/session/"+session+"/compact", "--data", "{}")
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(e2e.ReadFileString(e.OcmemLog()), "session compacted") {
		if time.Now().After(deadline) {
			t.Fatalf("serve was not told of the compaction:\n%s", e2e.Tail(e2e.ReadFileString(e.OcmemLog()), 3000))
		}
		time.Sleep(100 * time.Millisecond)
	}
	run("--continue", "部署还要注意什么?")

	var given []int // the turns whose own messages carry the body
	for i, r := range fakellm.Agent(e.Fake.Requests()) {
		users := r.UserMessages()
		if n := len(users); n >= 2 && strings.Contains(users[n-2].Text(), "DEPLOY-BODY") {
			given = append(given, i+1)
		}
	}
	if len(given) != 2 || given[0] != 1 || given[1] == 2 {
		t.Errorf("the body came right before the person's message in requests %v; want the first and the one after the compaction", given)
	}
	srv.Stop()
	e2e.AssertNothingLeft(t, e)
}

// TestV2HandEditSeenNextTurn is TestHandEditSeenNextTurn on OpenCode 2: a
// memory edited by hand between two turns of a long-lived `opencode serve`
// shows its new summary in the same session's next system prompt, and its
// new body in a new session.
func TestV2HandEditSeenNextTurn(t *testing.T) {
	e := e2e.NewOcmemEnv2(t)
	deploy := e.RememberDeploy()
	e.RememberUnrelated()
	srv := e.Serve()
	run := func(args ...string) { e.MustRun(append([]string{"run", "--server", srv.URL}, args...)...) }
	run("部署前要做什么?")
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
	run("--continue", "thanks")
	run("部署前要做什么?")

	reqs := fakellm.Agent(e.Fake.Requests())
	if len(reqs) != 3 {
		t.Fatalf("%d agent requests, want 3", len(reqs))
	}
	if !strings.Contains(string(reqs[0].Raw), "DEPLOY-BODY") || !strings.Contains(reqs[0].SystemText(), "Run database migrations before deploying") {
		t.Errorf("turn 1 did not get the original memory")
	}
	for i, r := range reqs[1:] {
		if sys := r.SystemText(); !strings.Contains(sys, "Run migrations AND smoke tests before deploying") {
			t.Errorf("request %d after the edit: outline lacks the new summary", i+2)
		}
	}
	users := reqs[2].UserMessages()
	if len(users) != 2 || !strings.Contains(users[0].Text(), "EDITED-DEPLOY-BODY") {
		t.Errorf("the new session after the edit got %d user messages; the first:\n%s", len(users), users[0].Text())
	}
	srv.Stop()
	e2e.AssertNothingLeft(t, e)
}

// TestV2WorktreeUsesMainCheckout is TestWorktreeUsesMainCheckout on
// OpenCode 2: a session in a linked git worktree reads and writes the main
// checkout's .memory/.
func TestV2WorktreeUsesMainCheckout(t *testing.T) {
	e := e2e.NewOcmemEnv2(t)
	wt := e.AddWorktree("feature")
	e.RememberDeploy()
	e.Dir = wt
	e.Fake.SetResponder(fakellm.Script(
		fakellm.Call("memory_remember", map[string]any{
			"category": "facts", "kind": "fact",
			"summary": "Worktree sessions share the main memory",
			"body":    "WORKTREE-BODY",
		}),
		fakellm.Text("done"),
	))
	e.Ask("部署前要做什么?")
	reqs := fakellm.Agent(e.Fake.Requests())
	if len(reqs) != 2 {
		t.Fatalf("%d agent requests", len(reqs))
	}
	if !strings.Contains(string(reqs[0].Raw), "DEPLOY-BODY") {
		t.Errorf("worktree session did not get the main checkout's memory")
	}
	want := filepath.Join(e.Project, ".memory", "facts", "worktree-sessions-share-main-memory.md")
	if _, err := os.Stat(want); err != nil {
		t.Errorf("remember in the worktree did not write %s: %v (tool said %q)", want, err, reqs[1].LastToolResult())
	}
	if _, err := os.Stat(filepath.Join(wt, ".memory")); err == nil {
		t.Errorf("a .memory/ was created in the worktree")
	}
}

// TestDoctorNamesOpenCodeLine: `ocmem doctor` runs the opencode it finds
// on PATH and says which line it is and that ocmem loads there, for the
// real 1.18.33 and 2.0.15 binaries.
func TestDoctorNamesOpenCodeLine(t *testing.T) {
	for _, c := range []struct {
		v2   bool
		want string
	}{
		{false, "ok   OpenCode: OpenCode " + e2e.OpenCodeVersion + " (the 1.x line) at "},
		{true, "ok   OpenCode: OpenCode " + e2e.OpenCode2Version + " (the 2.x line) at "},
	} {
		e := e2e.WithOcmem(t, e2e.NewEnvWith(t, e2e.EnvOptions{V2: c.v2}))
		path := filepath.Dir(e.OpenCode) + string(os.PathListSeparator) + os.Getenv("PATH")
		cmd := exec.Command(e2e.Ocmem(t), "doctor")
		cmd.Dir = e.Dir
		cmd.Env = append(e.Environ(), "PATH="+path)
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), c.want) || !strings.Contains(string(out), ": ocmem loads there") {
			t.Errorf("ocmem doctor said:\n%s\nwant a line %q…: ocmem loads there", out, c.want)
		}
	}
}

// TestV2ToolCallsLogged: the model's calls of OpenCode 2's own tools reach
// serve's log (tool.hook "execute.after"), for the session timeline of
// `ocmem ui`, as on 1.18 (TestRecordSessionLog).
func TestV2ToolCallsLogged(t *testing.T) {
	e := e2e.NewOcmemEnv2(t)
	e.Fake.SetResponder(fakellm.Script(
		fakellm.Call("glob", map[string]any{"pattern": "*.md"}),
		fakellm.Call("memory_inspect", map[string]any{}),
		fakellm.Text("done"),
	))
	e.Ask("which files are there?")
	log := e2e.ReadFileString(e.OcmemLog())
	if !strings.Contains(log, `"msg":"tool called","tool":"glob"`) {
		t.Errorf("the glob call is not in serve's log:\n%s", e2e.Tail(log, 3000))
	}
	if strings.Count(log, `"tool":"memory_inspect"`) != 1 {
		t.Errorf("ocmem's own tool is logged %d times, want once (by serve):\n%s", strings.Count(log, `"tool":"memory_inspect"`), e2e.Tail(log, 3000))
	}
}

// TestV2HandEditedRuleNotInForce is TestHandEditedRuleNotInForce on
// OpenCode 2, without its toast (2.x has none for plugins yet): the
// person's own rule is a hard rule at once; edited by hand, the next turn
// gives it only as the repository's proposal.
func TestV2HandEditedRuleNotInForce(t *testing.T) {
	e := e2e.NewOcmemEnv2(t)
	rule := e.RememberRule()
	srv := e.Serve()
	run := func(args ...string) { e.MustRun(append([]string{"run", "--server", srv.URL}, args...)...) }
	run("hello")
	agent := fakellm.Agent(e.Fake.Requests())
	if sys := agent[len(agent)-1].SystemText(); !strings.Contains(sys, e2e.RuleBody) || strings.Contains(sys, "# Proposed by this repository") {
		t.Fatalf("the person's own rule is not a hard rule:\n%s", sys)
	}
	b, err := os.ReadFile(rule.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rule.Path, append(b, []byte("HAND-EDIT: also never push tags.\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	run("--continue", "hello again")
	agent = fakellm.Agent(e.Fake.Requests())
	sys := agent[len(agent)-1].SystemText()
	if strings.Contains(sys, "HAND-EDIT") || strings.Contains(sys, e2e.RuleBody) || !strings.Contains(sys, "# Proposed by this repository") {
		t.Errorf("after the hand edit the rule is still a hard rule, or its new text is:\n%s", sys)
	}
	srv.Stop()
	e2e.AssertNothingLeft(t, e)
}

// TestV2ServeKilledMidSession is TestServeKilledMidSession on OpenCode 2:
// `ocmem serve` killed in the middle of a turn of a long-lived `opencode
// serve`; the turn still finishes, the next tool call and the next turn
// have memory again.
func TestV2ServeKilledMidSession(t *testing.T) {
	e := e2e.NewOcmemEnv2(t)
	e.RememberRule()
	e.RememberDeploy()
	srv := e.Serve()
	run := func(args ...string) { e.MustRun(append([]string{"run", "--server", srv.URL}, args...)...) }
	run("hello")
	pids := e.ServePIDs()
	if len(pids) != 1 {
		t.Fatalf("ocmem serve pids %v, want one", pids)
	}
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
	run("--continue", "what do you remember about deploys?")
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
	e.Fake.SetResponder(nil)
	run("--continue", "部署前要做什么?")
	reqs = fakellm.Agent(e.Fake.Requests())
	if last := reqs[len(reqs)-1]; !strings.Contains(last.SystemText(), e2e.RuleBody) {
		t.Errorf("turn 3 system prompt lacks the hard rule")
	}
	if now := e.ServePIDs(); len(now) != 1 || now[0] == pids[0] {
		t.Errorf("serve pids after restart: %v (before %v)", now, pids)
	}
	srv.Stop()
	e2e.AssertNothingLeft(t, e)
}
