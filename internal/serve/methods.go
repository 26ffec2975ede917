package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/extract"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/render"
	"github.com/ocmem/ocmem/internal/sessionlog"
	"github.com/ocmem/ocmem/internal/settings"
	"github.com/ocmem/ocmem/internal/tools"
	"github.com/ocmem/ocmem/internal/toolspec"
)

// common are the params every request carries.
type common struct {
	Worktree  string          `json:"worktree"`
	Directory string          `json:"directory"`
	Options   json.RawMessage `json:"options"`
	SessionID string          `json:"sessionID"`
}

// codeDir is the worktree the session runs in, where the anchors of the
// memories it is shown or writes are checked: every worktree of a
// repository shares the project's engine, not its code. It is the nearest
// folder holding .git at or above the session's directory: OpenCode's
// worktree is the project's, and for a session in a linked worktree can
// name another checkout of it. "" (outside git, or the home
// folder, which is no project) leaves the engine's own.
func (c *common) codeDir() string {
	start := c.Directory
	if start == "" {
		start = c.Worktree
	}
	if start == "" || !filepath.IsAbs(start) {
		return ""
	}
	for d := filepath.Clean(start); ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			if engine.IsHome(d) {
				return ""
			}
			if real, err := filepath.EvalSymlinks(d); err == nil {
				d = real
			}
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}

type messageParams struct {
	common
	MessageID string `json:"messageID"`
	Text      string `json:"text"`
}

// toolCall is a call of one of the four tools: the roots, options and
// session from OpenCode's context (common), and apart from them the
// model's arguments, which are exactly the tool contract's (toolspec).
// Nothing in Args can name a root.
type toolCall struct {
	common
	Args json.RawMessage `json:"args"`
}

// The tools' params: the context and the decoded arguments.
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

type inspectParams struct {
	common
	toolspec.InspectArgs
}

// decodeTool reads a tool call strictly: a key outside the context and
// "args" at the top, or outside the contract inside args, is refused, so a
// model's extra argument is never read as a root or a session.
func decodeTool[A any](name string, raw json.RawMessage, set func(common, A)) error {
	t, ok := toolspec.Lookup(name)
	if !ok {
		return &rpcError{codeMethodNotFound, fmt.Sprintf("method %q not found", name)}
	}
	var call toolCall
	if len(raw) > 0 && string(raw) != "null" {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&call); err != nil {
			return &rpcError{codeInvalidParams, "invalid params: " + err.Error() + " (a tool's arguments go in \"args\")"}
		}
	}
	var args A
	if err := t.DecodeArgs(call.Args, &args); err != nil {
		return &rpcError{codeInvalidParams, err.Error()}
	}
	set(call.common, args)
	return nil
}

// IdleRequest is a session that went idle, for automatic extraction.
type IdleRequest struct {
	SessionID string
	ServerURL string
	Worktree  string
	// CodeDir is the worktree the session runs in (common.codeDir),
	// where the idle re-check reads and verifies anchored code.
	CodeDir string
	Options options.Options
	// Remainder is set when the session has stayed idle since its last
	// extraction: turns fewer than minTurns are taken too.
	Remainder bool
	// Plugin is the plugin that sent the idle, for requests through it
	// (PluginTransport); nil outside Serve.
	Plugin *Plugin
	// Owns reports whether a session whose directory is dir is this
	// project's. An OpenCode process may run a plugin instance per
	// directory and tell each of them every session's events (OpenCode
	// 2's background service runs one in $HOME): a session is extracted
	// once, by its own project's. nil: every session is.
	Owns func(dir string) bool
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
	// Guarded lists, on system, the tools a rule in force guards
	// (engine.GuardedTools): the plugin refuses their calls while serve
	// cannot answer a check.
	Guarded []string `json:"guarded,omitempty"`
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
		var p recallParams
		if err := decodeTool(method, raw, func(c common, a toolspec.RecallArgs) { p = recallParams{c, a} }); err != nil {
			return nil, err
		}
		return s.recall(&p)
	case "remember":
		var p rememberParams
		if err := decodeTool(method, raw, func(c common, a toolspec.RememberArgs) { p = rememberParams{c, a} }); err != nil {
			return nil, err
		}
		return s.remember(&p)
	case "forget":
		var p forgetParams
		if err := decodeTool(method, raw, func(c common, a toolspec.ForgetArgs) { p = forgetParams{c, a} }); err != nil {
			return nil, err
		}
		return s.forget(&p)
	case "preview.remember":
		var p rememberParams
		if err := decodeTool("remember", raw, func(c common, a toolspec.RememberArgs) { p = rememberParams{c, a} }); err != nil {
			return nil, err
		}
		return s.previewRemember(&p)
	case "preview.forget":
		var p forgetParams
		if err := decodeTool("forget", raw, func(c common, a toolspec.ForgetArgs) { p = forgetParams{c, a} }); err != nil {
			return nil, err
		}
		return s.previewForget(&p)
	case "inspect":
		var p inspectParams
		if err := decodeTool(method, raw, func(c common, a toolspec.InspectArgs) { p = inspectParams{c, a} }); err != nil {
			return nil, err
		}
		return s.inspect(&p.common)
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
	case "check":
		p, err := decode[checkParams](raw)
		if err != nil {
			return nil, err
		}
		return s.check(p)
	case "roots":
		p, err := decode[common](raw)
		if err != nil {
			return nil, err
		}
		return s.roots(p)
	case "edits":
		return s.edits(raw)
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
	e, _, err := s.open(c)
	return e, err
}

