package plugin

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests below run the plugin in Node with testdata/driver.mjs and this
// test binary standing in for `ocmem serve` (see TestMain and stub).

func TestMain(m *testing.M) {
	if mode := os.Getenv("OCMEM_PLUGIN_STUB"); mode != "" {
		stub(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestRender(t *testing.T) {
	if n := bytes.Count(Source, []byte(binLine)); n != 1 {
		t.Fatalf("Source holds the placeholder line %d times, want 1", n)
	}
	lineRE := regexp.MustCompile(`(?m)^const OCMEM_BIN = (.*);$`)
	for _, bin := range []string{
		"/usr/local/bin/ocmem",
		`C:\Program Files\ocmem\ocmem.exe`,
		`/tmp/we"ird/it's/</script>/ocmem`,
		"/home/李雷/bin/ocmem",
		"__OCMEM_BIN__",
	} {
		out := Render(bin)
		m := lineRE.FindAllSubmatch(out, -1)
		if len(m) != 1 {
			t.Fatalf("%q: %d OCMEM_BIN lines", bin, len(m))
		}
		var got string
		if err := json.Unmarshal(m[0][1], &got); err != nil || got != bin {
			t.Errorf("%q: rendered literal %s decodes to %q (%v)", bin, m[0][1], got, err)
		}
		if len(out) < len(Source)-len(binLine) {
			t.Errorf("%q: rendered plugin lost text", bin)
		}
	}
}

// TestSyntax checks the shipped and the rendered plugin parse as ES modules.
func TestSyntax(t *testing.T) {
	node := needNode(t)
	dir := t.TempDir()
	for name, src := range map[string][]byte{"source.mjs": Source, "rendered.mjs": Render(`/opt/o"c/ocmem`)} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, src, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(node, "--check", p).CombinedOutput(); err != nil {
			t.Errorf("%s: node --check: %v\n%s", name, err, out)
		}
	}
}

func needNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not on PATH")
	}
	return node
}

// fakePluginPkg is just enough of @opencode-ai/plugin for the plugin to
// declare its tools: tool() returns its input, and the schema records what
// was asked of it.
const fakePluginPkg = `
const mk = (type, extra = {}) => ({
  type, ...extra,
  optional() { return mk(type, { ...extra, isOptional: true }) },
  describe(d) { return mk(type, { ...extra, description: d }) },
})
export const tool = (input) => input
tool.schema = {
  string: () => mk("string"), number: () => mk("number"), boolean: () => mk("boolean"),
  array: (items) => mk("array", { items }), enum: (values) => mk("enum", { values }),
  record: (key, value) => mk("record", { key, value }), any: () => mk("any"),
}
`

type stepResult struct {
	Do     string          `json:"do"`
	Ms     int             `json:"ms"`
	Result json.RawMessage `json:"result"`
	Threw  string          `json:"threw"`
	Logs   []struct{ Service, Level, Message string }
}

type driver struct {
	t       *testing.T
	dir     string
	plugin  string
	stubLog string
	env     []string
	script  string // in testdata; driver.mjs (OpenCode 1.x) unless set
}

// newDriver lays out a folder with the rendered plugin next to a fake
// node_modules/@opencode-ai/plugin (withTools), so Node resolves it.
func newDriver(t *testing.T, withTools bool) *driver {
	t.Helper()
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	d := &driver{t: t, dir: dir, plugin: filepath.Join(dir, "ocmem.js"), stubLog: filepath.Join(dir, "stub.jsonl")}
	write := func(name, content string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ocmem.js", string(Render(self)))
	write("package.json", `{"type":"module"}`)
	if withTools {
		write("node_modules/@opencode-ai/plugin/package.json", `{"name":"@opencode-ai/plugin","type":"module","exports":{".":"./index.js"}}`)
		write("node_modules/@opencode-ai/plugin/index.js", fakePluginPkg)
	}
	home := filepath.Join(dir, "home") // so the config-dir fallbacks find nothing real
	d.env = append(os.Environ(), "OCMEM_PLUGIN_STUB_LOG="+d.stubLog, "HOME="+home, "XDG_CONFIG_HOME="+home, "OPENCODE_CONFIG_DIR=", "OCMEM_BIN=")
	return d
}

// run runs the steps with the stub in the given mode and returns one result
// per step plus the plugin's log lines.
func (d *driver) run(mode string, options map[string]any, steps ...map[string]any) ([]stepResult, []string) {
	d.t.Helper()
	node := needNode(d.t)
	opts, _ := json.Marshal(options)
	st, _ := json.Marshal(steps)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	script := d.script
	if script == "" {
		script = "driver.mjs"
	}
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", script), d.plugin, string(opts), string(st))
	cmd.Env = append(d.env, "OCMEM_PLUGIN_STUB="+mode)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		d.t.Fatalf("driver: %v (a child left running keeps node alive?)\nstdout:\n%s\nstderr:\n%s", err, out, stderr.Bytes())
	}
	var res []stepResult
	var logs []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r stepResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			d.t.Fatalf("driver printed %q: %v", sc.Text(), err)
		}
		if r.Do == "" {
			for _, l := range r.Logs {
				if l.Service != "ocmem" {
					d.t.Errorf("log line with service %q", l.Service)
				}
				logs = append(logs, l.Level+": "+l.Message)
			}
			continue
		}
		// A hook fails open, except tool.execute.before, whose throw is
		// how a call is stopped.
		if r.Threw != "" && r.Do != "before" {
			d.t.Errorf("step %s threw into OpenCode: %s", r.Do, r.Threw)
		}
		res = append(res, r)
	}
	if len(res) != len(steps) {
		d.t.Fatalf("%d results for %d steps\nstdout:\n%s\nstderr:\n%s", len(res), len(steps), out, stderr.Bytes())
	}
	return res, logs
}

