package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/live"
	"github.com/ocmem/ocmem/internal/mcpserver"
)

func init() {
	register(command{
		name:    "mcp",
		usage:   "[--global DIR] [--project DIR]",
		summary: "Serve the memory tools to any MCP client (Model Context Protocol over standard input and output).",
		run:     runMCP,
	})
}

func runMCP(ctx context.Context, c *cli, args []string) error {
	c.rootFlags(false)
	if err := c.parseNone(args); err != nil {
		return err
	}
	e, err := c.engine()
	if err != nil {
		return err
	}
	log, closeLog, err := openLog()
	if err != nil {
		return err
	}
	defer closeLog()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	g, p := e.Root(engine.Global).Dir, e.Root(engine.Project).Dir
	log.Info("mcp started", "version", version, "pid", os.Getpid(), "global", g, "project", p)
	l := live.New(live.Config{Log: log})
	l.Watch()
	defer l.Close()
	srv := mcpserver.New(mcpserver.Config{Engine: e, Version: version, Log: log, Live: l})
	err = mcpserver.ServeStdio(ctx, srv, c.stdin, c.stdout)
	log.Info("mcp stopped", "err", errString(err))
	if err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}
