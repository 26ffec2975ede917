package probe

// Probes of the OpenCode plugin API the ocmem plugin relies on, run against
// the pinned binary with testdata/probe/probe.js. They document OpenCode,
// not ocmem (docs/OPENCODE-NOTES.md has the findings), so they only run with
// OCMEM_E2E_PROBES=1: run them when changing OpenCodeVersion.

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

type probeRecord map[string]any

func (r probeRecord) str(key string) string { s, _ := r[key].(string); return s }

func skipUnlessProbes(t *testing.T) {
	t.Helper()
	e2e.SkipShort(t)
	if os.Getenv("OCMEM_E2E_PROBES") == "" {
		t.Skip("probe of the OpenCode plugin API: set OCMEM_E2E_PROBES=1 to run")
	}
}

// installProbe writes the probe plugin under dir with the given plugin id and
// returns its path and the path of its record file.
func installProbe(t *testing.T, e *e2e.Env, dir, id string) (plugin, out string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "probe", "probe.js"))
	if err != nil {
		t.Fatal(err)
	}
	src = []byte(strings.Replace(string(src), `id: "ocmem-probe"`, `id: "`+id+`"`, 1))
	plugin = filepath.Join(dir, id+".js")
	e.WriteFile(plugin, string(src))
	return plugin, filepath.Join(e.Home, id+".jsonl")
}

func readProbe(t *testing.T, path string) []probeRecord {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []probeRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r probeRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		recs = append(recs, r)
	}
	return recs
}

func kinds(recs []probeRecord, kind string) []probeRecord {
	var out []probeRecord
	for _, r := range recs {
		if r.str("kind") == kind {
			out = append(out, r)
		}
	}
	return out
}

