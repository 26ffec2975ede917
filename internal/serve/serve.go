// Package serve is the long-lived process behind the OpenCode plugin: it
// speaks newline-delimited JSON-RPC 2.0 on a reader and a writer (the
// plugin's pipe to `ocmem serve`), keeps each project's memories loaded and
// indexed, and watches the roots so a memory edited by hand is seen on the
// next turn.
//
//	s := serve.New(serve.Config{GlobalDir: g, Log: logger})
//	err := s.Serve(ctx, os.Stdin, os.Stdout)
//
// Every request carries the project worktree, the plugin options and, where
// known, the session id; the server holds no per-connection state beyond its
// caches, so a restarted server picks up where the old one stopped.
package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/live"
	"github.com/ocmem/ocmem/internal/sessionlog"
)

// MaxRequestBytes bounds one request line. A user message with a pasted log
// can be large; beyond this the request is refused, not buffered forever.
const MaxRequestBytes = 4 << 20

// Large requests (over LargeRequestBytes: a message with a long paste) are
// handled at most MaxLargeRequests at a time; serve reads no further line
// while that many are in flight, so a burst of them cannot hold a copy of
// each in memory at once. Small requests are never held back by them,
// except while the reader waits; replies to serve's own requests to the
// plugin are small.
const (
	LargeRequestBytes = 256 << 10
	MaxLargeRequests  = 2
)

// JSON-RPC 2.0 error codes.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
	// codeRefused is an application error: the request was understood and
	// refused (a secret, a path outside the root, a missing memory).
	codeRefused = 1
	// codeFailed is a tool call that was taken and failed on the way (a
	// memory written whose index could not be updated, a full disk): the
	// plugin does not call it refused.
	codeFailed = 2
)

// Config configures a server.
type Config struct {
	// GlobalDir is the global root ("" : the default location).
	GlobalDir string
	// ProjectDir, when set, overrides the project root for every request
	// (tests, or a user who keeps project memories elsewhere).
	ProjectDir string
	Log        *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// TrustFile is the user's trust list (internal/trust): a project's hard
	// rules apply only when it lists the project. "" trusts no project.
	TrustFile string
	// OpenCodeConfigDir is OpenCode's global config dir: for the options
	// that cost money or widen injection, its ocmem options win over a
	// project's opencode.json (internal/settings). "" reads no global
	// config: a project's values apply, but its extractModel only in a
	// trusted project.
	OpenCodeConfigDir string
	// Extract, when set, runs automatic extraction for an idle session. It
	// is called in its own goroutine and must not panic.
	Extract func(ctx context.Context, e *engine.Engine, req IdleRequest)
	// Command is how the person runs this ocmem, for what notices tell
	// them to type: "npx ocmem@V" for a binary from npm, whose command is
	// not on their PATH; "" is "ocmem".
	Command string
	// IdleRemainderAfter is how long a session must stay idle (no new
	// message, no new idle) before Extract is called again with Remainder
	// set; 0 means the project's extractIdleSeconds option.
	IdleRemainderAfter time.Duration
	// PollRoots polls the roots on each request instead of watching them,
	// as serve does where the platform offers no file watching.
	PollRoots bool
	// TuneGC lets the projects' engines set the process's garbage
	// collector around their cold builds (engine.Config.TuneGC): the
	// program that owns main decides.
	TuneGC bool

	// messageHook, when set (by tests), is called as a message is handled.
	messageHook func(p *messageParams)
}

// Server handles requests. It is safe for concurrent use.
type Server struct {
	cfg Config
	log *slog.Logger

	mu       sync.Mutex
	projects map[string]*project // by key: project dir + options
	sessions map[string]*sessionlog.Log
	// live tells the engines of what changed on disk, and brings the
	// compiled files up to date after a hand edit.
	live *live.Engines
	wg   sync.WaitGroup
	// trustSeen is the trust list as last seen (see noticeTrustChange).
	trustSeen os.FileInfo
	// remainders are the pending remainder extractions, by session.
	remainders map[string]*time.Timer
	// resumed are the roots whose pending sessions were looked at
	// (resumePending), by project and global root dir.
	resumed map[string]bool
	// reported are the broken memory files already reported (newProblems).
	reported map[string]bool
	// rulesReported are the project rule changes already told, and
	// rulesLooked the news each engine's last request looked at
	// (newRuleChanges).
	rulesReported map[string]bool
	rulesLooked   map[*engine.Engine]*engine.ProjectRule
	// optionsTold are the option warnings already given, by session and
	// text (optionsNotice).
	optionsTold map[string]bool
	// rootMDLooked is the ROOT.md section each engine's last request
	// looked at (rootMDNotInForce).
	rootMDLooked map[*engine.Engine]*engine.ProjectRule
}

// project is one (project root, options) pair with its engine.
type project struct {
	engine *engine.Engine
}

// New returns a server.
func New(cfg Config) *Server {
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Server{cfg: cfg, log: log, projects: map[string]*project{}, sessions: map[string]*sessionlog.Log{},
		live: live.New(live.Config{Log: log, Recompile: true})}
}

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return e.Message }