// stubRequests returns what the stub received, in order, but for the
// plugin's questions which files a write touches (method edits), asked
// before a write's edit permission is checked.
func (d *driver) stubRequests() []map[string]any {
	d.t.Helper()
	data, err := os.ReadFile(d.stubLog)
	if err != nil {
		d.t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			d.t.Fatal(err)
		}
		if m["method"] != "edits" {
			out = append(out, m)
		}
	}
	return out
}

func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

func TestForwarding(t *testing.T) {
	d := newDriver(t, true)
	userPart := map[string]any{"id": "prt_abc", "type": "text", "text": "部署前要做什么?"}
	res, logs := d.run("echo", map[string]any{"maxInjectChars": 1200},
		map[string]any{"do": "tools"},
		map[string]any{"do": "system", "sessionID": "ses_1"},
		map[string]any{"do": "message", "sessionID": "ses_1", "parts": []any{userPart,
			map[string]any{"id": "prt_abd", "type": "text", "text": "second part"},
			map[string]any{"id": "prt_abe", "type": "text", "text": "other plugin", "synthetic": true}}},
		map[string]any{"do": "message", "sessionID": "ses_1", "parts": []any{map[string]any{"id": "prt_x", "type": "file"}}},
		map[string]any{"do": "tool", "name": "memory_recall", "sessionID": "ses_1", "args": map[string]any{"query": "deploy", "limit": 3}},
		map[string]any{"do": "tool", "name": "memory_recall", "sessionID": "ses_1", "args": map[string]any{"query": "boom"}},
		map[string]any{"do": "tool", "name": "memory_forget", "sessionID": "ses_1", "args": map[string]any{"id": "../../x"}},
		map[string]any{"do": "tool", "name": "memory_inspect", "sessionID": "ses_1", "args": map[string]any{}},
		map[string]any{"do": "idle", "sessionID": "ses_1"},
		map[string]any{"do": "sleep", "ms": 300},
		map[string]any{"do": "config"},
	)

	var tools map[string][]string
	json.Unmarshal(res[0].Result, &tools)
	want := map[string]string{
		"memory_recall":   "limit query",
		"memory_remember": "anchors body category enforce highlight kind load_when pinned scope summary supersedes",
		"memory_forget":   "id scope",
		"memory_inspect":  "",
	}
	if len(tools) != len(want) {
		t.Errorf("tools = %v", tools)
	}
	for name, args := range want {
		if got := strings.Join(tools[name], " "); got != args {
			t.Errorf("%s args = %q, want %q", name, got, args)
		}
	}

	var system []string
	json.Unmarshal(res[1].Result, &system)
	if len(system) != 2 || system[0] != "base" || system[1] != "STABLE for ses_1" {
		t.Errorf("system = %q", system)
	}

	var parts []map[string]any
	json.Unmarshal(res[2].Result, &parts)
	if len(parts) != 4 {
		t.Fatalf("parts = %v", parts)
	}
	inj := parts[3]
	// Stored ignored, so the title request (built from the stored
	// message) leaves it out; TestBodiesOnlyForTheAgent gives it back.
	for k, v := range map[string]any{"id": "prt_abeocmem", "type": "text", "synthetic": true, "ignored": true, "sessionID": "ses_1", "messageID": "msg_1", "text": "BODIES for 部署前要做什么?\nsecond part"} {
		if inj[k] != v {
			t.Errorf("injected part %s = %v, want %v", k, inj[k], v)
		}
	}
	if md, _ := inj["metadata"].(map[string]any); md["ocmem"] != "ocmem-bodies" {
		t.Errorf("injected part metadata = %v", inj["metadata"])
	}
	json.Unmarshal(res[3].Result, &parts)
	if len(parts) != 1 {
		t.Errorf("a message without text got %d parts", len(parts))
	}

	for i, want := range []string{"RECALL deploy", "ocmem refused: boom refused", "ocmem refused: path leaves the root", "INSPECT"} {
		if got := str(res[4+i].Result); got != want {
			t.Errorf("tool %d returned %q, want %q", i, got, want)
		}
	}
	if got := string(res[10].Result); !strings.Contains(got, `"ocmem-extract":{"mode":"primary","hidden":true`) || !strings.Contains(got, `"permission":{"*":"deny"}`) {
		t.Errorf("config = %s", got)
	}

	reqs := d.stubRequests()
	var methods []string
	for _, r := range reqs {
		methods = append(methods, r["method"].(string))
		p := r["params"].(map[string]any)
		if p["worktree"] != "/repo" || p["directory"] != "/repo/sub" || p["sessionID"] != "ses_1" {
			t.Errorf("%s params %v", r["method"], p)
		}
		if o, _ := p["options"].(map[string]any); o["maxInjectChars"] != 1200.0 {
			t.Errorf("%s options %v", r["method"], p["options"])
		}
		if _, ok := r["id"].(float64); !ok || r["jsonrpc"] != "2.0" {
			t.Errorf("not JSON-RPC 2.0 with an integer id: %v", r)
		}
	}
	if got := strings.Join(methods, " "); got != "system message recall recall forget inspect idle" {
		t.Errorf("methods = %s", got)
	}
	if p := reqs[1]["params"].(map[string]any); p["text"] != "部署前要做什么?\nsecond part" || p["messageID"] != "msg_1" {
		t.Errorf("message params %v", p)
	}
	if p, _ := reqs[2]["params"].(map[string]any)["args"].(map[string]any); p["query"] != "deploy" || p["limit"] != 3.0 {
		t.Errorf("recall params %v", p)
	}
	if p := reqs[6]["params"].(map[string]any); p["serverUrl"] != "http://localhost:4096/" {
		t.Errorf("idle params %v", p)
	}
	if len(logs) == 0 || !strings.Contains(logs[0], "loaded") {
		t.Errorf("logs = %q", logs)
	}
}

