// Package extract is ocmem's automatic extraction (SPEC §6): when an
// OpenCode session goes idle, it reads the turns since the session's last
// extraction, asks a cheap model through the OpenCode server for candidate
// memories, and writes those worth keeping through the engine.
//
//	x := extract.New(extract.Config{Log: log, MarkOwn: serve.MarkOwnSession})
//	res := x.Run(ctx, eng, extract.Request{SessionID: id, ServerURL: url, Options: eng.Options()})
//
// The policy, in order: nothing happens with autoExtract off, for ocmem's
// own sessions or a subagent's, before the session has minTurns user turns
// since the last extraction (fewer are taken once the session has stayed
// idle: Request.Remainder), or without new turns since the cursor. The model is extractModel or the
// cheapest suitable one (model.go). The prompt shows the memories the turns
// touch. Each candidate is checked (parse.go), compared with every memory
// (decide.go: duplicate, update, pinned) and written with
// engine.Remember(FromExtraction), which turns rules into rule proposals
// and refuses secrets. Everything is logged: what the model was sent, what
// it answered, and what became of each candidate. After the writes, the
// memories given in the turns read whose anchored code changed or went are
// re-checked by the same model (recheck.go).
//
// The cursor (the id of the last message extracted from, in .state.json of
// the project root, else the global root) moves when a run completes,
// whatever it wrote. After a parse failure it moves too: the model has
// seen those turns, and sending them again would most likely buy the same
// answer. After a failure to reach the model (HTTP error, time limit,
// provider error) it stays, so the next idle tries again, once: a second
// failure from the same cursor moves it past those turns, and the next
// run starts from what follows. Failures are never retried in a loop.
package extract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/opencode"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/secrets"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/toolspec"
)

const (
	// DefaultRunTimeout bounds a whole run: reading the session, the model
	// call (opencode.DefaultTimeout at most) and the writes.
	DefaultRunTimeout = 60 * time.Second
	// MaxCandidates is the most memories one run writes. A handful of turns
	// rarely holds more durable facts than this; a model returning more is
	// summarizing the conversation, not picking from it.
	MaxCandidates = 5
	// MaxAttempts is how many times the same turns are sent to a model that
	// failed to answer: the first idle and one retry on the next.
	MaxAttempts = 2
	// SessionTitle names the sessions extraction creates. Sessions with this
	// title are never extracted from, even ones a previous ocmem process
	// created and could not delete.
	SessionTitle = "ocmem extraction"
	// Agent is the hidden, tool-less agent the plugin registers for
	// extraction; without it the server's default agent runs, with its long
	// system prompt but still without tools.
	Agent = toolspec.ExtractAgent
	// cleanupTimeout bounds deleting the extraction session, which runs
	// even when the run's own time is up.
	cleanupTimeout = 10 * time.Second
)

// Server is the part of the OpenCode server extraction uses;
// *opencode.Client implements it.
type Server interface {
	Session(ctx context.Context, id string) (*opencode.Session, error)
	Messages(ctx context.Context, sessionID, after string) ([]opencode.Message, error)
	Providers(ctx context.Context) (*opencode.Providers, error)
	Agents(ctx context.Context) ([]opencode.Agent, error)
	CreateSession(ctx context.Context, s opencode.NewSession) (*opencode.Session, error)
	Prompt(ctx context.Context, sessionID string, req opencode.PromptRequest) (*opencode.Reply, error)
	DeleteSession(ctx context.Context, id string) error
}

// Config configures an Extractor. The zero value works: it logs nowhere and
// talks to the server with an *opencode.Client without credentials.
type Config struct {
	Log *slog.Logger
	// Connect returns the server at url; directory, when set, is the
	// project instance the calls are about (see opencode.Client.Directory).
	Connect func(url, directory string) Server
	// MarkOwn is told the id of each session extraction creates, before
	// anything is sent to it, so that the hooks OpenCode runs for it inject
	// nothing and its own idle is never extracted from.
	MarkOwn func(sessionID string)
	// RunTimeout bounds one run; zero means DefaultRunTimeout.
	RunTimeout time.Duration
}

