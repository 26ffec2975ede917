// Package ui is the local web viewer behind `ocmem ui`: the memories of
// both roots, what injection and search would give for a message, each
// OpenCode session turn by turn (from serve's log, followed while it
// grows), and the hard rules of both roots with what waits for a person,
// with live updates when files change.
//
//	s, err := ui.New(ui.Config{Engine: e, LogPath: logPath})
//	ln, _ := net.Listen("tcp", "127.0.0.1:0")
//	http.Serve(ln, s.Handler(ln.Addr().String()))
//	fmt.Println(s.URL(ln.Addr().String())) // http://127.0.0.1:PORT/?token=<one-time code>
//
// Every request must come to a loopback Host with the per-run token (a
// cookie, which a one-time code in the first URL sets), from no foreign
// Origin; every state change is
// a POST carrying the per-run CSRF token. Text from memories and logs is
// escaped, and suspected secrets are masked before display.
package ui

import (
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/live"
)

//go:embed assets
var assets embed.FS

// Config configures a viewer.
type Config struct {
	Engine *engine.Engine
	// LogPath is serve's JSON-lines log, the source of the sessions page;
	// its rotated predecessor (LogPath + ".1") is read too. "" : no sessions.
	LogPath string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	Log *slog.Logger
	// PageSize is the number of memories per page; 0 means 50.
	PageSize int
	// LogPoll is how often the log is looked at for new lines, which open
	// session pages then show; 0 means DefaultLogPoll.
	LogPoll time.Duration
	// Live keeps the engine in step with the files on disk (live.Engines,
	// watching) and tells the viewer of each change, which open pages
	// then show; nil: only what the viewer writes itself is seen.
	Live *live.Engines
}

// DefaultLogPoll is how often the viewer looks at serve's log: a turn
// shows within a second of serve writing it, for one stat of two files.
const DefaultLogPoll = time.Second

// Server is one run of the viewer. It is safe for concurrent use.
type Server struct {
	cfg         Config
	e           *engine.Engine
	live        *live.Engines
	token, csrf string
	pages       map[string]*template.Template
	static      http.Handler

	mu       sync.Mutex
	gen      uint64 // bumped on every change seen
	subs     map[*stream]struct{}
	closed   chan struct{}
	closeOne sync.Once

	// recheckDelay is how long a new consistency check waits after a change.
	recheckDelay time.Duration

	// codes are the one-time codes of the URLs handed out, each with the
	// time it expires (zero: never).
	codes map[string]time.Time

	view    viewCache
	checks_ checkCache
	journal journalCache
	rulesC  rulesCache
}

