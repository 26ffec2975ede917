package enforce

// Rules that bind, in the real OpenCode: a hard rule's guard stops the
// tool call that breaks it before it runs, and the model is told which
// rule stopped it; only rules in force bind.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// The guards the tests use: markers the stopped calls would create.
const (
	globalGuard = "---\nid: rules/no-stop-files\nkind: rule\nsummary: Never create stop files\n" +
		"enforce:\n  bash:\n    \"touch stop-*\": deny\n  edit:\n    \"dist/**\": deny\n---\nStop files halt the deploy robot.\n"
	proposalGuard = "---\nid: rules/no-prop-files\nkind: rule-proposal\nsummary: Never create prop files\nproposed_by: model\n" +
		"enforce:\n  bash: { \"touch prop-*\": deny }\n---\n"
	projectGuard = "---\nid: rules/no-proj-files\nkind: rule\nsummary: Never create proj files\n" +
		"enforce:\n  bash: { \"touch proj-*\": deny }\n---\n"
)

// enforceEnv is an Env with the global rule, a global proposal and an
// untrusted project rule, each with a guard, and a committed dist/app.js.
func enforceEnv(t *testing.T, e *e2e.Env) {
	t.Helper()
	global := filepath.Join(e.ConfigDir(), "memory")
	e.WriteFile(filepath.Join(global, "rules", "no-stop-files.md"), globalGuard)
	e.WriteFile(filepath.Join(global, "rules", "no-prop-files.md"), proposalGuard)
	e.WriteFile(".memory/rules/no-proj-files.md", projectGuard)
	e.WriteFile("dist/app.js", "KEEP\n")
}

// toolResults returns, in order, the text of every tool result the model
// was shown by its last request.
func toolResults(reqs []fakellm.Request) []string {
	agent := fakellm.Agent(reqs)
	if len(agent) == 0 {
		return nil
	}
	return agent[len(agent)-1].ToolResults()
}

func exists(e *e2e.Env, name string) bool { return e2e.FileExists(filepath.Join(e.Project, name)) }

// TestEnforceV1: on OpenCode 1.18 a guarded shell command does not run,
// plain, under `bash -c` or after `true &&`, and the model's tool result
// names the rule; an unguarded command runs; an edit of a guarded path is
// stopped and the file is unchanged; a proposal's guard and an untrusted
// repository's guard stop nothing, until the person trusts it.
func TestEnforceV1(t *testing.T) {
	e := e2e.NewOcmemEnv(t)
	enforceEnv(t, e)
	testEnforce(t, e, "bash", "edit", "filePath")
}