// TestToolArgsCannotNameRoots: the roots, options and session of a tool
// call come from OpenCode's context. A model that adds "worktree" or
// "directory" to its arguments (OpenCode passes unknown keys through)
// reaches serve with them inside "args", which serve refuses, and the
// context unchanged.
func TestToolArgsCannotNameRoots(t *testing.T) {
	d := newDriver(t, true)
	evil := map[string]any{"category": "facts", "kind": "fact", "summary": "x", "body": "y",
		"worktree": "/other", "directory": "/other", "sessionID": "ses_other", "options": map[string]any{"maxInjectChars": 1}}
	d.run("echo", map[string]any{"maxInjectChars": 1200},
		map[string]any{"do": "tool", "name": "memory_remember", "sessionID": "ses_1", "args": evil},
		map[string]any{"do": "tool", "name": "memory_recall", "sessionID": "ses_1", "args": map[string]any{"query": "q", "worktree": "/other"}},
	)
	reqs := d.stubRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for _, r := range reqs {
		p := r["params"].(map[string]any)
		if p["worktree"] != "/repo" || p["directory"] != "/repo/sub" || p["sessionID"] != "ses_1" {
			t.Errorf("%s: context %v", r["method"], p)
		}
		if o, _ := p["options"].(map[string]any); o["maxInjectChars"] != 1200.0 {
			t.Errorf("%s: options %v", r["method"], p["options"])
		}
		args, _ := p["args"].(map[string]any)
		if args["worktree"] != "/other" {
			t.Errorf("%s: the model's arguments did not travel apart: %v", r["method"], p)
		}
		for k := range p {
			if k != "worktree" && k != "directory" && k != "options" && k != "sessionID" && k != "args" {
				t.Errorf("%s: an argument at the top of the request: %s", r["method"], k)
			}
		}
	}
}

// TestEditPatternsFromServe: the edit permission a write asks OpenCode for
// names the files serve says the write touches (a global root elsewhere
// than the default place), and the write then carries the scope serve
// resolved. A forget without a scope of an id only the global root holds
// deletes the global file: the question names it, where it named
// ".memory/…" before while the global memory was deleted.
func TestEditPatternsFromServe(t *testing.T) {
	d := newDriver(t, true)
	res, _ := d.run("echo", nil,
		map[string]any{"do": "toolask", "name": "memory_remember", "sessionID": "s", "args": map[string]any{"category": "facts", "kind": "fact", "summary": "x", "body": "y", "scope": "global"}},
		map[string]any{"do": "toolask", "name": "memory_forget", "sessionID": "s", "args": map[string]any{"id": "facts/x"}},
		map[string]any{"do": "toolask", "name": "memory_forget", "sessionID": "s", "args": map[string]any{"id": "g/only-global"}},
		map[string]any{"do": "toolask", "name": "memory_remember", "sessionID": "s", "args": map[string]any{"category": "facts", "kind": "fact", "summary": "x", "body": "y"}},
	)
	for i, want := range []string{"/cfg/opencode/memory/facts/*.md", ".memory/facts/x.md", "/cfg/opencode/memory/g/only-global.md", ".memory/facts/*.md"} {
		var got struct{ Asked [][]string }
		json.Unmarshal(res[i].Result, &got)
		if len(got.Asked) != 1 || len(got.Asked[0]) != 1 || got.Asked[0][0] != want {
			t.Errorf("step %d asked for %v, want [[%s]]", i, got.Asked, want)
		}
	}
	// Each write, and the preview shown with its question, carries the
	// scope serve resolved.
	var scopes []string
	for _, r := range d.stubRequests() {
		args, _ := r["params"].(map[string]any)["args"].(map[string]any)
		scopes = append(scopes, fmt.Sprintf("%s:%v", r["method"], args["scope"]))
	}
	want := "preview.remember:global remember:global preview.forget:project forget:project preview.forget:global forget:global preview.remember:project remember:project"
	if got := strings.Join(scopes, " "); got != want {
		t.Errorf("writes carried %q, want the scope each question named (%q)", got, want)
	}
}

