package serve

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/extract"
	"github.com/ocmem/ocmem/internal/opencode"
)

// pluginBaseURL is the base URL extraction's client is given. Requests go
// through the plugin (PluginTransport), which uses only their path
// and sends them with OpenCode's own client; the host is under the
// reserved .invalid domain (RFC 2606), so nothing could ever be dialled
// with it even by mistake.
const pluginBaseURL = "http://opencode.invalid/"

// Extractor returns serve's idle-session hook (Config.Extract): automatic
// extraction through the OpenCode that runs the plugin, and only through
// it. Every request is handed to the plugin on the connection the idle
// came in on, and the plugin sends it with its own OpenCode client: in
// process where OpenCode
// listens on no port (plain `opencode`, `opencode run`), or to the address
// that OpenCode bound itself (`opencode serve`, `opencode --port N`), with
// the credentials OpenCode gave that client. The serverUrl the plugin
// reports is never dialled, and ocmem sends no credential of its own: on a
// shared machine any local process can listen on that address (plain
// `opencode` reports http://localhost:4096/ with nothing there).
func Extractor(log *slog.Logger) func(context.Context, *engine.Engine, IdleRequest) {
	x := extract.New(extract.Config{Log: log, MarkOwn: MarkOwnSession})
	return func(ctx context.Context, e *engine.Engine, req IdleRequest) {
		hc := &http.Client{Transport: &PluginTransport{Plugin: req.Plugin}}
		r := extract.Request{
			SessionID: req.SessionID,
			ServerURL: pluginBaseURL,
			Options:   req.Options,
			Remainder: req.Remainder,
			Owns:      req.Owns,
			CodeDir:   req.CodeDir,
			Connect: func(_, dir string) extract.Server {
				return &opencode.Client{BaseURL: pluginBaseURL, Directory: dir, HTTPClient: hc}
			},
		}
		if req.Plugin == nil {
			log.Warn("extraction transport: no plugin connection", "session", req.SessionID)
		} else {
			log.Debug("extraction transport: plugin", "session", req.SessionID, "why", "OpenCode's own client, through the plugin; serverUrl is never dialled")
		}
		res := x.Run(ctx, e, r)
		if msg := res.Notice(); msg != "" && req.Plugin != nil {
			if _, err := req.Plugin.Call(ctx, "notice", map[string]string{"message": msg}); err != nil {
				log.Debug("extraction notice not shown", "session", req.SessionID, "err", err)
			}
		}
	}
}
