package extraction

// A local process posing as OpenCode on the address the plugin reports
// (docs/SECURITY.md, "Extraction talks only to its own OpenCode"). Under
// plain `opencode` and `opencode run` the plugin's input.serverUrl is
// http://localhost:4096/ with nothing listening there; on a shared machine
// anyone can bind that port. Extraction must send it nothing — no request,
// no OPENCODE_SERVER_PASSWORD, no prompt — and still work, through the
// plugin's own OpenCode client.

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/e2e"
)

// serverURLPort is the port of the serverUrl OpenCode 1.18.33 gives
// plugins when it listens on none.
const serverURLPort = 4096

// rogueWait bounds the wait for port 4096 to be free: other tests'
// `opencode serve --port 0` try it first, and hold it while they run.
const rogueWait = 3 * time.Minute

// rogue is an HTTP server on localhost:4096 that answers like OpenCode
// would (a session for any id) and records every request it gets.
type rogue struct {
	mu   sync.Mutex
	reqs []string
}

// startRogue binds localhost:4096 (IPv4, and IPv6 where there is one) for
// the whole test. When the port stays taken it skips: the repro needs it.
func startRogue(t *testing.T) *rogue {
	t.Helper()
	var lns []net.Listener
	deadline := time.Now().Add(rogueWait)
	for {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", serverURLPort))
		if err == nil {
			lns = append(lns, l)
			break
		}
		if time.Now().After(deadline) {
			t.Skipf("port %d stayed taken for %v (%v): the rogue server needs it", serverURLPort, rogueWait, err)
		}
		time.Sleep(2 * time.Second)
	}
	if l, err := net.Listen("tcp", fmt.Sprintf("[::1]:%d", serverURLPort)); err == nil {
		lns = append(lns, l)
	}
	r := &rogue{}
	srv := &http.Server{Handler: http.HandlerFunc(r.serve), ReadHeaderTimeout: 10 * time.Second}
	for _, l := range lns {
		go srv.Serve(l)
	}
	t.Cleanup(func() { srv.Close() })
	return r
}

func (r *rogue) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	r.mu.Lock()
	r.reqs = append(r.reqs, fmt.Sprintf("%s %s authorization=%q body=%q", req.Method, req.URL.RequestURI(), req.Header.Get("Authorization"), body))
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if id, ok := strings.CutPrefix(req.URL.Path, "/session/"); ok && !strings.Contains(id, "/") {
		fmt.Fprintf(w, `{"id":%q,"title":"a session","directory":"/"}`, id)
		return
	}
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprint(w, `{}`)
}

// check fails the test when the rogue got a request of this test's: one
// naming a session of its ocmem log, or carrying its password. Other
// processes on the machine (other tests, an older ocmem) may send it
// theirs; those are only counted.
func (r *rogue) check(t *testing.T, e *e2e.ExtractEnv, pass string) {
	t.Helper()
	sessions := map[string]bool{}
	for _, rec := range e.AllRecords() {
		if id := rec.Str("session"); id != "" {
			sessions[id] = true
		}
	}
	if len(sessions) == 0 {
		t.Error("no session in the ocmem log to look for")
	}
	auth := base64.StdEncoding.EncodeToString([]byte("opencode:" + pass))
	r.mu.Lock()
	defer r.mu.Unlock()
	var ours []string
	for _, req := range r.reqs {
		mine := pass != "" && strings.Contains(req, auth)
		for id := range sessions {
			mine = mine || strings.Contains(req, id)
		}
		if mine {
			ours = append(ours, req)
		}
	}
	if len(ours) > 0 {
		t.Errorf("the process on localhost:%d got %d requests of this test:\n%s", serverURLPort, len(ours), strings.Join(ours, "\n"))
	}
	if n := len(r.reqs) - len(ours); n > 0 {
		t.Logf("the process on localhost:%d got %d requests of other processes on this machine", serverURLPort, n)
	}
}

