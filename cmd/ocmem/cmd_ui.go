package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/ocmem/ocmem/internal/live"
	"github.com/ocmem/ocmem/internal/ui"
)

func init() {
	register(command{name: "ui", usage: "[--addr 127.0.0.1:PORT] [--no-open]",
		summary: "Open a local web viewer: memories, search with reasons, sessions, rule proposals.", run: runUI})
}

func runUI(ctx context.Context, c *cli, args []string) error {
	c.rootFlags(false)
	var addr string
	var noOpen bool
	c.fs.StringVar(&addr, "addr", "127.0.0.1:0", "address to listen on: 127.0.0.1 and a port (0: a free one)")
	c.fs.BoolVar(&noOpen, "no-open", false, "do not open a browser; just print the URL")
	if err := c.parseNone(args); err != nil {
		return err
	}
	if err := ui.CheckAddr(addr); err != nil {
		return usagef("--addr: %v", err)
	}
	e, err := c.engine()
	if err != nil {
		return err
	}
	// The same watch serve and the MCP server keep; a root it cannot
	// watch is polled.
	l := live.New(live.Config{})
	l.Watch()
	defer l.Close()
	lp, _ := logPath()
	srv, err := ui.New(ui.Config{Engine: e, LogPath: lp, Live: l})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	url := srv.URL(ln.Addr().String())
	fmt.Fprintln(c.stdout, url)

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	go l.Poll(ctx, rootPoll)

	hs := &http.Server{Handler: srv.Handler(ln.Addr().String()), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Close()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	if !noOpen {
		// A URL of its own, whose one-time code expires: the browser's
		// argv, which every local user can read, holds it for as long as
		// the browser runs.
		if err := openBrowser(srv.OpenURL(ln.Addr().String())); err != nil {
			fmt.Fprintf(c.stderr, "ocmem ui: could not open a browser (%v); open the URL above\n", err)
		}
	}
	fmt.Fprintln(c.stderr, "ocmem ui: serving; press Ctrl-C to stop")
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// rootPoll is how often the viewer looks again at a root it cannot watch
// (missing at start, or the platform refused): its open pages show a
// change within that.
const rootPoll = 2 * time.Second

// openBrowser opens url in the user's browser.
func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
