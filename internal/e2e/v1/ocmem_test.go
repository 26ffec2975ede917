package v1

// ocmem inside the real OpenCode: `ocmem install` puts the plugin in place,
// memories are written with the CLI as a person would, the fake model's
// recorded requests show what the model was given, and the files on disk
// show what the tools did.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// assertServeGone checks that no `ocmem serve` of this Env outlives OpenCode.
func assertServeGone(t *testing.T, e *e2e.Env) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		pids := e.ServePIDs()
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("ocmem serve still running after OpenCode exited: pids %v", pids)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestToolsAndStableSystem: the four tools are offered, the system prompt
// holds the hard rule and the outline, and its bytes do not change on the
// next turn (the provider's prompt cache survives); the title request gets
// neither. It starts cold, as a new
// user does: OpenCode installs @opencode-ai/plugin, which the plugin's tools
// need, only on its first start, after ocmem install wrote the plugin.
func TestToolsAndStableSystem(t *testing.T) {
	e := e2e.WithOcmem(t, e2e.NewEnvWith(t, e2e.EnvOptions{ColdConfig: true}))
	e.RememberRule()
	unrelated := e.RememberUnrelated()

	e.Ask("hello")
	e.Continue("hello again")
	assertServeGone(t, e)

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
		for _, tool := range r.Body.Tools {
			if tool.Function.Name == "task" && strings.Contains(tool.Function.Description, "ocmem-extract") {
				t.Errorf("the hidden extraction agent is offered to the task tool:\n%s", tool.Function.Description)
			}
		}
	}
	first := e2e.OcmemSystem(t, reqs[0], "Never force-push to main")
	for _, want := range []string{e2e.RuleBody, unrelated.ID, "The CLI uses the standard flag package"} {
		if !strings.Contains(first, want) {
			t.Errorf("system message lacks %q:\n%s", want, first)
		}
	}
	if strings.Contains(first, e2e.UnrelatedBody) {
		t.Errorf("a fact's body is in the system prompt; only its outline line belongs there")
	}
	if second := e2e.OcmemSystem(t, reqs[1], "Never force-push to main"); second != first {
		t.Errorf("system message changed between turns:\nturn 1:\n%s\nturn 2:\n%s", first, second)
	}
	if !slices.Equal(reqs[0].System(), reqs[1].System()) {
		t.Errorf("the system messages differ between turns")
	}
	// OpenCode's title request needs no hard rules and no outline.
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

// TestRelevantBodyInjected: a two-character Chinese question gets the deploy
// memory's body in the user message, no unrelated body, and the body is not
// given again on the next turn of the session, whose conversation still
// holds it; the title request does not get it.
func TestRelevantBodyInjected(t *testing.T) {
	e := e2e.NewOcmemEnv(t)
	e.RememberDeploy()
	e.RememberUnrelated()

	e.Ask("部署前要做什么?")
	e.Continue("部署之后呢?")

	reqs := fakellm.Agent(e.Fake.Requests())
	if len(reqs) != 2 {
		t.Fatalf("%d agent requests, want 2", len(reqs))
	}
	turn1 := reqs[0].LastUserText()
	if !strings.Contains(turn1, "部署前要做什么?") || !strings.Contains(turn1, e2e.DeployBody) {
		t.Errorf("turn 1 user message lacks the question or the deploy body:\n%s", turn1)
	}
	for _, r := range reqs {
		if strings.Contains(r.SystemText(), "DEPLOY-BODY") {
			t.Errorf("request %d: a body is in the system prompt", r.Seq)
		}
		for _, u := range r.UserMessages() {
			if strings.Contains(u.Text(), "UNRELATED-BODY") {
				t.Errorf("request %d: the unrelated body was injected", r.Seq)
			}
		}
	}
	turn2 := reqs[1].LastUserText()
	if !strings.Contains(turn2, "部署之后呢?") {
		t.Errorf("turn 2 user message: %q", turn2)
	}
	if strings.Contains(turn2, "DEPLOY-BODY") {
		t.Errorf("turn 2 repeats the deploy body:\n%s", turn2)
	}
	all := 0
	for _, u := range reqs[1].UserMessages() {
		all += strings.Count(u.Text(), "DEPLOY-BODY")
	}
	if all != 1 {
		t.Errorf("turn 2's conversation holds the deploy body %d times, want 1 (from turn 1)", all)
	}
	// OpenCode's title request (system "You are a title generator", no
	// tools) gets the person's message, not the memory bodies.
	titles := 0
	for _, r := range e.Fake.Requests() {
		if !r.IsTitle() {
			continue
		}
		titles++
		for _, u := range r.UserMessages() {
			if strings.Contains(u.Text(), "DEPLOY-BODY") || strings.Contains(u.Text(), "<memory ") {
				t.Errorf("the title request carries memory bodies:\n%s", u.Text())
			}
		}
	}
	if titles == 0 {
		t.Error("no title request seen")
	}
}