// New returns a viewer with fresh random tokens.
func New(cfg Config) (*Server, error) {
	if cfg.Engine == nil {
		return nil, errors.New("ui: no engine")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.PageSize <= 0 {
		cfg.PageSize = 50
	}
	if cfg.LogPoll <= 0 {
		cfg.LogPoll = DefaultLogPoll
	}
	token, err := randomToken()
	if err != nil {
		return nil, err
	}
	csrf, err := randomToken()
	if err != nil {
		return nil, err
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	static, err := fs.Sub(assets, "assets/static")
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, e: cfg.Engine, token: token, csrf: csrf, pages: pages,
		static: http.StripPrefix("/static/", http.FileServerFS(static)),
		subs:   map[*stream]struct{}{}, closed: make(chan struct{}), recheckDelay: 2 * time.Second, codes: map[string]time.Time{}}
	s.live = cfg.Live
	if s.live == nil {
		s.live = live.New(live.Config{Log: cfg.Log})
	}
	s.live.Add(s.e)
	s.live.OnChange(func(string, string) { s.notify() })
	if cfg.LogPath != "" {
		go s.followLog()
	}
	return s, nil
}

func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// URL is an address to open: the root page with a one-time code, which
// the first browser to open it exchanges for the session cookie. The
// session's own token never goes into a URL: a URL handed to a browser
// goes through the argv of xdg-open and of the browser, which every local
// user can read (ps), and stays there for as long as the browser runs.
func (s *Server) URL(addr string) string { return s.codeURL(addr, time.Time{}) }

// OpenURL is URL for a browser started by the viewer: its code also
// expires after OpenCodeTTL, so the copy left in the browser's argv is
// dead once the browser has used it or failed to.
func (s *Server) OpenURL(addr string) string {
	return s.codeURL(addr, s.cfg.Now().Add(OpenCodeTTL))
}

// OpenCodeTTL is how long the code of a URL the viewer hands to a browser
// stays valid: a browser opens it within seconds.
const OpenCodeTTL = 2 * time.Minute

func (s *Server) codeURL(addr string, expires time.Time) string {
	code, err := randomToken()
	if err != nil {
		// No randomness: a URL that opens nothing, rather than a guessable one.
		return "http://" + addr + "/"
	}
	s.mu.Lock()
	s.codes[code] = expires
	s.mu.Unlock()
	return "http://" + addr + "/?token=" + url.QueryEscape(code)
}

// useCode reports whether code is a code handed out, unused and not
// expired, and uses it up.
func (s *Server) useCode(code string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c, expires := range s.codes {
		if !equal(c, code) {
			continue
		}
		delete(s.codes, c)
		return expires.IsZero() || s.cfg.Now().Before(expires)
	}
	return false
}

// Close ends the live-update streams, so that an http.Server can shut down.
func (s *Server) Close() { s.closeOne.Do(func() { close(s.closed) }) }

// CheckAddr refuses a listen address that is not 127.0.0.1: the viewer
// must not be reachable from another machine.
func CheckAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: want 127.0.0.1:PORT", addr)
	}
	if host != "127.0.0.1" {
		return fmt.Errorf("address %q: the viewer listens on 127.0.0.1 only", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("address %q: bad port", addr)
	}
	return nil
}

// Handler returns the viewer's handler for a listener at addr
// (127.0.0.1:PORT): requests must name that host and port.
func (s *Server) Handler(addr string) http.Handler {
	_, port, _ := net.SplitHostPort(addr)
	g := &guard{s: s, cookie: "ocmem_ui_" + port, hosts: map[string]bool{}, origins: map[string]bool{}}
	for _, h := range []string{"127.0.0.1", "localhost"} {
		g.hosts[h+":"+port] = true
		g.origins["http://"+h+":"+port] = true
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/memories", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /memories", s.memories)
	mux.HandleFunc("GET /memory", s.memory)
	mux.HandleFunc("GET /search", s.search)
	mux.HandleFunc("GET /sessions", s.sessions)
	mux.HandleFunc("GET /session", s.session)
	mux.HandleFunc("GET /rules", s.rules)
	mux.HandleFunc("GET /forget", s.forgetConfirm)
	mux.HandleFunc("GET /trust", s.trustConfirm)
	mux.HandleFunc("POST /trust", s.trustProject)
	mux.HandleFunc("POST /accept", s.accept)
	mux.HandleFunc("POST /reject", s.reject)
	mux.HandleFunc("POST /forget", s.forget)
	mux.HandleFunc("GET /events", s.events)
	mux.Handle("GET /static/", s.static)
	g.next = mux
	return g
}

// guard enforces the security rules before any handler runs.
type guard struct {
	s       *Server
	cookie  string
	hosts   map[string]bool
	origins map[string]bool
	next    http.Handler
}