// Request is one idle session.
type Request struct {
	SessionID string
	ServerURL string
	Options   options.Options
	// Connect, when set, replaces Config.Connect for this request (e.g.
	// to reach the server through the plugin rather than over HTTP).
	Connect func(url, directory string) Server
	// Remainder takes the new turns even when they are fewer than
	// minTurns: the session has stayed idle, and they would otherwise wait
	// for turns that may never come.
	Remainder bool
	// Owns, when set, reports whether a session of directory dir belongs
	// to the engine's project; another project's session is left to that
	// project (its own idle extracts it), so no turn is extracted twice,
	// nor into a root it does not belong to.
	Owns func(dir string) bool
	// CodeDir is the worktree the session runs in, where the idle
	// re-check reads and verifies the anchored code: a linked worktree on
	// another branch has its own files and HEAD. "" is the engine's own.
	CodeDir string
}

// Result says what a run did.
type Result struct {
	Skipped   string     // why nothing was sent to a model; "" when something was
	Waiting   bool       // skipped for fewer than minTurns new turns: they wait for more
	Model     string     // "provider/model" asked
	Turns     int        // new user turns sent
	Decisions []Decision // what became of each candidate
	Cursor    string     // the session's cursor after the run
	Err       error      // the failure that ended the run early, if any
	// Rechecked are the stale memories given in the turns read, re-checked
	// by the model after the extraction (recheck.go).
	Rechecked []Rechecked
}

// Written returns the memories the run wrote, its re-checks' among them.
func (r Result) Written() []*engine.Written {
	var out []*engine.Written
	for _, d := range r.Decisions {
		if d.Written != nil {
			out = append(out, d.Written)
		}
	}
	for _, c := range r.Rechecked {
		if c.Written != nil {
			out = append(out, c.Written)
		}
	}
	return out
}

// Notice is what the person is told about the run's writes: the memories,
// and the rule proposals that wait for them; "" when it wrote nothing.
func (r Result) Notice() string {
	var mems, rules []string
	for _, w := range r.Written() {
		key := string(w.Scope) + ":" + w.ID
		if w.Kind == engine.KindRuleProposal {
			rules = append(rules, key)
		} else {
			mems = append(mems, key)
		}
	}
	var parts []string
	if len(mems) > 0 {
		parts = append(parts, "remembered from this session: "+strings.Join(mems, ", "))
	}
	if len(rules) > 0 {
		parts = append(parts, "rule proposal(s) waiting for you: "+strings.Join(rules, ", ")+" (`ocmem rules`)")
	}
	return strings.Join(parts, "; ")
}

// Extractor runs extractions. It is safe for concurrent use and meant to
// live as long as the serve process: it remembers the sessions it created,
// the runs in progress and the failed attempts.
type Extractor struct {
	cfg Config
	log *slog.Logger

	mu       sync.Mutex
	own      map[string]bool
	running  map[string]*queued // session → the idle that came during its run
	failures map[string]failure // session → failed model attempts
	titles   map[string]string  // session → the title last logged
	// rechecked holds each state of a memory's code already re-checked
	// (recheck.go).
	rechecked map[string]bool
}

type queued struct {
	e   *engine.Engine
	req Request
}

// failure counts failed model attempts from one cursor.
type failure struct {
	cursor   string
	attempts int
}

// New returns an Extractor.
func New(cfg Config) *Extractor {
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.Connect == nil {
		cfg.Connect = func(url, dir string) Server { return &opencode.Client{BaseURL: url, Directory: dir} }
	}
	if cfg.RunTimeout <= 0 {
		cfg.RunTimeout = DefaultRunTimeout
	}
	return &Extractor{cfg: cfg, log: log, own: map[string]bool{}, running: map[string]*queued{}, failures: map[string]failure{}, titles: map[string]string{}}
}

// Run extracts from one idle session. It never panics on bad input and
// never returns an error: failures are logged and reported in the Result.
// An idle that arrives while the same session is being extracted is
// queued, and runs once the current run is over, so two runs never send
// the same turns.
func (x *Extractor) Run(ctx context.Context, e *engine.Engine, req Request) Result {
	id := req.SessionID
	x.mu.Lock()
	if x.own[id] {
		x.mu.Unlock()
		return x.skip(req, "ocmem's own extraction session")
	}
	if _, busy := x.running[id]; busy {
		x.running[id] = &queued{e, req}
		x.mu.Unlock()
		return x.skip(req, "an extraction of this session is running; this idle runs after it")
	}
	x.running[id] = nil
	x.mu.Unlock()
	for {
		res := x.run(ctx, e, req)
		x.settlePending(e, req, res)
		x.mu.Lock()
		next := x.running[id]
		if next == nil {
			delete(x.running, id)
			x.mu.Unlock()
			return res
		}
		x.running[id] = nil
		x.mu.Unlock()
		e, req = next.e, next.req
	}
}

