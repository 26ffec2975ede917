package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"os/signal"

	"github.com/ocmem/ocmem/internal/install"
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
	srv := serve.New(serve.Config{GlobalDir: global, ProjectDir: project, Log: log, Extract: serve.Extractor(log),
		TrustFile: trustList().Path, OpenCodeConfigDir: openCodeConfigDir(), Command: selfCommand(exec.LookPath), TuneGC: true})
	log.Info("serve started", "version", version, "pid", os.Getpid())
	err = srv.Serve(ctx, untilDone(ctx, c.stdin), c.stdout)
	srv.Wait()
	log.Info("serve stopped", "err", errString(err))
	if err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

// untilDone reads r until ctx is done: then a read returns ctx's error, so
// an interrupt (Ctrl-C, or a SIGINT the npm launcher passes on) ends serve
// while its input is still open, as it would not while a read of r blocks.
func untilDone(ctx context.Context, r io.Reader) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, r)
		pw.CloseWithError(err)
	}()
	go func() {
		<-ctx.Done()
		pw.CloseWithError(ctx.Err())
	}()
	return pr
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// selfCommand is how the person runs this binary, for the commands serve's
// notices name: a binary from npm (OpenCode's cache, npx's) through npx
// with its version, since its `ocmem` is not on their PATH; the ocmem on
// PATH by name when it is this one; else its full path.
func selfCommand(lookPath func(string) (string, error)) string {
	exe, err := os.Executable()
	if err != nil {
		return "ocmem"
	}
	return commandFor(exe, lookPath)
}

func commandFor(exe string, lookPath func(string) (string, error)) string {
	if n := install.DetectNpm(exe); n != nil {
		return "npx " + n.Spec()
	}
	if found, err := lookPath("ocmem"); err == nil && sameFile(found, exe) {
		return "ocmem"
	}
	return exe
}
