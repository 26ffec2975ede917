// Package opencode is a small client for the HTTP API of a running OpenCode
// server (`opencode serve`, or the server inside the TUI that a plugin gets
// as input.serverUrl). ocmem uses it for automatic extraction: read a
// session's messages, list the models, and run one prompt in a session of
// its own.
//
//	c := &opencode.Client{BaseURL: serverURL}
//	msgs, err := c.Messages(ctx, sessionID, "")
//
// Every call is bounded by Timeout. Failures on the wire become the errors
// callers branch on: ErrNotFound, ErrUnauthorized, *HTTPError (any other
// status, with the server's message) and *ModelError (the provider behind
// OpenCode failed). Checked against OpenCode 1.18.33 and its GET /doc.
package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultTimeout bounds one HTTP call when Client.Timeout is zero. A prompt
// to a cheap model answers in a few seconds; a server that takes longer is
// stuck, and extraction is not worth waiting for.
const DefaultTimeout = 30 * time.Second

// maxResponseBytes bounds a response body. The largest answers are pages of
// messages, whose tool outputs OpenCode already truncates to about 50 KB
// each; a page of messagePageSize of them stays far below this.
const maxResponseBytes = 64 << 20

// maxErrorBody bounds the part of an error response kept in an HTTPError.
const maxErrorBody = 2 << 10

// Environment variables of `opencode serve`: with a password set, every
// request needs HTTP Basic auth, as user "opencode" unless the user name is
// set too (checked on 1.18.33: any other user name, or none, gets 401).
const (
	EnvPassword     = "OPENCODE_SERVER_PASSWORD"
	EnvUsername     = "OPENCODE_SERVER_USERNAME"
	DefaultUsername = "opencode"
)

// Errors callers branch on. An *HTTPError wraps the first two.
var (
	ErrNotFound     = errors.New("not found")
	ErrUnauthorized = errors.New("unauthorized: set OPENCODE_SERVER_PASSWORD (and OPENCODE_SERVER_USERNAME) as the server has them")
)

// HTTPError is a response with a status other than 2xx.
type HTTPError struct {
	Method string
	Path   string
	Status int
	Body   string // the start of the body, for the log
	Err    error  // ErrNotFound, ErrUnauthorized, or nil
}

func (e *HTTPError) Error() string {
	msg := serverMessage(e.Body)
	if msg == "" {
		msg = e.Body
	}
	s := fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Status, http.StatusText(e.Status))
	switch {
	case msg != "":
		s += ": " + msg
	case e.Err != nil: // 1.18.33 answers 401 with an empty body: say what to do
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *HTTPError) Unwrap() error { return e.Err }

// serverMessage returns the message of an OpenCode error body,
// {"name": "NotFoundError", "data": {"message": "…"}}, or "".
func serverMessage(body string) string {
	var v struct {
		Name string `json:"name"`
		Data struct {
			Message string `json:"message"`
		} `json:"data"`
	}
	if json.Unmarshal([]byte(body), &v) != nil || v.Data.Message == "" {
		return ""
	}
	if v.Name != "" {
		return v.Name + ": " + v.Data.Message
	}
	return v.Data.Message
}

// ModelError is a failure of the model provider behind OpenCode: an error
// in the assistant message, or a provider error OpenCode was about to retry.
type ModelError struct {
	Name    string // OpenCode's error name, e.g. "APIError"; "retry" for an aborted retry
	Message string
}

func (e *ModelError) Error() string {
	if e.Name == "" {
		return "model failed: " + e.Message
	}
	return fmt.Sprintf("model failed (%s): %s", e.Name, e.Message)
}

// Client talks to one OpenCode server. The zero value with BaseURL set
// works; the fields configure, nothing else is kept between calls.
type Client struct {
	// BaseURL is the server, e.g. "http://127.0.0.1:4096/". User
	// information in it is used for Basic auth when Password is empty.
	BaseURL string
	// Directory, when set, is sent as ?directory= on every call: the
	// project instance a call is about (sessions are created there and its
	// agents are listed). Reading a session by id needs none.
	Directory string
	// Username and Password are sent as Basic auth when Password is set;
	// an empty Username means DefaultUsername.
	Username, Password string
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Timeout bounds each call; zero means DefaultTimeout.
	Timeout time.Duration
	// PollInterval is how often Prompt checks whether OpenCode is retrying
	// a failed provider request; zero means defaultPollInterval.
	PollInterval time.Duration
}

