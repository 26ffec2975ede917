package extract

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/opencode"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/store"
)

// fakeServer is an OpenCode server in memory: one user session, the
// models of TestChooseModel, and a scripted model.
type fakeServer struct {
	mu        sync.Mutex
	session   opencode.Session
	msgs      []opencode.Message
	providers *opencode.Providers
	agents    []opencode.Agent
	reply     func(n int, req opencode.PromptRequest) (string, error)
	fail      map[string]error // by method name
	isOwn     func(id string) bool

	calls       []string
	prompts     []opencode.PromptRequest
	created     []string
	deleted     []string
	ownAtPrompt []bool   // whether the session was marked own when prompted
	dirs        []string // the directory each Connect asked for
}

func newFakeServer() *fakeServer {
	return &fakeServer{
		session: opencode.Session{ID: "ses_user", Title: "fix the deploy", Directory: "/work/proj"},
		providers: providers(map[string]map[string]opencode.Model{"fake": {
			"expensive": fakeModel(15, 75, 200000),
			"cheap":     fakeModel(0.25, 1.25, 16000),
			"tiny":      fakeModel(0.01, 0.02, 4096),
		}}),
		agents: []opencode.Agent{{Name: "build", Mode: "primary"}, {Name: Agent, Mode: "primary", Hidden: true}},
		reply:  func(int, opencode.PromptRequest) (string, error) { return `{"memories": []}`, nil },
		fail:   map[string]error{},
	}
}

func (f *fakeServer) call(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, name)
	return f.fail[name]
}

func (f *fakeServer) Session(ctx context.Context, id string) (*opencode.Session, error) {
	if err := f.call("session"); err != nil {
		return nil, err
	}
	if id != f.session.ID {
		return nil, opencode.ErrNotFound
	}
	s := f.session
	return &s, nil
}

func (f *fakeServer) Messages(ctx context.Context, id, after string) ([]opencode.Message, error) {
	if err := f.call("messages"); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.msgs), nil
}

func (f *fakeServer) Providers(ctx context.Context) (*opencode.Providers, error) {
	if err := f.call("providers"); err != nil {
		return nil, err
	}
	return f.providers, nil
}

func (f *fakeServer) Agents(ctx context.Context) ([]opencode.Agent, error) {
	if err := f.call("agents"); err != nil {
		return nil, err
	}
	return f.agents, nil
}

func (f *fakeServer) CreateSession(ctx context.Context, s opencode.NewSession) (*opencode.Session, error) {
	if err := f.call("create"); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	id := fmt.Sprintf("ses_x%d", len(f.created))
	if s.Title != SessionTitle {
		return nil, fmt.Errorf("title %q", s.Title)
	}
	f.created = append(f.created, id)
	return &opencode.Session{ID: id, Title: s.Title}, nil
}

func (f *fakeServer) Prompt(ctx context.Context, id string, req opencode.PromptRequest) (*opencode.Reply, error) {
	if err := f.call("prompt"); err != nil {
		return nil, err
	}
	f.mu.Lock()
	n := len(f.prompts)
	f.prompts = append(f.prompts, req)
	f.ownAtPrompt = append(f.ownAtPrompt, f.isOwn != nil && f.isOwn(id))
	reply := f.reply
	f.mu.Unlock()
	text, err := reply(n, req)
	if err != nil {
		return nil, err
	}
	return &opencode.Reply{Parts: []opencode.Part{{Type: "text", Text: text}}}, nil
}

func (f *fakeServer) DeleteSession(ctx context.Context, id string) error {
	f.mu.Lock()
	f.deleted = append(f.deleted, id)
	f.mu.Unlock()
	return f.call("delete")
}

func (f *fakeServer) addTurns(n int, text func(i int) (string, string)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	start := len(f.msgs) / 2
	f.msgs = append(f.msgs, conversation(start+n, text)[2*start:]...)
}

func (f *fakeServer) count(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if c == name {
			n++
		}
	}
	return n
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	// onWrite, when set, sees each record as it is written.
	onWrite func(p []byte)
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.onWrite != nil {
		s.onWrite(p)
	}
	return s.b.Write(p)
}