// open is engineFor that also returns what is wrong with the request's
// options: a value that cannot be used (its option keeps the default; the
// rest apply, so one mistyped value does not turn memory off) or a key
// no option has that a config file sets.
func (s *Server) open(c *common) (*engine.Engine, []options.Problem, error) {
	wt := c.Worktree
	if wt == "" {
		wt = c.Directory
	}
	place := settings.Place{GlobalDir: s.cfg.GlobalDir, ProjectDir: s.cfg.ProjectDir, Dir: wt, Reported: true, TrustFile: s.cfg.TrustFile}
	_, projectDir, err := place.Roots()
	if err != nil {
		return nil, nil, err
	}
	// A repository's opencode.json cannot quietly change what ocmem
	// spends or injects (internal/settings).
	trusted := place.Trusted(projectDir)
	global, proj := settings.Global(s.cfg.OpenCodeConfigDir), settings.Project(c.Worktree, c.Directory)
	var probs []options.Problem
	raw, overrides, err := settings.Guard(c.Options, global, proj, trusted)
	if err != nil {
		// Not an object at all: every option keeps its default.
		probs = append(probs, options.Problem{Key: "options", Value: "(not a JSON object)", Want: "an object of options", Err: err.Error()})
		if raw, overrides, err = settings.Guard(nil, global, proj, trusted); err != nil {
			return nil, nil, &rpcError{codeInvalidParams, err.Error()}
		}
	}
	opts, read, err := options.Read(raw)
	if err != nil {
		return nil, nil, &rpcError{codeInvalidParams, err.Error()}
	}
	probs = append(probs, fileProblems(read, append(global, proj...))...)
	s.noticeTrustChange()
	key := projectDir + "\x00" + string(raw)
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.projects[key]; ok {
		return p.engine, probs, nil
	}
	ecfg, err := place.Engine(opts)
	if err != nil {
		return nil, nil, err
	}
	ecfg.Now, ecfg.TouchEdits, ecfg.TuneGC = s.cfg.Now, true, s.cfg.TuneGC
	e := engine.New(ecfg)
	s.projects[key] = &project{engine: e}
	s.live.Add(e)
	s.log.Info("project opened", "global", ecfg.GlobalDir, "project", ecfg.ProjectDir)
	for _, o := range overrides {
		s.log.Info("project setting", "override", o.String())
	}
	for _, p := range probs {
		s.log.Warn("plugin option not used", "option", p.String())
	}
	return e, probs, nil
}

// fileProblems keeps, of the problems of the options serve received, the
// bad values and the unknown keys that a config file sets: OpenCode may
// add keys of its own to a plugin's options, and those are no typo of
// the person's.
func fileProblems(probs []options.Problem, srcs []settings.Source) []options.Problem {
	var out []options.Problem
	for _, p := range probs {
		if !p.Unknown() || slices.ContainsFunc(srcs, func(src settings.Source) bool { _, ok := src.Options[p.Key]; return ok }) {
			out = append(out, p)
		}
	}
	return out
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
	e, probs, err := s.open(p)
	if err != nil {
		return nil, err
	}
	s.live.Fresh(e)
	inj, err := e.StableIn(p.codeDir())
	if err != nil {
		return nil, err
	}
	text := inj.System()
	s.log.Info("system injected", "session", p.SessionID, "rules_chars", runeLen(inj.Rules), "outline_chars", runeLen(inj.Outline))
	warning := s.newProblems(e)
	if told := s.optionsNotice(p.SessionID, probs); told != "" {
		warning = strings.TrimSpace(told + " " + warning)
	}
	if changes := s.newRuleChanges(e); changes != "" {
		warning = strings.TrimSpace(warning + " " + changes)
	}
	res := textResult{Text: text, Warning: warning}
	if g, err := e.Guards(); err == nil {
		res.Guarded = engine.GuardedTools(g)
	}
	return res, nil
}

