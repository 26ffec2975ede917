package plugin

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The OpenCode 2 entry, setup(ctx), driven by testdata/driver2.mjs with a
// fake OpenCode 2 context and this test binary standing in for `ocmem
// serve` (stub).

func newDriver2(t *testing.T) *driver {
	t.Helper()
	d := newDriver(t, false) // OpenCode 2 needs no @opencode-ai/plugin
	d.script = "driver2.mjs"
	return d
}

func decodeAs[T any](t *testing.T, raw json.RawMessage) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return v
}

// TestV2Partial: OpenCode 1.18.33 calls setup() too, with a context that
// has no session, tool or event; setup does nothing there (server() is
// what 1.18 runs), starts no serve and does not throw.
func TestV2Partial(t *testing.T) {
	d := newDriver2(t)
	d.run("echo", nil, map[string]any{"do": "setup-partial"}, map[string]any{"do": "sleep", "ms": 200})
	if reqs := d.stubRequestsIfAny(); len(reqs) != 0 {
		t.Errorf("setup with 1.18's context sent %v", reqs)
	}
}

// TestV2Forwarding: the tiers go into the system parts, the bodies into a
// synthetic message, the four tools are declared with JSON Schema from the
// contract, and each call reaches serve with the tool's own arguments and
// the roots from OpenCode's context, which arguments cannot override.
func TestV2Forwarding(t *testing.T) {
	d := newDriver2(t)
	res, _ := d.run("echo", map[string]any{"maxInjectChars": 1200},
		map[string]any{"do": "setup"},
		map[string]any{"do": "tools"},
		map[string]any{"do": "context", "sessionID": "ses_1"},
		map[string]any{"do": "prompt", "sessionID": "ses_1", "text": "部署前要做什么?"},
		map[string]any{"do": "prompt", "sessionID": "ses_1", "text": "  "},
		map[string]any{"do": "tool", "name": "memory_recall", "sessionID": "ses_1", "agent": "build",
			"args": map[string]any{"query": "deploy", "limit": 3, "worktree": "/evil", "directory": "/evil", "sessionID": "ses_evil", "options": map[string]any{"maxInjectChars": 99999}}},
		map[string]any{"do": "tool", "name": "memory_forget", "sessionID": "ses_1", "agent": "build", "args": map[string]any{"id": "../../x"}},
		map[string]any{"do": "tool", "name": "memory_inspect", "sessionID": "ses_1", "agent": "build", "args": map[string]any{}},
		map[string]any{"do": "event", "event": map[string]any{"type": "session.execution.succeeded", "data": map[string]any{"sessionID": "ses_1"}}},
		map[string]any{"do": "event", "event": map[string]any{"type": "session.compaction.ended", "data": map[string]any{"sessionID": "ses_1"}}},
		map[string]any{"do": "event", "event": map[string]any{"type": "session.text.delta", "data": map[string]any{"sessionID": "ses_1"}}},
		map[string]any{"do": "sleep", "ms": 300},
	)

	type tool struct {
		Name  string
		Input struct {
			Type       string
			Properties map[string]map[string]any
			Required   []string
		}
		Options map[string]any
	}
	tools := decodeAs[[]tool](t, res[1].Result)
	want := map[string]string{"memory_recall": "limit query", "memory_remember": "anchors body category enforce highlight kind load_when pinned scope summary supersedes", "memory_forget": "id scope", "memory_inspect": ""}
	if len(tools) != len(want) {
		t.Fatalf("tools = %+v", tools)
	}
	for _, tl := range tools {
		var names []string
		for n := range tl.Input.Properties {
			names = append(names, n)
		}
		if got := strings.Join(sorted(names), " "); got != want[tl.Name] || tl.Input.Type != "object" {
			t.Errorf("%s input %+v", tl.Name, tl.Input)
		}
		writes := tl.Name == "memory_remember" || tl.Name == "memory_forget"
		if tl.Options["codemode"] != false || (tl.Options["permission"] == "edit") != writes {
			t.Errorf("%s options %v", tl.Name, tl.Options)
		}
		if tl.Name == "memory_remember" {
			if k := tl.Input.Properties["kind"]; fmt.Sprint(k["enum"]) != "[rule preference decision pitfall fact]" || k["type"] != "string" {
				t.Errorf("kind schema %v", k)
			}
			if l := tl.Input.Properties["load_when"]; l["type"] != "array" || fmt.Sprint(l["items"]) != "map[type:string]" {
				t.Errorf("load_when schema %v", l)
			}
			if got := strings.Join(tl.Input.Required, " "); got != "category kind summary body" {
				t.Errorf("required %q", got)
			}
		}
	}
	system := decodeAs[[]map[string]string](t, res[2].Result)
	if len(system) != 2 || system[0]["text"] != "base" || system[1]["type"] != "text" || system[1]["text"] != "STABLE for ses_1" {
		t.Errorf("system = %v", system)
	}
	syn := decodeAs[[]map[string]any](t, res[4].Result)
	if len(syn) != 1 || syn[0]["sessionID"] != "ses_1" || syn[0]["text"] != "BODIES for 部署前要做什么?" || syn[0]["resume"] != false {
		t.Errorf("synthetic messages = %v", syn)
	}
	for i, want := range []string{"RECALL deploy", "ocmem refused: path leaves the root", "INSPECT"} {
		if got := decodeAs[map[string]string](t, res[5+i].Result)["content"]; got != want {
			t.Errorf("tool %d returned %q, want %q", i, got, want)
		}
	}

	var methods []string
	for _, r := range d.stubRequests() {
		methods = append(methods, r["method"].(string))
		p := r["params"].(map[string]any)
		if p["worktree"] != "/repo" || p["directory"] != "/repo/sub" || p["sessionID"] != "ses_1" {
			t.Errorf("%s params %v", r["method"], p)
		}
		if o, _ := p["options"].(map[string]any); o["maxInjectChars"] != 1200.0 {
			t.Errorf("%s options %v", r["method"], p["options"])
		}
		// The model's keys travel inside "args" only, for serve to refuse.
		if r["method"] == "recall" {
			if args, _ := p["args"].(map[string]any); args["worktree"] != "/evil" || args["query"] != "deploy" {
				t.Errorf("recall args %v", p["args"])
			}
		}
	}
	if got := strings.Join(methods, " "); got != "system message recall forget inspect idle compacted" {
		t.Errorf("methods = %s", got)
	}
	reqs := d.stubRequests()
	if p := reqs[1]["params"].(map[string]any); p["text"] != "部署前要做什么?" || p["messageID"] != "msg_p" {
		t.Errorf("message params %v", p)
	}
	if p, _ := reqs[2]["params"].(map[string]any)["args"].(map[string]any); p["query"] != "deploy" || p["limit"] != 3.0 {
		t.Errorf("recall params %v", p)
	}
	if p := reqs[5]["params"].(map[string]any); p["serverUrl"] != "http://opencode2.invalid/" {
		t.Errorf("idle params %v", p)
	}
}