func testEnforce(t *testing.T, e *e2e.Env, shell, edit, pathArg string) {
	sh := func(cmd string) fakellm.Reply {
		return fakellm.Call(shell, map[string]any{"command": cmd, "description": "run " + cmd})
	}
	e.Fake.SetResponder(fakellm.Script(
		sh("touch stop-plain"),
		sh("bash -c 'touch stop-wrapped'"),
		sh("true && touch stop-and"),
		sh("touch go-free"),
		fakellm.Call(edit, map[string]any{pathArg: filepath.Join(e.Project, "dist", "app.js"), "oldString": "KEEP", "newString": "CHANGED"}),
		sh("touch prop-x"),
		sh("touch proj-before"),
		fakellm.Text("done"),
	))
	e.Ask("make the files")
	for _, f := range []string{"stop-plain", "stop-wrapped", "stop-and"} {
		if exists(e, f) {
			t.Errorf("%s exists: the guarded command ran", f)
		}
	}
	for _, f := range []string{"go-free", "prop-x", "proj-before"} {
		if !exists(e, f) {
			t.Errorf("%s does not exist: an unguarded command (or one guarded by a rule not in force) did not run", f)
		}
	}
	if b, err := os.ReadFile(filepath.Join(e.Project, "dist", "app.js")); err != nil || string(b) != "KEEP\n" {
		t.Errorf("dist/app.js after a guarded edit: %q, %v", b, err)
	}
	results := toolResults(e.Fake.Requests())
	if len(results) < 5 {
		t.Fatalf("%d tool results, want 7: %q", len(results), results)
	}
	t.Logf("what the model read of a stopped call: %q", results[0])
	for i, r := range results[:3] {
		if !strings.Contains(r, "Never create stop files") || !strings.Contains(r, "rules/no-stop-files") || !strings.Contains(r, "did not run") {
			t.Errorf("tool result %d does not name the rule: %q", i, r)
		}
	}
	if !strings.Contains(results[4], "Never create stop files") || !strings.Contains(results[4], "dist/app.js") {
		t.Errorf("the edit's tool result: %q", results[4])
	}
	if log := readFile(t, e.OcmemLog()); strings.Count(log, `"msg":"tool stopped"`) != 4 {
		t.Errorf("ocmem's log has %d stops, want 4", strings.Count(log, `"msg":"tool stopped"`))
	}

	// The person trusts the repository: its guard binds.
	e.RunOcmem("trust")
	e.Fake.SetResponder(fakellm.Script(sh("touch proj-after"), fakellm.Text("done")))
	e.Ask("make another file")
	if exists(e, "proj-after") {
		t.Error("proj-after exists: the trusted repository's guard did not stop the call")
	}
	if r := toolResults(e.Fake.Requests()); len(r) == 0 || !strings.Contains(r[len(r)-1], "rules/no-proj-files") {
		t.Errorf("after trust, the tool result: %q", r)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEnforceV2 is TestEnforceV1 on OpenCode 2.0.15, whose shell tool is
// called shell and whose file tools take path: the person's bash and edit
// guards cover them.
func TestEnforceV2(t *testing.T) {
	e := e2e.NewOcmemEnv2(t)
	enforceEnv(t, e)
	testEnforce(t, e, "shell", "edit", "path")
}

// TestEnforceBeforePermissionV1: on 1.18 ocmem's check runs before
// OpenCode's own permission: a call both a guard and a `permission` deny
// stop gets ocmem's message, and one only `permission` denies still gets
// OpenCode's refusal (a guard never lifts it).
func TestEnforceBeforePermissionV1(t *testing.T) {
	testEnforceBeforePermission(t, e2e.NewOcmemEnv(t), "bash")
}

// TestEnforceBeforePermissionV2 is the same on 2.0.15.
func TestEnforceBeforePermissionV2(t *testing.T) {
	testEnforceBeforePermission(t, e2e.NewOcmemEnv2(t), "shell")
}

func testEnforceBeforePermission(t *testing.T, e *e2e.Env, shell string) {
	enforceEnv(t, e)
	e.Config["permission"] = map[string]any{shell: map[string]any{"*": "allow", "touch stop-*": "deny", "touch denied-*": "deny"}}
	e.WriteConfig()
	e.Fake.SetResponder(fakellm.Script(
		fakellm.Call(shell, map[string]any{"command": "touch stop-both", "description": "d"}),
		fakellm.Call(shell, map[string]any{"command": "touch denied-by-opencode", "description": "d"}),
		fakellm.Text("done"),
	))
	e.Ask("make the files")
	results := toolResults(e.Fake.Requests())
	if len(results) != 2 {
		t.Fatalf("tool results: %q", results)
	}
	t.Logf("OpenCode's own refusal: %q", results[1])
	if !strings.Contains(results[0], "rules/no-stop-files") {
		t.Errorf("a call both stop: %q; want ocmem's message (ocmem decides first)", results[0])
	}
	if strings.Contains(results[1], "ocmem") || exists(e, "denied-by-opencode") || exists(e, "stop-both") {
		t.Errorf("a call only e2e.OpenCode's permission denies: %q", results[1])
	}
}

// TestModelProposedGuardV1: on OpenCode 1.18 the model's memory_remember
// of a rule with an enforce object writes a proposal carrying the block;
// its guard stops nothing until the person accepts the proposal, and then
// stops the call.
func TestModelProposedGuardV1(t *testing.T) {
	testModelProposedGuard(t, e2e.NewOcmemEnv(t), "bash")
}

// TestModelProposedGuardV2 is TestModelProposedGuardV1 on OpenCode 2.0.15.
func TestModelProposedGuardV2(t *testing.T) {
	testModelProposedGuard(t, e2e.NewOcmemEnv2(t), "shell")
}

func testModelProposedGuard(t *testing.T, e *e2e.Env, shell string) {
	sh := func(cmd string) fakellm.Reply {
		return fakellm.Call(shell, map[string]any{"command": cmd, "description": "run " + cmd})
	}
	e.Fake.SetResponder(fakellm.Script(
		fakellm.Call("memory_remember", map[string]any{
			"category": "rules", "kind": "rule", "summary": "Never create lock files",
			"body":    "Lock files stop the nightly job.",
			"enforce": map[string]any{"bash": map[string]any{"touch lock-*": "deny"}},
		}),
		sh("touch lock-proposed"),
		fakellm.Text("done"),
	))
	e.Ask("remember the rule and make a file")
	rule := filepath.Join(e.Project, ".memory", "rules", "never-create-lock-files.md")
	data, err := os.ReadFile(rule)
	if err != nil {
		t.Fatalf("the proposal was not written: %v; tool results %q", err, toolResults(e.Fake.Requests()))
	}
	if !strings.Contains(string(data), "kind: rule-proposal") || !strings.Contains(string(data), "enforce:\n  bash:\n    \"touch lock-*\": deny\n") {
		t.Fatalf("the proposal's file:\n%s", data)
	}
	if !exists(e, "lock-proposed") {
		t.Errorf("a proposal's guard stopped the call: %q", toolResults(e.Fake.Requests()))
	}

	e.RunOcmem("accept", "rules/never-create-lock-files")
	e.Fake.SetResponder(fakellm.Script(sh("touch lock-accepted"), fakellm.Text("done")))
	e.Ask("make another file")
	if exists(e, "lock-accepted") {
		t.Error("lock-accepted exists: the accepted proposal's guard did not stop the call")
	}
	if r := toolResults(e.Fake.Requests()); len(r) == 0 || !strings.Contains(r[len(r)-1], "rules/never-create-lock-files") {
		t.Errorf("after accept, the tool result: %q", r)
	}
}