func (x *Extractor) skip(req Request, why string) Result {
	x.log.Info("extraction skipped", "session", req.SessionID, "reason", why)
	return Result{Skipped: why}
}

// ErrHostGone is what a request to OpenCode fails with when the process
// that asked for the extraction went away before answering: the plugin's
// connection closed, as it does when `opencode run` exits after its turn.
// serve's plugin transport returns it.
var ErrHostGone = errors.New("plugin connection closed")

func (x *Extractor) fail(req Request, res Result, stage string, err error) Result {
	if errors.Is(err, ErrHostGone) {
		x.log.Info("extraction stopped", "session", req.SessionID, "stage", stage,
			"why", "OpenCode went away before it answered (normal when `opencode run` exits after its turn)")
	} else {
		x.log.Warn("extraction failed", "session", req.SessionID, "stage", stage, "err", redact(err.Error()))
	}
	res.Err = fmt.Errorf("%s: %w", stage, err)
	return res
}

// cursorRoot is the root holding the session cursors: the project root if
// configured, else the global one.
func cursorRoot(e *engine.Engine) store.Root {
	if r := e.Root(store.Project); r.Dir != "" {
		return r
	}
	return e.Root(store.Global)
}

func (x *Extractor) run(ctx context.Context, e *engine.Engine, req Request) Result {
	opts := req.Options
	switch {
	case opts.NoAutoExtract:
		return x.skip(req, "autoExtract is off")
	case req.SessionID == "":
		return x.skip(req, "no session id")
	case req.ServerURL == "":
		return x.skip(req, "no OpenCode server URL (the plugin sends input.serverUrl)")
	}
	root := cursorRoot(e)
	if root.Dir == "" {
		return x.skip(req, "no memory root is configured")
	}
	ctx, cancel := context.WithTimeout(ctx, x.cfg.RunTimeout)
	defer cancel()
	start := time.Now()
	var res Result

	srv := x.connect(req, "")
	sess, err := srv.Session(ctx, req.SessionID)
	if err != nil {
		return x.fail(req, res, "read session", err)
	}
	if strings.HasPrefix(sess.Title, SessionTitle) {
		x.markOwn(sess.ID)
		return x.skip(req, "ocmem's own extraction session")
	}
	if sess.ParentID != "" {
		return x.skip(req, "a subagent's session (its parent session holds the conversation)")
	}
	if req.Owns != nil && sess.Directory != "" && !req.Owns(sess.Directory) {
		return x.skip(req, "another project's session (directory "+sess.Directory+"): its own project extracts it")
	}
	x.logTitle(req.SessionID, sess.Title)
	cursor := root.ReadState().Cursors[req.SessionID]
	res.Cursor = cursor
	msgs, err := srv.Messages(ctx, req.SessionID, cursor)
	if err != nil {
		return x.fail(req, res, "read messages", err)
	}
	b := selectTurns(msgs, cursor)
	minTurns := opts.MinTurnsOrDefault()
	// minTurns counts the user turns since the last extraction: a long
	// session costs one model call per minTurns new turns, and the model
	// sees them together. A remainder of fewer turns is taken once the
	// session has stayed idle (req.Remainder), else at a later idle.
	if b.UserTurns > 0 && b.NewTurns < minTurns && !req.Remainder {
		since := "user turns"
		if cursor != "" {
			since = "new user turns since the last extraction"
		}
		r := x.skip(req, fmt.Sprintf("%d of minTurns %d %s", b.NewTurns, minTurns, since))
		r.Cursor = cursor
		r.Waiting = true
		return r
	}
	if b.UserTurns == 0 {
		r := x.skip(req, "no new turns since the last extraction")
		r.Cursor = cursor
		return r
	}
	res.Turns = b.UserTurns

	ps, err := srv.Providers(ctx)
	if err != nil {
		return x.fail(req, res, "list models", err)
	}
	model, why, err := chooseModel(ps, opts.ExtractModel, b.Provider)
	if err != nil {
		return x.fail(req, res, "choose model", err)
	}
	res.Model = model.String()
	x.log.Info("extraction model", "session", req.SessionID, "model", res.Model, "why", why)

	related, err := relatedMemories(e, b)
	if err != nil {
		x.log.Warn("extraction: recall of related memories failed; the prompt shows none", "session", req.SessionID, "err", err)
		related = nil
	}
	categories := opts.Categories
	if len(categories) == 0 {
		categories = options.DefaultCategories
	}
	prompt := opencode.PromptRequest{
		Model:  model,
		System: systemPrompt(categories),
		Tools:  map[string]bool{"*": false},
		Parts:  []opencode.TextPart{opencode.Text(userPrompt(related, b))},
	}

	inst := x.connect(req, sess.Directory)
	if agents, err := inst.Agents(ctx); err != nil {
		x.log.Warn("extraction: cannot list agents; using the default agent", "session", req.SessionID, "err", err)
	} else if hasAgent(agents, Agent) {
		prompt.Agent = Agent
	} else {
		x.log.Info("extraction: the plugin's hidden agent is missing; using the default agent with tools off", "session", req.SessionID, "agent", Agent)
	}

	text, err := x.ask(ctx, inst, req, prompt, b)
	if err != nil {
		return x.attemptFailed(req, res, root, b, err)
	}
	x.clearFailures(req.SessionID)

	p, err := parseReply(text)
	if err != nil {
		res.Err = fmt.Errorf("parse reply: %w", err)
		res.Cursor = x.advance(req, root, b.Last, res.Cursor)
		// Logged once the cursor is saved: this line ends the run, as
		// "extraction done" does, and a reader of the log may rely on it.
		x.log.Warn("extraction reply unusable; nothing written, the turns are not sent again", "session", req.SessionID, "err", err)
		return res
	}
	if p.Nothing {
		x.log.Info("extraction: the model found nothing worth remembering", "session", req.SessionID)
	}
	if p.Partial {
		x.log.Warn("extraction reply was cut off; its complete memories are used", "session", req.SessionID, "complete", len(p.Candidates))
	}
	for _, why := range p.Invalid {
		x.log.Warn("extraction candidate dropped", "session", req.SessionID, "action", ActInvalid, "reason", redact(why))
	}
	res.Decisions = x.apply(req, e, p.Candidates, categories)
	res.Cursor = x.advance(req, root, b.Last, res.Cursor)
	res.Rechecked = x.recheck(ctx, e, req, inst, msgs, prompt)
	counts := map[Action]int{}
	for _, d := range res.Decisions {
		counts[d.Action]++
	}
	x.log.Info("extraction done", "session", req.SessionID, "model", res.Model, "turns", b.UserTurns,
		"deferred", b.Deferred, "candidates", len(p.Candidates), "written", counts[ActWrite]+counts[ActSupersede],
		"superseded", counts[ActSupersede], "duplicates", counts[ActDuplicate], "pinned", counts[ActPinned],
		"refused", counts[ActRefused], "must_not_sync", counts[ActMustNotSync], "invalid", counts[ActInvalid]+len(p.Invalid), "over_cap", counts[ActOverCap],
		"cursor", res.Cursor, "ms", time.Since(start).Milliseconds())
	return res
}