// TestV2WritesRefused: OpenCode 2 runs the writers for the Plan agent and
// cannot ask; the agent's edit rules decide, and a refused write never
// reaches serve.
func TestV2WritesRefused(t *testing.T) {
	d := newDriver2(t)
	remember := func(agent string, args map[string]any) map[string]any {
		a := map[string]any{"category": "decisions", "kind": "decision", "summary": "s", "body": "b"}
		for k, v := range args {
			a[k] = v
		}
		return map[string]any{"do": "tool", "name": "memory_remember", "sessionID": "ses_1", "agent": agent, "args": a}
	}
	res, _ := d.run("echo", nil,
		map[string]any{"do": "setup"},
		remember("plan", nil),
		remember("guarded", nil),
		remember("guarded", map[string]any{"scope": "global"}),
		remember("asking", nil),
		map[string]any{"do": "tool", "name": "memory_forget", "sessionID": "ses_1", "agent": "plan", "args": map[string]any{"id": "facts/x"}},
		remember("nobody", nil),
		remember("build", nil),
	)
	content := func(i int) string { return decodeAs[map[string]string](t, res[i].Result)["content"] }
	for i, want := range map[int]string{
		1: "ocmem refused: the plan agent is not allowed to edit files (OpenCode's edit permission: edits to these files are denied), so nothing was written.",
		2: "ocmem refused: the guarded agent is not allowed to edit files",
		4: "need the person's approval",
		5: "so nothing was deleted",
		6: "ocmem refused: the nobody agent's edit permission could not be read",
	} {
		if got := content(i); !strings.Contains(got, want) {
			t.Errorf("step %d: %q, want it to contain %q", i, got, want)
		}
	}
	// .memory/** denied, the global root not: that write goes through.
	var scopes []string
	for _, r := range d.stubRequests() {
		if r["method"] != "remember" {
			t.Errorf("a refused write reached serve: %v", r)
			continue
		}
		args, _ := r["params"].(map[string]any)["args"].(map[string]any)
		scopes = append(scopes, fmt.Sprint(args["scope"]))
	}
	if got := strings.Join(scopes, " "); got != "global project" {
		t.Errorf("writes that reached serve had scopes %q, want the guarded agent's global one and the build agent's, as serve resolved it", got)
	}
}