// lines returns the log records whose msg starts with prefix.
func (s *syncBuffer) lines(prefix string) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(s.b.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(l), &rec) == nil && strings.HasPrefix(fmt.Sprint(rec["msg"]), prefix) {
			out = append(out, rec)
		}
	}
	return out
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type harness struct {
	t   *testing.T
	e   *engine.Engine
	srv *fakeServer
	x   *Extractor
	log *syncBuffer
	dir string // project memory root
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	tmp := t.TempDir()
	h := &harness{t: t, srv: newFakeServer(), log: &syncBuffer{}, dir: filepath.Join(tmp, "project", ".memory")}
	h.e = engine.New(engine.Config{GlobalDir: filepath.Join(tmp, "global"), ProjectDir: h.dir,
		Now: func() time.Time { return time.UnixMilli(1791512014824) }})
	var own sync.Map
	h.srv.isOwn = func(id string) bool { _, ok := own.Load(id); return ok }
	h.x = New(Config{
		Log: slog.New(slog.NewJSONHandler(h.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Connect: func(url, dir string) Server {
			h.srv.mu.Lock()
			h.srv.dirs = append(h.srv.dirs, dir)
			h.srv.mu.Unlock()
			return h.srv
		},
		MarkOwn: func(id string) { own.Store(id, true) },
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("log:\n%s", h.log)
		}
	})
	return h
}

func (h *harness) run(opts options.Options) Result {
	h.t.Helper()
	return h.x.Run(context.Background(), h.e, Request{SessionID: h.srv.session.ID, ServerURL: "http://127.0.0.1:4096/", Options: opts})
}

func (h *harness) cursor() string {
	return store.Root{Scope: store.Project, Dir: h.dir}.ReadState().Cursors[h.srv.session.ID]
}

// memories returns the memory files of the project root, by id.
func (h *harness) memories() map[string]*memory.Memory {
	h.t.Helper()
	h.e.Invalidate()
	snap, err := h.e.Load()
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[string]*memory.Memory{}
	for _, f := range snap.Files() {
		out[f.Memory.ID] = f.Memory
	}
	return out
}

func (h *harness) remember(req engine.RememberRequest) string {
	h.t.Helper()
	if req.Body == "" && req.Source != engine.FromExtraction {
		req.Body = "Body of: " + req.Summary // a memory without one is refused
	}
	w, err := h.e.Remember(req)
	if err != nil {
		h.t.Fatal(err)
	}
	return w.ID
}

func replyWith(cands ...Candidate) func(int, opencode.PromptRequest) (string, error) {
	b, _ := json.Marshal(map[string]any{"memories": cands})
	return func(int, opencode.PromptRequest) (string, error) { return string(b), nil }
}

var deployCandidate = Candidate{
	Category: "pitfalls", Kind: "pitfall", Summary: "Run database migrations before deploying",
	Highlight: "make migrate", LoadWhen: triggers{"deploy", "部署"}, Body: "The new version fails on the old schema.",
}

func deployTalk(i int) (string, string) {
	return []string{"the deploy failed", "部署失败了, table mismatch", "did you run make migrate before deploying?", "yes, that fixed it"}[i%4],
		fmt.Sprintf("answer %d", i)
}

func TestPolicy(t *testing.T) {
	tests := []struct {
		name       string
		turns      int
		opts       options.Options
		session    func(*opencode.Session)
		cursor     string // preset cursor
		remainder  bool
		wantSkip   string // substring; "" means a model was asked
		wantCursor string
	}{
		{name: "autoExtract off", turns: 4, opts: options.Options{NoAutoExtract: true}, wantSkip: "autoExtract is off"},
		{name: "under minTurns", turns: 3, wantSkip: "3 of minTurns 4"},
		{name: "minTurns reached", turns: 4, wantCursor: "msg_003b"},
		{name: "custom minTurns", turns: 2, opts: options.Options{MinTurns: 2}, wantCursor: "msg_001b"},
		{name: "custom minTurns not reached", turns: 5, opts: options.Options{MinTurns: 6}, wantSkip: "5 of minTurns 6"},
		{name: "own session by title", turns: 4, session: func(s *opencode.Session) { s.Title = SessionTitle }, wantSkip: "own extraction session"},
		{name: "subagent session", turns: 4, session: func(s *opencode.Session) { s.ParentID = "ses_parent" }, wantSkip: "subagent"},
		{name: "nothing new after the cursor", turns: 4, cursor: "msg_003b", wantSkip: "no new turns", wantCursor: "msg_003b"},
		// minTurns counts the turns since the last extraction: a long
		// session costs one model call per minTurns new turns.
		{name: "one new turn after the cursor", turns: 5, cursor: "msg_003b", wantSkip: "1 of minTurns 4 new user turns since the last extraction", wantCursor: "msg_003b"},
		{name: "minTurns new turns after the cursor", turns: 8, cursor: "msg_003b", wantCursor: "msg_007b"},
		// After the session stayed idle, fewer turns are taken.
		{name: "remainder after the cursor", turns: 5, cursor: "msg_003b", remainder: true, wantCursor: "msg_004b"},
		{name: "remainder of a short session", turns: 2, remainder: true, wantCursor: "msg_001b"},
		{name: "remainder, nothing new", turns: 4, cursor: "msg_003b", remainder: true, wantSkip: "no new turns", wantCursor: "msg_003b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.srv.addTurns(tt.turns, deployTalk)
			if tt.session != nil {
				tt.session(&h.srv.session)
			}
			if tt.cursor != "" {
				store.Root{Scope: store.Project, Dir: h.dir}.UpdateState(func(s *store.State) {
					s.Cursors = map[string]string{h.srv.session.ID: tt.cursor}
				})
			}
			res := h.x.Run(context.Background(), h.e, Request{SessionID: h.srv.session.ID, ServerURL: "http://127.0.0.1:4096/", Options: tt.opts, Remainder: tt.remainder})
			if tt.wantSkip != "" {
				if !strings.Contains(res.Skipped, tt.wantSkip) {
					t.Errorf("skipped %q, want %q", res.Skipped, tt.wantSkip)
				}
				if n := h.srv.count("prompt") + h.srv.count("create"); n != 0 {
					t.Errorf("skipped run created or prompted a session (%v)", h.srv.calls)
				}
				if len(h.log.lines("extraction skipped")) != 1 {
					t.Errorf("no log line for the skip")
				}
			} else if res.Skipped != "" || res.Err != nil {
				t.Fatalf("skipped %q, err %v", res.Skipped, res.Err)
			}
			if got := h.cursor(); got != tt.wantCursor {
				t.Errorf("cursor %q, want %q", got, tt.wantCursor)
			}
		})
	}
}

