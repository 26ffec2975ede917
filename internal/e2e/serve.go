package e2e

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ServeStartTimeout bounds the wait for `opencode serve` to listen.
const ServeStartTimeout = time.Minute

// OpenCodeServe is a running `opencode serve`.
type OpenCodeServe struct {
	URL string // http://127.0.0.1:PORT

	cmd    *exec.Cmd
	done   chan struct{}
	mu     sync.Mutex
	output bytes.Buffer
	once   sync.Once
}

var listenRE = regexp.MustCompile(`https?://[0-9.]+:[0-9]+`)

// Serve starts `opencode serve` on a free port in e.Dir and waits until its
// HTTP API answers. It is stopped at the end of the test.
func (e *Env) Serve() *OpenCodeServe {
	e.T.Helper()
	if e.V2 && !slices.ContainsFunc(e.Vars, func(kv string) bool { return strings.HasPrefix(kv, "OPENCODE_SERVER_PASSWORD=") }) {
		// OpenCode 2's server wants a password, and `opencode run
		// --server` sends the same one from the environment.
		e.Vars = append(e.Vars, "OPENCODE_SERVER_PASSWORD="+rand.Text())
	}
	port, err := freePort()
	if err != nil {
		e.T.Fatal(err)
	}
	cmd := exec.Command(e.OpenCode, "serve", "--port", strconv.Itoa(port), "--hostname", "127.0.0.1")
	cmd.Dir = e.Dir
	cmd.Env = e.Environ()
	SetProcessGroup(cmd, false)
	s := &OpenCodeServe{cmd: cmd, done: make(chan struct{})}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		e.T.Fatal(err)
	}
	cmd.Stderr = &lockedWriter{mu: &s.mu, w: &s.output}
	if err := cmd.Start(); err != nil {
		e.T.Fatal(err)
	}
	e.servers = append(e.servers, s)
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.output.WriteString(line + "\n")
			s.mu.Unlock()
			if u := listenRE.FindString(line); u != "" {
				select {
				case urls <- u:
				default:
				}
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	go func() { cmd.Wait(); close(s.done) }()

	deadline := time.After(ServeStartTimeout)
	select {
	case s.URL = <-urls:
	case <-s.done:
		e.T.Fatalf("opencode serve exited before listening:\n%s", s.Output())
	case <-deadline:
		s.Stop()
		e.T.Fatalf("opencode serve did not print its address in %v:\n%s", ServeStartTimeout, s.Output())
	}
	// OpenCode 2 prints its address once it listens; its API is not 1.x's
	// (runs reach it with `opencode run --server`).
	for !e.V2 {
		if resp, err := http.Get(s.URL + "/config"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case <-s.done:
			e.T.Fatalf("opencode serve exited:\n%s", s.Output())
		case <-deadline:
			s.Stop()
			e.T.Fatalf("opencode serve at %s not ready in %v:\n%s", s.URL, ServeStartTimeout, s.Output())
		case <-time.After(100 * time.Millisecond):
		}
	}
	e.Record("$ opencode serve → " + s.URL)
	return s
}

// freePort returns a port of 127.0.0.1 that is free now. `opencode serve
// --port 0` takes 4096 when it is free, the serverUrl `opencode run` and the
// plain TUI give plugins; a test in another package running at the same
// time must not find this server there.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Output is what the server printed so far.
func (s *OpenCodeServe) Output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.output.String()
}

// Stop ends the server (SIGINT, then SIGKILL to its process group after 5 s).
func (s *OpenCodeServe) Stop() {
	s.once.Do(func() {
		_ = s.cmd.Process.Signal(Interrupt)
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
			_ = KillGroup(s.cmd)
			<-s.done
		}
		_ = KillGroup(s.cmd) // children left behind, if any
	})
}

// Do sends a JSON request (body may be nil) and decodes a JSON answer into
// out (may be nil). A non-2xx status is an error holding the body.
func (s *OpenCodeServe) Do(ctx context.Context, method, path string, body, out any) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.URL+path, r)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(string(data)))
	}
	if out == nil || len(data) == 0 {
		return nil
	}
	return json.Unmarshal(data, out)
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// NewSession creates a session with a title (so OpenCode makes no title
// request) and returns its id.
func (s *OpenCodeServe) NewSession(ctx context.Context, title string) (string, error) {
	var sess struct{ ID string }
	if err := s.Do(ctx, "POST", "/session", map[string]any{"title": title}, &sess); err != nil {
		return "", err
	}
	return sess.ID, nil
}

// Prompt sends a user message to a session, waits for the turn to finish
// and returns the reply's text.
func (s *OpenCodeServe) Prompt(ctx context.Context, sessionID, text string) (string, error) {
	var reply struct {
		Parts []struct{ Type, Text string }
	}
	body := map[string]any{"parts": []any{map[string]any{"type": "text", "text": text}}}
	if err := s.Do(ctx, "POST", "/session/"+sessionID+"/message", body, &reply); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range reply.Parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

// Agent is an entry of GET /agent.
type Agent struct {
	Name   string
	Mode   string
	Hidden bool
}

// Agents lists the agents the server knows, the plugins' included.
func (s *OpenCodeServe) Agents(ctx context.Context) ([]Agent, error) {
	var agents []Agent
	err := s.Do(ctx, "GET", "/agent", nil, &agents)
	return agents, err
}

// Events collects the server's event stream (GET /event, server-sent
// events) from now until the test ends.
type Events struct {
	mu     sync.Mutex
	events []map[string]any
}

// Events subscribes to the server's event stream.
func (s *OpenCodeServe) Events(ctx context.Context) (*Events, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", s.URL+"/event", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET /event: %s", resp.Status)
	}
	ev := &Events{}
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var m map[string]any
			if json.Unmarshal([]byte(data), &m) == nil {
				ev.mu.Lock()
				ev.events = append(ev.events, m)
				ev.mu.Unlock()
			}
		}
	}()
	return ev, nil
}

// Of returns the properties of the events of a type seen so far.
func (ev *Events) Of(typ string) []map[string]any {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	var out []map[string]any
	for _, e := range ev.events {
		if e["type"] == typ {
			p, _ := e["properties"].(map[string]any)
			out = append(out, p)
		}
	}
	return out
}