// optionsNotice is the warning about options that cannot be used, for
// the person: once per session for each set of problems, so it is not
// repeated every turn and a change is told again.
func (s *Server) optionsNotice(session string, probs []options.Problem) string {
	if len(probs) == 0 {
		return ""
	}
	text := optionsWarning(probs, s.cfg.Command)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.optionsTold == nil {
		s.optionsTold = map[string]bool{}
	}
	key := session + "\x00" + text
	if s.optionsTold[key] {
		return ""
	}
	s.optionsTold[key] = true
	return text
}

// optionsWarning names each option that cannot be used, what was given
// and what is wanted, or the option a typo is near, and the fix.
func optionsWarning(probs []options.Problem, command string) string {
	items := make([]string, 0, len(probs))
	for _, p := range probs {
		if p.Unknown() {
			items = append(items, p.String()+" (ignored)")
		} else {
			items = append(items, p.String()+" (its default is used)")
		}
	}
	if command == "" {
		command = "ocmem"
	}
	what := "a plugin option is not used"
	if len(items) > 1 {
		what = fmt.Sprintf("%d plugin options are not used", len(items))
	}
	return fmt.Sprintf("%s: %s. Memory works with the rest; correct it in your opencode.json (`%s doctor` names the file).",
		what, strings.Join(items, "; "), command)
}

