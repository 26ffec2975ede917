package main

import (
	"context"
	"log/slog"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/serve"
)

// extractor returns the idle-session hook of serve. Automatic extraction is
// not wired yet; the hook logs that it was asked.
func extractor(log *slog.Logger) func(context.Context, *engine.Engine, serve.IdleRequest) {
	return func(ctx context.Context, e *engine.Engine, req serve.IdleRequest) {
		log.Info("session idle", "session", req.SessionID)
	}
}