// maxTitleRunes bounds a logged session title; OpenCode's are a few words.
const maxTitleRunes = 120

// logTitle logs a session's title (OpenCode writes one after the first
// turn) when it is new or changed, for the viewer's list of sessions:
// once per title, not once per idle.
func (x *Extractor) logTitle(session, title string) {
	// Masked before it is cut, so that no prefix of a secret is kept.
	title = redact(strings.Join(strings.Fields(title), " "))
	if r := []rune(title); len(r) > maxTitleRunes {
		title = string(r[:maxTitleRunes]) + "…"
	}
	x.mu.Lock()
	same := title == "" || x.titles[session] == title
	if !same {
		x.titles[session] = title
	}
	x.mu.Unlock()
	if !same {
		x.log.Info("session title", "session", session, "title", title)
	}
}

func hasAgent(agents []opencode.Agent, name string) bool {
	for _, a := range agents {
		if a.Name == name {
			return true
		}
	}
	return false
}

func (x *Extractor) markOwn(id string) {
	x.mu.Lock()
	x.own[id] = true
	x.mu.Unlock()
	if x.cfg.MarkOwn != nil {
		x.cfg.MarkOwn(id)
	}
}

// ask runs the prompt in a session of its own, marked as ocmem's before it
// is prompted and deleted afterwards, whatever happened. It logs what the
// model was sent and what it answered (SPEC §9).
func (x *Extractor) ask(ctx context.Context, srv Server, req Request, prompt opencode.PromptRequest, b batch) (string, error) {
	s, err := srv.CreateSession(ctx, opencode.NewSession{Title: SessionTitle})
	if err != nil {
		return "", fmt.Errorf("create session: %w", err)
	}
	x.markOwn(s.ID)
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		defer cancel()
		if err := srv.DeleteSession(dctx, s.ID); err != nil {
			x.log.Warn("extraction session not deleted", "session", req.SessionID, "extraction_session", s.ID, "err", err)
		}
	}()
	x.log.Info("extraction request", "session", req.SessionID, "extraction_session", s.ID,
		"model", prompt.Model.String(), "agent", prompt.Agent, "turns", b.UserTurns, "from", firstID(b), "to", b.Last,
		"system", prompt.System, "prompt", prompt.Parts[0].Text)
	start := time.Now()
	reply, err := srv.Prompt(ctx, s.ID, prompt)
	if err != nil {
		return "", fmt.Errorf("prompt %s: %w", prompt.Model, err)
	}
	text := reply.Text()
	x.log.Info("extraction reply", "session", req.SessionID, "extraction_session", s.ID, "model", prompt.Model.String(),
		"ms", time.Since(start).Milliseconds(), "reply", redact(text))
	return text, nil
}

