// Package mcpserver serves ocmem's memories to any Model Context Protocol
// client (OpenCode, Claude Code, Codex, Cursor) over stdio: the tools recall,
// remember, forget and inspect, and a prompt and a resource holding the
// injection text for clients that cannot inject it themselves.
//
//	srv := mcpserver.New(mcpserver.Config{Engine: e, Version: "1.0.0"})
//	err := mcpserver.ServeStdio(ctx, srv, os.Stdin, os.Stdout)
//
// It is a thin edge: every handler calls one engine method. What makes a
// write safe (secret scanning, path safety, rules from a model stored as
// rule proposals) happens inside the engine; refusals come back to the model
// as tool errors (IsError) with the engine's sentence, never as protocol
// failures, so the model can read them and correct itself.
package mcpserver

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/pathsafe"
	"github.com/ocmem/ocmem/internal/rank"
	"github.com/ocmem/ocmem/internal/secrets"
	"github.com/ocmem/ocmem/internal/store"
)

// instructions is what the server tells every client at initialization:
// when to recall, and what is (and is not) worth remembering.
//
//go:embed instructions.md
var instructions string

// Name is the implementation name the server reports.
const Name = "ocmem"

// Recall limits: the same as the OpenCode plugin's memory_recall.
const (
	DefaultRecallLimit = 5
	MaxRecallLimit     = 20
)

// Config configures a server. Engine is required.
type Config struct {
	Engine  *engine.Engine
	Version string       // reported to clients; "" means "devel"
	Log     *slog.Logger // nil: no log
}

// server holds what the handlers share.
type server struct {
	e   *engine.Engine
	log *slog.Logger
}

// New returns an MCP server over the engine's roots.
func New(cfg Config) *mcp.Server {
	s := &server{e: cfg.Engine, log: cfg.Log}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	version := cfg.Version
	if version == "" {
		version = "devel"
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "ocmem memory", Version: version}, &mcp.ServerOptions{
		Instructions: instructions,
		// No logging capability: the server logs to ocmem's log file, and a
		// client that shows server log messages would show noise.
		Capabilities: &mcp.ServerCapabilities{},
	})
	// recall is read-only as far as memories go: it only bumps the hit
	// counters in the git-ignored .state.json, a ranking hint.
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "recall",
		Title: "Recall memories",
		Description: "Search the user's durable memory (project and global notes kept across sessions) " +
			"for a task, a question or an error message. Returns each matching memory in full, with the " +
			"reasons it matched (terms, fields, scores). Call it before planning any task.",
		InputSchema: recallSchema,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, s.recall)
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "remember",
		Title: "Remember",
		Description: "Write a memory for later sessions: a preference, a decision with its reason, a " +
			"non-obvious pitfall with its root cause, or a project fact the code does not show. Not for " +
			"task state, branch names, local paths or secrets (secrets are refused). A rule is stored as a " +
			"rule proposal that the user must accept.",
		InputSchema: rememberSchema,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: ptr(false), IdempotentHint: false, OpenWorldHint: ptr(false)},
	}, s.remember)
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "forget",
		Title: "Forget a memory",
		Description: "Delete one memory file by its id (<category>/<slug>, as recall and inspect show it). " +
			"Use only when the user asks or a memory is plainly wrong. Ids that leave the memory folder are refused.",
		InputSchema: forgetSchema,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, s.forget)
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "inspect",
		Title:       "Inspect memory",
		Description: "List every memory and check the memory folders for problems: index drift, broken supersede links, duplicate ids, files that do not parse.",
		InputSchema: inspectSchema,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, s.inspect)
	s.addContext(srv)
	return srv
}

func ptr[T any](v T) *T { return &v }

// RecallParams are the arguments of the recall tool.
type RecallParams struct {
	Query string `json:"query" jsonschema:"what to look for: keywords, a question or an error message, in any language"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many memories (default 5, at most 20)"`
}

// RememberParams are the arguments of the remember tool, the same as the
// OpenCode plugin's memory_remember.
type RememberParams struct {
	Category   string   `json:"category" jsonschema:"the folder: one name, usually the plural of the kind (pitfalls, decisions, preferences, facts)"`
	Kind       string   `json:"kind" jsonschema:"what the memory is; a rule is stored as a rule proposal until the user accepts it"`
	Summary    string   `json:"summary" jsonschema:"one sentence that makes sense on its own"`
	Body       string   `json:"body" jsonschema:"context, the decision or root cause, and the reason"`
	Highlight  string   `json:"highlight,omitempty" jsonschema:"the single most useful detail"`
	LoadWhen   []string `json:"load_when,omitempty" jsonschema:"keywords and situations in which the memory should come back"`
	Pinned     bool     `json:"pinned,omitempty" jsonschema:"never decays and is never superseded automatically"`
	Supersedes string   `json:"supersedes,omitempty" jsonschema:"id of an outdated memory this one replaces (kept for history, no longer recalled)"`
	Scope      string   `json:"scope,omitempty" jsonschema:"project (this repository, the default inside one) or global (this user, everywhere)"`
}

// ForgetParams are the arguments of the forget tool.
type ForgetParams struct {
	ID    string `json:"id" jsonschema:"the memory's id, <category>/<slug>"`
	Scope string `json:"scope,omitempty" jsonschema:"project or global; needed only when the id exists in both"`
}

// InspectParams are the (no) arguments of the inspect tool.
type InspectParams struct{}

