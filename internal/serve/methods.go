package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/rank"
	"github.com/ocmem/ocmem/internal/render"
	"github.com/ocmem/ocmem/internal/sessionlog"
	"github.com/ocmem/ocmem/internal/settings"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/toolspec"
	"github.com/ocmem/ocmem/internal/trust"
)

// common are the params every request carries.
type common struct {
	Worktree  string          `json:"worktree"`
	Directory string          `json:"directory"`
	Options   json.RawMessage `json:"options"`
	SessionID string          `json:"sessionID"`
}

type messageParams struct {
	common
	MessageID string `json:"messageID"`
	Text      string `json:"text"`
}

// The tools' params are the tool contract's arguments (toolspec) and the
// common params.
type recallParams struct {
	common
	toolspec.RecallArgs
}

type rememberParams struct {
	common
	toolspec.RememberArgs
}

type forgetParams struct {
	common
	toolspec.ForgetArgs
}

// IdleRequest is a session that went idle, for automatic extraction.
type IdleRequest struct {
	SessionID string
	ServerURL string
	Worktree  string
	Options   engine.Options
	// Remainder is set when the session has stayed idle since its last
	// extraction: turns fewer than minTurns are taken too.
	Remainder bool
	// Plugin is the plugin that sent the idle, for requests through it
	// (PluginTransport); nil outside Serve.
	Plugin *Plugin
}

type idleParams struct {
	common
	ServerURL string `json:"serverUrl"`
}

// toolParams name a tool the model called (the plugin's
// tool.execute.after hook), for the session log.
type toolParams struct {
	common
	Tool   string `json:"tool"`
	CallID string `json:"callID"`
}

// textResult is what every method but ping returns.
type textResult struct {
	Text string   `json:"text"`
	IDs  []string `json:"ids,omitempty"`
	// Notice is a one-line message for the person at the keyboard (the
	// plugin shows it as a toast unless its toasts option is off): what
	// memory did that they would otherwise not see.
	Notice string `json:"notice,omitempty"`
	// Warning is a notice about something wrong (a memory file skipped).
	Warning string `json:"warning,omitempty"`
}

func decode[T any](raw json.RawMessage) (*T, error) {
	v := new(T)
	if len(raw) == 0 || string(raw) == "null" {
		return v, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, &rpcError{codeInvalidParams, "invalid params: " + err.Error()}
	}
	return v, nil
}

func (s *Server) dispatch(ctx context.Context, method string, raw json.RawMessage) (any, error) {
	switch method {
	case "ping":
		return map[string]string{"version": Version}, nil
	case "system":
		p, err := decode[common](raw)
		if err != nil {
			return nil, err
		}
		return s.system(p)
	case "message":
		p, err := decode[messageParams](raw)
		if err != nil {
			return nil, err
		}
		return s.message(p)
	case "recall":
		p, err := decode[recallParams](raw)
		if err != nil {
			return nil, err
		}
		return s.recall(p)
	case "remember":
		p, err := decode[rememberParams](raw)
		if err != nil {
			return nil, err
		}
		return s.remember(p)
	case "forget":
		p, err := decode[forgetParams](raw)
		if err != nil {
			return nil, err
		}
		return s.forget(p)
	case "inspect":
		p, err := decode[common](raw)
		if err != nil {
			return nil, err
		}
		return s.inspect(p)
	case "tool":
		p, err := decode[toolParams](raw)
		if err != nil {
			return nil, err
		}
		return s.tool(p)
	case "idle":
		p, err := decode[idleParams](raw)
		if err != nil {
			return nil, err
		}
		return s.idle(ctx, p)
	case "compacted":
		p, err := decode[common](raw)
		if err != nil {
			return nil, err
		}
		return s.compacted(p)
	}
	return nil, &rpcError{codeMethodNotFound, fmt.Sprintf("method %q not found", method)}
}

// Version is the protocol and binary version reported by ping; the build
// sets it.
var Version = "dev"