// TestEditsRefusedAskNothing: a write serve refuses before it runs (an id
// in both roots, a path that leaves the root) asks the person nothing and
// writes nothing; the model reads serve's refusal.
func TestEditsRefusedAskNothing(t *testing.T) {
	d := newDriver(t, true)
	res, _ := d.run("echo", nil,
		map[string]any{"do": "toolask", "name": "memory_forget", "sessionID": "s", "args": map[string]any{"id": "both"}},
	)
	var got struct {
		Out   string
		Asked [][]string
	}
	json.Unmarshal(res[0].Result, &got)
	if len(got.Asked) != 0 || got.Out != "ocmem refused: the id exists in both roots; say which scope" {
		t.Errorf("asked %v, returned %q", got.Asked, got.Out)
	}
	if reqs := d.stubRequests(); len(reqs) != 0 {
		t.Errorf("a refused write reached serve: %v", reqs)
	}
}

// TestToolCallsLogged: the model's tool calls reach serve for its log,
// without ocmem's own (serve logs those itself).
func TestToolCallsLogged(t *testing.T) {
	d := newDriver(t, true)
	res, _ := d.run("echo", nil,
		map[string]any{"do": "toolafter", "name": "bash", "sessionID": "ses_1", "callID": "call_1"},
		map[string]any{"do": "toolafter", "name": "memory_recall", "sessionID": "ses_1", "callID": "call_2"},
		map[string]any{"do": "sleep", "ms": 300},
	)
	for _, r := range res[:2] {
		if r.Threw != "" {
			t.Errorf("the hook threw: %s", r.Threw)
		}
	}
	reqs := d.stubRequests()
	if len(reqs) != 1 || reqs[0]["method"] != "tool" {
		t.Fatalf("requests = %v, want one tool", reqs)
	}
	if p := reqs[0]["params"].(map[string]any); p["tool"] != "bash" || p["callID"] != "call_1" || p["sessionID"] != "ses_1" {
		t.Errorf("tool params %v", p)
	}
}

// TestFailOpen: whatever happens to `ocmem serve`, no hook throws or waits
// past its limit, and nothing is changed.
func TestFailOpen(t *testing.T) {
	msg := map[string]any{"do": "message", "sessionID": "s", "parts": []any{map[string]any{"id": "prt_a", "type": "text", "text": "hi"}}}
	tests := []struct {
		name    string
		mode    string
		options map[string]any
		maxMs   int    // every step
		tool    string // what memory_recall returns (a regexp)
		log     string
	}{
		{"missing binary", "echo", map[string]any{"bin": "/nonexistent/ocmem"}, 2000, `^ocmem unavailable: /nonexistent/ocmem cannot be started; the person was told$`, "ENOENT"},
		{"hangs", "hang", nil, 3500 + 500, "", "took longer than 3000 ms"},
		{"exits at once", "exit", nil, 2000, `^ocmem unavailable: (ocmem serve exited \(code 3\)|write EPIPE)$`, "exited (code 3)"},
		{"garbage", "garbage", nil, 3500 + 500, "", "not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.mode == "hang" || tt.mode == "garbage" {
				if testing.Short() {
					t.Skip("waits for time limits")
				}
			}
			d := newDriver(t, true)
			steps := []map[string]any{{"do": "system", "sessionID": "s"}, msg, {"do": "idle", "sessionID": "s"}}
			if tt.mode != "hang" && tt.mode != "garbage" { // a tool waits 15 s on a hung serve
				steps = append(steps, map[string]any{"do": "tool", "name": "memory_recall", "sessionID": "s", "args": map[string]any{"query": "q"}})
			}
			res, logs := d.run(tt.mode, tt.options, steps...)
			for _, r := range res {
				if r.Ms > tt.maxMs {
					t.Errorf("%s took %d ms, limit %d", r.Do, r.Ms, tt.maxMs)
				}
			}
			var system []string
			json.Unmarshal(res[0].Result, &system)
			if len(system) != 1 {
				t.Errorf("system changed: %q", system)
			}
			var parts []any
			json.Unmarshal(res[1].Result, &parts)
			if len(parts) != 1 {
				t.Errorf("parts changed: %v", parts)
			}
			if len(res) > 3 {
				if got := str(res[3].Result); !regexp.MustCompile(tt.tool).MatchString(got) {
					t.Errorf("tool returned %q, want %s", got, tt.tool)
				}
			}
			if !strings.Contains(strings.Join(logs, "\n"), tt.log) {
				t.Errorf("logs lack %q:\n%s", tt.log, strings.Join(logs, "\n"))
			}
		})
	}
}