// waitExtractionEnd waits for the end of the first extraction run in
// ocmem's log and returns its session.
func waitExtractionEnd(t *testing.T, e *e2e.ExtractEnv, d time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		for _, r := range e.AllRecords() {
			if m := r.Str("msg"); strings.HasPrefix(m, "extraction failed") || m == "extraction stopped" || m == "extraction done" {
				return r.Str("session")
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("no extraction outcome in the ocmem log")
	return ""
}

// TestRogueServerURLUnderRun: `opencode run`, whose plugin serverUrl is
// http://localhost:4096/, with a process there that answers like OpenCode
// and OPENCODE_SERVER_PASSWORD in the environment. The process gets
// nothing; extraction goes through the plugin (and stops when `opencode
// run` exits, as TestExtractionUnderRun records).
func TestRogueServerURLUnderRun(t *testing.T) {
	e2e.SkipShort(t)
	r := startRogue(t)
	e := e2e.NewExtractEnv(t)
	pass := rand.Text()
	e.Vars = append(e.Vars, "OPENCODE_SERVER_PASSWORD="+pass)
	e2e.SetPluginOptions(t, e.Env, map[string]any{"minTurns": 1})
	e.Reply(e2e.PnpmMarker, e2e.MemoriesReply(e2e.PnpmMemory))
	e.Ask("we moved to pnpm 9 last week " + e2e.PnpmMarker)
	session := waitExtractionEnd(t, e, 15*time.Second)
	// Give a request that was still on its way time to arrive.
	time.Sleep(2 * time.Second)
	r.check(t, e, pass)
	if tr := e2e.WithMsg(e.LogRecords(session), "extraction transport"); len(tr) != 1 || tr[0].Str("msg") != "extraction transport: plugin" {
		t.Errorf("transport records %v", tr)
	}
	if files := e2e.WaitMemory(t, e, time.Second); len(files) != 0 {
		t.Errorf("memory files %v", files)
	}
}

// TestRogueServerURLInTUI: the same in the TUI (plain `opencode`, under
// tmux), which lives on after the turn: extraction finishes through the
// plugin's in-process client and writes the fake model's memory, and the
// process on localhost:4096 gets nothing.
func TestRogueServerURLInTUI(t *testing.T) {
	e2e.SkipShort(t)
	r := startRogue(t)
	e := e2e.NewExtractEnv(t)
	pass := rand.Text()
	e.Vars = append(e.Vars, "OPENCODE_SERVER_PASSWORD="+pass)
	e2e.SetPluginOptions(t, e.Env, map[string]any{"minTurns": 1})
	e.Reply(e2e.PnpmMarker, e2e.MemoriesReply(e2e.PnpmMemory))
	s := e2e.StartTUI2(t, e.Env)
	s.Send("we moved to pnpm 9 last week " + e2e.PnpmMarker)
	session := waitExtractionEnd(t, e, e2e.ExtractWait)
	recs := e.LogRecords(session)
	if len(e2e.WithMsg(recs, "extraction done")) != 1 {
		t.Errorf("no finished extraction: %v", recs)
	}
	if files := e2e.WaitMemory(t, e, 5*time.Second); len(files) != 1 {
		t.Errorf("memory files %v", files)
	}
	if n := len(e.Extractions()); n != 1 {
		t.Errorf("%d extraction requests reached the model", n)
	}
	r.check(t, e, pass)
}

// TestRogueServerURLInTUIWithPort: the TUI with `--port N` listens on N,
// and the plugin's client goes there (the address OpenCode bound), not to
// localhost:4096: extraction writes its memory and the rogue gets nothing.
func TestRogueServerURLInTUIWithPort(t *testing.T) {
	e2e.SkipShort(t)
	r := startRogue(t)
	e := e2e.NewExtractEnv(t)
	e2e.SetPluginOptions(t, e.Env, map[string]any{"minTurns": 1})
	e.Reply(e2e.PnpmMarker, e2e.MemoriesReply(e2e.PnpmMemory))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := e2e.StartTUI2(t, e.Env, "--port", fmt.Sprint(port), "--hostname", "127.0.0.1")
	s.Send("we moved to pnpm 9 last week " + e2e.PnpmMarker)
	session := waitExtractionEnd(t, e, e2e.ExtractWait)
	if recs := e.LogRecords(session); len(e2e.WithMsg(recs, "extraction done")) != 1 {
		t.Errorf("no finished extraction: %v", recs)
	}
	if files := e2e.WaitMemory(t, e, 5*time.Second); len(files) != 1 {
		t.Errorf("memory files %v", files)
	}
	r.check(t, e, "")
}

// TestExtractionServeWithPassword: `opencode serve` with
// OPENCODE_SERVER_PASSWORD, on a port of its own while a rogue holds 4096.
// The plugin's client reaches its own server at the address OpenCode bound,
// with the credentials OpenCode gave it: extraction writes the memory, and
// the rogue gets nothing.
func TestExtractionServeWithPassword(t *testing.T) {
	e2e.SkipShort(t)
	r := startRogue(t)
	e := e2e.NewExtractEnv(t)
	pass := rand.Text()
	e.Vars = append(e.Vars, "OPENCODE_SERVER_PASSWORD="+pass)
	e2e.SetPluginOptions(t, e.Env, map[string]any{"minTurns": 1})
	e.Reply(e2e.PnpmMarker, e2e.MemoriesReply(e2e.PnpmMemory))
	srv := startServeWithPassword(t, e.Env, pass)
	ctx := context.Background()
	// Without the password, the server refuses: it really is secured.
	if err := srv.do(ctx, "GET", "/config", "", nil, nil); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("GET /config without the password: %v", err)
	}
	var sess struct{ ID string }
	if err := srv.do(ctx, "POST", "/session", pass, map[string]any{"title": "e2e"}, &sess); err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"parts": []any{map[string]any{"type": "text", "text": "we moved to pnpm 9 last week " + e2e.PnpmMarker}}}
	if err := srv.do(ctx, "POST", "/session/"+sess.ID+"/message", pass, body, nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(e2e.ExtractWait)
	for e2e.Ends(e.LogRecords(sess.ID)) == 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	recs := e.LogRecords(sess.ID)
	if len(e2e.WithMsg(recs, "extraction done")) != 1 {
		t.Errorf("no finished extraction: %v", recs)
	}
	if files := e2e.WaitMemory(t, e, 5*time.Second); len(files) != 1 {
		t.Errorf("memory files %v", files)
	}
	r.check(t, e, pass)
}

// passwordServe is an `opencode serve` that wants Basic auth.
type passwordServe struct{ url string }

// startServeWithPassword starts `opencode serve` with OPENCODE_SERVER_PASSWORD
// in e's environment and waits until it answers with the password.
func startServeWithPassword(t *testing.T, e *e2e.Env, pass string) *passwordServe {
	t.Helper()
	cmd := exec.Command(e.OpenCode, "serve", "--port", "0", "--hostname", "127.0.0.1")
	cmd.Dir = e.Dir
	cmd.Env = e.Environ()
	e2e.SetProcessGroup(cmd, false)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(e2e.Interrupt)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		_ = e2e.KillGroup(cmd)
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u := serveURL.FindString(sc.Text()); u != "" {
				select {
				case urls <- u:
				default:
				}
			}
		}
	}()
	s := &passwordServe{}
	select {
	case s.url = <-urls:
	case <-done:
		t.Fatal("opencode serve exited before listening")
	case <-time.After(e2e.ServeStartTimeout):
		t.Fatalf("opencode serve did not print its address in %v", e2e.ServeStartTimeout)
	}
	if strings.HasSuffix(s.url, fmt.Sprintf(":%d", serverURLPort)) {
		t.Fatalf("opencode serve listens on %s, the rogue's port", s.url)
	}
	deadline := time.Now().Add(e2e.ServeStartTimeout)
	for s.do(context.Background(), "GET", "/config", pass, nil, nil) != nil {
		if time.Now().After(deadline) {
			t.Fatalf("opencode serve at %s not ready in %v", s.url, e2e.ServeStartTimeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return s
}

// do sends a JSON request, with Basic auth when pass is set, and decodes
// the answer into out (may be nil). A non-2xx status is an error.
func (s *passwordServe) do(ctx context.Context, method, path, pass string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = strings.NewReader(string(b))
	}
	ctx, cancel := context.WithTimeout(ctx, e2e.RunTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.url+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if pass != "" {
		req.SetBasicAuth("opencode", pass)
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
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return errors.Join(fmt.Errorf("%s %s: decode", method, path), err)
	}
	return nil
}

// serveURL is the address `opencode serve` prints when it listens.
var serveURL = regexp.MustCompile(`https?://[0-9.]+:[0-9]+`)