// engineFor returns the engine of a request's project and options, creating
// and watching it on first use.
func (s *Server) engineFor(c *common) (*engine.Engine, error) {
	var err error
	projectDir := s.cfg.ProjectDir
	if projectDir == "" {
		wt := c.Worktree
		if wt == "" {
			wt = c.Directory
		}
		if wt != "" && wt != "/" {
			if projectDir, err = store.ProjectDir(wt); err != nil {
				return nil, err
			}
		}
	}
	globalDir := s.cfg.GlobalDir
	if globalDir == "" {
		if globalDir, err = store.GlobalDir(); err != nil {
			return nil, err
		}
	}
	// A repository's opencode.json cannot quietly change what ocmem
	// spends or injects (internal/settings).
	trusted := projectDir != "" && trust.List{Path: s.cfg.TrustFile}.Func(projectDir)()
	raw, overrides, err := settings.Guard(c.Options, settings.Global(s.cfg.OpenCodeConfigDir), settings.Project(c.Worktree, c.Directory), trusted)
	if err != nil {
		return nil, &rpcError{codeInvalidParams, err.Error()}
	}
	opts, err := engine.DecodeOptions(raw)
	if err != nil {
		return nil, &rpcError{codeInvalidParams, err.Error()}
	}
	s.noticeTrustChange()
	key := projectDir + "\x00" + string(raw)
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.projects[key]; ok {
		return p.engine, nil
	}
	e := engine.New(engine.Config{GlobalDir: globalDir, ProjectDir: projectDir, ProjectChosen: s.cfg.ProjectDir != "", Options: opts, Now: s.cfg.Now,
		Trust: s.trustOf(projectDir)})
	s.projects[key] = &project{engine: e}
	if s.watch != nil {
		s.watch.add(globalDir)
		if projectDir != "" {
			s.watch.add(projectDir)
		}
	}
	s.log.Info("project opened", "global", globalDir, "project", projectDir)
	for _, o := range overrides {
		s.log.Info("project setting", "override", o.String())
	}
	return e, nil
}

// invalidate drops every cached snapshot whose roots include dir; with a
// path, only that file changed, and the engines read just it again.
func (s *Server) invalidate(dir, path string) {
	if path != "" {
		s.memoryChanged(dir, path)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.projects {
		for _, sc := range []store.Scope{store.Global, store.Project} {
			if p.engine.Root(sc).Dir != dir {
				continue
			}
			if path == "" {
				p.engine.Invalidate()
			} else {
				p.engine.InvalidateFile(dir, path)
			}
		}
	}
}

// fresh makes sure the engine sees the files as they are now, for roots the
// watcher cannot watch (missing at start, or watching failed).
func (s *Server) fresh(e *engine.Engine) {
	if s.watch == nil {
		e.Invalidate()
		return
	}
	for _, sc := range []store.Scope{store.Global, store.Project} {
		d := e.Root(sc).Dir
		if d == "" || s.watch.watching(d) {
			continue
		}
		s.watch.add(d) // the root may exist now
		switch {
		case s.watch.watching(d):
			s.invalidate(d, "") // events from now on; reload what came before
		case s.watch.pollChanged(d):
			s.invalidate(d, "")
		}
	}
}

func (s *Server) sessionLog(id string) *sessionlog.Log {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.sessions[id]; ok {
		return l
	}
	l, err := sessionlog.Open(id)
	if err != nil {
		s.log.Warn("session log unavailable; bodies may repeat", "session", id, "err", err)
		return nil
	}
	s.sessions[id] = l
	return l
}

// compacted is OpenCode's session.compacted event: the conversation was
// replaced by a summary, which may have dropped the bodies given so far,
// so the session's given-log starts over and a relevant memory is given
// again.
func (s *Server) compacted(p *common) (any, error) {
	if p.SessionID == "" {
		return nil, &rpcError{codeInvalidParams, "compacted needs a sessionID"}
	}
	l := s.sessionLog(p.SessionID)
	if l == nil {
		return textResult{}, nil
	}
	n := l.Len()
	if err := l.Reset(); err != nil {
		return nil, err
	}
	s.log.Info("session compacted; memories may be given again", "session", p.SessionID, "forgotten", n)
	return textResult{}, nil
}

func (s *Server) system(p *common) (any, error) {
	if s.isOwnSession(p.SessionID) {
		return textResult{}, nil
	}
	e, err := s.engineFor(p)
	if err != nil {
		return nil, err
	}
	s.fresh(e)
	inj, err := e.Stable()
	if err != nil {
		return nil, err
	}
	text := inj.System()
	s.log.Info("system injected", "session", p.SessionID, "rules_chars", runeLen(inj.Rules), "outline_chars", runeLen(inj.Outline))
	warning := s.newProblems(e)
	if changes := s.newRuleChanges(e); changes != "" {
		warning = strings.TrimSpace(warning + " " + changes)
	}
	return textResult{Text: text, Warning: warning}, nil
}

// messageHook, when set (by tests), is called as a message is handled.
var messageHook func(p *messageParams)

func (s *Server) message(p *messageParams) (any, error) {
	if messageHook != nil {
		messageHook(p)
	}
	s.cancelRemainder(p.SessionID) // the session is busy again
	if s.isOwnSession(p.SessionID) || strings.TrimSpace(p.Text) == "" {
		return textResult{}, nil
	}
	e, err := s.engineFor(&p.common)
	if err != nil {
		return nil, err
	}
	s.fresh(e)
	var log *sessionlog.Log
	opts := engine.InjectOptions{}
	first := false // nothing given in this session yet
	if p.SessionID != "" {
		if log = s.sessionLog(p.SessionID); log != nil {
			opts.Seen = log.Seen
			first = log.Len() == 0
		}
	}
	inj, err := e.Inject(p.Text, opts)
	if err != nil {
		return nil, err
	}
	if log != nil {
		if err := log.Add(inj.Marks...); err != nil {
			s.log.Warn("session log not saved", "session", p.SessionID, "err", err)
		}
	}
	scores := make([]string, 0, len(inj.Hits))
	for _, h := range inj.Hits {
		scores = append(scores, fmt.Sprintf("%s=%.3f", h.Key(), h.Score))
	}
	s.log.Info("bodies injected", "session", p.SessionID, "message", p.MessageID,
		"given", strings.Join(inj.Given, ","), "repeated", strings.Join(inj.Repeated, ","),
		"hits", strings.Join(scores, ","), "chars", runeLen(inj.Bodies), "quiet", inj.Quiet,
		"injected", injectedLog(inj))
	res := textResult{Text: inj.Bodies, IDs: inj.Given}
	if first && len(inj.Given) > 0 {
		res.Notice = firstInjectionNotice(inj.Given, s.cfg.Command)
	}
	return res, nil
}

// firstInjectionNotice tells the person, once per session, that memories
// reach the model, and where to see them, with the command that runs
// this ocmem for them (Config.Command).
func firstInjectionNotice(given []string, command string) string {
	what := "1 memory"
	if len(given) != 1 {
		what = fmt.Sprintf("%d memories", len(given))
	}
	if command == "" {
		command = "ocmem"
	}
	return fmt.Sprintf("%s added to your message: %s. `%s inject MESSAGE` shows what the model gets; the viewer (`%s ui`), every session.",
		what, strings.Join(given, ", "), command, command)
}

func (s *Server) recall(p *recallParams) (any, error) {
	if strings.TrimSpace(p.Query) == "" {
		return nil, &rpcError{codeInvalidParams, "query is empty"}
	}
	e, err := s.engineFor(&p.common)
	if err != nil {
		return nil, err
	}
	s.fresh(e)
	hits, err := e.Recall(p.Query, engine.RecallOptions{Limit: toolspec.RecallLimit(p.Limit), Count: true, Mode: rank.Search})
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.Key()
	}
	s.log.Info("recall", "tool", "memory_recall", "session", p.SessionID, "query", p.Query, "results", strings.Join(ids, ","))
	return textResult{Text: render.Hits(hits, true), IDs: ids}, nil
}