// Serve reads requests from r until EOF or ctx is done and writes responses
// to w. Requests are handled concurrently; responses are written whole, one
// per line, in the order they finish.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	if !s.cfg.PollRoots {
		s.live.Watch()
	}
	defer s.live.Close()
	defer s.stopRemainders()
	var wmu sync.Mutex
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	write := func(resp response) {
		wmu.Lock()
		defer wmu.Unlock()
		if err := enc.Encode(resp); err != nil {
			s.log.Error("write response", "err", err)
		}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	large := make(chan struct{}, MaxLargeRequests)
	var inflight sync.WaitGroup
	defer inflight.Wait()
	// Requests from serve to the plugin go out on w too; their replies come
	// in among the plugin's requests and are handed over below.
	plugin := NewPlugin(func(v any) error {
		wmu.Lock()
		defer wmu.Unlock()
		return enc.Encode(v)
	})
	defer plugin.Close()
	ctx = context.WithValue(ctx, pluginKey{}, plugin)
	for {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		line, err := readLine(br, MaxRequestBytes)
		if errors.Is(err, errTooLong) {
			write(response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{codeInvalidRequest, fmt.Sprintf("request longer than %d bytes", MaxRequestBytes)}})
			continue
		}
		if len(strings.TrimSpace(string(line))) > 0 && !plugin.Deliver(line) {
			release := func() {}
			if len(line) > LargeRequestBytes {
				select {
				case large <- struct{}{}:
					release = func() { <-large }
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			inflight.Add(1)
			go func(line []byte) {
				defer inflight.Done()
				defer release()
				if resp, ok := s.handleLine(ctx, line); ok {
					write(resp)
				}
			}(line)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

var errTooLong = errors.New("line too long")

// readLine reads one line of at most max bytes; a longer line is consumed
// and reported as errTooLong.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > max {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			return nil, errTooLong
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return buf, err
	}
}

// handleLine decodes and runs one request. Notifications (no id) get no
// response. Members are matched exactly, as JSON-RPC spells them (Go's
// decoder would also take "Id" or "METHOD"), and the id of a request that
// is invalid otherwise is still echoed, so the client can match the error
// to its call; an id that is not a string, a number or null cannot be
// echoed and makes the request invalid, answered with a null id.
func (s *Server) handleLine(ctx context.Context, line []byte) (resp response, ok bool) {
	resp.JSONRPC = "2.0"
	resp.ID = json.RawMessage("null")
	if !json.Valid(line) {
		var v any
		err := json.Unmarshal(line, &v)
		resp.Error = &rpcError{codeParse, "parse error: " + err.Error()}
		return resp, true
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(line, &members); err != nil || members == nil {
		resp.Error = &rpcError{codeInvalidRequest, "invalid request: want one JSON object per line (batches are not supported)"}
		return resp, true
	}
	rawID, hasID := members["id"]
	idOK := true
	if hasID {
		resp.ID, idOK = requestID(rawID)
	}
	var req request
	req.ID, req.Params = resp.ID, members["params"]
	if !idOK || json.Unmarshal(members["jsonrpc"], &req.JSONRPC) != nil || req.JSONRPC != "2.0" ||
		json.Unmarshal(members["method"], &req.Method) != nil || req.Method == "" {
		resp.Error = &rpcError{codeInvalidRequest, `invalid request: want {"jsonrpc":"2.0","method":"…"} with an id that is a string, a number or null`}
		return resp, true
	}
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("panic in handler", "method", req.Method, "panic", fmt.Sprint(p))
			resp.Result, resp.Error = nil, &rpcError{codeInternal, fmt.Sprintf("internal error in %s", req.Method)}
			// Answered, as any request with an id: the plugin would
			// otherwise wait out its time limit for a reply that never
			// comes (ok is still false when the handler panics).
			ok = hasID
		}
	}()
	start := time.Now()
	result, err := s.dispatch(ctx, req.Method, req.Params)
	if err != nil {
		var re *rpcError
		if !errors.As(err, &re) {
			re = &rpcError{codeRefused, err.Error()}
		}
		resp.Error = re
		s.log.Warn("request failed", "method", req.Method, "err", re.Message, "ms", time.Since(start).Milliseconds())
	} else {
		if tr, ok := result.(textResult); ok {
			// The plugin shows these to the person as toasts, and they
			// name files and memories of a cloned repository: a name
			// with a carriage return or an escape in it would draw over
			// the toast or the terminal.
			tr.Notice, tr.Warning = engine.Visible(tr.Notice), engine.Visible(tr.Warning)
			result = tr
		}
		resp.Result = result
	}
	return resp, hasID
}

// requestID returns the id to echo: a number as written, a string encoded
// again (so invalid UTF-8 in it comes back as U+FFFD, valid JSON), null as
// null; false for any other value.
func requestID(raw json.RawMessage) (json.RawMessage, bool) {
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	var s string
	switch {
	case len(raw) == 0:
		return json.RawMessage("null"), false
	case raw[0] == '"' && json.Unmarshal(raw, &s) == nil:
		b, _ := json.Marshal(s)
		return b, true
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		return raw, true
	case string(raw) == "null":
		return raw, true
	}
	return json.RawMessage("null"), false
}