// TestMissingBinaryToldOnce: a binary that cannot be started is told to
// the person once per process, in OpenCode's log and as a toast, with where
// the plugin looked and what to run; the hooks after it add no line each.
// With the toasts option off, the log line stays.
func TestMissingBinaryToldOnce(t *testing.T) {
	msg := map[string]any{"do": "message", "sessionID": "s", "parts": []any{map[string]any{"id": "prt_a", "type": "text", "text": "hi"}}}
	steps := []map[string]any{{"do": "system", "sessionID": "s"}, msg, {"do": "system", "sessionID": "s"}, msg, {"do": "idle", "sessionID": "s"}, {"do": "system", "sessionID": "s"}}
	for _, c := range []struct {
		options    map[string]any
		wantToasts int
	}{
		{map[string]any{"bin": "/nonexistent/ocmem"}, 1},
		{map[string]any{"bin": "/nonexistent/ocmem", "toasts": false}, 0},
	} {
		d := newDriver(t, true)
		_, logs := d.run("echo", c.options, steps...)
		var errs, toasts, warns []string
		for _, l := range logs {
			switch {
			case strings.HasPrefix(l, "error: "):
				errs = append(errs, l)
			case strings.HasPrefix(l, "toast:"):
				toasts = append(toasts, l)
			case strings.HasPrefix(l, "warn: "):
				warns = append(warns, l)
			}
		}
		if len(errs) != 1 || !strings.Contains(errs[0], "memory is off") || !strings.Contains(errs[0], "/nonexistent/ocmem") || !strings.Contains(errs[0], "ocmem doctor") {
			t.Errorf("options %v: error lines %q", c.options, errs)
		}
		if len(toasts) != c.wantToasts || c.wantToasts == 1 && !strings.HasPrefix(toasts[0], "toast:error: memory is off") {
			t.Errorf("options %v: toasts %q, want %d", c.options, toasts, c.wantToasts)
		}
		if len(warns) != 0 {
			t.Errorf("options %v: a warning per hook: %q", c.options, warns)
		}
	}
}

// TestRestart: a serve that dies is started again on the next call, and
// answers that come out of order reach the right caller.
func TestRestart(t *testing.T) {
	d := newDriver(t, true)
	recall := func(q string) map[string]any {
		return map[string]any{"do": "tool", "name": "memory_recall", "sessionID": "s", "args": map[string]any{"query": q}}
	}
	res, logs := d.run("echo", nil,
		recall("pid"),
		recall("die"),
		recall("pid"),
		map[string]any{"do": "parallel", "steps": []any{recall("slow"), recall("fast")}},
		recall("die-once"),
		map[string]any{"do": "tool", "name": "memory_forget", "sessionID": "s", "args": map[string]any{"id": "die"}},
	)
	first, second := str(res[0].Result), str(res[2].Result)
	if !strings.HasPrefix(first, "PID ") || !strings.HasPrefix(second, "PID ") || first == second {
		t.Errorf("pids before and after the crash: %q, %q", first, second)
	}
	if got := str(res[1].Result); !strings.HasPrefix(got, "ocmem unavailable: ocmem serve exited") {
		t.Errorf("call during the crash returned %q", got)
	}
	var both []string
	json.Unmarshal(res[3].Result, &both)
	if len(both) != 2 || both[0] != "RECALL slow" || both[1] != "RECALL fast" {
		t.Errorf("parallel = %q", both)
	}
	// A read that hits a dying child is sent once more, to a new one.
	if got := str(res[4].Result); got != "RECALL after a death" {
		t.Errorf("recall across a death returned %q", got)
	}
	if !strings.Contains(strings.Join(logs, "\n"), "recall sent again to a new ocmem serve") {
		t.Errorf("logs:\n%s", strings.Join(logs, "\n"))
	}
	// A write is not: the dead child may have done it.
	if got := str(res[5].Result); !strings.HasPrefix(got, "ocmem unavailable: ") {
		t.Errorf("forget across a death returned %q", got)
	}
	var forgets int
	for _, r := range d.stubRequests() {
		if r["method"] == "forget" {
			forgets++
		}
	}
	if forgets != 1 {
		t.Errorf("forget sent %d times", forgets)
	}
}