func (s *Server) remember(p *rememberParams) (any, error) {
	e, err := s.engineFor(&p.common)
	if err != nil {
		return nil, err
	}
	req := engine.RememberRequest{
		Category: p.Category, Kind: memory.Kind(p.Kind), Summary: p.Summary, Body: p.Body,
		Highlight: p.Highlight, LoadWhen: p.LoadWhen, Pinned: p.Pinned, Supersedes: p.Supersedes,
		Source: engine.FromModel,
	}
	if p.Scope != "" {
		sc, err := store.ParseScope(p.Scope)
		if err != nil {
			return nil, err
		}
		req.Scope = sc
	}
	w, err := e.Remember(req)
	if err != nil {
		s.log.Warn("remember refused", "tool", "memory_remember", "session", p.SessionID, "err", err)
		return nil, err
	}
	s.log.Info("remembered", "tool", "memory_remember", "session", p.SessionID, "id", w.ID, "scope", w.Scope, "kind", w.Kind)
	text := toolspec.Remembered(string(w.Scope), w.ID, string(w.Kind), w.Path, w.Downgraded, w.Superseded)
	if w.SameSummary != "" {
		text += toolspec.SameSummary(string(w.Scope), w.SameSummary)
	}
	if w.Warning != "" {
		s.log.Warn("remembered, index not updated", "session", p.SessionID, "id", w.ID, "warning", w.Warning)
		text += "\nWarning: " + w.Warning + "."
	}
	res := textResult{Text: text, IDs: []string{string(w.Scope) + ":" + w.ID}}
	if w.Kind == memory.KindRuleProposal {
		res.Notice = fmt.Sprintf("rule proposal %s:%s waits for you: `ocmem rules` lists it, `ocmem accept %s` puts it in force.", w.Scope, w.ID, w.ID)
	} else {
		res.Notice = fmt.Sprintf("remembered %s:%s (%s)", w.Scope, w.ID, w.Path)
	}
	if w.SameSummary != "" {
		res.Notice += fmt.Sprintf("; %s:%s has the same summary", w.Scope, w.SameSummary)
	}
	return res, nil
}