// fetch2Requests are extraction's requests, in OpenCode 1.x's HTTP API,
// which the plugin answers from OpenCode 2's context (stub mode fetch2).
var fetch2Requests = []string{
	`{"jsonrpc":"2.0","id":"o1","method":"opencode.fetch","params":{"method":"GET","path":"/session/ses_1?directory=%2Frepo%2Fsub"}}`,
	`{"jsonrpc":"2.0","id":"o2","method":"opencode.fetch","params":{"method":"GET","path":"/session/ses_1/message?directory=%2Frepo&limit=50"}}`,
	`{"jsonrpc":"2.0","id":"o3","method":"opencode.fetch","params":{"method":"GET","path":"/config/providers"}}`,
	`{"jsonrpc":"2.0","id":"o4","method":"opencode.fetch","params":{"method":"GET","path":"/agent"}}`,
	`{"jsonrpc":"2.0","id":"o5","method":"opencode.fetch","params":{"method":"POST","path":"/session","body":"{\"title\":\"ocmem extraction\"}"}}`,
	`{"jsonrpc":"2.0","id":"o6","method":"opencode.fetch","params":{"method":"POST","path":"/session/ses_x/message","body":"{\"model\":{\"providerID\":\"p1\",\"modelID\":\"m1\"},\"system\":\"SYS\",\"tools\":{\"*\":false},\"parts\":[{\"type\":\"text\",\"text\":\"TURNS\"}]}"}}`,
	`{"jsonrpc":"2.0","id":"o7","method":"opencode.fetch","params":{"method":"DELETE","path":"/session/ses_x"}}`,
	`{"jsonrpc":"2.0","id":"o8","method":"opencode.fetch","params":{"method":"GET","path":"/session/ses_missing"}}`,
	`{"jsonrpc":"2.0","id":"o9","method":"opencode.fetch","params":{"method":"GET","path":"/tui/whatever"}}`,
}