// TestNoTools: without @opencode-ai/plugin the plugin still injects.
func TestNoTools(t *testing.T) {
	d := newDriver(t, false)
	res, logs := d.run("echo", nil, map[string]any{"do": "tools"}, map[string]any{"do": "system", "sessionID": "s"})
	if string(res[0].Result) != "{}" {
		t.Errorf("tools = %s", res[0].Result)
	}
	if !strings.Contains(string(res[1].Result), "STABLE") {
		t.Errorf("system = %s", res[1].Result)
	}
	if !strings.Contains(strings.Join(logs, "\n"), "memory tools are off") {
		t.Errorf("logs = %q", logs)
	}
}

// stub is a stand-in `ocmem serve`: it logs each request line to
// $OCMEM_PLUGIN_STUB_LOG and answers by mode: "echo" answers (query "boom"
// and forget of a path are errors, "die" exits, "slow" answers after the
// next request), "hang" never answers, "exit" exits at once, "garbage"
// writes lines that are not JSON.
func stub(mode string) {
	if mode == "exit" {
		os.Exit(3)
	}
	logf, _ := os.OpenFile(os.Getenv("OCMEM_PLUGIN_STUB_LOG"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	var mu sync.Mutex
	reply := func(id json.RawMessage, result any, err string) {
		mu.Lock()
		defer mu.Unlock()
		resp := map[string]any{"jsonrpc": "2.0", "id": id}
		if err != "" {
			resp["error"] = map[string]any{"code": 1, "message": err}
		} else {
			resp["result"] = result
		}
		b, _ := json.Marshal(resp)
		os.Stdout.Write(append(b, '\n'))
	}
	var held func()
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		line := sc.Bytes()
		logf.Write(append(append([]byte(nil), line...), '\n'))
		var req struct {
			ID     json.RawMessage
			Method string
			Params struct {
				SessionID, Text, Worktree, Tool string
				// A tool's arguments travel apart from the context.
				Args struct{ Query, ID, Scope, Category, Command string }
			}
		}
		json.Unmarshal(line, &req)
		switch mode {
		case "hang":
			continue
		case "garbage":
			fmt.Println("this is not JSON")
			continue
		}
		p := req.Params
		text := ""
		if mode == "notices" { // serve's notices, as the toasts show them
			switch req.Method {
			case "system":
				reply(req.ID, map[string]any{"text": "STABLE for " + p.SessionID, "warning": "skipped facts/broken.md: line 3 does not parse"}, "")
				continue
			case "message":
				reply(req.ID, map[string]any{"text": "BODIES for " + p.Text, "notice": "memory for this session: project:pitfalls/deploy"}, "")
				continue
			case "remember":
				reply(req.ID, map[string]any{"text": "REMEMBERED", "notice": "remembered project:decisions/x (.memory/decisions/x.md)"}, "")
				continue
			case "idle": // extraction wrote something: serve's own notice request
				mu.Lock()
				os.Stdout.Write([]byte(`{"jsonrpc":"2.0","id":"n1","method":"notice","params":{"message":"extraction wrote project:facts/y"}}` + "\n"))
				mu.Unlock()
				reply(req.ID, map[string]any{}, "")
				continue
			}
		}
		if mode == "guards" { // a rule in force guards bash
			switch req.Method {
			case "system":
				reply(req.ID, map[string]any{"text": "STABLE", "guarded": []string{"bash", "shell"}}, "")
				continue
			case "check":
				switch p.Args.Command {
				case "die":
					os.Exit(4)
				case "git push -f":
					reply(req.ID, map[string]any{"action": "deny", "message": "STOPPED by rules/push", "notice": "ocmem stopped bash", "guarded": []string{"bash", "shell"}}, "")
				default:
					reply(req.ID, map[string]any{"action": "", "guarded": []string{"bash", "shell"}}, "")
				}
				continue
			}
		}
		switch req.Method {
		case "ping":
			reply(req.ID, map[string]any{"version": os.Getenv("OCMEM_PLUGIN_STUB_VERSION")}, "")
			continue
		case "system":
			text = "STABLE for " + p.SessionID
		case "message":
			text = "BODIES for " + p.Text
		case "inspect":
			text = "INSPECT"
		case "edits": // what a write touches, as serve resolves it: an id under g/ is only in the global root, kept elsewhere than the default place
			if p.Args.ID == "both" {
				reply(req.ID, nil, "the id exists in both roots; say which scope")
				continue
			}
			scope := p.Args.Scope
			if scope == "" {
				scope = "project"
				if strings.HasPrefix(p.Args.ID, "g/") {
					scope = "global"
				}
			}
			file := p.Args.ID + ".md"
			if p.Tool == "remember" {
				file = p.Args.Category + "/*.md"
			}
			dir := ".memory/"
			if scope == "global" {
				dir = "/cfg/opencode/memory/"
			}
			reply(req.ID, map[string]any{"scope": scope, "files": []string{dir + file}}, "")
			continue
		case "idle":
			if mode == "fetch2" { // extraction's requests, as OpenCode 2's plugin answers them
				mu.Lock()
				for _, r := range fetch2Requests {
					os.Stdout.Write([]byte(r + "\n"))
				}
				mu.Unlock()
			}
			if mode == "fetch" { // serve's own requests to the plugin
				mu.Lock()
				for _, r := range []string{
					`{"jsonrpc":"2.0","id":"o1","method":"opencode.fetch","params":{"method":"GET","path":"/session/ses_1/message?limit=50","body":null,"headers":{"accept":"application/json","authorization":"Basic U0VSVkU="}}}`,
					`{"jsonrpc":"2.0","id":"o2","method":"opencode.fetch","params":{"method":"POST","path":"/session","body":"{\"title\":\"x\"}","headers":{"content-type":"application/json"}}}`,
					`{"jsonrpc":"2.0","id":"o3","method":"opencode.fetch","params":{"method":"GET","path":"/fail","body":null}}`,
					`{"jsonrpc":"2.0","id":"o4","method":"bogus","params":{}}`,
					`{"jsonrpc":"2.0","id":"o5","method":"opencode.fetch","params":{"method":"GET","path":"//evil.test:4096/session/ses_1","body":null}}`,
					`{"jsonrpc":"2.0","id":"o6","method":"opencode.fetch","params":{"method":"GET","path":"/\\evil.test/session/ses_1","body":null}}`,
				} {
					os.Stdout.Write([]byte(r + "\n"))
				}
				mu.Unlock()
			}
			reply(req.ID, map[string]any{}, "")
			continue
		case "preview.remember", "preview.forget": // what the permission prompt shows
			if p.Args.ID == "refused" {
				reply(req.ID, nil, "no such memory")
				continue
			}
			reply(req.ID, map[string]any{"filepath": "/repo/.memory/" + req.Method, "diff": "DIFF " + req.Method}, "")
			continue
		case "forget":
			if p.Args.ID == "die" {
				os.Exit(4)
			}
			reply(req.ID, nil, "path leaves the root")
			continue
		case "recall":
			switch p.Args.Query {
			case "boom":
				reply(req.ID, nil, "boom refused")
				continue
			case "die":
				os.Exit(4)
			case "die-once": // the first process to see it dies
				marker := os.Getenv("OCMEM_PLUGIN_STUB_LOG") + ".died"
				if _, err := os.Stat(marker); err != nil {
					os.WriteFile(marker, nil, 0o644)
					os.Exit(5)
				}
				text = "RECALL after a death"
			case "pid":
				text = fmt.Sprintf("PID %d", os.Getpid())
			case "slow":
				id := req.ID
				held = func() { reply(id, map[string]any{"text": "RECALL slow"}, "") }
				continue
			default:
				text = "RECALL " + p.Args.Query
			}
		}
		reply(req.ID, map[string]any{"text": text}, "")
		if held != nil && p.Args.Query != "slow" {
			held()
			held = nil
		}
	}
}

// TestHungServeKilled: after MAX_TIMEOUTS time-outs in a row the child is
// killed, so the next call starts a fresh one.
func TestHungServeKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for time limits")
	}
	d := newDriver(t, true)
	sys := map[string]any{"do": "system", "sessionID": "s"}
	_, logs := d.run("hang", nil, map[string]any{"do": "parallel", "steps": []any{sys, sys, sys}}, sys)
	joined := strings.Join(logs, "\n")
	if !strings.Contains(joined, "did not answer 3 times in a row; restarting it") || !strings.Contains(joined, "exited (SIGKILL)") {
		t.Errorf("logs:\n%s", joined)
	}
	if n := len(d.stubRequests()); n != 4 {
		t.Errorf("stub saw %d requests, want 4", n)
	}
}