// maxFormBytes bounds a POST body; the forms carry an id and two tokens.
const maxFormBytes = 16 << 10

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	// same-origin, not no-referrer: under no-referrer Chromium sends "Origin:
	// null" with a form POST, which the Origin check must refuse.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	// DNS rebinding: a foreign name resolving to 127.0.0.1 still carries
	// its own Host.
	if !g.hosts[r.Host] {
		http.Error(w, "refused: this viewer answers only to 127.0.0.1 and localhost on its own port", http.StatusForbidden)
		return
	}
	// Cross-site requests: browsers send Origin on every POST and on
	// cross-origin fetches, and Sec-Fetch-Site where they support it.
	if o := r.Header.Get("Origin"); o != "" && !g.origins[o] {
		http.Error(w, "refused: request from another origin", http.StatusForbidden)
		return
	}
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		http.Error(w, "refused: cross-site request", http.StatusForbidden)
		return
	}
	if t := r.URL.Query().Get("token"); t != "" {
		if r.Method != http.MethodGet {
			http.Error(w, "refused: the token opens the viewer with a GET", http.StatusMethodNotAllowed)
			return
		}
		if !g.s.useCode(t) {
			http.Error(w, "refused: wrong, expired or used token; each URL `ocmem ui` prints or opens works once: run it again for a new one", http.StatusUnauthorized)
			return
		}
		// The cookie is the narrowest a plain-HTTP cookie can be: sent by
		// no cross-site request, read by no script, named for this port.
		// Browsers still send it to other ports of 127.0.0.1 (cookies are
		// not port-scoped), which docs/SECURITY.md states.
		http.SetCookie(w, &http.Cookie{Name: g.cookie, Value: g.s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		// Drop the token from the address bar and from history.
		http.Redirect(w, r, sameSite(r.URL), http.StatusSeeOther)
		return
	}
	c, err := r.Cookie(g.cookie)
	if err != nil || !equal(c.Value, g.s.token) {
		http.Error(w, "refused: no token; open the URL `ocmem ui` printed", http.StatusUnauthorized)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if r.Method != http.MethodPost {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		if err := r.ParseForm(); err != nil {
			http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
			return
		}
		if !equal(r.PostForm.Get("csrf"), g.s.csrf) {
			http.Error(w, "refused: missing or wrong CSRF token; reload the page and try again", http.StatusForbidden)
			return
		}
	}
	g.next.ServeHTTP(w, r)
}

// sameSite is the address to go on to after the token: the request's own
// path and query without the token, as a path on this site. A path such
// as "//evil.example/" would otherwise be a protocol-relative address to
// another site (an open redirect behind the token); it is cleaned to
// "/evil.example", and a path holding a backslash, which browsers read as
// a slash, goes to the start page.
func sameSite(u *url.URL) string {
	p := path.Clean("/" + u.Path)
	if strings.ContainsRune(p, '\\') || strings.HasPrefix(p, "//") {
		p = "/"
	}
	q := u.Query()
	q.Del("token")
	next := url.URL{Path: p, RawQuery: q.Encode()}
	return next.RequestURI()
}

func equal(a, b string) bool {
	return len(a) == len(b) && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// notify bumps the generation and wakes every live-update stream.
func (s *Server) notify() {
	s.mu.Lock()
	s.gen++
	s.mu.Unlock()
	s.notifyChecked()
}

// notifyChecked wakes every live-update stream without a new generation:
// the files did not change, what is known about them did.
func (s *Server) notifyChecked() {
	s.mu.Lock()
	g := s.gen
	for st := range s.subs {
		select {
		case st.change <- g:
		default: // a change is already pending for this stream
		}
	}
	s.mu.Unlock()
}

// stream is one open /events connection.
type stream struct {
	change chan uint64   // the memories changed
	log    chan struct{} // serve's log grew
}

// followLog tells the open streams when serve's log changes (a turn, a
// tool call, an extraction), until the viewer is closed: the session
// pages follow OpenCode while it runs.
func (s *Server) followLog() {
	t := time.NewTicker(s.cfg.LogPoll)
	defer t.Stop()
	last := s.logSignature()
	for {
		select {
		case <-s.closed:
			return
		case <-t.C:
		}
		sig := s.logSignature()
		if sig == last {
			continue
		}
		last = sig
		s.mu.Lock()
		for st := range s.subs {
			select {
			case st.log <- struct{}{}:
			default:
			}
		}
		s.mu.Unlock()
	}
}

func (s *Server) generation() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// events streams a "change" event whenever memories change, and a "log"
// event whenever serve's log does.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	st := &stream{change: make(chan uint64, 1), log: make(chan struct{}, 1)}
	s.mu.Lock()
	s.subs[st] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.subs, st)
		s.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "retry: 2000\n\n")
	fl.Flush()
	tick := time.NewTicker(15 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.closed:
			return
		case g := <-st.change:
			fmt.Fprintf(w, "event: change\ndata: %d\n\n", g)
			fl.Flush()
		case <-st.log:
			fmt.Fprintf(w, "event: log\ndata: 1\n\n")
			fl.Flush()
		case <-tick.C:
			fmt.Fprintf(w, ": keep-alive\n\n")
			fl.Flush()
		}
	}
}