// TestV2ServeRequests: extraction's requests are answered from OpenCode
// 2's context: the session, its messages without synthetic ones (ocmem's
// bodies), the models without their providers' settings (keys), and the
// prompt through generate.text with the instructions and the model asked
// for.
func TestV2ServeRequests(t *testing.T) {
	d := newDriver2(t)
	res, _ := d.run("fetch2", nil,
		map[string]any{"do": "setup"},
		map[string]any{"do": "event", "event": map[string]any{"type": "session.execution.succeeded", "data": map[string]any{"sessionID": "ses_1"}}},
		map[string]any{"do": "sleep", "ms": 500},
		map[string]any{"do": "generated"},
	)
	type fetched struct {
		Status int
		Body   string
	}
	replies := map[string]fetched{}
	for _, r := range d.stubRequests() {
		if id, ok := r["id"].(string); ok {
			if r["error"] != nil {
				t.Errorf("%s: error %v", id, r["error"])
			}
			b, _ := json.Marshal(r["result"])
			var f fetched
			json.Unmarshal(b, &f)
			replies[id] = f
		}
	}
	for id, want := range map[string]fetched{
		"o1": {200, `{"id":"ses_1","title":"Fix the deploy","directory":"/repo/sub","projectID":"p"}`},
		"o2": {200, `[{"info":{"id":"msg_2","sessionID":"ses_1","role":"user","time":{"created":2}},"parts":[{"type":"text","text":"the deploy failed"}]},` +
			`{"info":{"id":"msg_3","sessionID":"ses_1","role":"assistant","agent":"build","providerID":"p1","modelID":"m1","time":{"created":3,"completed":4}},"parts":[{"type":"reasoning"},{"type":"tool","tool":"shell"},{"type":"text","text":"run make migrate"}]}]`},
		"o3": {200, `{"providers":[{"id":"p1","name":"p1","source":"config","models":{"m1":{"id":"m1","providerID":"p1","name":"One","status":"active","cost":{"input":1,"output":2},"limit":{"context":128000,"output":4096},"capabilities":{"input":{"text":true},"output":{"text":true}}}}}],"default":{}}`},
		"o4": {200, `[{"name":"ocmem-extract","mode":"primary","hidden":true}]`},
		"o7": {200, `true`},
		"o9": {404, `{"name":"NotFoundError","data":{"message":"GET /tui/whatever: not answered on OpenCode 2"}}`},
	} {
		if got := replies[id]; got != want {
			t.Errorf("%s: %d %s\nwant %d %s", id, got.Status, got.Body, want.Status, want.Body)
		}
	}
	if r := replies["o5"]; r.Status != 200 || !strings.Contains(r.Body, `"id":"ses_ocmem_extract_`) || !strings.Contains(r.Body, `"title":"ocmem extraction"`) {
		t.Errorf("o5: %+v", r)
	}
	if r := replies["o6"]; r.Status != 200 || !strings.Contains(r.Body, `"role":"assistant"`) || !strings.Contains(r.Body, `"parts":[{"type":"text","text":"GENERATED"}]`) {
		t.Errorf("o6: %+v", r)
	}
	if r := replies["o8"]; r.Status != 404 {
		t.Errorf("o8: %+v", r)
	}
	gen := decodeAs[[]map[string]any](t, res[3].Result)
	if len(gen) != 1 || gen[0]["prompt"] != "SYS\n\nTURNS" || fmt.Sprint(gen[0]["model"]) != "map[id:m1 providerID:p1]" {
		t.Errorf("generate.text calls %v", gen)
	}
	if strings.Contains(fmt.Sprint(replies), "SECRET-KEY") {
		t.Errorf("a provider's settings reached serve")
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	slices.Sort(out)
	return out
}

// stubRequestsIfAny is stubRequests for a run in which serve may never
// have started.
func (d *driver) stubRequestsIfAny() []map[string]any {
	d.t.Helper()
	if _, err := os.Stat(d.stubLog); err != nil {
		return nil
	}
	return d.stubRequests()
}

// TestV2Toasts: on OpenCode 2 the notices 1.18 shows as toasts (the first
// injection, a broken file, a write by the model, extraction's writes, a
// missing binary) are emitted on the plugin's own RPC event, and the TUI
// entry, tui.js, shows each as an ocmem toast, about its session; with
// "toasts": false nothing is emitted (the TUI entry has no options).
func TestV2Toasts(t *testing.T) {
	steps := []map[string]any{
		{"do": "setup"},
		{"do": "context", "sessionID": "ses_1"},
		{"do": "prompt", "sessionID": "ses_1", "text": "deploy"},
		{"do": "tool", "name": "memory_remember", "sessionID": "ses_1", "agent": "build",
			"args": map[string]any{"category": "decisions", "kind": "decision", "summary": "x", "body": "y"}},
		{"do": "event", "event": map[string]any{"type": "session.execution.succeeded", "data": map[string]any{"sessionID": "ses_1"}}},
		{"do": "sleep", "ms": 300},
		{"do": "registered"},
		{"do": "emitted"},
		{"do": "tui"},
	}
	type toast struct {
		Title, Message, Variant, SessionID string
		Duration                           int
	}
	type tuiResult struct {
		ID     string
		Toasts []toast
		Ended  int
	}
	d := newDriver2(t)
	// The TUI entry as install and the npm package lay it out: tui.js
	// beside plugin.js.
	self, _ := os.Executable()
	for name, src := range map[string][]byte{"plugin.js": Render(self), "tui.js": TUISource} {
		if err := os.WriteFile(filepath.Join(d.dir, name), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d.env = append(d.env, "TUI_ENTRY="+filepath.Join(d.dir, "tui.js"))
	res, _ := d.run("notices", map[string]any{}, steps...)
	reg := decodeAs[[]struct {
		ID     string
		Events []string
		Schema struct{ Required []string }
	}](t, res[6].Result)
	if len(reg) != 1 || reg[0].ID != "ocmem" || !slices.Equal(reg[0].Events, []string{"notice"}) || !slices.Equal(reg[0].Schema.Required, []string{"message"}) {
		t.Errorf("registered RPCs: %+v", reg)
	}
	got := decodeAs[tuiResult](t, res[8].Result)
	want := []toast{
		{"ocmem", "skipped facts/broken.md: line 3 does not parse", "warning", "ses_1", 8000},
		{"ocmem", "memory for this session: project:pitfalls/deploy", "info", "ses_1", 4000},
		{"ocmem", "remembered project:decisions/x (.memory/decisions/x.md)", "info", "ses_1", 4000},
		{"ocmem", "extraction wrote project:facts/y", "info", "", 4000},
	}
	if got.ID != "ocmem" || !slices.Equal(got.Toasts, want) {
		t.Errorf("TUI entry %q showed\n%+v\nwant\n%+v", got.ID, got.Toasts, want)
	}
	if got.Ended != 1 {
		t.Errorf("the TUI entry's cleanup ended %d subscriptions, want 1", got.Ended)
	}

	// Off: nothing registered, nothing emitted, nothing shown.
	d = newDriver2(t)
	res, _ = d.run("notices", map[string]any{"toasts": false}, steps...)
	if string(res[6].Result) != "[]" || string(res[7].Result) != "[]" || len(decodeAs[tuiResult](t, res[8].Result).Toasts) != 0 {
		t.Errorf("toasts off: registered %s, emitted %s, tui %s", res[6].Result, res[7].Result, res[8].Result)
	}

	// A missing binary: told once per process, as an error toast.
	d = newDriver2(t)
	res, _ = d.run("echo", map[string]any{"bin": "/nonexistent/ocmem"}, steps...)
	shown := decodeAs[tuiResult](t, res[8].Result).Toasts
	if len(shown) != 1 || shown[0].Variant != "error" || !strings.Contains(shown[0].Message, "memory is off") || !strings.Contains(shown[0].Message, "/nonexistent/ocmem") {
		t.Errorf("missing binary: toasts %+v", shown)
	}
	if reply := decodeAs[struct{ Content string }](t, res[3].Result).Content; !strings.Contains(reply, "ocmem unavailable") || !strings.Contains(reply, "the person was told") {
		t.Errorf("missing binary: tool reply %q", reply)
	}
}
