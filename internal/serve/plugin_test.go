package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
)

func TestPluginTransportThroughServe(t *testing.T) {
	g, p := roots(t)
	got := make(chan string, 4)
	cfg := Config{GlobalDir: g, ProjectDir: p, Extract: func(ctx context.Context, e *engine.Engine, req IdleRequest) {
		if req.Plugin == nil {
			got <- "no plugin"
			return
		}
		hc := &http.Client{Transport: &PluginTransport{Plugin: req.Plugin}}
		for _, u := range []string{"http://localhost:4096/session/ses_1/message?limit=50", "http://localhost:4096/fail"} {
			body := io.Reader(nil)
			method := "GET"
			if strings.HasSuffix(u, "fail") {
				method, body = "POST", strings.NewReader(`{"a":1}`)
			}
			r, _ := http.NewRequestWithContext(ctx, method, u, body)
			r.Header.Set("Content-Type", "application/json")
			resp, err := hc.Do(r)
			if err != nil {
				got <- "error: " + err.Error()
				continue
			}
			b, _ := io.ReadAll(resp.Body)
			got <- fmt.Sprintf("%d %s %s", resp.StatusCode, resp.Header.Get("X-Test"), b)
		}
	}}
	c := start(t, cfg)
	fmt.Fprintln(c.in, `{"jsonrpc":"2.0","id":1,"method":"idle","params":{"sessionID":"ses_1","serverUrl":"http://localhost:4096/"}}`)
	// Serve's reply to idle and its two requests come in any order; the
	// second request is answered before, in the same line stream as, a
	// request of the plugin's own (ping).
	var idleSeen, pingSeen bool
	var reqs []map[string]any
	for len(reqs) < 2 || !idleSeen || !pingSeen {
		if !c.out.Scan() {
			t.Fatal("serve's output ended")
		}
		var m map[string]any
		json.Unmarshal(c.out.Bytes(), &m)
		switch {
		case m["method"] == "opencode.fetch":
			reqs = append(reqs, m)
			p := m["params"].(map[string]any)
			switch p["path"] {
			case "/session/ses_1/message?limit=50":
				if p["method"] != "GET" || p["body"] != nil {
					t.Errorf("GET params %v", p)
				}
				fmt.Fprintf(c.in, `{"jsonrpc":"2.0","id":%q,"result":{"status":200,"body":"[1,2]","headers":{"x-test":"yes"}}}`+"\n", m["id"])
				fmt.Fprintln(c.in, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
			case "/fail":
				if p["method"] != "POST" || p["body"] != `{"a":1}` || p["headers"].(map[string]any)["content-type"] != "application/json" {
					t.Errorf("POST params %v", p)
				}
				fmt.Fprintf(c.in, `{"jsonrpc":"2.0","id":%q,"error":{"code":1,"message":"fetch failed"}}`+"\n", m["id"])
			default:
				t.Errorf("request %v", m)
			}
		case m["id"] == 1.0:
			idleSeen = true
		case m["id"] == 2.0:
			pingSeen = true
			if m["error"] != nil {
				t.Errorf("ping: %v", m)
			}
		default:
			t.Errorf("unexpected line %s", c.out.Bytes())
		}
	}
	for _, want := range []string{"200 yes [1,2]", "error: Post \"http://localhost:4096/fail\": plugin opencode.fetch: fetch failed"} {
		select {
		case g := <-got:
			if g != want {
				t.Errorf("got %q, want %q", g, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("extraction hook did not finish")
		}
	}
}

// newTestPlugin returns a Plugin whose requests arrive on the channel.
func newTestPlugin(timeout time.Duration) (*Plugin, chan map[string]any) {
	sent := make(chan map[string]any, 16)
	p := NewPlugin(func(v any) error {
		b, _ := json.Marshal(v)
		var m map[string]any
		json.Unmarshal(b, &m)
		sent <- m
		return nil
	})
	p.Timeout = timeout
	return p, sent
}

func TestPluginOutOfOrderReplies(t *testing.T) {
	p, sent := newTestPlugin(5 * time.Second)
	type res struct {
		n   int
		out string
		err error
	}
	done := make(chan res, 3)
	for i := 1; i <= 3; i++ {
		go func(i int) {
			r, err := p.Call(context.Background(), "opencode.fetch", map[string]int{"n": i})
			done <- res{i, string(r), err}
		}(i)
	}
	byN := map[int]string{}
	for i := 0; i < 3; i++ {
		m := <-sent
		byN[int(m["params"].(map[string]any)["n"].(float64))] = m["id"].(string)
	}
	for _, n := range []int{3, 1, 2} {
		if !p.Deliver([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"result":{"n":%d}}`, byN[n], n))) {
			t.Fatalf("reply %d not taken", n)
		}
	}
	for i := 0; i < 3; i++ {
		r := <-done
		if r.err != nil || r.out != fmt.Sprintf(`{"n":%d}`, r.n) {
			t.Errorf("call %d: %q %v", r.n, r.out, r.err)
		}
	}
	// A repeated (late) reply is swallowed; lines that are not replies to
	// ids of ours are left to the server.
	if !p.Deliver([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"result":{}}`, byN[1]))) {
		t.Error("late reply not swallowed")
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":"o1","method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":"o99","result":{}}`,
		`{"jsonrpc":"2.0","id":"o1"}`,
		`{"jsonrpc":"2.0","id":"ox","result":{}}`,
		`not json`,
	} {
		if p.Deliver([]byte(line)) {
			t.Errorf("%s taken as a reply", line)
		}
	}
}

func TestPluginNeverAnswers(t *testing.T) {
	p, sent := newTestPlugin(200 * time.Millisecond)
	start := time.Now()
	_, err := p.Call(context.Background(), "opencode.fetch", nil)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("err = %v after %v", err, time.Since(start))
	}
	m := <-sent
	if !p.Deliver([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"result":{}}`, m["id"]))) {
		t.Error("reply after the time-out not swallowed")
	}
	// Through the transport, as the HTTP client sees it.
	hc := &http.Client{Transport: &PluginTransport{Plugin: p}}
	if _, err := hc.Get("http://localhost:4096/x"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("transport err = %v", err)
	}
}

func TestPluginErrorsAndClose(t *testing.T) {
	p, sent := newTestPlugin(5 * time.Second)
	errc := make(chan error, 1)
	go func() {
		_, err := p.Call(context.Background(), "opencode.fetch", nil)
		errc <- err
	}()
	m := <-sent
	p.Deliver([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"error":{"code":-32601,"message":"method not found: opencode.fetch"}}`, m["id"])))
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "method not found") {
		t.Errorf("err = %v", err)
	}
	// A reply that is not a response, through the transport.
	go func() {
		m := <-sent
		p.Deliver([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"result":{"status":0}}`, m["id"])))
	}()
	hc := &http.Client{Transport: &PluginTransport{Plugin: p}}
	if _, err := hc.Get("http://localhost:4096/x"); err == nil || !strings.Contains(err.Error(), "status 0") {
		t.Errorf("status 0: err = %v", err)
	}
	go func() {
		_, err := p.Call(context.Background(), "opencode.fetch", nil)
		errc <- err
	}()
	<-sent
	p.Close()
	if err := <-errc; !errors.Is(err, ErrPluginGone) {
		t.Errorf("after Close: %v", err)
	}
	if _, err := p.Call(context.Background(), "opencode.fetch", nil); !errors.Is(err, ErrPluginGone) {
		t.Errorf("call after Close: %v", err)
	}
}

// TestPluginTransportSendsNoCredential: what goes to the plugin is the
// method, path, body and content headers; a credential in the request (an
// Authorization header, a URL's user:password@) stays behind, since the
// plugin's own client carries OpenCode's.
func TestPluginTransportSendsNoCredential(t *testing.T) {
	p, sent := newTestPlugin(5 * time.Second)
	go func() {
		m := <-sent
		p.Deliver([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"result":{"status":200,"body":"{}"}}`, m["id"])))
		b, _ := json.Marshal(m["params"])
		sent <- map[string]any{"params": string(b)}
	}()
	req, _ := http.NewRequest("POST", "http://opencode:s3cr3t-pass@opencode.invalid/session?directory=%2Frepo", strings.NewReader(`{"title":"x"}`))
	req.Header.Set("Authorization", "Basic b3BlbmNvZGU6czNjcjN0LXBhc3M=")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	hc := &http.Client{Transport: &PluginTransport{Plugin: p}}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	params := (<-sent)["params"].(string)
	want := `{"body":"{\"title\":\"x\"}","headers":{"accept":"application/json","content-type":"application/json"},"method":"POST","path":"/session?directory=%2Frepo"}`
	if params != want {
		t.Errorf("sent the plugin %s\nwant %s", params, want)
	}
}