// TestProbePluginAPI checks, in one two-turn session: plugin loading from
// outside .opencode/ (with and without a resolvable @opencode-ai/plugin),
// options, system.transform on every request, synthetic parts in this and
// later turns, tool context, session.idle, input.serverUrl under `opencode
// run`, and where client.app.log lands.
func TestProbePluginAPI(t *testing.T) {
	skipUnlessProbes(t)
	e := e2e.NewEnv(t)
	inConfig, out := installProbe(t, e, filepath.Join(e.ConfigDir(), "ocmem"), "probe-config")
	elsewhere, out2 := installProbe(t, e, filepath.Join(filepath.Dir(e.Home), "elsewhere"), "probe-elsewhere")
	opts := map[string]any{"out": out, "idMode": "prt", "fetchServer": true, "appLog": true, "nested": map[string]any{"n": 1.0}}
	e.SetPlugins(e2e.PluginTuple(inConfig, opts), e2e.PluginTuple(elsewhere, map[string]any{"out": out2}))
	e.Fake.SetResponder(fakellm.ToolThenText(fakellm.NewToolCall("probe_echo", map[string]string{"text": "zz"}), "done"))

	e.Ask("hello there")
	e.Continue("second turn")
	recs := readProbe(t, out)

	// Q3: a plugin outside any folder with node_modules cannot import
	// @opencode-ai/plugin and is dropped without a log line; the one under
	// ~/.config/opencode/ resolves it from ~/.config/opencode/node_modules.
	if got := readProbe(t, out2); len(got) != 0 {
		t.Errorf("plugin outside the config dir loaded: %v", got)
	}
	if !e2e.FileExists(filepath.Join(e.ConfigDir(), "node_modules", "@opencode-ai", "plugin", "package.json")) {
		t.Errorf("OpenCode did not install @opencode-ai/plugin into %s", e.ConfigDir())
	}
	inits := kinds(recs, "init")
	if len(inits) != 2 {
		t.Fatalf("plugin initialised %d times in two runs, want 2", len(inits))
	}
	for _, in := range inits {
		gotOpts, _ := json.Marshal(in["options"])
		wantOpts, _ := json.Marshal(opts)
		if string(gotOpts) != string(wantOpts) || in["argc"] != 2.0 {
			t.Errorf("options = %s (argc %v), want %s as the second argument", gotOpts, in["argc"], wantOpts)
		}
		// Q4 (main checkout): every path is the project.
		for _, k := range []string{"projectWorktree", "worktree", "directory"} {
			if in.str(k) != e.Project {
				t.Errorf("init %s = %q, want %q", k, in.str(k), e.Project)
			}
		}
		// Under `opencode run` no HTTP server listens; serverUrl is a placeholder.
		if in.str("serverUrl") != "http://localhost:4096/" {
			t.Errorf("serverUrl = %q", in.str("serverUrl"))
		}
	}
	for _, f := range kinds(recs, "fetch") {
		if f.str("error") == "" {
			t.Errorf("fetch of serverUrl under opencode run succeeded: %v", f)
		}
	}

	// Q1: the transform runs for every request, title request included, and
	// its string arrives as a system message of its own.
	reqs := e.Fake.Requests()
	if len(reqs) != 5 { // title, agent+tool call, after tool; turn 2: agent+tool call, after tool
		t.Errorf("%d model requests, want 5", len(reqs))
	}
	for _, r := range reqs {
		if sys := r.System(); len(sys) != 2 || sys[1] != "PROBE-SYSTEM-MARKER" {
			t.Errorf("request %d (title=%t): system messages %d, last %q", r.Seq, r.IsTitle(), len(sys), e2e.Tail(r.SystemText(), 40))
		}
	}
	if n := len(kinds(recs, "system")); n != len(reqs) {
		t.Errorf("system.transform ran %d times for %d requests", n, len(reqs))
	}

	// Q2: the synthetic part reaches the model right after the user's text,
	// in this turn (title request too) and in every later turn.
	for _, r := range reqs {
		users := r.UserMessages()
		last := users[len(users)-1]
		if r.IsTitle() {
			if !strings.Contains(last.Text(), "PROBE-SYNTHETIC turn=1") {
				t.Errorf("title request lacks the synthetic part: %q", last.Text())
			}
			continue
		}
		var texts []string
		for _, u := range users {
			texts = append(texts, u.Texts()...)
		}
		want := []string{`"hello there"`, "PROBE-SYNTHETIC turn=1"}
		if strings.Contains(r.LastUserText(), "second turn") {
			// Each run is a new process, so the probe's counter restarts.
			want = append(want, `"second turn"`, "PROBE-SYNTHETIC turn=1")
		}
		if !slices.Equal(texts, want) {
			t.Errorf("request %d user texts = %q, want %q", r.Seq, texts, want)
		}
	}
	msgs := kinds(recs, "chat.message")
	if len(msgs) != 2 {
		t.Fatalf("chat.message ran %d times", len(msgs))
	}
	parts, _ := msgs[0]["parts"].([]any)
	first, _ := parts[0].(map[string]any)
	if id, _ := first["id"].(string); !strings.HasPrefix(id, "prt_") {
		t.Errorf("user part id %q", id)
	}

	// Tool context and events.
	tools := kinds(recs, "tool")
	if len(tools) != 2 || tools[0].str("directory") != e.Project || tools[0].str("worktree") != e.Project {
		t.Errorf("tool calls: %v", tools)
	}
	idle := 0
	for _, ev := range kinds(recs, "event") {
		if ev.str("type") == "session.idle" {
			idle++
			props, _ := ev["properties"].(map[string]any)
			if props["sessionID"] != msgs[0]["message"].(map[string]any)["sessionID"] {
				t.Errorf("session.idle properties %v", props)
			}
		}
	}
	if idle != 2 {
		t.Errorf("session.idle seen %d times, want 2", idle)
	}

	// Q5: client.app.log lands in OpenCode's own log file.
	if logs := e.Logs(); !strings.Contains(logs, "message=probe-app-log-marker") {
		t.Errorf("app.log line not in %s", e.LogDir())
	}
}