func firstID(b batch) string {
	if len(b.Turns) == 0 {
		return ""
	}
	return b.Turns[0].id
}

// attemptFailed records a failure to get an answer for the batch. The
// first one leaves the cursor for a retry on the next idle; the
// MaxAttempts-th moves it past the batch.
func (x *Extractor) attemptFailed(req Request, res Result, root store.Root, b batch, err error) Result {
	x.mu.Lock()
	f := x.failures[req.SessionID]
	if f.cursor != res.Cursor {
		f = failure{cursor: res.Cursor}
	}
	f.attempts++
	x.failures[req.SessionID] = f
	x.mu.Unlock()
	res = x.fail(req, res, "ask the model", err)
	if f.attempts < MaxAttempts {
		x.log.Info("extraction will retry these turns once, on the next idle", "session", req.SessionID, "attempt", f.attempts)
		return res
	}
	x.log.Warn("extraction gave up on these turns", "session", req.SessionID, "attempts", f.attempts, "from", firstID(b), "to", b.Last)
	x.clearFailures(req.SessionID)
	res.Cursor = x.advance(req, root, b.Last, res.Cursor)
	return res
}

func (x *Extractor) clearFailures(id string) {
	x.mu.Lock()
	delete(x.failures, id)
	x.mu.Unlock()
}

// advance moves the session's cursor to last and returns the cursor now in
// force.
func (x *Extractor) advance(req Request, root store.Root, last, old string) string {
	if last == "" || last == old {
		return old
	}
	err := root.UpdateState(func(s *store.State) { s.SetCursor(req.SessionID, last) })
	if err != nil {
		x.log.Warn("extraction cursor not saved; these turns may be sent again", "session", req.SessionID, "err", err)
		return old
	}
	return last
}

