package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/ocmem/ocmem/internal/serve"
)

func init() {
	register(command{
		name:    "serve",
		usage:   "[--global DIR] [--project DIR]",
		summary: "Serve the OpenCode plugin: newline-delimited JSON-RPC 2.0 on standard input and output.",
		run:     runServe,
	})
}

func runServe(ctx context.Context, c *cli, args []string) error {
	c.rootFlags(false)
	if err := c.parseNone(args); err != nil {
		return err
	}
	log, closeLog, err := openLog()
	if err != nil {
		return err
	}
	defer closeLog()
	global := firstNonEmpty(c.global, os.Getenv("OCMEM_GLOBAL"))
	project := firstNonEmpty(c.project, os.Getenv("OCMEM_PROJECT"))
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	srv := serve.New(serve.Config{GlobalDir: global, ProjectDir: project, Log: log, Extract: extractor(log),
		TrustFile: trustList().Path, OpenCodeConfigDir: openCodeConfigDir()})
	log.Info("serve started", "version", version, "pid", os.Getpid())
	err = srv.Serve(ctx, c.stdin, c.stdout)
	srv.Wait()
	log.Info("serve stopped", "err", errString(err))
	if err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