// TestProbeSyntheticPartID checks that OpenCode validates a pushed part's id:
// an id not starting with "prt" fails the user's whole turn. It also starts
// cold, to see OpenCode install @opencode-ai/plugin into ~/.config/opencode
// before it loads the plugin that imports it.
func TestProbeSyntheticPartID(t *testing.T) {
	skipUnlessProbes(t)
	e := e2e.NewEnvWith(t, e2e.EnvOptions{ColdConfig: true})
	plugin, out := installProbe(t, e, filepath.Join(e.ConfigDir(), "ocmem"), "probe")
	e.SetPlugins(e2e.PluginTuple(plugin, map[string]any{"out": out, "idMode": "bad"}))
	res := e.Run(context.Background(), "run", "hello")
	if res.Err == nil {
		t.Errorf("turn with a bad part id succeeded")
	}
	if !strings.Contains(e.Logs(), `Expected a string starting with \"prt\"`) {
		t.Errorf("no schema error in the log")
	}
	if n := len(e.Fake.Requests()); n != 0 {
		t.Errorf("model saw %d requests", n)
	}
	if len(kinds(readProbe(t, out), "chat.message")) != 1 {
		t.Errorf("plugin did not load on a cold start")
	}
	if fi, err := os.Lstat(filepath.Join(e.ConfigDir(), "node_modules")); err != nil || !fi.IsDir() {
		t.Errorf("OpenCode did not install node_modules into %s: %v", e.ConfigDir(), err)
	}
}

// TestProbeWorktree records the plugin input in a linked git worktree.
func TestProbeWorktree(t *testing.T) {
	skipUnlessProbes(t)
	e := e2e.NewEnv(t)
	plugin, out := installProbe(t, e, filepath.Join(e.ConfigDir(), "ocmem"), "probe")
	e.SetPlugins(e2e.PluginTuple(plugin, map[string]any{"out": out, "idMode": "prt"}))
	e.Git("add", "-A")
	e.Git("commit", "-q", "-m", "config")
	wt := e.AddWorktree("feature")
	e.Dir = wt
	e.Fake.SetResponder(fakellm.ToolThenText(fakellm.NewToolCall("probe_echo", map[string]string{"text": "wt"}), "done"))
	e.Ask("in a worktree")
	recs := readProbe(t, out)
	inits := kinds(recs, "init")
	if len(inits) != 1 {
		t.Fatalf("%d inits", len(inits))
	}
	in := inits[0]
	t.Logf("worktree session: project.worktree=%s worktree=%s directory=%s", in.str("projectWorktree"), in.str("worktree"), in.str("directory"))
	// All three name the linked worktree, not the main checkout: the plugin
	// cannot tell them apart, ocmem must ask git (--git-common-dir).
	for k, want := range map[string]string{"projectWorktree": wt, "worktree": wt, "directory": wt} {
		if in.str(k) != want {
			t.Errorf("%s = %q, want %q", k, in.str(k), want)
		}
	}
	tools := kinds(recs, "tool")
	if len(tools) != 1 || tools[0].str("directory") != wt || tools[0].str("worktree") != wt {
		t.Errorf("tool context: %v", tools)
	}
}