// TestServeRequests: ocmem serve's own requests (string ids "o…") are
// answered on its stdin; opencode.fetch goes through input.client's own
// fetch, base URL and credentials (driver.mjs stubs them as `opencode
// serve` gives them), never serve's authorization header nor a path that
// names another host; a failure or an unknown method comes back as a
// JSON-RPC error.
func TestServeRequests(t *testing.T) {
	d := newDriver(t, true)
	d.run("fetch", nil,
		map[string]any{"do": "idle", "sessionID": "ses_1"},
		map[string]any{"do": "sleep", "ms": 500},
	)
	replies := map[string]map[string]any{}
	for _, r := range d.stubRequests() {
		if id, ok := r["id"].(string); ok {
			replies[id] = r
		}
	}
	type fetched struct {
		Status  int
		Body    string
		Headers map[string]string
	}
	get := func(id string) (fetched, map[string]any) {
		r, ok := replies[id]
		if !ok {
			t.Fatalf("no reply to %s; stub got %v", id, d.stubRequests())
		}
		var f fetched
		b, _ := json.Marshal(r["result"])
		json.Unmarshal(b, &f)
		e, _ := r["error"].(map[string]any)
		return f, e
	}
	f, e := get("o1")
	if e != nil || f.Status != 201 || f.Headers["x-test"] != "yes" ||
		f.Body != `{"method":"GET","url":"http://127.0.0.1:4101/session/ses_1/message?limit=50","body":"","contentType":null,"accept":"application/json","authorization":"Basic T1dO"}` {
		t.Errorf("o1: %+v %v", f, e)
	}
	f, e = get("o2")
	if e != nil || f.Status != 201 || f.Body != `{"method":"POST","url":"http://127.0.0.1:4101/session","body":"{\"title\":\"x\"}","contentType":"application/json","accept":null,"authorization":"Basic T1dO"}` {
		t.Errorf("o2: %+v %v", f, e)
	}
	for _, id := range []string{"o5", "o6"} {
		if f, e := get(id); e == nil || f.Body != "" {
			t.Errorf("%s, a path naming another host: %+v %v", id, f, e)
		}
	}
	if _, e = get("o3"); e == nil || !strings.Contains(fmt.Sprint(e["message"]), "stub fetch failed") {
		t.Errorf("o3 error = %v", e)
	}
	if _, e = get("o4"); e == nil || e["code"] != -32601.0 {
		t.Errorf("o4 error = %v", e)
	}
}

