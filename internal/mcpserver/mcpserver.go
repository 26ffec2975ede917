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
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/live"
	"github.com/ocmem/ocmem/internal/tools"
	"github.com/ocmem/ocmem/internal/toolspec"
)

// instructions is what the server tells every client at initialization:
// when to recall, and what is (and is not) worth remembering.
//
//go:embed instructions.md
var instructions string

// Name is the implementation name the server reports.
const Name = "ocmem"

// Config configures a server. Engine is required.
type Config struct {
	Engine  *engine.Engine
	Version string       // reported to clients; "" means "devel"
	Log     *slog.Logger // nil: no log
	// Live keeps the engine in step with the files on disk (live.Engines,
	// watching); nil: the roots are polled before each answer.
	Live *live.Engines
}

// server holds what the handlers share.
type server struct {
	e    *engine.Engine
	log  *slog.Logger
	live *live.Engines
}

// New returns an MCP server over the engine's roots.
func New(cfg Config) *mcp.Server {
	s := &server{e: cfg.Engine, log: cfg.Log, live: cfg.Live}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if s.live == nil {
		s.live = live.New(live.Config{Log: s.log})
	}
	s.live.Add(s.e)
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
	mcp.AddTool(srv, tool("recall"), s.recall)
	mcp.AddTool(srv, tool("remember"), s.remember)
	mcp.AddTool(srv, tool("forget"), s.forget)
	mcp.AddTool(srv, tool("inspect"), s.inspect)
	s.addContext(srv)
	return srv
}

func ptr[T any](v T) *T { return &v }

// The tools' arguments are the tool contract's (toolspec), the same as the
// OpenCode plugin's.
type (
	RecallParams   = toolspec.RecallArgs
	RememberParams = toolspec.RememberArgs
	ForgetParams   = toolspec.ForgetArgs
	InspectParams  = toolspec.InspectArgs
)

// tool is the MCP description of one tool of the contract: its input schema
// and annotations come from toolspec, so every client is told the same.
func tool(name string) *mcp.Tool {
	t, ok := toolspec.Lookup(name)
	if !ok {
		panic("mcpserver: no tool " + name + " in the contract")
	}
	ann := &mcp.ToolAnnotations{ReadOnlyHint: t.ReadOnly, IdempotentHint: t.Idempotent, OpenWorldHint: ptr(false)}
	if !t.ReadOnly {
		ann.DestructiveHint = ptr(t.Destructive)
	}
	return &mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema(), Annotations: ann}
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

func (s *server) recall(_ context.Context, _ *mcp.CallToolRequest, p RecallParams) (*mcp.CallToolResult, any, error) {
	// The server lives as long as the client's session while people edit
	// memory files by hand and other processes write them: what the
	// watcher did not see is read afresh.
	s.live.Fresh(s.e)
	r, err := tools.Recall(s.e, p, "")
	if err != nil {
		s.log.Warn("mcp recall failed", "query", engine.LogExcerpt(p.Query), "err", err)
		return refused("recall", err), nil, nil
	}
	s.log.Info("mcp recall", "query", engine.LogExcerpt(p.Query), "results", strings.Join(r.IDs, ","))
	return text(r.Text), nil, nil
}

func (s *server) remember(_ context.Context, _ *mcp.CallToolRequest, p RememberParams) (*mcp.CallToolResult, any, error) {
	r, err := tools.Remember(s.e, p, engine.FromModel, "")
	if err != nil {
		s.log.Warn("mcp remember refused", "err", err)
		return refused("remember", err), nil, nil
	}
	s.log.Info("mcp remembered", "id", r.Written.ID, "scope", r.Written.Scope, "kind", r.Written.Kind)
	return text(r.Text), nil, nil
}

func (s *server) forget(_ context.Context, _ *mcp.CallToolRequest, p ForgetParams) (*mcp.CallToolResult, any, error) {
	r, err := tools.Forget(s.e, p, engine.FromModel)
	if err != nil {
		s.log.Warn("mcp forget refused", "id", p.ID, "err", err)
		return refused("forget", err), nil, nil
	}
	s.log.Info("mcp forgot", "id", r.Written.ID, "scope", r.Written.Scope)
	return text(r.Text), nil, nil
}

func (s *server) inspect(_ context.Context, _ *mcp.CallToolRequest, _ InspectParams) (*mcp.CallToolResult, any, error) {
	r, _, err := tools.Inspect(s.e, "")
	if err != nil {
		return refused("inspect", err), nil, nil
	}
	return text(r.Text), nil, nil
}