// apply decides about each candidate and writes what should be written.
// The snapshot is reloaded for each candidate, so a candidate that repeats
// an earlier one of the same reply is a duplicate too. MaxCandidates counts
// the memories written: a duplicate or a refusal takes no place.
func (x *Extractor) apply(req Request, e *engine.Engine, cands []Candidate, categories []string) []Decision {
	var out []Decision
	written := 0
	for _, raw := range cands {
		c, err := normalize(raw, categories)
		if err != nil {
			out = append(out, x.logDecision(req, Decision{Candidate: c, Action: ActInvalid, Reason: err.Error()}))
			continue
		}
		if written >= MaxCandidates {
			out = append(out, x.logDecision(req, Decision{Candidate: c, Action: ActOverCap, Reason: fmt.Sprintf("%d memories written already", MaxCandidates)}))
			continue
		}
		if why := mustNotSync(c); why != "" {
			out = append(out, x.logDecision(req, Decision{Candidate: c, Action: ActMustNotSync, Reason: why}))
			continue
		}
		snap, err := e.Load()
		if err != nil {
			out = append(out, x.logDecision(req, Decision{Candidate: c, Action: ActRefused, Reason: "load memories: " + err.Error()}))
			continue
		}
		d := decide(c, liveMemories(snap.Files()))
		if d.Action == ActWrite || d.Action == ActSupersede {
			d = x.write(e, d)
		}
		if d.Written != nil {
			written++
		}
		out = append(out, x.logDecision(req, d))
	}
	return out
}

// write stores a decided candidate through the engine.
func (x *Extractor) write(e *engine.Engine, d Decision) Decision {
	c := d.Candidate
	rr := engine.RememberRequest{
		Category: c.Category, Kind: memory.Kind(c.Kind), Summary: c.Summary, Highlight: c.Highlight,
		LoadWhen: c.LoadWhen, Body: c.Body, Source: engine.FromExtraction, Enforce: c.guards,
	}
	if c.Scope == string(store.Global) {
		rr.Scope = store.Global
	}
	if d.Action == ActSupersede {
		// The update lives where what it updates lived.
		scope, id, _ := strings.Cut(d.Match, ":")
		rr.Scope, rr.Supersedes = store.Scope(scope), id
	}
	w, err := e.Remember(rr)
	switch {
	case errors.Is(err, engine.ErrPinned):
		d.Action, d.Reason = ActPinned, "it would supersede a pinned memory; a person must decide"
	case err != nil:
		d.Action, d.Reason = ActRefused, err.Error()
		var se *secrets.Error
		if errors.As(err, &se) {
			d.Reason = "suspected secret: " + err.Error()
		}
	default:
		d.Written = w
	}
	return d
}

// logDecision logs one candidate's fate. A candidate left for a person
// (pinned) is logged in full, so that person can apply it by hand.
func (x *Extractor) logDecision(req Request, d Decision) Decision {
	attrs := []any{"session", req.SessionID, "action", string(d.Action), "summary", redact(d.Candidate.Summary)}
	if d.Match != "" {
		attrs = append(attrs, "match", d.Match, "score", fmt.Sprintf("%.2f", d.Score))
	}
	if d.Reason != "" {
		attrs = append(attrs, "reason", redact(d.Reason))
	}
	if len(d.Candidate.notes) > 0 {
		attrs = append(attrs, "notes", redact(strings.Join(d.Candidate.notes, "; ")))
	}
	msg := "extraction candidate skipped"
	level := slog.LevelInfo
	switch d.Action {
	case ActWrite, ActSupersede:
		w := d.Written
		msg = "extraction remembered"
		attrs = append(attrs, "id", w.ID, "scope", string(w.Scope), "kind", string(w.Kind), "path", w.Path)
		switch {
		case w.ReplacesRule != "":
			attrs = append(attrs, "downgraded", "would supersede the hard rule "+w.ReplacesRule+"; stored as rule-proposal")
		case w.Downgraded:
			attrs = append(attrs, "downgraded", "rule stored as rule-proposal")
		}
		if w.Superseded != "" {
			attrs = append(attrs, "superseded", w.Superseded)
		}
	case ActPinned:
		msg = "extraction candidate left for a person"
		level = slog.LevelWarn
		attrs = append(attrs, "candidate", redact(compactJSON(d.Candidate)))
	case ActRefused:
		msg = "extraction candidate refused"
		level = slog.LevelWarn
	}
	x.log.Log(context.Background(), level, msg, attrs...)
	return d
}

// connect returns the server of req for directory.
func (x *Extractor) connect(req Request, directory string) Server {
	if req.Connect != nil {
		return req.Connect(req.ServerURL, directory)
	}
	return x.cfg.Connect(req.ServerURL, directory)
}