func (c *Client) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

func (c *Client) httpClient() *http.Client {
	if c.HTTPClient != nil {
		return c.HTTPClient
	}
	return http.DefaultClient
}

// endpoint builds the URL of path (escaped, starting with "/") under BaseURL.
// It also returns the parsed BaseURL, for its user information.
func (c *Client) endpoint(path string, query url.Values) (u, base *url.URL, err error) {
	base, err = url.Parse(strings.TrimSpace(c.BaseURL))
	if err != nil {
		return nil, nil, fmt.Errorf("server URL: %w", unwrapURLError(err))
	}
	if base.Scheme != "http" && base.Scheme != "https" || base.Host == "" {
		return nil, nil, fmt.Errorf("server URL %q: want http://host:port", base.Redacted())
	}
	// path is already escaped (sessionPath escapes the id): keep it as the
	// raw path, so an id can never add path elements.
	cp := *base
	cp.RawPath = strings.TrimRight(base.EscapedPath(), "/") + path
	if cp.Path, err = url.PathUnescape(cp.RawPath); err != nil {
		return nil, nil, fmt.Errorf("path %q: %w", path, err)
	}
	if c.Directory != "" {
		if query == nil {
			query = url.Values{}
		}
		query.Set("directory", c.Directory)
	}
	cp.RawQuery = query.Encode()
	cp.User = nil
	return &cp, base, nil
}

func (c *Client) auth(req *http.Request, base *url.URL) {
	user, pass := c.Username, c.Password
	if pass == "" && base.User != nil {
		user = base.User.Username()
		pass, _ = base.User.Password()
	}
	if pass == "" {
		return
	}
	if user == "" {
		user = DefaultUsername
	}
	req.SetBasicAuth(user, pass)
}

// send makes one call and returns the response headers and body of a 2xx
// answer. Everything else becomes an error: a transport failure or a time
// limit (wrapped, so errors.Is(err, context.DeadlineExceeded) holds), or
// an *HTTPError. body, when not nil, is sent as JSON.
func (c *Client) send(ctx context.Context, method, path string, query url.Values, body any) (http.Header, []byte, error) {
	u, base, err := c.endpoint(path, query)
	if err != nil {
		return nil, nil, err
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, nil, fmt.Errorf("%s %s: encode request: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	c.auth(req, base)
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", method, path, unwrapURLError(err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: read response: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		herr := &HTTPError{Method: method, Path: path, Status: resp.StatusCode, Body: clip(string(data), maxErrorBody)}
		switch resp.StatusCode {
		case http.StatusNotFound:
			herr.Err = ErrNotFound
		case http.StatusUnauthorized, http.StatusForbidden:
			herr.Err = ErrUnauthorized
		}
		return nil, nil, herr
	}
	if len(data) > maxResponseBytes {
		return nil, nil, fmt.Errorf("%s %s: response larger than %d bytes", method, path, maxResponseBytes)
	}
	return resp.Header, data, nil
}

// unwrapURLError drops the *url.Error layer, whose message repeats the
// whole URL (with the directory query) in every log line.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// decodeJSON decodes a response body.
func decodeJSON[T any](method, path string, data []byte) (T, error) {
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return v, fmt.Errorf("%s %s: decode response: %w", method, path, err)
	}
	return v, nil
}

// call is send followed by decodeJSON.
func call[T any](ctx context.Context, c *Client, method, path string, query url.Values, body any) (T, error) {
	_, data, err := c.send(ctx, method, path, query, body)
	if err != nil {
		var zero T
		return zero, err
	}
	return decodeJSON[T](method, path, data)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// sessionPath is /session/{id}{suffix} with the id escaped.
func sessionPath(id, suffix string) string {
	return "/session/" + url.PathEscape(id) + suffix
}