func (s *Server) message(p *messageParams) (any, error) {
	if s.cfg.messageHook != nil {
		s.cfg.messageHook(p)
	}
	s.cancelRemainder(p.SessionID) // the session is busy again
	if s.isOwnSession(p.SessionID) || strings.TrimSpace(p.Text) == "" {
		return textResult{}, nil
	}
	e, err := s.engineFor(&p.common)
	if err != nil {
		return nil, err
	}
	s.live.Fresh(e)
	var log *sessionlog.Log
	opts := engine.InjectOptions{CodeDir: p.codeDir()}
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
	s.log.Info("bodies injected", "session", p.SessionID, "message", p.MessageID, "text", excerpt(p.Text),
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
	return fmt.Sprintf("%s added to your message: %s. `%s inject MESSAGE` shows what the model gets; `%s ui` opens the viewer, with what every session was given.",
		what, strings.Join(given, ", "), command, command)
}

func (s *Server) recall(p *recallParams) (any, error) {
	e, err := s.engineFor(&p.common)
	if err != nil {
		return nil, err
	}
	s.live.Fresh(e)
	r, err := tools.Recall(e, p.RecallArgs, p.codeDir())
	if err != nil {
		return nil, toolError(err)
	}
	s.log.Info("recall", "tool", "memory_recall", "session", p.SessionID, "query", excerpt(p.Query), "results", strings.Join(r.IDs, ","))
	return textResult{Text: r.Text, IDs: r.IDs}, nil
}

func (s *Server) remember(p *rememberParams) (any, error) {
	e, err := s.engineFor(&p.common)
	if err != nil {
		return nil, err
	}
	r, err := tools.Remember(e, p.RememberArgs, engine.FromModel, p.codeDir())
	if err != nil {
		s.log.Warn("remember refused", "tool", "memory_remember", "session", p.SessionID, "err", err)
		return nil, toolError(err)
	}
	w := r.Written
	s.log.Info("remembered", "tool", "memory_remember", "session", p.SessionID, "id", w.ID, "scope", w.Scope, "kind", w.Kind)
	if w.Warning != "" {
		s.log.Warn("remembered, index not updated", "session", p.SessionID, "id", w.ID, "warning", w.Warning)
	}
	return textResult{Text: r.Text, IDs: r.IDs, Notice: r.Notice}, nil
}

func (s *Server) forget(p *forgetParams) (any, error) {
	e, err := s.engineFor(&p.common)
	if err != nil {
		return nil, err
	}
	r, err := tools.Forget(e, p.ForgetArgs, engine.FromModel)
	if err != nil {
		s.log.Warn("forget refused", "tool", "memory_forget", "session", p.SessionID, "id", p.ID, "err", err)
		return nil, toolError(err)
	}
	w := r.Written
	s.log.Info("forgot", "tool", "memory_forget", "session", p.SessionID, "id", w.ID, "scope", w.Scope)
	if w.Warning != "" {
		s.log.Warn("forgot, index not updated", "tool", "memory_forget", "session", p.SessionID, "id", w.ID, "warning", w.Warning)
	}
	return textResult{Text: r.Text, IDs: r.IDs, Notice: r.Notice}, nil
}

func (s *Server) inspect(p *common) (any, error) {
	e, err := s.engineFor(p)
	if err != nil {
		return nil, err
	}
	r, issues, err := tools.Inspect(e, p.codeDir())
	if err != nil {
		return nil, err
	}
	s.log.Info("inspect", "tool", "memory_inspect", "session", p.SessionID, "issues", len(issues))
	return textResult{Text: r.Text}, nil
}

// rootsResult names the memory roots of a request's context.
type rootsResult struct {
	Global  string `json:"global"`
	Project string `json:"project,omitempty"`
}

// roots tells the plugin where the memory roots of its context are, so the
// edit permission it asks OpenCode for names the files a write touches
// (OPENCODE_CONFIG_DIR, XDG_CONFIG_HOME, a worktree's main checkout)
// instead of a guess of its own.
func (s *Server) roots(p *common) (any, error) {
	e, err := s.engineFor(p)
	if err != nil {
		return nil, err
	}
	return rootsResult{Global: e.Root(engine.Global).Dir, Project: e.Root(engine.Project).Dir}, nil
}

// editsParams ask what a call of a writing tool would touch: the tool's
// method and the model's arguments, exactly as the call will carry them.
type editsParams struct {
	common
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// editsResult is the root a write acts on and the files it touches, as
// OpenCode's edit permission names them.
type editsResult struct {
	Scope string   `json:"scope"`
	Files []string `json:"files"`
}

// edits answers, before a remember or forget runs, which root it acts on
// and which files it writes or deletes, for the edit permission the plugin
// asks OpenCode for. A call without a scope goes to the root the engine
// picks, which only the engine knows: asked in the plugin, the question
// named the project's files while the global memory was written. The
// plugin then passes the scope answered here to the call, so the call
// acts on the root the person was asked about.
func (s *Server) edits(raw json.RawMessage) (any, error) {
	var p editsParams
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, &rpcError{codeInvalidParams, "invalid params: " + err.Error()}
	}
	ed, err := s.editsOf(&p)
	if err != nil {
		return nil, err
	}
	res := editsResult{Scope: string(ed.Scope), Files: make([]string, 0, len(ed.Files))}
	for _, f := range ed.Files {
		res.Files = append(res.Files, permissionPattern(f, p.Worktree, ed.Scope))
	}
	return res, nil
}

// editsOf decodes the arguments of the call asked about as the call itself
// will be decoded, and asks the engine what it would touch.
func (s *Server) editsOf(p *editsParams) (*engine.Edits, error) {
	var ed *engine.Edits
	var err error
	switch p.Tool {
	case "remember":
		var a toolspec.RememberArgs
		if err := decodeTool(p.Tool, p.argsCall(), func(_ common, args toolspec.RememberArgs) { a = args }); err != nil {
			return nil, err
		}
		e, err := s.engineFor(&p.common)
		if err != nil {
			return nil, err
		}
		if ed, err = tools.RememberEdits(e, a); err != nil {
			return nil, toolError(err)
		}
	case "forget":
		var a toolspec.ForgetArgs
		if err := decodeTool(p.Tool, p.argsCall(), func(_ common, args toolspec.ForgetArgs) { a = args }); err != nil {
			return nil, err
		}
		e, err := s.engineFor(&p.common)
		if err != nil {
			return nil, err
		}
		if ed, err = tools.ForgetEdits(e, a); err != nil {
			return nil, toolError(err)
		}
	default:
		err = &rpcError{codeInvalidParams, fmt.Sprintf("edits: %q is not a tool that writes (remember, forget)", p.Tool)}
	}
	return ed, err
}

// argsCall is the tool call the edits are asked for, for decodeTool.
func (p *editsParams) argsCall() json.RawMessage {
	b, _ := json.Marshal(toolCall{Args: p.Args})
	return b
}

// permissionPattern names a file as OpenCode's permission rules do: a
// project file relative to the worktree when it lies inside it
// (".memory/…"), else absolute (a git worktree's memory is its main
// checkout's); a global file under the home folder as "~/…". Slashes on
// every system, as in OpenCode's patterns.
func permissionPattern(file, worktree string, scope engine.Scope) string {
	base := worktree
	prefix := ""
	if scope == engine.Global {
		base, prefix = "", "~/"
		if home, err := os.UserHomeDir(); err == nil {
			base = home
		}
	}
	if base != "" {
		if rel, err := filepath.Rel(base, file); err == nil && rel != "." && !filepath.IsAbs(rel) && !strings.HasPrefix(rel, "..") {
			return prefix + filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(file)
}

// toolError is a refused tool call as the plugin gets it: arguments the
// tool cannot act on are invalid params; the message is the tool's.
func toolError(err error) error {
	switch {
	case errors.Is(err, tools.ErrInvalid):
		return &rpcError{codeInvalidParams, err.Error()}
	case tools.Refused(err):
		return &rpcError{codeRefused, err.Error()}
	}
	return &rpcError{codeFailed, err.Error()}
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
	req := IdleRequest{SessionID: p.SessionID, ServerURL: p.ServerURL, Worktree: p.Worktree, CodeDir: p.codeDir(), Options: opts, Plugin: PluginFrom(ctx)}
	if s.cfg.ProjectDir == "" {
		mine := e.Root(engine.Project).Dir
		req.Owns = func(dir string) bool {
			pd, err := engine.ProjectDir(dir)
			return err == nil && pd == mine
		}
	}
	s.extract(ctx, e, req)
	// OpenCode may end (`/exit`, `opencode run`) before the run or the
	// remainder timer takes the turns. The mark is written after the run
	// starts, so that it costs the run no time in that race; the run
	// clears it only at its end, after several round trips to OpenCode,
	// and a mark left by the rare run that ends first costs the next
	// start one look at the session.
	if err := extract.MarkPending(e, p.SessionID, time.Now()); err != nil {
		s.log.Warn("session not marked pending", "session", p.SessionID, "err", err)
	}
	s.armRemainder(ctx, e, req)
	s.resumePending(ctx, e, req)
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

// Wait blocks until background work (extractions, the recompile after a
// hand edit) has finished.
func (s *Server) Wait() {
	s.wg.Wait()
	s.live.Wait()
}

func runeLen(s string) int { return len([]rune(s)) }

// injectedHit is one ranked memory of a turn, as the log records it (the
// viewer's session timeline reads it): its score, whether its body was
// given, and the words that matched, as the memory writes them.
type injectedHit struct {
	Key   string   `json:"key"`
	Score float64  `json:"score"`
	Given bool     `json:"given"`
	Words []string `json:"words,omitempty"`
}

// maxLoggedWords bounds the matched words logged per hit: enough to say
// why, not the whole query.
const maxLoggedWords = 8

// maxWordedHits is how many of a turn's ranked memories, from the top,
// have their matched words logged (as do the given ones, wherever they
// rank): a message at 100,000 memories ranks hundreds, and finding each
// one's words as it writes them was a third of the turn's time.
const maxWordedHits = 16

func injectedLog(inj *engine.Injection) []injectedHit {
	out := make([]injectedHit, 0, len(inj.Hits))
	for i, h := range inj.Hits {
		ih := injectedHit{Key: h.Key(), Score: math.Round(h.Score*1000) / 1000, Given: slices.Contains(inj.Given, h.Key())}
		if i >= maxWordedHits && !ih.Given {
			out = append(out, ih)
			continue
		}
		var terms []string
		for _, t := range h.Reasons.Terms {
			if !t.Aside {
				terms = append(terms, t.Term)
			}
		}
		written := render.WrittenTerms(h, terms)
		for _, t := range h.Reasons.Terms {
			if w := written[t.Term]; !t.Aside && !slices.Contains(ih.Words, w) && len(ih.Words) < maxLoggedWords {
				ih.Words = render.AppendWord(ih.Words, w)
			}
		}
		out = append(out, ih)
	}
	return out
}

// maxExcerptRunes bounds the excerpt of a person's message that the log
// keeps: enough to recognise the turn in the viewer, never a whole paste.
const maxExcerptRunes = engine.MaxExcerptRunes

// excerpt is the start of a message on one line, for the log, masked.
func excerpt(text string) string { return engine.LogExcerpt(text) }

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
