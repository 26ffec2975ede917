package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/extract"
	"github.com/ocmem/ocmem/internal/opencode"
	"github.com/ocmem/ocmem/internal/serve"
)

// extractor returns serve's idle-session hook: automatic extraction through
// the OpenCode server the plugin runs in, with the Basic auth credentials
// `opencode serve` reads from the same environment (the plugin starts
// `ocmem serve` with OpenCode's environment).
func extractor(log *slog.Logger) func(context.Context, *engine.Engine, serve.IdleRequest) {
	user, pass := opencode.EnvAuth(os.Getenv)
	x := extract.New(extract.Config{
		Log: log,
		Connect: func(url, dir string) extract.Server {
			return &opencode.Client{BaseURL: url, Directory: dir, Username: user, Password: pass}
		},
		MarkOwn: serve.MarkOwnSession,
	})
	return func(ctx context.Context, e *engine.Engine, req serve.IdleRequest) {
		x.Run(ctx, e, extract.Request{SessionID: req.SessionID, ServerURL: req.ServerURL, Options: req.Options})
	}
}
