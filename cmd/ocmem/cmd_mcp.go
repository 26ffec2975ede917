package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/ocmem/ocmem/internal/mcpserver"
	"github.com/ocmem/ocmem/internal/store"
)

func init() {
	register(command{
		name:    "mcp",
		usage:   "[--global DIR] [--project DIR]",
		summary: "Serve the memory tools to any MCP client (Model Context Protocol over standard input and output).",
		run:     runMCP,
	})
}

func runMCP(c *cli, args []string) int {
	c.rootFlags(false)
	if code, ok := c.parseNone(args); !ok {
		return code
	}
	e, err := c.engine()
	if err != nil {
		return c.fail(err)
	}
	log, closeLog, err := openLog()
	if err != nil {
		return c.fail(err)
	}
	defer closeLog()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	g, p := e.Root(store.Global).Dir, e.Root(store.Project).Dir
	log.Info("mcp started", "version", version, "pid", os.Getpid(), "global", g, "project", p)
	srv := mcpserver.New(mcpserver.Config{Engine: e, Version: version, Log: log})
	err = mcpserver.ServeStdio(ctx, srv, c.stdin, c.stdout)
	log.Info("mcp stopped", "err", errString(err))
	if err != nil && ctx.Err() == nil {
		return c.fail(err)
	}
	return exitOK
}