// TestProbeServeAgent checks, under `opencode serve`, input.serverUrl and a
// hidden tool-less agent added by the config hook, driven over HTTP the way
// extraction will: POST /session, then POST /session/{id}/message.
func TestProbeServeAgent(t *testing.T) {
	skipUnlessProbes(t)
	e := e2e.NewEnv(t)
	plugin, out := installProbe(t, e, filepath.Join(e.ConfigDir(), "ocmem"), "probe")
	// permission {"*": "deny"} removes every tool; tools {"*": false} or
	// tools {bash: false, …} in an agent leave all of them (tried by hand).
	agent := map[string]any{"name": "ocmem-extract", "def": map[string]any{
		"mode": "subagent", "hidden": true, "permission": map[string]any{"*": "deny"},
		"description": "ocmem memory extraction", "prompt": "EXTRACT-PROMPT-MARKER",
	}}
	e.SetPlugins(e2e.PluginTuple(plugin, map[string]any{"out": out, "idMode": "prt", "agent": agent}))
	e.Fake.SetResponder(func(r fakellm.Request) fakellm.Reply {
		if r.IsTitle() {
			return fakellm.Text(fakellm.TitleReply)
		}
		return fakellm.Text(`{"memories":[]}`)
	})
	srv := e.Serve()
	ctx := context.Background()

	agents, err := srv.Agents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range agents {
		if a.Name == "ocmem-extract" {
			found = true
			if a.Mode != "subagent" || !a.Hidden {
				t.Errorf("agent = %+v", a)
			}
		}
	}
	if !found {
		t.Fatalf("ocmem-extract not among agents %+v", agents)
	}

	var sess struct{ ID string }
	if err := srv.Do(ctx, "POST", "/session", map[string]any{"title": "ocmem extraction"}, &sess); err != nil {
		t.Fatal(err)
	}
	var reply struct {
		Parts []struct{ Type, Text string }
	}
	body := map[string]any{
		"agent": "ocmem-extract",
		"model": map[string]any{"providerID": e2e.ProviderID, "modelID": e2e.ModelID},
		"parts": []any{map[string]any{"type": "text", "text": "extract from: the user prefers tabs"}},
	}
	if err := srv.Do(ctx, "POST", "/session/"+sess.ID+"/message", body, &reply); err != nil {
		t.Fatal(err)
	}
	var text string
	for _, p := range reply.Parts {
		if p.Type == "text" {
			text += p.Text
		}
	}
	if text != `{"memories":[]}` {
		t.Errorf("reply text %q", text)
	}
	var agentReq *fakellm.Request
	for _, r := range e.Fake.Requests() {
		if strings.Contains(r.LastUserText(), "extract from") && strings.Contains(r.SystemText(), "EXTRACT-PROMPT-MARKER") {
			agentReq = &r
		}
	}
	if agentReq == nil {
		t.Fatalf("no request with the agent's prompt")
	}
	t.Logf("extraction request: %d tools %v, %d system messages, system starts %q", len(agentReq.ToolNames()), agentReq.ToolNames(), len(agentReq.System()), agentReq.SystemText()[:min(80, len(agentReq.SystemText()))])
	if n := len(agentReq.ToolNames()); n != 0 {
		t.Errorf("hidden agent offered %d tools: %v", n, agentReq.ToolNames())
	}

	recs := readProbe(t, out)
	for _, in := range kinds(recs, "init") {
		if in.str("serverUrl") != srv.URL+"/" {
			t.Errorf("serverUrl under serve = %q, want %q", in.str("serverUrl"), srv.URL+"/")
		}
	}
	// The plugin's own hooks fire for the extraction session too.
	sawSession := false
	for _, m := range kinds(recs, "chat.message") {
		if m["input"].(map[string]any)["sessionID"] == sess.ID {
			sawSession = true
		}
	}
	if !sawSession {
		t.Errorf("chat.message did not fire for the extraction session")
	}
	// A hidden subagent is still offered to the model by the task tool
	// (which is why the ocmem plugin registers its agent as primary).
	e.Fake.SetResponder(nil)
	plain, err := srv.NewSession(ctx, "plain")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Prompt(ctx, plain, "hello"); err != nil {
		t.Fatal(err)
	}
	agentReqs := fakellm.Agent(e.Fake.Requests())
	for _, tool := range agentReqs[len(agentReqs)-1].Body.Tools {
		if tool.Function.Name == "task" && !strings.Contains(tool.Function.Description, "ocmem-extract") {
			t.Errorf("task tool does not list the hidden subagent (hidden works now?)")
		}
	}
	// A session created with a title makes no title request.
	for _, r := range e.Fake.Requests() {
		if r.IsTitle() {
			t.Errorf("title request for a titled session: %q", e2e.Tail(r.LastUserText(), 80))
		}
	}
}