func (s *Server) forget(p *forgetParams) (any, error) {
	e, err := s.engineFor(&p.common)
	if err != nil {
		return nil, err
	}
	var sc store.Scope
	if p.Scope != "" {
		if sc, err = store.ParseScope(p.Scope); err != nil {
			return nil, err
		}
	}
	w, err := e.Forget(sc, p.ID)
	if err != nil {
		s.log.Warn("forget refused", "tool", "memory_forget", "session", p.SessionID, "id", p.ID, "err", err)
		return nil, err
	}
	s.log.Info("forgot", "tool", "memory_forget", "session", p.SessionID, "id", w.ID, "scope", w.Scope)
	text := toolspec.Forgot(string(w.Scope), w.ID, w.Path)
	if w.Warning != "" {
		s.log.Warn("forgot, index not updated", "tool", "memory_forget", "session", p.SessionID, "id", w.ID, "warning", w.Warning)
		text += "\nWarning: " + w.Warning + "."
	}
	return textResult{Text: text, Notice: fmt.Sprintf("forgot %s:%s (%s)", w.Scope, w.ID, w.Path)}, nil
}

func (s *Server) inspect(p *common) (any, error) {
	e, err := s.engineFor(p)
	if err != nil {
		return nil, err
	}
	rep, err := e.Inspect()
	if err != nil {
		return nil, err
	}
	s.log.Info("inspect", "tool", "memory_inspect", "session", p.SessionID, "issues", len(rep.Issues))
	return textResult{Text: render.Report(rep, true)}, nil
}

func (s *Server) idle(ctx context.Context, p *idleParams) (any, error) {
	if s.cfg.Extract == nil || p.SessionID == "" || s.isOwnSession(p.SessionID) {
		return map[string]bool{"queued": false}, nil
	}
	e, err := s.engineFor(&p.common)
	if err != nil {
		return nil, err
	}
	opts := e.Options()
	if opts.NoAutoExtract {
		return map[string]bool{"queued": false}, nil
	}
	req := IdleRequest{SessionID: p.SessionID, ServerURL: p.ServerURL, Worktree: p.Worktree, Options: opts, Plugin: PluginFrom(ctx)}
	s.extract(ctx, e, req)
	s.armRemainder(ctx, e, req)
	return map[string]bool{"queued": true}, nil
}

func (s *Server) extract(ctx context.Context, e *engine.Engine, req IdleRequest) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("extraction panicked", "session", req.SessionID, "panic", fmt.Sprint(r))
			}
		}()
		s.cfg.Extract(context.WithoutCancel(ctx), e, req)
	}()
}

// ownSessions are sessions ocmem itself created (extraction); hooks for
// them inject nothing and they are never extracted from.
var ownSessions sync.Map

// MarkOwnSession records a session ocmem created.
func MarkOwnSession(id string) { ownSessions.Store(id, true) }

func (s *Server) isOwnSession(id string) bool {
	_, ok := ownSessions.Load(id)
	return ok
}

// Wait blocks until background work (extractions) has finished.
func (s *Server) Wait() { s.wg.Wait() }

func runeLen(s string) int { return len([]rune(s)) }

// injectedHit is one ranked memory of a turn, as the log records it (the
// viewer's session timeline reads it).
type injectedHit struct {
	Key   string  `json:"key"`
	Score float64 `json:"score"`
	Given bool    `json:"given"`
}

func injectedLog(inj *engine.Injection) []injectedHit {
	out := make([]injectedHit, 0, len(inj.Hits))
	for _, h := range inj.Hits {
		out = append(out, injectedHit{Key: h.Key(), Score: math.Round(h.Score*1000) / 1000, Given: slices.Contains(inj.Given, h.Key())})
	}
	return out
}

// tool logs a tool call of the model; ocmem's own tools are logged by
// their methods. Nothing else happens.
func (s *Server) tool(p *toolParams) (any, error) {
	if p.Tool == "" || len(p.Tool) > 200 || len(p.CallID) > 200 {
		return nil, &rpcError{codeInvalidParams, "tool: want a tool name and a call id of at most 200 bytes"}
	}
	if !s.isOwnSession(p.SessionID) {
		s.log.Info("tool called", "tool", p.Tool, "session", p.SessionID, "call", p.CallID)
	}
	return map[string]bool{"logged": true}, nil
}
