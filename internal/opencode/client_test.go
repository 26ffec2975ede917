package opencode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testdata/*.json are answers of OpenCode 1.18.33 (`opencode serve` with a
// fake provider), trimmed; they keep decoding honest about the real shapes.
func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		sentinel error // nil: none may match
		wantMsg  string
	}{
		{"not found", 404, `{"name":"NotFoundError","data":{"message":"Session not found: ses_x"}}`, ErrNotFound, "404 Not Found: NotFoundError: Session not found: ses_x"},
		{"unauthorized", 401, ``, ErrUnauthorized, "401 Unauthorized: unauthorized: set OPENCODE_SERVER_PASSWORD"},
		{"forbidden", 403, `no`, ErrUnauthorized, "403 Forbidden: no"},
		{"server error", 500, `{"name":"UnknownError","data":{"message":"Unexpected server error."}}`, nil, "500 Internal Server Error: UnknownError: Unexpected server error."},
		{"bad request", 400, `plain text`, nil, "400 Bad Request: plain text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			}))
			defer srv.Close()
			c := &Client{BaseURL: srv.URL}
			_, err := c.Session(context.Background(), "ses_x")
			var herr *HTTPError
			if !errors.As(err, &herr) {
				t.Fatalf("err = %v (%T), want *HTTPError", err, err)
			}
			if herr.Status != tt.status || herr.Method != "GET" || herr.Path != "/session/ses_x" {
				t.Errorf("HTTPError = %+v", herr)
			}
			for _, s := range []error{ErrNotFound, ErrUnauthorized} {
				if got := errors.Is(err, s); got != (s == tt.sentinel) {
					t.Errorf("errors.Is(err, %v) = %v", s, got)
				}
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("message %q lacks %q", err.Error(), tt.wantMsg)
			}
		})
	}
}

func TestTransportFailures(t *testing.T) {
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer slow.Close()
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"id": `)
	}))
	defer garbage.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	tests := []struct {
		name  string
		c     *Client
		check func(error) bool
	}{
		{"timeout", &Client{BaseURL: slow.URL, Timeout: 50 * time.Millisecond}, func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }},
		{"bad json", &Client{BaseURL: garbage.URL}, func(err error) bool { return strings.Contains(err.Error(), "decode response") }},
		{"connection refused", &Client{BaseURL: closedURL}, func(err error) bool { return strings.Contains(err.Error(), "GET /session/ses_x") }},
		{"no scheme", &Client{BaseURL: "127.0.0.1:4096"}, func(err error) bool { return strings.Contains(err.Error(), "server URL") }},
		{"empty", &Client{}, func(err error) bool { return strings.Contains(err.Error(), "server URL") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := tt.c.Session(context.Background(), "ses_x")
			if err == nil || !tt.check(err) {
				t.Errorf("err = %v", err)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %v", d)
			}
			var herr *HTTPError
			if errors.As(err, &herr) {
				t.Errorf("a transport failure became an HTTPError: %v", err)
			}
		})
	}
}

func TestRequestShape(t *testing.T) {
	tests := []struct {
		name      string
		c         Client
		id        string
		wantPath  string // escaped
		wantQuery string
		wantAuth  string // "user:pass", or "" for none
	}{
		{"plain", Client{}, "ses_1", "/session/ses_1", "", ""},
		{"trailing slash", Client{BaseURL: "/"}, "ses_1", "/session/ses_1", "", ""},
		{"prefix", Client{BaseURL: "/oc/"}, "ses_1", "/oc/session/ses_1", "", ""},
		{"directory", Client{Directory: "/w/my proj"}, "ses_1", "/session/ses_1", "directory=%2Fw%2Fmy+proj", ""},
		{"escaped id", Client{}, "ses/../x", "/session/ses%2F..%2Fx", "", ""},
		{"password", Client{Password: "pw"}, "ses_1", "/session/ses_1", "", "opencode:pw"},
		{"user and password", Client{Username: "alice", Password: "pw"}, "ses_1", "/session/ses_1", "", "alice:pw"},
		{"url userinfo", Client{BaseURL: "u:p@"}, "ses_1", "/session/ses_1", "", "u:p"},
		{"fields win over userinfo", Client{BaseURL: "u:p@", Password: "pw"}, "ses_1", "/session/ses_1", "", "opencode:pw"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gotPath, gotQuery, gotAuth string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				gotPath, gotQuery = r.URL.EscapedPath(), r.URL.RawQuery
				if u, p, ok := r.BasicAuth(); ok {
					gotAuth = u + ":" + p
				}
				fmt.Fprint(w, `{"id":"ses_1","title":"t","directory":"/w"}`)
			}))
			defer srv.Close()
			c := tt.c
			switch {
			case strings.HasSuffix(c.BaseURL, "@"): // user information goes after the scheme
				c.BaseURL = strings.Replace(srv.URL, "http://", "http://"+c.BaseURL, 1)
			default:
				c.BaseURL = srv.URL + c.BaseURL
			}
			s, err := c.Session(context.Background(), tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if s.ID != "ses_1" || s.Directory != "/w" {
				t.Errorf("session = %+v", s)
			}
			if gotPath != tt.wantPath || gotQuery != tt.wantQuery || gotAuth != tt.wantAuth {
				t.Errorf("got path %q query %q auth %q, want %q %q %q", gotPath, gotQuery, gotAuth, tt.wantPath, tt.wantQuery, tt.wantAuth)
			}
		})
	}
}

func TestDecodeRealAnswers(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /config/providers", func(w http.ResponseWriter, r *http.Request) { w.Write(readTestdata(t, "providers.json")) })
	mux.HandleFunc("GET /agent", func(w http.ResponseWriter, r *http.Request) { w.Write(readTestdata(t, "agents.json")) })
	mux.HandleFunc("GET /session/{id}/message", func(w http.ResponseWriter, r *http.Request) { w.Write(readTestdata(t, "messages.json")) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := &Client{BaseURL: srv.URL}
	ctx := context.Background()

	ps, err := c.Providers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var fake *Provider
	for i := range ps.Providers {
		if ps.Providers[i].ID == "fake" {
			fake = &ps.Providers[i]
		}
	}
	if fake == nil {
		t.Fatalf("no provider fake in %+v", ps)
	}
	cheap := fake.Models["cheap"]
	if cheap.ID != "cheap" || cheap.ProviderID != "fake" || cheap.Cost.Input != 0.1 || cheap.Cost.Output != 0.2 ||
		cheap.Limit.Context != 32000 || !cheap.Capabilities.Input.Text || !cheap.Capabilities.Output.Text || cheap.Status != "active" {
		t.Errorf("cheap = %+v", cheap)
	}
	if nl := fake.Models["nolimit"]; nl.Limit.Context != 0 || nl.Cost.Input != 0 {
		t.Errorf("a model without limits decoded as %+v", nl)
	}
	if ps.Default["fake"] == "" {
		t.Errorf("default = %v", ps.Default)
	}

	agents, err := c.Agents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(agents, func(a Agent) bool { return a.Name == "ocmem-extract" })
	if i < 0 || !agents[i].Hidden || agents[i].Mode != "primary" {
		t.Errorf("agents = %+v", agents)
	}

	msgs, err := c.Messages(ctx, "ses_x", "")
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.Info.Role)
	}
	if !slices.Equal(roles, []string{"user", "assistant", "user", "assistant", "user", "assistant"}) {
		t.Errorf("roles = %v", roles)
	}
	if got := msgs[0].Text(); got != "We deploy with pnpm, never npm. 我们用 pnpm 部署" {
		t.Errorf("first text = %q", got)
	}
	if m := msgs[0].Info.Model; m == nil || m.ProviderID != "fake" || m.ModelID != "fake-model" {
		t.Errorf("user message model = %+v", m)
	}
	if got := msgs[1].Text(); got != "ok" || msgs[1].Info.ProviderID != "fake" {
		t.Errorf("assistant = %q %+v", got, msgs[1].Info)
	}
}

func TestMessageText(t *testing.T) {
	m := Message{Parts: []Part{
		{Type: "text", Text: "typed"},
		{Type: "text", Text: "injected memory", Synthetic: true},
		{Type: "text", Text: "ignored", Ignored: true},
		{Type: "reasoning", Text: "thinking"},
		{Type: "tool", Tool: "bash"},
		{Type: "text", Text: "  "},
		{Type: "text", Text: "second"},
	}}
	if got := m.Text(); got != "typed\n\nsecond" {
		t.Errorf("Text() = %q", got)
	}
}

// pagedServer serves n messages msg_0000… newest first in pages, the way
// 1.18.33 does: ?limit=N gives the newest N (oldest first within the page)
// and X-Next-Cursor points to the older ones.
func pagedServer(t *testing.T, n int, requests *atomic.Int32) *httptest.Server {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("msg_%04d", i)
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		limit, err := strconv.Atoi(r.URL.Query().Get("limit"))
		if err != nil {
			t.Errorf("no limit in %s", r.URL)
			limit = n
		}
		end := n
		if b := r.URL.Query().Get("before"); b != "" {
			end, _ = strconv.Atoi(strings.TrimPrefix(b, "cur"))
		}
		start := max(0, end-limit)
		if start > 0 {
			w.Header().Set("X-Next-Cursor", fmt.Sprintf("cur%d", start))
		}
		var page []Message
		for _, id := range ids[start:end] {
			page = append(page, Message{Info: MessageInfo{ID: id, Role: "user"}})
		}
		json.NewEncoder(w).Encode(page)
	}))
}

func TestMessagesPaging(t *testing.T) {
	const n = 2*messagePageSize + 7
	tests := []struct {
		name      string
		after     string
		wantFirst string // the oldest message returned
		wantPages int32
	}{
		{"whole session", "", "msg_0000", 3},
		{"cursor in the newest page", fmt.Sprintf("msg_%04d", n-3), fmt.Sprintf("msg_%04d", n-messagePageSize), 1},
		{"cursor two pages back", fmt.Sprintf("msg_%04d", n-messagePageSize-1), fmt.Sprintf("msg_%04d", n-2*messagePageSize), 2},
		{"cursor deleted, older ids exist", "msg_0050x", "msg_0007", 2},
		{"cursor at the newest message", fmt.Sprintf("msg_%04d", n-1), fmt.Sprintf("msg_%04d", n-messagePageSize), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var requests atomic.Int32
			srv := pagedServer(t, n, &requests)
			defer srv.Close()
			msgs, err := (&Client{BaseURL: srv.URL}).Messages(context.Background(), "ses_x", tt.after)
			if err != nil {
				t.Fatal(err)
			}
			if requests.Load() != tt.wantPages {
				t.Errorf("%d requests, want %d", requests.Load(), tt.wantPages)
			}
			if msgs[0].Info.ID != tt.wantFirst || msgs[len(msgs)-1].Info.ID != fmt.Sprintf("msg_%04d", n-1) {
				t.Errorf("got %s … %s", msgs[0].Info.ID, msgs[len(msgs)-1].Info.ID)
			}
			for i := 1; i < len(msgs); i++ {
				if msgs[i-1].Info.ID >= msgs[i].Info.ID {
					t.Fatalf("out of order at %d: %s, %s", i, msgs[i-1].Info.ID, msgs[i].Info.ID)
				}
			}
		})
	}
}

// promptServer is an OpenCode stand-in for Prompt: the reply, the
// statuses it reports while the prompt runs, and the aborts it got.
type promptServer struct {
	reply  string        // body of the POST answer
	status string        // body of GET /session/status
	hold   time.Duration // how long POST takes unless aborted
	mu     sync.Mutex
	aborts []string
	body   map[string]any
}

func (p *promptServer) start(t *testing.T) *httptest.Server {
	aborted := make(chan struct{})
	var once sync.Once
	mux := http.NewServeMux()
	mux.HandleFunc("POST /session/{id}/message", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		json.NewDecoder(r.Body).Decode(&p.body)
		p.mu.Unlock()
		select {
		case <-time.After(p.hold):
		case <-aborted:
		case <-r.Context().Done():
			return
		}
		fmt.Fprint(w, p.reply)
	})
	mux.HandleFunc("GET /session/status", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, p.status)
	})
	mux.HandleFunc("POST /session/{id}/abort", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.aborts = append(p.aborts, r.PathValue("id"))
		p.mu.Unlock()
		once.Do(func() { close(aborted) })
		fmt.Fprint(w, "true")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

const okReply = `{"info":{"id":"msg_2","role":"assistant","providerID":"fake","modelID":"cheap"},"parts":[{"type":"step-start"},{"type":"text","text":"{\"memories\":[]}"},{"type":"step-finish"}]}`

func TestPrompt(t *testing.T) {
	tests := []struct {
		name      string
		p         *promptServer
		timeout   time.Duration
		wantText  string
		wantErr   func(error) bool
		wantAbort bool
	}{
		{name: "answer", p: &promptServer{reply: okReply, status: `{"ses_1":{"type":"busy"}}`, hold: 100 * time.Millisecond}, wantText: `{"memories":[]}`},
		{name: "other session retrying", p: &promptServer{reply: okReply, status: `{"ses_9":{"type":"retry","attempt":1,"message":"boom"}}`, hold: 100 * time.Millisecond}, wantText: `{"memories":[]}`},
		{
			name: "error in the message",
			p:    &promptServer{reply: `{"info":{"id":"msg_2","role":"assistant","error":{"name":"APIError","data":{"message":"boom","statusCode":500}}},"parts":[]}`, status: `{}`},
			wantErr: func(err error) bool {
				var me *ModelError
				return errors.As(err, &me) && me.Name == "APIError" && me.Message == "boom"
			},
		},
		{
			name: "retrying is aborted",
			p:    &promptServer{reply: `{"info":{"id":"msg_2","role":"assistant"},"parts":[]}`, status: `{"ses_1":{"type":"retry","attempt":1,"message":"boom","next":1}}`, hold: 10 * time.Second},
			wantErr: func(err error) bool {
				var me *ModelError
				return errors.As(err, &me) && me.Name == "retry" && strings.Contains(me.Message, "boom")
			},
			wantAbort: true,
		},
		{
			name:      "time limit aborts",
			p:         &promptServer{reply: okReply, status: `{"ses_1":{"type":"busy"}}`, hold: 10 * time.Second},
			timeout:   300 * time.Millisecond,
			wantErr:   func(err error) bool { return errors.Is(err, context.DeadlineExceeded) },
			wantAbort: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.p
			srv := p.start(t)
			c := &Client{BaseURL: srv.URL, Timeout: tt.timeout, PollInterval: 20 * time.Millisecond}
			req := PromptRequest{
				Model: ModelRef{ProviderID: "fake", ModelID: "cheap"}, Agent: "ocmem-extract", System: "SYS",
				Tools: map[string]bool{"*": false}, Parts: []TextPart{Text("turns")},
			}
			start := time.Now()
			reply, err := c.Prompt(context.Background(), "ses_1", req)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
			if tt.wantErr != nil {
				if !tt.wantErr(err) {
					t.Errorf("err = %v (%T)", err, err)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if got := reply.Text(); got != tt.wantText {
				t.Errorf("text = %q, want %q", got, tt.wantText)
			}
			p.mu.Lock()
			defer p.mu.Unlock()
			if got := len(p.aborts) > 0; got != tt.wantAbort {
				t.Errorf("aborts = %v, want abort %v", p.aborts, tt.wantAbort)
			}
			body, _ := json.Marshal(p.body)
			want := `{"agent":"ocmem-extract","model":{"modelID":"cheap","providerID":"fake"},"parts":[{"text":"turns","type":"text"}],"system":"SYS","tools":{"*":false}}`
			if string(body) != want {
				t.Errorf("request body\n%s\nwant\n%s", body, want)
			}
		})
	}
}

func TestPromptHTTPFailureAborts(t *testing.T) {
	var aborts atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("POST /session/{id}/message", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		fmt.Fprint(w, `{"name":"UnknownError","data":{"message":"Model not found: fake/nope"}}`)
	})
	mux.HandleFunc("POST /session/{id}/abort", func(w http.ResponseWriter, r *http.Request) { aborts.Add(1) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	_, err := (&Client{BaseURL: srv.URL}).Prompt(context.Background(), "ses_1", PromptRequest{})
	var herr *HTTPError
	if !errors.As(err, &herr) || herr.Status != 500 || !strings.Contains(err.Error(), "Model not found") {
		t.Errorf("err = %v", err)
	}
	if aborts.Load() != 1 {
		t.Errorf("%d aborts, want 1", aborts.Load())
	}
}

func TestCreateAndDelete(t *testing.T) {
	var got []string
	mux := http.NewServeMux()
	mux.HandleFunc("POST /session", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		got = append(got, fmt.Sprintf("create %v %s", body, r.URL.Query().Get("directory")))
		fmt.Fprint(w, `{"id":"ses_new","title":"ocmem extraction","directory":"/w"}`)
	})
	mux.HandleFunc("DELETE /session/{id}", func(w http.ResponseWriter, r *http.Request) {
		got = append(got, "delete "+r.PathValue("id"))
		fmt.Fprint(w, "true")
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := &Client{BaseURL: srv.URL, Directory: "/w"}
	s, err := c.CreateSession(context.Background(), NewSession{Title: "ocmem extraction"})
	if err != nil || s.ID != "ses_new" {
		t.Fatalf("CreateSession = %+v, %v", s, err)
	}
	if err := c.DeleteSession(context.Background(), s.ID); err != nil {
		t.Fatal(err)
	}
	want := []string{"create map[title:ocmem extraction] /w", "delete ses_new"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
