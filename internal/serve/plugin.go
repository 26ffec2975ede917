package serve

// Requests from serve to the plugin. The pipe is bidirectional: besides
// answering the plugin's requests, serve may send the plugin a request of
// its own ({"jsonrpc":"2.0","id":"o1","method":"opencode.fetch",…}); its
// ids are strings starting with "o", so they never collide with the
// plugin's integer ids, and the reply comes back on serve's input. The one
// method so far, opencode.fetch, makes the plugin send an HTTP request
// with its own OpenCode client (input.client): in process where OpenCode
// listens on no port (plain `opencode`), else to the address OpenCode bound
// itself, with the credentials OpenCode gave that client. It is the only
// way extraction reaches OpenCode (see docs/EXTRACTION.md and
// docs/SECURITY.md).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ocmem/ocmem/internal/extract"
)

// DefaultPluginTimeout bounds one request to the plugin when the caller's
// context has no earlier deadline. A plugin too old to know the method
// never answers; this is how long it takes to find out.
const DefaultPluginTimeout = 30 * time.Second

// ErrPluginGone is returned for requests to a plugin whose connection
// ended before it answered. It is extraction's ErrHostGone, so extraction
// tells an OpenCode that exited from one that failed.
var ErrPluginGone = extract.ErrHostGone

// Plugin is the plugin at the other end of one Serve connection, for
// requests from serve to it. It is safe for concurrent use.
type Plugin struct {
	write   func(v any) error
	mu      sync.Mutex
	next    int
	pending map[string]chan pluginReply
	done    chan struct{}
	// Timeout overrides DefaultPluginTimeout (tests).
	Timeout time.Duration
}

type pluginReply struct {
	result json.RawMessage
	err    error
}

// NewPlugin returns a Plugin that writes its requests, one JSON value per
// call, with write. Replies are handed to it with Deliver; Close fails the
// requests still waiting. Serve makes one per connection; tests make their
// own.
func NewPlugin(write func(v any) error) *Plugin {
	return &Plugin{write: write, pending: map[string]chan pluginReply{}, done: make(chan struct{})}
}

// Close fails every waiting request with ErrPluginGone, and every later one.
func (p *Plugin) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.done:
	default:
		close(p.done)
	}
}

// Call sends method with params and waits for the reply's result, until
// ctx is done, the timeout passes or the connection ends.
func (p *Plugin) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = DefaultPluginTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ch := make(chan pluginReply, 1)
	p.mu.Lock()
	select {
	case <-p.done:
		p.mu.Unlock()
		return nil, ErrPluginGone
	default:
	}
	p.next++
	id := "o" + strconv.Itoa(p.next)
	p.pending[id] = ch
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.pending, id)
		p.mu.Unlock()
	}()
	if err := p.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, fmt.Errorf("plugin %s: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, fmt.Errorf("plugin %s: %w", method, r.err)
		}
		return r.result, nil
	case <-p.done:
		return nil, fmt.Errorf("plugin %s: %w", method, ErrPluginGone)
	case <-ctx.Done():
		return nil, fmt.Errorf("plugin %s: no answer: %w", method, ctx.Err())
	}
}

// Deliver hands the plugin's line to the request it answers. It reports
// false when line is not a reply to a waiting request of this Plugin (a
// request of the plugin's own, or a late reply).
func (p *Plugin) Deliver(line []byte) bool {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if json.Unmarshal(line, &msg) != nil || msg.Method != nil || msg.Result == nil && msg.Error == nil {
		return false
	}
	var id string
	if json.Unmarshal(msg.ID, &id) != nil || !strings.HasPrefix(id, "o") {
		return false
	}
	n, err := strconv.Atoi(id[1:])
	p.mu.Lock()
	if err != nil || n < 1 || n > p.next {
		p.mu.Unlock()
		return false // not an id of ours: the server answers it as a bad request
	}
	ch, ok := p.pending[id]
	delete(p.pending, id)
	p.mu.Unlock()
	if !ok {
		return true // a late reply to a request given up on: dropped
	}
	r := pluginReply{result: msg.Result}
	if msg.Error != nil {
		r.err = msg.Error
	}
	ch <- r
	return true
}

type pluginKey struct{}

// PluginFrom returns the plugin of the connection a request came in on, or
// nil outside Serve.
func PluginFrom(ctx context.Context) *Plugin {
	p, _ := ctx.Value(pluginKey{}).(*Plugin)
	return p
}

// PluginTransport is an http.RoundTripper that sends each request through
// the plugin (method opencode.fetch) into the OpenCode that runs it. Only
// the method, the path and query of the URL, the body and the Accept and
// Content-Type headers are sent: the host is OpenCode's, and so are the
// credentials (the plugin's client carries them). An Authorization header
// is never forwarded, so no credential of ocmem's leaves the process.
type PluginTransport struct {
	Plugin *Plugin
}

type fetchParams struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Body    *string           `json:"body"`
	Headers map[string]string `json:"headers,omitempty"`
}

type fetchResult struct {
	Status  int               `json:"status"`
	Body    string            `json:"body"`
	Headers map[string]string `json:"headers"`
}

// maxFetchBody bounds a request body sent through the plugin: it travels
// in one line, which the plugin reads whole.
const maxFetchBody = 8 << 20

// RoundTrip implements http.RoundTripper.
func (t *PluginTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		defer req.Body.Close()
	}
	if t.Plugin == nil {
		return nil, errors.New("no plugin connection")
	}
	params := fetchParams{Method: req.Method, Path: req.URL.RequestURI(), Headers: map[string]string{}}
	for _, k := range []string{"Accept", "Content-Type"} {
		if v := req.Header.Get(k); v != "" {
			params.Headers[strings.ToLower(k)] = v
		}
	}
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(io.LimitReader(req.Body, maxFetchBody+1))
		if err != nil {
			return nil, err
		}
		if len(b) > maxFetchBody {
			return nil, fmt.Errorf("request body larger than %d bytes", maxFetchBody)
		}
		s := string(b)
		params.Body = &s
	}
	raw, err := t.Plugin.Call(req.Context(), "opencode.fetch", params)
	if err != nil {
		return nil, err
	}
	var res fetchResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("plugin opencode.fetch: decode reply: %w", err)
	}
	if res.Status < 100 || res.Status > 999 {
		return nil, fmt.Errorf("plugin opencode.fetch: reply has status %d", res.Status)
	}
	h := http.Header{}
	for k, v := range res.Headers {
		h.Set(k, v)
	}
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", res.Status, http.StatusText(res.Status)),
		StatusCode:    res.Status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader([]byte(res.Body))),
		ContentLength: int64(len(res.Body)),
		Request:       req,
	}, nil
}
