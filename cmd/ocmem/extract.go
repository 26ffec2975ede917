package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/extract"
	"github.com/ocmem/ocmem/internal/opencode"
	"github.com/ocmem/ocmem/internal/serve"
)

// EnvExtractTransport forces how extraction reaches OpenCode: "http" (the
// plugin's serverUrl only) or "plugin" (through the plugin's in-process
// client only). Unset or anything else: serverUrl if it answers, else the
// plugin.
const EnvExtractTransport = "OCMEM_EXTRACT_TRANSPORT"

// probeTimeout bounds the check that serverUrl answers.
const probeTimeout = time.Second

// extractor returns serve's idle-session hook: automatic extraction through
// the OpenCode server the plugin runs in, with the Basic auth credentials
// `opencode serve` reads from the same environment (the plugin starts
// `ocmem serve` with OpenCode's environment). The server is reached at the
// plugin's serverUrl when something answers there (`opencode serve`,
// `opencode --port N`), else through the plugin itself, whose client calls
// OpenCode's server in process (plain `opencode`, where serverUrl is dead).
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
		r := extract.Request{SessionID: req.SessionID, ServerURL: req.ServerURL, Options: req.Options, Remainder: req.Remainder, Owns: req.Owns}
		if rt := transport(ctx, log, req, user, pass); rt != nil {
			hc := &http.Client{Transport: rt}
			r.Connect = func(url, dir string) extract.Server {
				return &opencode.Client{BaseURL: url, Directory: dir, Username: user, Password: pass, HTTPClient: hc}
			}
		}
		res := x.Run(ctx, e, r)
		if msg := extractionNotice(res.Written()); msg != "" && req.Plugin != nil {
			if _, err := req.Plugin.Call(ctx, "notice", map[string]string{"message": msg}); err != nil {
				log.Debug("extraction notice not shown", "session", req.SessionID, "err", err)
			}
		}
	}
}

// extractionNotice is what the person is told about an extraction's
// writes: the memories, and the rule proposals that wait for them.
func extractionNotice(written []*engine.Written) string {
	var mems, rules []string
	for _, w := range written {
		key := string(w.Scope) + ":" + w.ID
		if w.Kind == engine.KindRuleProposal {
			rules = append(rules, key)
		} else {
			mems = append(mems, key)
		}
	}
	var parts []string
	if len(mems) > 0 {
		parts = append(parts, "remembered from this session: "+strings.Join(mems, ", "))
	}
	if len(rules) > 0 {
		parts = append(parts, "rule proposal(s) waiting for you: "+strings.Join(rules, ", ")+" (`ocmem rules`)")
	}
	return strings.Join(parts, "; ")
}

// transport returns the transport to reach OpenCode for req: nil for plain
// HTTP to serverUrl, or the plugin's.
func transport(ctx context.Context, log *slog.Logger, req serve.IdleRequest, user, pass string) http.RoundTripper {
	mode := os.Getenv(EnvExtractTransport)
	// The log names the route taken and why; an error only when one
	// happened that was not expected (nothing listening at serverUrl is
	// the normal case under plain `opencode` and `opencode run`).
	viaPlugin := func(why string, err error) http.RoundTripper {
		attrs := []any{"session", req.SessionID, "why", why}
		if err != nil {
			attrs = append(attrs, "err", errString(err))
		}
		if req.Plugin == nil {
			log.Warn("extraction transport: no plugin connection; using serverUrl", attrs...)
			return nil
		}
		log.Info("extraction transport: plugin", attrs...)
		return &serve.PluginTransport{Plugin: req.Plugin}
	}
	switch mode {
	case "plugin":
		return viaPlugin(EnvExtractTransport+"=plugin", nil)
	case "http":
		log.Info("extraction transport: http", "session", req.SessionID, "why", EnvExtractTransport+"=http", "url", req.ServerURL)
		return nil
	}
	if req.ServerURL == "" {
		return viaPlugin("no serverUrl", nil)
	}
	// OpenCode 2 gives plugins no server; its plugin sends a URL under the
	// reserved .invalid domain, which never resolves.
	if u, err := url.Parse(req.ServerURL); err == nil && strings.HasSuffix(u.Hostname(), ".invalid") {
		return viaPlugin("serverUrl "+req.ServerURL+" names no server (OpenCode 2): through the plugin", nil)
	}
	// A cheap GET of the session. No answer: nothing listens there (plain
	// `opencode`, `opencode run`). 404: another OpenCode server holds the
	// port, one that does not know this session. Any other answer (401
	// included) is the server the plugin runs in.
	c := &opencode.Client{BaseURL: req.ServerURL, Username: user, Password: pass, Timeout: probeTimeout}
	_, err := c.Session(ctx, req.SessionID)
	var herr *opencode.HTTPError
	switch {
	case err != nil && !errors.As(err, &herr) && errors.Is(err, syscall.ECONNREFUSED):
		return viaPlugin("nothing listens at serverUrl "+req.ServerURL+" (normal under plain opencode and opencode run): through the plugin's in-process client", nil)
	case err != nil && !errors.As(err, &herr):
		return viaPlugin("serverUrl does not answer", err)
	case errors.Is(err, opencode.ErrNotFound):
		return viaPlugin("serverUrl does not know the session", err)
	}
	log.Info("extraction transport: http", "session", req.SessionID, "url", req.ServerURL)
	return nil
}