// TestBodiesOnlyForTheAgent: the bodies part, stored ignored (so the title
// request, built from the stored message, does not carry it), is given
// back before each agent request by experimental.chat.messages.transform:
// on a copy, so the stored message and the title request's copy keep it
// ignored. Another plugin's ignored part stays ignored.
func TestBodiesOnlyForTheAgent(t *testing.T) {
	d := newDriver(t, true)
	bodies := map[string]any{"id": "prt_aocmem", "type": "text", "text": "BODIES", "synthetic": true, "ignored": true, "metadata": map[string]any{"ocmem": "ocmem-bodies"}}
	other := map[string]any{"id": "prt_b", "type": "text", "text": "OTHER", "synthetic": true, "ignored": true}
	user := map[string]any{"id": "prt_a", "type": "text", "text": "部署前要做什么?"}
	res, _ := d.run("echo", nil, map[string]any{"do": "transform", "parts": []any{user, bodies, other}})
	var got struct {
		Agent, Title, Stored []struct {
			Parts []map[string]any `json:"parts"`
		}
	}
	if err := json.Unmarshal(res[0].Result, &got); err != nil {
		t.Fatal(err)
	}
	ignored := func(ms []struct {
		Parts []map[string]any `json:"parts"`
	}) map[string]any {
		out := map[string]any{}
		for _, p := range ms[0].Parts {
			out[p["text"].(string)] = p["ignored"]
		}
		return out
	}
	for name, c := range map[string]struct {
		got  map[string]any
		want map[string]any
	}{
		"agent request":  {ignored(got.Agent), map[string]any{"部署前要做什么?": nil, "BODIES": false, "OTHER": true}},
		"title request":  {ignored(got.Title), map[string]any{"部署前要做什么?": nil, "BODIES": true, "OTHER": true}},
		"stored message": {ignored(got.Stored), map[string]any{"部署前要做什么?": nil, "BODIES": true, "OTHER": true}},
	} {
		for text, want := range c.want {
			if c.got[text] != want {
				t.Errorf("%s: part %q ignored = %v, want %v", name, text, c.got[text], want)
			}
		}
	}
}

// TestToolGuard: before a tool runs the plugin asks serve; a stop is
// thrown (OpenCode gives the model the message) with a toast; while serve
// cannot answer, calls of a guarded tool are refused and the person is
// told once that enforcement is interrupted, and other tools run; once
// serve answers again, the guarded tool runs.
func TestToolGuard(t *testing.T) {
	d := newDriver(t, true)
	before := func(tool, cmd string) map[string]any {
		return map[string]any{"do": "before", "name": tool, "sessionID": "s", "callID": "c", "args": map[string]any{"command": cmd}}
	}
	res, logs := d.run("guards", nil,
		map[string]any{"do": "system", "sessionID": "s"},
		before("bash", "git push -f"),
		before("bash", "ls"),
		before("bash", "die"),
		before("bash", "die"),
		before("read", "die"),
		before("bash", "ls"),
	)
	if res[1].Threw != "Error: STOPPED by rules/push" {
		t.Errorf("a stopped call: %+v", res[1])
	}
	if res[2].Threw != "" {
		t.Errorf("an allowed call threw: %+v", res[2])
	}
	for _, i := range []int{3, 4} {
		if !strings.Contains(res[i].Threw, "a hard rule the user set guards bash, and ocmem could not check the call") {
			t.Errorf("a guarded call while serve cannot answer: %+v", res[i])
		}
	}
	if res[5].Threw != "" || res[6].Threw != "" {
		t.Errorf("an unguarded tool, or a guarded one once serve answers again, was refused: %+v %+v", res[5], res[6])
	}
	joined := strings.Join(logs, "\n")
	if n := strings.Count(joined, "toast:error: rule enforcement is interrupted"); n != 1 {
		t.Errorf("%d interruption toasts, want 1:\n%s", n, joined)
	}
	if !strings.Contains(joined, "toast:warning: ocmem stopped bash") {
		t.Errorf("no toast for the stop:\n%s", joined)
	}
}