// A whole run: the prompt, the session it runs in, the memory written, the
// cursor, the log; then an idle without new turns asks nothing.
func TestRun(t *testing.T) {
	h := newHarness(t)
	related := h.remember(engine.RememberRequest{Category: "facts", Kind: "fact", Summary: "Deploys go through make deploy",
		LoadWhen: []string{"deploy", "部署"}, Source: engine.FromPerson})
	h.srv.addTurns(4, deployTalk)
	h.srv.reply = replyWith(deployCandidate)

	res := h.run(options.Options{})
	if res.Err != nil || res.Skipped != "" {
		t.Fatalf("result %+v", res)
	}
	if res.Model != "fake/cheap" {
		t.Errorf("model %s, want fake/cheap", res.Model)
	}
	w := res.Written()
	if len(w) != 1 || w[0].ID != "pitfalls/run-database-migrations-before-deploying" || w[0].Kind != memory.KindPitfall {
		t.Fatalf("written %+v", w)
	}
	m := h.memories()[w[0].ID]
	if m == nil || m.Highlight != "make migrate" || !slices.Equal(m.LoadWhen, []string{"deploy", "部署"}) || !strings.Contains(m.Body, "old schema") {
		t.Errorf("memory %+v", m)
	}
	if h.cursor() != "msg_003b" {
		t.Errorf("cursor %q", h.cursor())
	}

	// The prompt.
	if len(h.srv.prompts) != 1 {
		t.Fatalf("%d prompts", len(h.srv.prompts))
	}
	p := h.srv.prompts[0]
	if p.Model.String() != "fake/cheap" || p.Agent != Agent || !p.Tools["*"] == false || len(p.Tools) != 1 {
		t.Errorf("prompt model %s agent %q tools %v", p.Model, p.Agent, p.Tools)
	}
	if p.Tools["*"] {
		t.Errorf("tools are on: %v", p.Tools)
	}
	user := p.Parts[0].Text
	for _, want := range []string{"部署失败了", "[assistant]", "answer 3", "id: " + related, "Deploys go through make deploy"} {
		if !strings.Contains(user, want) {
			t.Errorf("prompt lacks %q:\n%s", want, user)
		}
	}
	for _, want := range []string{"load_when", "BOTH English and Chinese", `"rules" | "preferences" | "decisions" | "pitfalls" | "facts"`, "at most 5"} {
		if !strings.Contains(p.System, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	// Its own session: marked before the prompt, deleted after, in the
	// user's session's directory.
	if !slices.Equal(h.srv.ownAtPrompt, []bool{true}) {
		t.Errorf("session marked own before the prompt: %v", h.srv.ownAtPrompt)
	}
	if !slices.Equal(h.srv.deleted, h.srv.created) || len(h.srv.created) != 1 {
		t.Errorf("created %v, deleted %v", h.srv.created, h.srv.deleted)
	}
	if !slices.Contains(h.srv.dirs, "/work/proj") {
		t.Errorf("no call in the session's directory: %v", h.srv.dirs)
	}
	// The log: what was sent, what came back, what was written.
	if r := h.log.lines("extraction request"); len(r) != 1 || !strings.Contains(fmt.Sprint(r[0]["prompt"]), "部署失败了") || r[0]["system"] == nil {
		t.Errorf("request log %v", r)
	}
	if r := h.log.lines("extraction reply"); len(r) != 1 || !strings.Contains(fmt.Sprint(r[0]["reply"]), "Run database migrations") {
		t.Errorf("reply log %v", r)
	}
	if r := h.log.lines("extraction remembered"); len(r) != 1 || r[0]["id"] != w[0].ID {
		t.Errorf("remembered log %v", r)
	}
	if r := h.log.lines("extraction model"); len(r) != 1 || r[0]["model"] != "fake/cheap" {
		t.Errorf("model log %v", r)
	}

	// The same session idle again, nothing new: no model request.
	res = h.run(options.Options{})
	if !strings.Contains(res.Skipped, "no new turns") || len(h.srv.prompts) != 1 {
		t.Errorf("second idle: %+v, %d prompts", res, len(h.srv.prompts))
	}
	// A new turn: fewer than minTurns, it waits; once the session has
	// stayed idle, only it is sent, with the last exchange as context.
	h.srv.addTurns(1, func(int) (string, string) { return "we switched CI to GitHub Actions", "noted" })
	h.srv.reply = replyWith()
	if res = h.run(options.Options{}); !strings.Contains(res.Skipped, "1 of minTurns 4") || len(h.srv.prompts) != 1 {
		t.Errorf("one new turn: %+v, %d prompts", res, len(h.srv.prompts))
	}
	res = h.x.Run(context.Background(), h.e, Request{SessionID: h.srv.session.ID, ServerURL: "http://127.0.0.1:4096/", Remainder: true})
	if res.Err != nil || len(h.srv.prompts) != 2 || h.cursor() != "msg_004b" {
		t.Fatalf("third idle: %+v, %d prompts, cursor %s", res, len(h.srv.prompts), h.cursor())
	}
	third := h.srv.prompts[1].Parts[0].Text
	conv := third[strings.Index(third, "### New turns"):]
	if !strings.Contains(conv, "GitHub Actions") || strings.Contains(conv, "部署失败了") || !strings.Contains(third, "### Earlier") {
		t.Errorf("third prompt:\n%s", third)
	}
}

func TestNoHiddenAgent(t *testing.T) {
	h := newHarness(t)
	h.srv.agents = []opencode.Agent{{Name: "build"}}
	h.srv.addTurns(4, deployTalk)
	h.run(options.Options{})
	if len(h.srv.prompts) != 1 || h.srv.prompts[0].Agent != "" || h.srv.prompts[0].Tools["*"] {
		t.Errorf("prompts %+v", h.srv.prompts)
	}
}

func TestExtractModelOption(t *testing.T) {
	h := newHarness(t)
	h.srv.addTurns(4, deployTalk)
	h.run(options.Options{ExtractModel: &options.ModelRef{ProviderID: "fake", ID: "expensive"}})
	if len(h.srv.prompts) != 1 || h.srv.prompts[0].Model.String() != "fake/expensive" {
		t.Errorf("prompts %+v", h.srv.prompts)
	}
	// A model the server does not have: nothing asked, nothing advanced.
	h2 := newHarness(t)
	h2.srv.addTurns(4, deployTalk)
	res := h2.run(options.Options{ExtractModel: &options.ModelRef{ProviderID: "fake", ID: "gone"}})
	if res.Err == nil || len(h2.srv.prompts) != 0 || h2.cursor() != "" {
		t.Errorf("result %+v, prompts %d, cursor %q", res, len(h2.srv.prompts), h2.cursor())
	}
}

// Failures: never a loop, the session always deleted, the cursor moved as
// the package doc says.
func TestFailures(t *testing.T) {
	boom := &opencode.HTTPError{Method: "POST", Path: "/session/x/message", Status: 500, Body: "boom"}
	tests := []struct {
		name        string
		reply       func(int, opencode.PromptRequest) (string, error)
		fail        map[string]error
		wantCursors []string // after each of three idles (no new turns in between)
		wantPrompts int
		wantLog     string
		noWarn      bool // nothing logged at WARN or above
	}{
		{
			name:        "model error: one retry, then given up",
			reply:       func(int, opencode.PromptRequest) (string, error) { return "", boom },
			wantCursors: []string{"", "msg_003b", "msg_003b"}, wantPrompts: 2, wantLog: "extraction gave up",
		},
		{
			name: "time limit: same as an error",
			reply: func(int, opencode.PromptRequest) (string, error) {
				return "", fmt.Errorf("POST: %w", context.DeadlineExceeded)
			},
			wantCursors: []string{"", "msg_003b", "msg_003b"}, wantPrompts: 2, wantLog: "extraction failed",
		},
		{
			name: "error then success",
			reply: func(n int, _ opencode.PromptRequest) (string, error) {
				if n == 0 {
					return "", &opencode.ModelError{Name: "APIError", Message: "overloaded"}
				}
				return `{"memories": []}`, nil
			},
			wantCursors: []string{"", "msg_003b", "msg_003b"}, wantPrompts: 2, wantLog: "extraction will retry",
		},
		{
			name: "garbage reply: not sent again",
			reply: func(int, opencode.PromptRequest) (string, error) {
				return "Sure! Here are some thoughts about deploying.", nil
			},
			wantCursors: []string{"msg_003b", "msg_003b", "msg_003b"}, wantPrompts: 1, wantLog: "extraction reply unusable",
		},
		{
			name:        "session cannot be read: nothing sent",
			fail:        map[string]error{"session": opencode.ErrUnauthorized},
			wantCursors: []string{"", "", ""}, wantPrompts: 0, wantLog: "extraction failed",
		},
		{
			name:        "session cannot be created",
			fail:        map[string]error{"create": boom},
			wantCursors: []string{"", "msg_003b", "msg_003b"}, wantPrompts: 0, wantLog: "extraction failed",
		},
		{
			name:        "providers cannot be listed",
			fail:        map[string]error{"providers": boom},
			wantCursors: []string{"", "", ""}, wantPrompts: 0, wantLog: "extraction failed",
		},
		{
			// `opencode run` exits after its turn, closing the plugin's
			// connection while extraction reads the session: normal, not
			// a failure, and the turns wait for the next idle.
			name:        "OpenCode gone: stopped quietly",
			fail:        map[string]error{"messages": fmt.Errorf("GET /session/ses_user/message: plugin opencode.fetch: %w", ErrHostGone)},
			wantCursors: []string{"", "", ""}, wantPrompts: 0, wantLog: "extraction stopped", noWarn: true,
		},
		{
			name:        "delete fails: logged",
			fail:        map[string]error{"delete": boom},
			wantCursors: []string{"msg_003b", "msg_003b", "msg_003b"}, wantPrompts: 1, wantLog: "extraction session not deleted",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.srv.addTurns(4, deployTalk)
			if tt.reply != nil {
				h.srv.reply = tt.reply
			}
			h.srv.fail = tt.fail
			for i, want := range tt.wantCursors {
				res := h.run(options.Options{})
				if got := h.cursor(); got != want {
					t.Errorf("idle %d: cursor %q, want %q (result %+v)", i+1, got, want, res)
				}
			}
			if got := len(h.srv.prompts); got != tt.wantPrompts {
				t.Errorf("%d prompts, want %d", got, tt.wantPrompts)
			}
			if !slices.Equal(h.srv.created, h.srv.deleted) {
				t.Errorf("created %v, deleted %v", h.srv.created, h.srv.deleted)
			}
			if len(h.log.lines(tt.wantLog)) == 0 {
				t.Errorf("no log line %q", tt.wantLog)
			}
			if tt.noWarn {
				for _, l := range h.log.lines("") {
					if l["level"] != "INFO" && l["level"] != "DEBUG" {
						t.Errorf("logged at %v: %v", l["level"], l)
					}
				}
			}
			for _, l := range h.log.lines("extraction failed") {
				if l["session"] != "ses_user" {
					t.Errorf("failure logged without the session id: %v", l)
				}
			}
			if len(h.memories()) != 0 {
				t.Errorf("memories written: %v", h.memories())
			}
		})
	}
}

// What becomes of candidates: duplicates, updates, pinned, rules, secrets,
// the cap.
func TestCandidates(t *testing.T) {
	token := githubToken(t)
	tests := []struct {
		name    string
		setup   func(h *harness) map[string]string // named ids for the checks
		cands   []Candidate
		actions []Action
		check   func(t *testing.T, h *harness, ids map[string]string, res Result)
	}{
		{
			name:    "new memory",
			cands:   []Candidate{deployCandidate},
			actions: []Action{ActWrite},
		},
		{
			name: "duplicate skipped, logged with its match",
			setup: func(h *harness) map[string]string {
				return map[string]string{"old": h.remember(engine.RememberRequest{Category: "pitfalls", Kind: memory.KindPitfall,
					Summary: "Run the database migrations before you deploy", Highlight: "make migrate", LoadWhen: []string{"deploy", "部署"}, Source: engine.FromPerson})}
			},
			cands:   []Candidate{deployCandidate},
			actions: []Action{ActDuplicate},
			check: func(t *testing.T, h *harness, ids map[string]string, res Result) {
				l := h.log.lines("extraction candidate skipped")
				if len(l) != 1 || l[0]["match"] != "project:"+ids["old"] || l[0]["action"] != "duplicate" {
					t.Errorf("log %v", l)
				}
				if len(h.memories()) != 1 {
					t.Errorf("memories %v", h.memories())
				}
			},
		},
		{
			name:    "duplicate within one reply",
			cands:   []Candidate{deployCandidate, deployCandidate},
			actions: []Action{ActWrite, ActDuplicate},
		},
		{
			name: "update supersedes",
			setup: func(h *harness) map[string]string {
				return map[string]string{"old": h.remember(engine.RememberRequest{Category: "preferences", Kind: memory.KindPreference,
					Summary: "Use pnpm 8 for installs", Highlight: "pnpm install", LoadWhen: []string{"pnpm", "package manager", "包管理器"}, Source: engine.FromPerson})}
			},
			cands:   []Candidate{{Category: "preferences", Kind: "preference", Summary: "Use pnpm 9 for installs", Highlight: "pnpm install", LoadWhen: triggers{"pnpm", "package manager", "包管理器"}}},
			actions: []Action{ActSupersede},
			check: func(t *testing.T, h *harness, ids map[string]string, res Result) {
				w := res.Written()[0]
				mems := h.memories()
				if w.Superseded != ids["old"] || mems[ids["old"]].SupersededBy != w.ID || mems[w.ID].Supersedes != ids["old"] {
					t.Errorf("written %+v; old %+v", w, mems[ids["old"]])
				}
			},
		},
		{
			name: "a rich update the model names marks the old one superseded",
			setup: func(h *harness) map[string]string {
				return map[string]string{"old": h.remember(engine.RememberRequest{Category: "decisions", Kind: memory.KindDecision,
					Summary: "We build with npm", Highlight: "npm ci", LoadWhen: []string{"npm", "build", "package manager"}, Source: engine.FromPerson})}
			},
			cands: []Candidate{{Category: "decisions", Kind: "decision", Summary: "We switched from npm to pnpm", Highlight: "pnpm install --frozen-lockfile",
				LoadWhen:   triggers{"pnpm", "npm", "package manager", "包管理器", "install dependencies", "安装依赖", "lockfile", "锁文件"},
				Body:       "npm's flat node_modules let the admin UI import packages it never declared. pnpm's strict layout catches that.",
				Supersedes: "decisions/we-build-npm"}},
			actions: []Action{ActSupersede},
			check: func(t *testing.T, h *harness, ids map[string]string, res Result) {
				w := res.Written()[0]
				if old := h.memories()[ids["old"]]; w.Superseded != ids["old"] || old.SupersededBy != w.ID {
					t.Errorf("written %+v; old %+v", w, old)
				}
			},
		},
		{
			name: "pinned memory left alone",
			setup: func(h *harness) map[string]string {
				return map[string]string{"pinned": h.remember(engine.RememberRequest{Category: "decisions", Kind: memory.KindDecision, Pinned: true,
					Summary: "The API is versioned in the URL path", Highlight: "/v1/", LoadWhen: []string{"API versioning", "接口版本"}, Source: engine.FromPerson})}
			},
			cands: []Candidate{{Category: "decisions", Kind: "decision", Summary: "The API is versioned in a request header", Highlight: "Accept-Version",
				LoadWhen: triggers{"API versioning", "接口版本"}, Supersedes: "decisions/the-api-is-versioned-in-the-url-path"}},
			actions: []Action{ActPinned},
			check: func(t *testing.T, h *harness, ids map[string]string, res Result) {
				mems := h.memories()
				if len(mems) != 1 || mems[ids["pinned"]].SupersededBy != "" {
					t.Errorf("memories %v", mems)
				}
				l := h.log.lines("extraction candidate left for a person")
				if len(l) != 1 || !strings.Contains(fmt.Sprint(l[0]["candidate"]), "Accept-Version") || l[0]["level"] != "WARN" {
					t.Errorf("log %v", l)
				}
			},
		},
		{
			name:    "rule becomes a proposal",
			cands:   []Candidate{{Category: "rules", Kind: "rule", Summary: "Never force-push to main", LoadWhen: triggers{"git push", "推送"}}},
			actions: []Action{ActWrite},
			check: func(t *testing.T, h *harness, ids map[string]string, res Result) {
				w := res.Written()[0]
				if w.Kind != memory.KindRuleProposal || h.memories()[w.ID].Kind != memory.KindRuleProposal {
					t.Errorf("written %+v", w)
				}
				if l := h.log.lines("extraction remembered"); len(l) != 1 || l[0]["downgraded"] == nil {
					t.Errorf("log %v", l)
				}
			},
		},
		{
			// "Never …" makes the decision a rule; its guards go into the
			// proposal's file in the model's order (the last match
			// decides, so "allow" after "deny" must stay after it).
			name: "a rule's guards go into the proposal",
			cands: []Candidate{{Category: "decisions", Kind: "decision", Summary: "Never run terraform apply by hand",
				Body: "The pipeline applies; a hand apply races it.", LoadWhen: triggers{"terraform"},
				Enforce: json.RawMessage(`{"bash": {"terraform apply*": "deny", "terraform apply -target=dev*": "allow"}, "edit": {"infra/state/**": "ask"}}`)}},
			actions: []Action{ActWrite},
			check: func(t *testing.T, h *harness, ids map[string]string, res Result) {
				w := res.Written()[0]
				m := h.memories()[w.ID]
				want := []memory.Guard{{Tool: "bash", Pattern: "terraform apply*", Action: "deny"},
					{Tool: "bash", Pattern: "terraform apply -target=dev*", Action: "allow"}, {Tool: "edit", Pattern: "infra/state/**", Action: "ask"}}
				if w.Kind != memory.KindRuleProposal || m.Kind != memory.KindRuleProposal || !slices.Equal(m.Enforce, want) {
					t.Errorf("written %+v, guards %+v; want a rule proposal with %+v", w, m.Enforce, want)
				}
				if v, err := h.e.Check(engine.ToolCall{Tool: "bash", Args: map[string]any{"command": "terraform apply"}}); err != nil || v.Stopped() {
					t.Errorf("a proposal's guard: %+v, %v", v, err)
				}
			},
		},
		{
			name: "guards refused whole, and on a memory that is not a rule",
			cands: []Candidate{
				{Category: "rules", Kind: "rule", Summary: "Never delete the cache", Enforce: json.RawMessage(`{"bash": {"rm -rf .cache*": "deny", "rm *": "block"}}`)},
				{Category: "pitfalls", Kind: "pitfall", Summary: "The cache breaks on NFS", Enforce: json.RawMessage(`{"bash": {"rm *": "deny"}}`)},
			},
			actions: []Action{ActInvalid, ActInvalid},
			check: func(t *testing.T, h *harness, ids map[string]string, res Result) {
				if len(h.memories()) != 0 {
					t.Errorf("memories %v", h.memories())
				}
				if r := res.Decisions[0].Reason; !strings.Contains(r, `want deny, ask or allow, got "block"`) {
					t.Errorf("reason %q", r)
				}
				if r := res.Decisions[1].Reason; !strings.Contains(r, "enforce is for a rule only") {
					t.Errorf("reason %q", r)
				}
			},
		},
		{
			name: "secret refused, the rest written",
			cands: []Candidate{
				{Category: "facts", Kind: "fact", Summary: "The deploy token", Body: "Use " + token + " to deploy."},
				deployCandidate,
			},
			actions: []Action{ActRefused, ActWrite},
			check: func(t *testing.T, h *harness, ids map[string]string, res Result) {
				if len(h.memories()) != 1 {
					t.Errorf("memories %v", h.memories())
				}
				if strings.Contains(h.log.String(), token) {
					t.Errorf("the log holds the token")
				}
				if l := h.log.lines("extraction candidate refused"); len(l) != 1 || !strings.Contains(fmt.Sprint(l[0]["reason"]), "secret") {
					t.Errorf("log %v", l)
				}
			},
		},
		{
			name: "what must not sync is skipped, with its reason",
			cands: []Candidate{
				{Category: "facts", Kind: "fact", Summary: "The retry work is on branch feature/retry-loop", LoadWhen: triggers{"retry"}},
				{Category: "facts", Kind: "fact", Summary: "The service checkout lives in /Users/alice/src/orders", LoadWhen: triggers{"checkout"}},
				{Category: "facts", Kind: "fact", Summary: "The README is still TODO, continue tomorrow", LoadWhen: triggers{"README"}},
				{Category: "facts", Kind: "fact", Summary: "README 还没写，明天继续", LoadWhen: triggers{"README", "文档"}},
				{Category: "facts", Kind: "fact", Summary: "Pushing needs a GitHub token", Highlight: "GITHUB_TOKEN=ghp_xxxxxxxxxxxx", LoadWhen: triggers{"push"}},
				deployCandidate,
			},
			actions: []Action{ActMustNotSync, ActMustNotSync, ActMustNotSync, ActMustNotSync, ActMustNotSync, ActWrite},
			check: func(t *testing.T, h *harness, ids map[string]string, res Result) {
				if len(h.memories()) != 1 {
					t.Errorf("memories %v", h.memories())
				}
				l := h.log.lines("extraction candidate skipped")
				want := []string{"the current branch", "a local path", "task state", "task state", "a token"}
				if len(l) != len(want) {
					t.Fatalf("log %v", l)
				}
				for i, w := range want {
					if l[i]["action"] != "must-not-sync" || !strings.Contains(fmt.Sprint(l[i]["reason"]), w) {
						t.Errorf("line %d: %v, want the reason %q", i, l[i], w)
					}
				}
			},
		},
		{
			name: "the cap counts written memories only",
			cands: func() []Candidate {
				cs := []Candidate{deployCandidate, deployCandidate}
				for i := range MaxCandidates {
					cs = append(cs, Candidate{Category: "facts", Kind: "fact", Summary: fmt.Sprintf("Service %c listens on its own queue", 'A'+i), LoadWhen: triggers{fmt.Sprintf("svc%c", 'a'+i)}})
				}
				return cs
			}(),
			actions: []Action{ActWrite, ActDuplicate, ActWrite, ActWrite, ActWrite, ActWrite, ActOverCap},
		},
		{
			name:    "a user preference goes to the global root",
			cands:   []Candidate{{Category: "preferences", Kind: "preference", Scope: "user", Summary: "The user wants answers in Chinese", LoadWhen: triggers{"language", "语言"}}},
			actions: []Action{ActWrite},
			check: func(t *testing.T, h *harness, ids map[string]string, res Result) {
				global := filepath.Join(filepath.Dir(filepath.Dir(h.dir)), "global")
				if w := res.Written()[0]; w.Scope != store.Global || !strings.HasPrefix(w.Path, global+string(filepath.Separator)) {
					t.Errorf("written %+v, want the global root", w)
				}
			},
		},
		{
			name:    "a never rule answered as a fact is a proposal",
			cands:   []Candidate{{Category: "facts", Kind: "fact", Summary: "Never commit the generated mocks", LoadWhen: triggers{"mocks", "commit"}}},
			actions: []Action{ActWrite},
			check: func(t *testing.T, h *harness, ids map[string]string, res Result) {
				if w := res.Written()[0]; w.Kind != memory.KindRuleProposal || !strings.HasPrefix(w.ID, "rules/") {
					t.Errorf("written %+v", w)
				}
			},
		},
		{
			name:    "a convention is a decision, said in the log",
			cands:   []Candidate{{Category: "conventions", Kind: "convention", Summary: "Commit subjects follow Conventional Commits", LoadWhen: triggers{"commit message", "提交信息"}}},
			actions: []Action{ActWrite},
			check: func(t *testing.T, h *harness, ids map[string]string, res Result) {
				if w := res.Written()[0]; w.Kind != memory.KindDecision || !strings.HasPrefix(w.ID, "decisions/") {
					t.Errorf("written %+v", w)
				}
				if l := h.log.lines("extraction remembered"); len(l) != 1 || !strings.Contains(fmt.Sprint(l[0]["notes"]), `kind "convention" read as "decision"`) {
					t.Errorf("log %v", l)
				}
			},
		},
		{
			name: "invalid and over the cap",
			cands: func() []Candidate {
				cs := []Candidate{{Kind: "todo", Summary: "x"}}
				for i := range MaxCandidates + 2 {
					cs = append(cs, Candidate{Category: "facts", Kind: "fact", Summary: fmt.Sprintf("Service %c listens on its own queue", 'A'+i), LoadWhen: triggers{fmt.Sprintf("svc%c", 'a'+i)}})
				}
				return cs
			}(),
			actions: []Action{ActInvalid, ActWrite, ActWrite, ActWrite, ActWrite, ActWrite, ActOverCap, ActOverCap},
			check: func(t *testing.T, h *harness, ids map[string]string, res Result) {
				if len(h.memories()) != MaxCandidates {
					t.Errorf("%d memories, want %d", len(h.memories()), MaxCandidates)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			var ids map[string]string
			if tt.setup != nil {
				ids = tt.setup(h)
			}
			h.srv.addTurns(4, deployTalk)
			h.srv.reply = replyWith(tt.cands...)
			res := h.run(options.Options{})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			var got []Action
			for _, d := range res.Decisions {
				got = append(got, d.Action)
			}
			if !slices.Equal(got, tt.actions) {
				t.Fatalf("actions %v, want %v (%+v)", got, tt.actions, res.Decisions)
			}
			if h.cursor() != "msg_003b" {
				t.Errorf("cursor %q", h.cursor())
			}
			if tt.check != nil {
				tt.check(t, h, ids, res)
			}
		})
	}
}

// An idle during a run waits for it and then runs once, with the turns that
// came meanwhile; the same turns are never sent twice.
func TestIdleDuringRun(t *testing.T) {
	h := newHarness(t)
	h.srv.addTurns(4, deployTalk)
	release := make(chan struct{})
	started := make(chan struct{}, 2)
	h.srv.reply = func(n int, _ opencode.PromptRequest) (string, error) {
		started <- struct{}{}
		if n == 0 {
			<-release
		}
		return `{"memories": []}`, nil
	}
	done := make(chan Result)
	go func() { done <- h.run(options.Options{MinTurns: 1}) }()
	<-started
	h.srv.addTurns(1, func(int) (string, string) { return "one more thing: CI is GitHub Actions now", "ok" })
	if res := h.run(options.Options{MinTurns: 1}); !strings.Contains(res.Skipped, "running") {
		t.Errorf("idle during the run: %+v", res)
	}
	if res := h.run(options.Options{MinTurns: 1}); !strings.Contains(res.Skipped, "running") {
		t.Errorf("second idle during the run: %+v", res)
	}
	close(release)
	<-done
	if len(h.srv.prompts) != 2 {
		t.Fatalf("%d prompts, want 2 (the run, then the queued idle once)", len(h.srv.prompts))
	}
	second := h.srv.prompts[1].Parts[0].Text
	second = second[strings.Index(second, "### New turns"):]
	if !strings.Contains(second, "GitHub Actions") || strings.Contains(second, "部署失败了") {
		t.Errorf("queued run sent:\n%s", second)
	}
	if h.cursor() != "msg_004b" {
		t.Errorf("cursor %q", h.cursor())
	}
}

// Sessions the extractor created are never extracted from, even when the
// server is not the one that would filter them.
func TestOwnSessionNeverExtracted(t *testing.T) {
	h := newHarness(t)
	h.srv.addTurns(4, deployTalk)
	h.run(options.Options{})
	own := h.srv.created[0]
	res := h.x.Run(context.Background(), h.e, Request{SessionID: own, ServerURL: "http://x", Options: options.Options{}})
	if !strings.Contains(res.Skipped, "own") || h.srv.count("session") != 1 {
		t.Errorf("result %+v, calls %v", res, h.srv.calls)
	}
}

// TestOtherProjectsSessionSkipped: an idle for a session of another
// project's directory (heard by every plugin instance of an OpenCode 2
// service) is not extracted: no model call, no write, no cursor; the
// project's own session is.
func TestOtherProjectsSessionSkipped(t *testing.T) {
	h := newHarness(t)
	h.srv.addTurns(4, deployTalk)
	h.srv.reply = replyWith(deployCandidate)
	owns := func(dir string) bool { return dir == "/work/proj" }
	h.srv.session.Directory = "/home/u/other"
	res := h.x.Run(context.Background(), h.e, Request{SessionID: "ses_user", ServerURL: "http://x", Owns: owns})
	if !strings.Contains(res.Skipped, "another project's session") || len(h.srv.prompts) != 0 || len(res.Written()) != 0 || h.cursor() != "" {
		t.Fatalf("another project's session: result %+v, %d prompts, cursor %q", res, len(h.srv.prompts), h.cursor())
	}
	h.srv.session.Directory = "/work/proj"
	res = h.x.Run(context.Background(), h.e, Request{SessionID: "ses_user", ServerURL: "http://x", Owns: owns})
	if res.Skipped != "" || len(res.Written()) != 1 {
		t.Errorf("the project's own session: result %+v", res)
	}
}

// githubToken makes a GitHub token of the real shape at test time:
// "ghp_" and 36 random letters and digits.
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

func TestGlobalCursorWithoutProject(t *testing.T) {
	tmp := t.TempDir()
	h := newHarness(t)
	h.e = engine.New(engine.Config{GlobalDir: filepath.Join(tmp, "global")})
	h.srv.addTurns(4, deployTalk)
	h.srv.reply = replyWith(deployCandidate)
	res := h.run(options.Options{})
	if len(res.Written()) != 1 || res.Written()[0].Scope != store.Global {
		t.Fatalf("result %+v", res)
	}
	st := store.Root{Scope: store.Global, Dir: filepath.Join(tmp, "global")}.ReadState()
	if st.Cursors["ses_user"] != "msg_003b" {
		t.Errorf("global cursors %v", st.Cursors)
	}
	if _, err := os.Stat(h.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a project root was created: %v", err)
	}
}

// A model that answers, correctly, that nothing is worth remembering is
// not a failure: INFO, not a warning, whether it says so in JSON or in
// prose, after thinking or not.
func TestNothingToRemember(t *testing.T) {
	for _, reply := range []string{
		`{"memories": []}`,
		"<think>The user only asked a question. {\"memories\": [{\"kind\":\"fact\",\"summary\":\"draft\"}]} is wrong.</think>\n{\"memories\": []}",
		"Nothing in this conversation is worth remembering.",
	} {
		h := newHarness(t)
		h.srv.addTurns(4, deployTalk)
		h.srv.reply = func(int, opencode.PromptRequest) (string, error) { return reply, nil }
		res := h.run(options.Options{})
		if res.Err != nil || len(res.Decisions) != 0 {
			t.Errorf("%q: %+v", reply, res)
		}
		if l := h.log.lines("extraction: the model found nothing worth remembering"); len(l) != 1 || l[0]["level"] != "INFO" {
			t.Errorf("%q: log %v", reply, l)
		}
		if strings.Contains(h.log.String(), `"level":"WARN"`) {
			t.Errorf("%q: a warning in the log:\n%s", reply, h.log)
		}
		if h.cursor() != "msg_003b" {
			t.Errorf("%q: cursor %q", reply, h.cursor())
		}
	}
}

// The prompt shows the memories each turn touches, not only those of the
// turns' words together, with the date and scope that tell the model which
// of two is current.
func TestRelatedMemoriesPerTurn(t *testing.T) {
	h := newHarness(t)
	ids := []string{
		h.remember(engine.RememberRequest{Category: "facts", Kind: "fact", Summary: "Deploys go through make deploy", LoadWhen: []string{"deploy", "部署"}, Source: engine.FromPerson}),
		h.remember(engine.RememberRequest{Category: "pitfalls", Kind: "pitfall", Summary: "Integration tests need Docker running", LoadWhen: []string{"integration tests", "docker"}, Source: engine.FromPerson}),
		h.remember(engine.RememberRequest{Category: "decisions", Kind: "decision", Summary: "Commit subjects follow Conventional Commits", LoadWhen: []string{"commit message", "提交信息"}, Source: engine.FromPerson}),
		h.remember(engine.RememberRequest{Scope: store.Global, Category: "preferences", Kind: "preference", Summary: "Answer the user in Chinese", LoadWhen: []string{"language", "语言"}, Source: engine.FromPerson}),
	}
	talk := []string{
		"the deploy failed again, what does make deploy do first?",
		"and the integration tests fail too: is docker needed for them?",
		"how should I write the commit message for this fix?",
		"please answer in Chinese from now on, whatever the language of the question",
	}
	h.srv.addTurns(4, func(i int) (string, string) { return talk[i], fmt.Sprintf("answer %d", i) })
	res := h.run(options.Options{})
	if res.Err != nil || len(h.srv.prompts) != 1 {
		t.Fatalf("result %+v, %d prompts", res, len(h.srv.prompts))
	}
	user := h.srv.prompts[0].Parts[0].Text
	for _, id := range ids {
		if !strings.Contains(user, "id: "+id) {
			t.Errorf("prompt lacks %s:\n%s", id, user)
		}
	}
	for _, want := range []string{"updated: 2026-10-", "scope: user", "scope: project"} {
		if !strings.Contains(user, want) {
			t.Errorf("prompt lacks %q:\n%s", want, user)
		}
	}
}

// A session's pending mark (MarkPending, set by serve at each idle) stays
// while its turns wait for minTurns or a run fails, and goes once a run has
// taken them or found none, so that a later serve resumes only sessions
// whose turns were never taken.
func TestPendingSettled(t *testing.T) {
	h := newHarness(t)
	id := h.srv.session.ID
	pending := func() bool { _, ok := PendingSessions(h.e)[id]; return ok }
	at := time.Unix(1791512000, 0)
	if err := MarkPending(h.e, id, at); err != nil {
		t.Fatal(err)
	}
	if got := PendingSessions(h.e)[id]; !got.Equal(at) {
		t.Fatalf("pending since %v, want %v", got, at)
	}
	h.srv.addTurns(1, deployTalk)
	h.srv.reply = replyWith()
	if res := h.run(options.Options{}); !res.Waiting || !pending() {
		t.Errorf("waiting for minTurns: %+v, pending %v", res, pending())
	}
	h.srv.fail = map[string]error{"messages": errors.New("boom")}
	req := Request{SessionID: id, ServerURL: "http://127.0.0.1:4096/", Remainder: true}
	if res := h.x.Run(context.Background(), h.e, req); res.Err == nil || !pending() {
		t.Errorf("a failed run: %+v, pending %v", res, pending())
	}
	h.srv.fail = map[string]error{}
	if res := h.x.Run(context.Background(), h.e, req); res.Err != nil || res.Skipped != "" || pending() {
		t.Errorf("the remainder taken: %+v, pending %v", res, pending())
	}
	// Marked again at the next idle, with nothing new: settled too.
	if err := MarkPending(h.e, id, at); err != nil {
		t.Fatal(err)
	}
	if res := h.run(options.Options{}); !strings.Contains(res.Skipped, "no new turns") || pending() {
		t.Errorf("nothing new: %+v, pending %v", res, pending())
	}
	// A session OpenCode no longer has (deleted) is not tried again.
	if err := MarkPending(h.e, id, at); err != nil {
		t.Fatal(err)
	}
	h.srv.fail = map[string]error{"session": fmt.Errorf("GET /session/%s: %w", id, opencode.ErrNotFound)}
	if res := h.x.Run(context.Background(), h.e, req); res.Err == nil || pending() {
		t.Errorf("a deleted session: %+v, pending %v", res, pending())
	}
}

func TestResultNotice(t *testing.T) {
	decided := func(ws ...*engine.Written) Result {
		var r Result
		for _, w := range ws {
			r.Decisions = append(r.Decisions, Decision{Written: w})
		}
		r.Decisions = append(r.Decisions, Decision{}) // a candidate not written
		return r
	}
	for _, c := range []struct {
		res  Result
		want string
	}{
		{Result{}, ""},
		{decided(), ""},
		{decided(&engine.Written{Scope: "project", ID: "pitfalls/a", Kind: "pitfall"}, &engine.Written{Scope: "global", ID: "facts/b", Kind: "fact"}),
			"remembered from this session: project:pitfalls/a, global:facts/b"},
		{decided(&engine.Written{Scope: "project", ID: "rules/r", Kind: "rule-proposal"}, &engine.Written{Scope: "project", ID: "facts/c", Kind: "fact"}),
			"remembered from this session: project:facts/c; rule proposal(s) waiting for you: project:rules/r (`ocmem rules`)"},
	} {
		if got := c.res.Notice(); got != c.want {
			t.Errorf("Notice() = %q, want %q", got, c.want)
		}
	}
}