// TestMemoryTools: scripted tool calls do what they say, on disk and in the
// tool results the model sees.
func TestMemoryTools(t *testing.T) {
	e := e2e.NewOcmemEnv(t)
	gone := e.RememberUnrelated()
	memDir := filepath.Join(e.Project, ".memory")
	// Targets an escaping id could reach; they must survive.
	outside := []string{e.WriteFile(filepath.Join(filepath.Dir(e.Project), "x.md"), "keep"),
		e.WriteFile(filepath.Join(filepath.Dir(e.Project), "x"), "keep"), e.WriteFile("x.md", "keep")}

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
	before := e2e.CountFiles(t, memDir)
	e.Ask("please manage memories")

	reqs := fakellm.Agent(e.Fake.Requests())
	if len(reqs) != 7 {
		t.Fatalf("%d agent requests, want 7 (six tool calls and the end)", len(reqs))
	}
	result := func(i int) string { return reqs[i+1].LastToolResult() }

	// 1. remember writes a file with the frontmatter it was given.
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
	if !strings.Contains(result(0), "decisions/use-sqlite-session-cache") {
		t.Errorf("remember result: %q", result(0))
	}
	// 2. recall finds it, with its text.
	if r := result(1); !strings.Contains(r, "decisions/use-sqlite-session-cache") || !strings.Contains(r, "TOOL-DECISION-BODY") {
		t.Errorf("recall result: %q", r)
	}
	// 3. an id that leaves the root is refused and deletes nothing.
	if r := result(2); !strings.HasPrefix(r, "ocmem refused: ") {
		t.Errorf("forget ../../x result: %q", r)
	}
	for _, p := range outside {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("forget ../../x removed %s", p)
		}
	}
	// 4. forget deletes the memory.
	if _, err := os.Stat(gone.Path); !os.IsNotExist(err) {
		t.Errorf("forget %s left %s (tool said %q)", gone.ID, gone.Path, result(3))
	}
	// 5. a rule from the model becomes a proposal.
	rule := filepath.Join(memDir, "rules", "always-run-gofmt-before-committing.md")
	if data, err := os.ReadFile(rule); err != nil || !strings.Contains(string(data), "kind: rule-proposal") {
		t.Errorf("model rule %s: %v\n%s", rule, err, data)
	}
	if r := result(4); !strings.Contains(strings.ToLower(r), "proposal") {
		t.Errorf("remember rule result does not say it is a proposal: %q", r)
	}
	// 6. inspect lists what is there.
	if r := result(5); !strings.Contains(r, "decisions/use-sqlite-session-cache") || strings.Contains(r, gone.ID) {
		t.Errorf("inspect result: %q", r)
	}
	if after := e2e.CountFiles(t, memDir); after <= before {
		t.Errorf("memory files: %d before, %d after", before, after)
	}
	// A rule proposal is not in force: the next session's system prompt does
	// not hold it as a hard rule.
	e.Fake.SetResponder(nil)
	e.Ask("next session")
	last := fakellm.Agent(e.Fake.Requests())
	if sys := last[len(last)-1].SystemText(); strings.Contains(sys, "TOOL-RULE-BODY") {
		t.Errorf("a rule proposal is injected as a hard rule")
	}
}

// TestWorktreeUsesMainCheckout: a session in a linked git worktree reads and
// writes the main checkout's .memory/, not one of its own.
func TestWorktreeUsesMainCheckout(t *testing.T) {
	e := e2e.NewOcmemEnv(t)
	wt := e.AddWorktree("feature")
	e.RememberDeploy() // into the main checkout's .memory/
	e.RememberUnrelated()
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
	if !strings.Contains(reqs[0].LastUserText(), "DEPLOY-BODY") {
		t.Errorf("worktree session did not get the main checkout's memory:\n%s", reqs[0].LastUserText())
	}
	want := filepath.Join(e.Project, ".memory", "facts", "worktree-sessions-share-main-memory.md")
	if _, err := os.Stat(want); err != nil {
		t.Errorf("remember in the worktree did not write %s: %v (tool said %q)", want, err, reqs[1].LastToolResult())
	}
	if _, err := os.Stat(filepath.Join(wt, ".memory")); err == nil {
		t.Errorf("a .memory/ was created in the worktree")
	}
}