// The input schemas are inferred from the params structs, then tightened
// where tags cannot say it: the enumerations. Bounds are not enforced by the
// schema (a limit of 50 is clamped, as the plugin does, rather than failing
// the call); empty strings get the engine's clearer message. load_when is declared a
// plain array: the inferred ["null","array"] type trips some providers'
// schema checks, and the engine treats a missing list as empty anyway.
var (
	recallSchema   = schemaFor[RecallParams](nil)
	rememberSchema = schemaFor[RememberParams](func(s *jsonschema.Schema) {
		s.Properties["kind"].Enum = []any{"rule", "preference", "decision", "pitfall", "fact"}
		s.Properties["scope"].Enum = []any{"project", "global"}
		lw := s.Properties["load_when"]
		lw.Type, lw.Types = "array", nil
	})
	forgetSchema = schemaFor[ForgetParams](func(s *jsonschema.Schema) {
		s.Properties["scope"].Enum = []any{"project", "global"}
	})
	inspectSchema = schemaFor[InspectParams](nil)
)

func schemaFor[T any](tighten func(*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %T: %v", *new(T), err))
	}
	if tighten != nil {
		tighten(s)
	}
	return s
}

// text is a successful tool result holding one text block.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// refused is a tool error the model can read: the engine's reason in one
// line, and what did not happen.
func refused(what string, err error) *mcp.CallToolResult {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	res := text(fmt.Sprintf("%s refused: %s", what, msg))
	res.IsError = true
	return res
}

// refusedBeforeWriting reports whether the engine refused a request before
// touching the disk, so that the reply may say nothing changed. Other errors
// (a failed recompile after the write, a full disk) say what happened
// themselves.
func refusedBeforeWriting(err error) bool {
	var secret *secrets.Error
	return errors.As(err, &secret) || errors.Is(err, pathsafe.ErrOutside) ||
		errors.Is(err, engine.ErrBadRequest) || errors.Is(err, engine.ErrNotFound) ||
		errors.Is(err, engine.ErrAmbiguous) || errors.Is(err, engine.ErrNoRoot) || errors.Is(err, engine.ErrPinned)
}

func parseScope(s string) (store.Scope, error) {
	if s == "" {
		return "", nil
	}
	return store.ParseScope(s)
}

func (s *server) recall(_ context.Context, _ *mcp.CallToolRequest, p RecallParams) (*mcp.CallToolResult, any, error) {
	if strings.TrimSpace(p.Query) == "" {
		return refused("recall", fmt.Errorf("query is empty")), nil, nil
	}
	limit := p.Limit
	if limit <= 0 || limit > MaxRecallLimit {
		limit = DefaultRecallLimit
	}
	// The server lives as long as the client's session while people edit
	// memory files by hand and other processes write them: read afresh.
	s.e.Invalidate()
	hits, err := s.e.Recall(p.Query, engine.RecallOptions{Limit: limit, Count: true, Mode: rank.Search})
	if err != nil {
		s.log.Warn("mcp recall failed", "query", p.Query, "err", err)
		return refused("recall", err), nil, nil
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.Key()
	}
	s.log.Info("mcp recall", "query", p.Query, "results", strings.Join(ids, ","))
	return text(engine.FormatHits(hits, true)), nil, nil
}

func (s *server) remember(_ context.Context, _ *mcp.CallToolRequest, p RememberParams) (*mcp.CallToolResult, any, error) {
	scope, err := parseScope(p.Scope)
	if err != nil {
		return refused("remember", fmt.Errorf("%w; nothing was written", err)), nil, nil
	}
	w, err := s.e.Remember(engine.RememberRequest{
		Scope: scope, Category: p.Category, Kind: memory.Kind(p.Kind), Summary: p.Summary, Body: p.Body,
		Highlight: p.Highlight, LoadWhen: p.LoadWhen, Pinned: p.Pinned, Supersedes: p.Supersedes,
		Source: engine.FromModel,
	})
	if err != nil {
		s.log.Warn("mcp remember refused", "err", err)
		if refusedBeforeWriting(err) {
			err = fmt.Errorf("%w; nothing was written", err)
		}
		return refused("remember", err), nil, nil
	}
	s.log.Info("mcp remembered", "id", w.ID, "scope", w.Scope, "kind", w.Kind)
	msg := fmt.Sprintf("Remembered %s:%s (%s) in %s.", w.Scope, w.ID, w.Kind, w.Path)
	if w.Downgraded {
		msg += " Hard rules come only from people, so it is stored as a rule proposal: it is not in force " +
			"until the user accepts it by changing `kind: rule-proposal` to `kind: rule` in that file."
	}
	if w.Superseded != "" {
		msg += fmt.Sprintf(" It supersedes %s, which is kept for history and no longer recalled.", w.Superseded)
	}
	return text(msg), nil, nil
}

func (s *server) forget(_ context.Context, _ *mcp.CallToolRequest, p ForgetParams) (*mcp.CallToolResult, any, error) {
	scope, err := parseScope(p.Scope)
	if err != nil {
		return refused("forget", fmt.Errorf("%w; nothing was deleted", err)), nil, nil
	}
	w, err := s.e.Forget(scope, p.ID)
	if err != nil {
		s.log.Warn("mcp forget refused", "id", p.ID, "err", err)
		if refusedBeforeWriting(err) {
			err = fmt.Errorf("%w; nothing was deleted", err)
		}
		return refused("forget", err), nil, nil
	}
	s.log.Info("mcp forgot", "id", w.ID, "scope", w.Scope)
	return text(fmt.Sprintf("Forgot %s:%s (deleted %s).", w.Scope, w.ID, w.Path)), nil, nil
}

func (s *server) inspect(_ context.Context, _ *mcp.CallToolRequest, _ InspectParams) (*mcp.CallToolResult, any, error) {
	rep, err := s.e.Inspect()
	if err != nil {
		return refused("inspect", err), nil, nil
	}
	return text(engine.FormatReport(rep, true)), nil, nil
}
