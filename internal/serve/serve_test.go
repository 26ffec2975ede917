package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/testenv"
)

// client drives a Server over pipes, as the plugin does.
type client struct {
	t      *testing.T
	in     *io.PipeWriter
	out    *bufio.Scanner
	nextID int
	done   chan error
}

func start(t *testing.T, cfg Config) *client {
	t.Helper()
	t.Setenv("OCMEM_CACHE_DIR", t.TempDir())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := New(cfg)
	c := &client{t: t, in: inW, out: bufio.NewScanner(outR), done: make(chan error, 1)}
	c.out.Buffer(make([]byte, 1<<20), 8<<20)
	go func() { c.done <- s.Serve(context.Background(), inR, outW); outW.Close() }()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
			t.Error("serve did not stop after its input closed")
		}
		// A recompile the watcher scheduled (a hand edit, the touch of
		// its updated) still writes into the roots: wait for it before
		// the test's folders are removed.
		s.Wait()
	})
	return c
}

type reply struct {
	ID     json.RawMessage `json:"id"`
	Result struct {
		Text    string   `json:"text"`
		IDs     []string `json:"ids"`
		Notice  string   `json:"notice"`
		Warning string   `json:"warning"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// raw sends one line and reads one reply.
func (c *client) raw(line string) reply {
	c.t.Helper()
	if _, err := fmt.Fprintln(c.in, line); err != nil {
		c.t.Fatal(err)
	}
	if !c.out.Scan() {
		c.t.Fatalf("no reply to %s", line)
	}
	var r reply
	if err := json.Unmarshal(c.out.Bytes(), &r); err != nil {
		c.t.Fatalf("reply is not JSON: %s", c.out.Bytes())
	}
	return r
}

func (c *client) call(method string, params map[string]any) reply {
	c.t.Helper()
	c.nextID++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": testenv.ToolParams(method, params)})
	r := c.raw(string(b))
	if string(r.ID) != fmt.Sprint(c.nextID) {
		c.t.Fatalf("reply id %s, want %d", r.ID, c.nextID)
	}
	return r
}

func roots(t *testing.T) (global, project string) {
	d := t.TempDir()
	return filepath.Join(d, "global"), filepath.Join(d, "project")
}

func TestMalformedRequestsKeepServing(t *testing.T) {
	g, p := roots(t)
	c := start(t, Config{GlobalDir: g, ProjectDir: p})
	for _, tt := range []struct {
		line string
		code int
	}{
		{`{not json`, codeParse},
		{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, codeInvalidRequest},
		{`{"jsonrpc":"2.0","id":2}`, codeInvalidRequest},
		{`{"jsonrpc":"2.0","id":3,"method":"nope"}`, codeMethodNotFound},
		{`{"jsonrpc":"2.0","id":4,"method":"recall","params":{"query":5}}`, codeInvalidParams},
		{`{"jsonrpc":"2.0","id":5,"method":"recall","params":{"query":""}}`, codeInvalidParams},
		// A bad option value is no bad request: it costs only that option
		// (TestBadOptionKeepsMemory).
		{`{"jsonrpc":"2.0","id":6,"method":"message","params":{"text":5}}`, codeInvalidParams},
		// A tool's arguments go in "args", and only the contract's.
		{`{"jsonrpc":"2.0","id":7,"method":"recall","params":{"query":"kafka"}}`, codeInvalidParams},
		{`{"jsonrpc":"2.0","id":8,"method":"recall","params":{"args":{"query":"kafka","worktree":"/tmp"}}}`, codeInvalidParams},
		{`{"jsonrpc":"2.0","id":9,"method":"inspect","params":{"args":{"directory":"/tmp"}}}`, codeInvalidParams},
		{`{"jsonrpc":"2.0","id":10,"method":"forget","params":{"args":"facts/x"}}`, codeInvalidParams},
	} {
		r := c.raw(tt.line)
		if r.Error == nil || r.Error.Code != tt.code {
			t.Errorf("%s: got %+v, want error code %d", tt.line, r.Error, tt.code)
		}
	}
	if r := c.call("ping", nil); r.Error != nil {
		t.Fatalf("ping after bad requests: %+v", r.Error)
	}
}

// TestToolArgsCannotNameRoots: the repository a tool call acts on is the
// one OpenCode's context names. A model's "worktree" or "directory" inside
// the arguments is refused, and nothing is read, written or deleted in the
// repository it names.
func TestToolArgsCannotNameRoots(t *testing.T) {
	d := t.TempDir()
	mine, other := filepath.Join(d, "mine"), filepath.Join(d, "other")
	for _, r := range []string{mine, other} {
		if err := os.MkdirAll(filepath.Join(r, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	victim := filepath.Join(other, ".memory", "facts", "victim.md")
	os.MkdirAll(filepath.Dir(victim), 0o755)
	os.WriteFile(victim, []byte("---\nid: facts/victim\nkind: fact\nsummary: the other repository's secret plan\nload_when: [plan]\n---\nbody\n"), 0o644)
	c := start(t, Config{GlobalDir: filepath.Join(d, "global")})
	ctx := map[string]any{"sessionID": "ses_1", "worktree": mine, "directory": mine}
	for _, tt := range []struct {
		method string
		args   map[string]any
	}{
		{"remember", map[string]any{"category": "facts", "kind": "fact", "summary": "x", "body": "y", "worktree": other, "directory": other}},
		{"recall", map[string]any{"query": "secret plan", "worktree": other}},
		{"forget", map[string]any{"id": "facts/victim", "directory": other}},
		{"inspect", map[string]any{"worktree": other}},
	} {
		params := map[string]any{"args": tt.args}
		for k, v := range ctx {
			params[k] = v
		}
		r := c.call(tt.method, params)
		if r.Error == nil || r.Error.Code != codeInvalidParams || !strings.Contains(r.Error.Message, "does not take") {
			t.Errorf("%s with a root in its arguments: %+v %q", tt.method, r.Error, r.Result.Text)
		}
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("the other repository's memory: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(other, ".memory"))
	if len(entries) != 1 {
		t.Errorf("the other repository's .memory changed: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(mine, ".memory")); !os.IsNotExist(err) {
		t.Errorf("a refused write created %s: %v", filepath.Join(mine, ".memory"), err)
	}
	// The same calls without the extra keys act on the context's repository.
	r := c.call("remember", map[string]any{"sessionID": "ses_1", "worktree": mine, "directory": mine,
		"args": map[string]any{"category": "facts", "kind": "fact", "summary": "mine", "body": "y"}})
	if r.Error != nil || !strings.Contains(r.Result.Text, filepath.Join(mine, ".memory")) {
		t.Errorf("remember in the context's repository: %+v %q", r.Error, r.Result.Text)
	}
}

func TestToolsAndInjection(t *testing.T) {
	g, p := roots(t)
	c := start(t, Config{GlobalDir: g, ProjectDir: p})
	common := map[string]any{"sessionID": "ses_1", "worktree": "/ignored"}
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range common {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	r := c.call("remember", with(map[string]any{"category": "decisions", "kind": "decision",
		"summary": "部署脚本用 pnpm 而不是 npm", "body": "lockfile 不兼容。", "load_when": []string{"部署", "pnpm"}}))
	if r.Error != nil || !strings.Contains(r.Result.Text, "Remembered project:decisions/") {
		t.Fatalf("remember: %+v %q", r.Error, r.Result.Text)
	}
	r = c.call("remember", with(map[string]any{"category": "rules", "kind": "rule", "summary": "Always run make check", "body": "before pushing"}))
	if r.Error != nil || !strings.Contains(r.Result.Text, "rule proposal") {
		t.Fatalf("a model's rule must become a proposal: %+v %q", r.Error, r.Result.Text)
	}

	sys := c.call("system", with(nil))
	if sys.Error != nil || !strings.Contains(sys.Result.Text, "Memory outline") {
		t.Fatalf("system: %+v %q", sys.Error, sys.Result.Text)
	}
	if strings.Contains(sys.Result.Text, "Hard rules") {
		t.Errorf("a rule proposal must not be in the hard rules: %q", sys.Result.Text)
	}
	if again := c.call("system", with(nil)); again.Result.Text != sys.Result.Text {
		t.Error("the stable tiers changed between two turns with no memory change")
	}

	msg := c.call("message", with(map[string]any{"messageID": "msg_1", "text": "部署前要注意什么?"}))
	if msg.Error != nil || !strings.Contains(msg.Result.Text, "lockfile 不兼容") || len(msg.Result.IDs) != 1 {
		t.Fatalf("message: %+v %q %v", msg.Error, msg.Result.Text, msg.Result.IDs)
	}
	if again := c.call("message", with(map[string]any{"messageID": "msg_2", "text": "部署的时候呢?"})); again.Result.Text != "" {
		t.Errorf("a body given in the session must not be given again: %q", again.Result.Text)
	}
	if none := c.call("message", with(map[string]any{"messageID": "msg_3", "text": "write me a haiku about autumn leaves"})); none.Result.Text != "" {
		t.Errorf("an unrelated message got bodies: %q", none.Result.Text)
	}

	rec := c.call("recall", with(map[string]any{"query": "pnpm 部署"}))
	if rec.Error != nil || !strings.Contains(rec.Result.Text, "why: matched") {
		t.Fatalf("recall: %+v %q", rec.Error, rec.Result.Text)
	}
	id := strings.TrimPrefix(rec.Result.IDs[0], "project:")

	bad := c.call("forget", with(map[string]any{"id": "../../x"}))
	if bad.Error == nil || bad.Error.Code != codeRefused {
		t.Errorf("forget ../../x: %+v", bad)
	}
	r = c.call("forget", with(map[string]any{"id": id}))
	if r.Error != nil || !strings.Contains(r.Result.Text, "Forgot") {
		t.Fatalf("forget: %+v %q", r.Error, r.Result.Text)
	}
	// The person sees a forget as they see a remember: in a toast.
	if want := "forgot project:" + id + " ("; !strings.HasPrefix(r.Result.Notice, want) {
		t.Errorf("forget notice %q, want it to start with %q", r.Result.Notice, want)
	}
	if _, err := os.Stat(filepath.Join(p, filepath.FromSlash(id)+".md")); !os.IsNotExist(err) {
		t.Errorf("forgotten memory still on disk: %v", err)
	}
	ins := c.call("inspect", with(nil))
	if ins.Error != nil || !strings.Contains(ins.Result.Text, "Consistency: OK") {
		t.Errorf("inspect: %+v %q", ins.Error, ins.Result.Text)
	}
}

// TestRememberReplies: the model is refused a memory without a body, and
// told (the person too, in the toast) when its summary repeats another
// memory's with another body.
func TestRememberReplies(t *testing.T) {
	g, p := roots(t)
	c := start(t, Config{GlobalDir: g, ProjectDir: p})
	args := func(body string) map[string]any {
		return map[string]any{"sessionID": "ses_1", "category": "facts", "kind": "fact", "summary": "CI runs on GitHub Actions", "body": body}
	}
	if r := c.call("remember", args(" \n")); r.Error == nil || r.Error.Code != codeRefused || !strings.Contains(r.Error.Message, "body is empty") {
		t.Errorf("remember without a body: %+v", r)
	}
	first := c.call("remember", args("Workflows live in .github/workflows."))
	if first.Error != nil || strings.Contains(first.Result.Text, "same summary") {
		t.Fatalf("first remember: %+v %q", first.Error, first.Result.Text)
	}
	second := c.call("remember", args("Since 2024; Jenkins before."))
	if second.Error != nil {
		t.Fatalf("second remember: %+v", second.Error)
	}
	for what, got := range map[string]string{"reply": second.Result.Text, "notice": second.Result.Notice} {
		if !strings.Contains(got, "project:facts/ci-runs-github-actions has the same summary") {
			t.Errorf("%s %q does not name the memory with the same summary", what, got)
		}
	}
}

func TestOwnSessionsGetNothing(t *testing.T) {
	g, p := roots(t)
	os.MkdirAll(filepath.Join(p, "facts"), 0o755)
	os.WriteFile(filepath.Join(p, "facts", "a.md"), []byte("---\nid: facts/a\nkind: fact\nsummary: kafka retention seven days\n---\n"), 0o644)
	c := start(t, Config{GlobalDir: g, ProjectDir: p})
	MarkOwnSession("ses_own")
	for _, m := range []string{"system", "message"} {
		r := c.call(m, map[string]any{"sessionID": "ses_own", "text": "kafka retention"})
		if r.Error != nil || r.Result.Text != "" {
			t.Errorf("%s for ocmem's own session: %+v %q", m, r.Error, r.Result.Text)
		}
	}
}

// A memory edited by hand is seen on the next request (file watching).
func TestHandEditSeenOnNextTurn(t *testing.T) {
	g, p := roots(t)
	file := filepath.Join(p, "facts", "a.md")
	os.MkdirAll(filepath.Dir(file), 0o755)
	write := func(summary string) {
		if err := os.WriteFile(file, []byte("---\nid: facts/a\nkind: fact\nsummary: "+summary+"\n---\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("kafka retention is seven days")
	c := start(t, Config{GlobalDir: g, ProjectDir: p})
	if r := c.call("system", map[string]any{}); !strings.Contains(r.Result.Text, "seven days") {
		t.Fatalf("first outline: %q", r.Result.Text)
	}
	write("kafka retention is thirty days")
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := c.call("system", map[string]any{})
		if strings.Contains(r.Result.Text, "thirty days") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("hand edit not seen: %q", r.Result.Text)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A root that does not exist when serve starts is picked up once created.
func TestRootCreatedLater(t *testing.T) {
	g, p := roots(t)
	c := start(t, Config{GlobalDir: g, ProjectDir: p})
	if r := c.call("system", map[string]any{}); r.Result.Text != "" {
		t.Fatalf("empty roots gave %q", r.Result.Text)
	}
	os.MkdirAll(filepath.Join(p, "facts"), 0o755)
	os.WriteFile(filepath.Join(p, "facts", "a.md"), []byte("---\nid: facts/a\nkind: fact\nsummary: nginx buffers uploads\n---\n"), 0o644)
	if r := c.call("system", map[string]any{}); !strings.Contains(r.Result.Text, "nginx buffers uploads") {
		t.Fatalf("memory in a new root not seen: %q", r.Result.Text)
	}
}

// A memory whose content changes after it was given counts as new for the
// session: the model must not keep the old body beside the new summary.
// An unchanged one is still given once.
func TestChangedMemoryGivenAgain(t *testing.T) {
	g, p := roots(t)
	file := filepath.Join(p, "facts", "a.md")
	os.MkdirAll(filepath.Dir(file), 0o755)
	write := func(body string) {
		if err := os.WriteFile(file, []byte("---\nid: facts/a\nkind: fact\nsummary: kafka retention\n---\n"+body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Retention is seven days.")
	c := start(t, Config{GlobalDir: g, ProjectDir: p})
	turn := func() string {
		return c.call("message", map[string]any{"sessionID": "ses_edit", "text": "kafka retention"}).Result.Text
	}
	if got := turn(); !strings.Contains(got, "seven days") {
		t.Fatalf("first turn: %q", got)
	}
	if got := turn(); got != "" {
		t.Fatalf("an unchanged body was given again: %q", got)
	}
	write("Retention is thirty days.")
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := turn()
		if strings.Contains(got, "thirty days") {
			break
		}
		if got != "" || time.Now().After(deadline) {
			t.Fatalf("the changed body was not given again: %q", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := turn(); got != "" {
		t.Errorf("the changed body was given twice: %q", got)
	}
}

// A memory added or edited by hand while serve runs is compiled into its
// root's index.md and ROOT.md tables, so inspect stays clean.
func TestHandEditRecompiled(t *testing.T) {
	g, p := roots(t)
	os.MkdirAll(filepath.Join(p, "facts"), 0o755)
	c := start(t, Config{GlobalDir: g, ProjectDir: p})
	if r := c.call("remember", map[string]any{"category": "facts", "kind": "fact", "summary": "nginx buffers uploads", "body": "client_max_body_size"}); r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	os.WriteFile(filepath.Join(p, "facts", "kafka.md"), []byte("---\nid: facts/kafka\nkind: fact\nsummary: kafka retention is per partition\nload_when: [kafka]\n---\nbody\n"), 0o644)
	deadline := time.Now().Add(10 * time.Second)
	for {
		idx, _ := os.ReadFile(filepath.Join(p, "facts", "index.md"))
		root, _ := os.ReadFile(filepath.Join(p, "ROOT.md"))
		if strings.Contains(string(idx), "[kafka](kafka.md)") && strings.Contains(string(root), "| kafka |") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hand-written memory was not compiled in:\n%s\n%s", idx, root)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := c.call("inspect", map[string]any{}); !strings.Contains(r.Result.Text, "Consistency: OK") {
		t.Errorf("inspect after a hand edit: %q", r.Result.Text)
	}
}

// Recompiling a root whose compiled files are up to date writes nothing.
func TestRecompileWritesOnlyWhatDiffers(t *testing.T) {
	g, p := roots(t)
	s := New(Config{GlobalDir: g, ProjectDir: p})
	e, err := s.engineFor(&common{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Remember(engine.RememberRequest{Category: "facts", Kind: "fact", Summary: "nginx buffers uploads", Body: "client_max_body_size"}); err != nil {
		t.Fatal(err)
	}
	wrote, err := s.live.Recompile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(wrote) != 0 {
		t.Errorf("an up-to-date root was rewritten: %v", wrote)
	}
	file := filepath.Join(p, "facts", "nginx-buffers-uploads.md")
	data, _ := os.ReadFile(file)
	os.WriteFile(file, []byte(strings.Replace(string(data), "summary: nginx buffers uploads", "summary: nginx buffers request bodies", 1)), 0o644)
	e.InvalidateFile(p, file) // as the watcher does
	if wrote, err = s.live.Recompile(p); err != nil {
		t.Fatal(err)
	}
	if strings.Join(wrote, ",") != "project:facts/index.md" {
		t.Errorf("after a summary edit, wrote %v; want facts/index.md only", wrote)
	}
}

// An idle session gets its extraction at once (which takes minTurns new
// turns or waits for more); when it then stays idle, the remainder is
// taken. A new message in the session cancels the pending remainder.
func TestIdleRemainder(t *testing.T) {
	g, p := roots(t)
	reqs := make(chan IdleRequest, 10)
	c := start(t, Config{GlobalDir: g, ProjectDir: p, IdleRemainderAfter: 100 * time.Millisecond,
		Extract: func(_ context.Context, _ *engine.Engine, req IdleRequest) { reqs <- req }})
	// The negative checks wait five times the idle delay.
	next := func() (IdleRequest, bool) {
		select {
		case r := <-reqs:
			return r, true
		case <-time.After(500 * time.Millisecond):
			return IdleRequest{}, false
		}
	}
	c.call("idle", map[string]any{"sessionID": "ses_idle", "serverUrl": "http://127.0.0.1:1"})
	if r, ok := next(); !ok || r.Remainder {
		t.Fatalf("first extraction: %+v, %v; want one without Remainder", r, ok)
	}
	if r, ok := next(); !ok || !r.Remainder || r.SessionID != "ses_idle" {
		t.Fatalf("after staying idle: %+v, %v; want the remainder", r, ok)
	}
	if r, ok := next(); ok {
		t.Fatalf("a second remainder: %+v", r)
	}
	// Idle, then the person writes again: no remainder.
	c.call("idle", map[string]any{"sessionID": "ses_idle", "serverUrl": "http://127.0.0.1:1"})
	if _, ok := next(); !ok {
		t.Fatal("no extraction at idle")
	}
	c.call("message", map[string]any{"sessionID": "ses_idle", "text": "one more thing"})
	if r, ok := next(); ok {
		t.Errorf("a remainder was taken while the session was busy: %+v", r)
	}
}

// A session that ends before it has stayed idle for extractIdleSeconds
// (three turns and /exit: OpenCode, and with it serve, goes away) keeps its
// turns: the next serve of the root takes them, through the plugin of its
// first idle, once the rest of the wait is over.
func TestPendingTurnsOfAnEndedSession(t *testing.T) {
	g, p := roots(t)
	first := make(chan IdleRequest, 10)
	c1 := start(t, Config{GlobalDir: g, ProjectDir: p, IdleRemainderAfter: time.Hour,
		Extract: func(_ context.Context, _ *engine.Engine, req IdleRequest) { first <- req }})
	c1.call("idle", map[string]any{"sessionID": "ses_short", "serverUrl": "http://127.0.0.1:1"})
	if r := <-first; r.SessionID != "ses_short" || r.Remainder {
		t.Fatalf("first serve's extraction: %+v", r)
	}
	// OpenCode ends: the remainder's timer goes with its serve.
	c1.in.Close()
	err := <-c1.done
	c1.done <- err

	second := make(chan IdleRequest, 10)
	c2 := start(t, Config{GlobalDir: g, ProjectDir: p, IdleRemainderAfter: 300 * time.Millisecond,
		Extract: func(_ context.Context, _ *engine.Engine, req IdleRequest) { second <- req }})
	c2.call("idle", map[string]any{"sessionID": "ses_next", "serverUrl": "http://127.0.0.1:1"})
	var got []string
	deadline := time.After(2 * time.Second)
	for len(got) < 3 {
		select {
		case r := <-second:
			got = append(got, fmt.Sprintf("%s remainder=%v plugin=%v", r.SessionID, r.Remainder, r.Plugin != nil))
		case <-deadline:
			t.Fatalf("extractions in the next serve: %q; want ses_short's remainder among them", got)
		}
	}
	slices.Sort(got)
	want := []string{"ses_next remainder=false plugin=true", "ses_next remainder=true plugin=true", "ses_short remainder=true plugin=true"}
	if !slices.Equal(got, want) {
		t.Errorf("extractions in the next serve: %q, want %q", got, want)
	}
	// Once per root: a later idle does not take ses_short again.
	c2.call("idle", map[string]any{"sessionID": "ses_next", "serverUrl": "http://127.0.0.1:1"})
	for _, want := range []string{"ses_next remainder=false", "ses_next remainder=true"} {
		select {
		case r := <-second:
			if g := fmt.Sprintf("%s remainder=%v", r.SessionID, r.Remainder); g != want {
				t.Errorf("after the second idle: %s, want %s", g, want)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("no %s after the second idle", want)
		}
	}
}

// Nested memories (folders nest: guides/deploy/prod.md) are watched like
// the others: a deleted one stops being given, one in a folder made after
// serve started is seen, with file watching and with the polling fallback.
func TestNestedMemoriesWatched(t *testing.T) {
	for _, mode := range []string{"watching", "polling"} {
		t.Run(mode, func(t *testing.T) {
			g, p := roots(t)
			memo := func(id, summary string) string {
				file := filepath.Join(p, filepath.FromSlash(id)+".md")
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, []byte("---\nid: "+id+"\nkind: fact\nsummary: "+summary+"\n---\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return file
			}
			memo("facts/top", "a memory at the top")
			prod := memo("guides/deploy/prod", "production deploys need the release tag")
			c := start(t, Config{GlobalDir: g, ProjectDir: p, PollRoots: mode == "polling"})
			eventually := func(what string, ok func(text string) bool) {
				t.Helper()
				deadline := time.Now().Add(5 * time.Second)
				for {
					r := c.call("system", map[string]any{})
					if ok(r.Result.Text) {
						return
					}
					if time.Now().After(deadline) {
						t.Fatalf("%s: not seen within 5 s: %q", what, r.Result.Text)
					}
					time.Sleep(50 * time.Millisecond)
				}
			}
			eventually("the nested memory", func(s string) bool { return strings.Contains(s, "release tag") })
			if err := os.Remove(prod); err != nil {
				t.Fatal(err)
			}
			eventually("the nested memory's removal", func(s string) bool { return !strings.Contains(s, "release tag") })
			memo("guides/deploy/staging/eu", "staging in the EU runs on Fridays")
			eventually("a memory in a new nested folder", func(s string) bool { return strings.Contains(s, "runs on Fridays") })
			// A change inside a folder made after serve started is seen too.
			memo("guides/deploy/staging/eu", "staging in the EU runs on Mondays")
			eventually("an edit in the new folder", func(s string) bool { return strings.Contains(s, "runs on Mondays") })
		})
	}
}

// A memory file that does not load is reported once, with its file and
// line: in the log and as a warning the plugin shows. Broken another way,
// it is reported again.
func TestBrokenFileReportedOnce(t *testing.T) {
	g, p := roots(t)
	file := filepath.Join(p, "facts", "bad.md")
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(filepath.Join(p, "facts", "good.md"), []byte("---\nid: facts/good\nkind: fact\nsummary: fine\n---\n"), 0o644)
	os.WriteFile(file, []byte("---\nid: facts/bad\nkind: [fact\nsummary: x\n---\n"), 0o644)
	c := start(t, Config{GlobalDir: g, ProjectDir: p})
	first := c.call("system", map[string]any{})
	if !strings.Contains(first.Result.Warning, file+":3: ") || !strings.Contains(first.Result.Text, "fine") {
		t.Fatalf("first system: warning %q, text %q", first.Result.Warning, first.Result.Text)
	}
	// The file and line once: not "bad.md:3: line 3: …".
	if strings.Contains(first.Result.Warning, "line 3") {
		t.Errorf("the warning repeats the line: %q", first.Result.Warning)
	}
	if again := c.call("system", map[string]any{}); again.Result.Warning != "" {
		t.Errorf("reported twice: %q", again.Result.Warning)
	}
	os.WriteFile(file, []byte("---\nid: facts/bad\nkind: fact\n"), 0o644)
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := c.call("system", map[string]any{})
		if strings.Contains(r.Result.Warning, file) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("broken another way, the file was not reported again")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Large messages (a long paste) are handled at most MaxLargeRequests at a
// time, however many arrive at once; small ones are all answered.
func TestLargeMessagesBounded(t *testing.T) {
	g, p := roots(t)
	var mu sync.Mutex
	inFlight, most := 0, 0
	hook := func(p *messageParams) {
		if len(p.Text) <= LargeRequestBytes {
			return
		}
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		time.Sleep(100 * time.Millisecond)
		mu.Lock()
		inFlight--
		mu.Unlock()
	}
	c := start(t, Config{GlobalDir: g, ProjectDir: p, messageHook: hook})
	paste := strings.Repeat("日志 worker heartbeat ok\n", LargeRequestBytes/20)
	const n = 8
	// The plugin writes and reads at once; so does this test.
	go func() {
		for i := range n {
			text := "short question"
			if i%2 == 0 {
				text = "why? " + paste
			}
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i + 1, "method": "message", "params": map[string]any{"sessionID": fmt.Sprint("ses_", i), "text": text}})
			if _, err := fmt.Fprintln(c.in, string(b)); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for range n {
		if !c.out.Scan() {
			t.Fatal("a reply is missing")
		}
	}
	if most > MaxLargeRequests || most == 0 {
		t.Errorf("%d large messages were handled at once, want 1..%d", most, MaxLargeRequests)
	}
}

// After OpenCode compacts a session (session.compacted), the memories it
// was given may be given again: the summary may have dropped them.
func TestCompactedSessionGivenAgain(t *testing.T) {
	g, p := roots(t)
	file := filepath.Join(p, "facts", "kafka.md")
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte("---\nid: facts/kafka\nkind: fact\nsummary: kafka retention is per partition\nload_when: [kafka retention]\n---\nKAFKA-BODY segments are deleted per partition\n"), 0o644)
	c := start(t, Config{GlobalDir: g, ProjectDir: p})
	turn := func(session string) string {
		t.Helper()
		r := c.call("message", map[string]any{"sessionID": session, "text": "how does kafka retention work?"})
		if r.Error != nil {
			t.Fatal(r.Error.Message)
		}
		return r.Result.Text
	}
	if got := turn("ses_c"); !strings.Contains(got, "KAFKA-BODY") {
		t.Fatalf("first turn: %q", got)
	}
	if got := turn("ses_c"); strings.Contains(got, "KAFKA-BODY") {
		t.Fatalf("given twice before compaction: %q", got)
	}
	if r := c.call("compacted", map[string]any{"sessionID": "ses_c"}); r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	if got := turn("ses_c"); !strings.Contains(got, "KAFKA-BODY") {
		t.Errorf("not given again after compaction: %q", got)
	}
	if got := turn("ses_c"); strings.Contains(got, "KAFKA-BODY") {
		t.Errorf("given twice after compaction: %q", got)
	}
	if r := c.call("compacted", map[string]any{}); r.Error == nil {
		t.Error("compacted without a session: no error")
	}
}

// TestFirstInjectionNoticeNamesTheCommand: the first injection's toast
// tells the person how to see it with the command that runs this ocmem
// for them: `npx ocmem@V` for a binary from npm, whose `ocmem` is not on
// their PATH.
func TestFirstInjectionNoticeNamesTheCommand(t *testing.T) {
	for _, tt := range []struct{ command, want string }{
		{"", "`ocmem inject MESSAGE` shows what the model gets; `ocmem ui` opens the viewer, with what every session was given."},
		{"npx ocmem@1.2.3", "`npx ocmem@1.2.3 inject MESSAGE` shows what the model gets; `npx ocmem@1.2.3 ui` opens the viewer, with what every session was given."},
	} {
		g, p := roots(t)
		os.MkdirAll(filepath.Join(p, "facts"), 0o755)
		os.WriteFile(filepath.Join(p, "facts", "kafka.md"), []byte("---\nid: facts/kafka\nkind: fact\nsummary: kafka retention is seven days\nload_when: [kafka]\n---\nPer partition.\n"), 0o644)
		c := start(t, Config{GlobalDir: g, ProjectDir: p, Command: tt.command})
		r := c.call("message", map[string]any{"sessionID": "ses_n", "messageID": "msg_1", "text": "kafka retention?"})
		if r.Error != nil || !strings.Contains(r.Result.Notice, "1 memory added to your message: project:facts/kafka.") || !strings.Contains(r.Result.Notice, tt.want) {
			t.Errorf("command %q: notice %q (%+v), want %q", tt.command, r.Result.Notice, r.Error, tt.want)
		}
	}
}

// TestRoots: serve tells the plugin the memory roots of its context, as
// it resolves them: a worktree's project root is its main checkout's.
func TestRoots(t *testing.T) {
	d := t.TempDir()
	main, wt := filepath.Join(d, "main"), filepath.Join(d, "wt")
	os.MkdirAll(filepath.Join(main, ".git", "worktrees", "wt"), 0o755)
	os.MkdirAll(wt, 0o755)
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+filepath.Join(main, ".git", "worktrees", "wt")+"\n"), 0o644)
	os.WriteFile(filepath.Join(main, ".git", "worktrees", "wt", "commondir"), []byte("../..\n"), 0o644)
	global := filepath.Join(d, "global")
	c := start(t, Config{GlobalDir: global})
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "roots", "params": map[string]any{"worktree": wt, "directory": wt}})
	fmt.Fprintln(c.in, string(line))
	if !c.out.Scan() {
		t.Fatal("no reply")
	}
	var resp struct {
		Result struct{ Global, Project string }
		Error  *struct{ Message string }
	}
	if err := json.Unmarshal(c.out.Bytes(), &resp); err != nil || resp.Error != nil {
		t.Fatalf("%s: %v", c.out.Bytes(), err)
	}
	got := resp.Result
	if got.Global != global || got.Project != filepath.Join(main, ".memory") {
		t.Errorf("roots = %+v, want %s and %s", got, global, filepath.Join(main, ".memory"))
	}
}

// A folder serve's own write creates (a category no memory was in yet) is
// watched like any other: a hand edit in it later shows on the next turn.
func TestHandEditInFolderServeCreated(t *testing.T) {
	g, p := roots(t)
	os.MkdirAll(filepath.Join(p, "facts"), 0o755)
	os.WriteFile(filepath.Join(p, "facts", "a.md"), []byte("---\nid: facts/a\nkind: fact\nsummary: nginx buffers uploads\n---\n"), 0o644)
	c := start(t, Config{GlobalDir: g, ProjectDir: p})
	if r := c.call("system", map[string]any{}); !strings.Contains(r.Result.Text, "nginx buffers uploads") {
		t.Fatalf("first outline: %q", r.Result.Text)
	}
	r := c.call("remember", map[string]any{"worktree": p, "args": map[string]any{"category": "pitfalls", "kind": "pitfall",
		"summary": "kafka retention is seven days", "body": "per partition", "load_when": []string{"kafka"}}})
	if r.Error != nil {
		t.Fatalf("remember: %+v", r.Error)
	}
	if r := c.call("system", map[string]any{}); !strings.Contains(r.Result.Text, "seven days") {
		t.Fatalf("outline after remember: %q", r.Result.Text)
	}
	// A second file, written by hand, in the folder the remember made.
	file := filepath.Join(p, "pitfalls", "by-hand.md")
	if err := os.WriteFile(file, []byte("---\nid: pitfalls/by-hand\nkind: pitfall\nsummary: redis eviction drops sessions\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := c.call("system", map[string]any{})
		if strings.Contains(r.Result.Text, "redis eviction drops sessions") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("a hand edit in the folder serve created was not seen: %q", r.Result.Text)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A cloned repository's file name reaches the person in the warning the
// plugin shows as a toast: what a terminal would run or draw over (an
// escape sequence, a carriage return) is written out, not passed through.
func TestWarningShowsFileNameEscaped(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows file names hold no control characters")
	}
	g, p := roots(t)
	os.MkdirAll(filepath.Join(p, "facts"), 0o755)
	name := "ok\x1b[2K\rsafe\u200b.md"
	if err := os.WriteFile(filepath.Join(p, "facts", name), []byte("---\nid: facts/x\nkind: fact\nsummary: x\n---\n"), 0o644); err != nil {
		t.Skipf("this file system refuses the name: %v", err)
	}
	c := start(t, Config{GlobalDir: g, ProjectDir: p})
	w := c.call("system", map[string]any{}).Result.Warning
	if !strings.Contains(w, "ok⟨U+001B⟩[2K⟨U+000D⟩safe⟨U+200B⟩.md") {
		t.Fatalf("warning %q does not name the file escaped", w)
	}
	if strings.ContainsAny(w, "\x1b\r\u200b") {
		t.Errorf("warning %q holds the raw characters", w)
	}
}

// A handler that panics still answers its request, with an internal
// error: earlier the recovered panic returned no reply at all, and the
// plugin waited out its time limit.
func TestPanicAnswered(t *testing.T) {
	g, p := roots(t)
	c := start(t, Config{GlobalDir: g, ProjectDir: p, messageHook: func(*messageParams) { panic("boom") }})
	done := make(chan reply, 1)
	go func() { done <- c.call("message", map[string]any{"sessionID": "s", "text": "hi"}) }()
	select {
	case r := <-done:
		if r.Error == nil || r.Error.Code != codeInternal || !strings.Contains(r.Error.Message, "internal error in message") {
			t.Errorf("reply %+v, want an internal error", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no reply to a request whose handler panicked")
	}
}
