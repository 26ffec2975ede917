package e2e

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
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
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
func (r *rogue) check(t *testing.T, e *extractEnv, pass string) {
	t.Helper()
	sessions := map[string]bool{}
	for _, rec := range e.allRecords() {
		if id := rec.str("session"); id != "" {
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
func waitExtractionEnd(t *testing.T, e *extractEnv, d time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		for _, r := range e.allRecords() {
			if m := r.str("msg"); strings.HasPrefix(m, "extraction failed") || m == "extraction stopped" || m == "extraction done" {
				return r.str("session")
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
	SkipShort(t)
	r := startRogue(t)
	e := newExtractEnv(t)
	pass := rand.Text()
	e.Vars = append(e.Vars, "OPENCODE_SERVER_PASSWORD="+pass)
	setPluginOptions(t, e.Env, map[string]any{"minTurns": 1})
	e.reply(pnpmMarker, memoriesReply(pnpmMemory))
	e.Ask("we moved to pnpm 9 last week " + pnpmMarker)
	session := waitExtractionEnd(t, e, 15*time.Second)
	// Give a request that was still on its way time to arrive.
	time.Sleep(2 * time.Second)
	r.check(t, e, pass)
	if tr := withMsg(e.logRecords(session), "extraction transport"); len(tr) != 1 || tr[0].str("msg") != "extraction transport: plugin" {
		t.Errorf("transport records %v", tr)
	}
	if files := waitMemory(t, e, time.Second); len(files) != 0 {
		t.Errorf("memory files %v", files)
	}
}

// TestRogueServerURLInTUI: the same in the TUI (plain `opencode`, under
// tmux), which lives on after the turn: extraction finishes through the
// plugin's in-process client and writes the fake model's memory, and the
// process on localhost:4096 gets nothing.
func TestRogueServerURLInTUI(t *testing.T) {
	SkipShort(t)
	r := startRogue(t)
	e := newExtractEnv(t)
	pass := rand.Text()
	e.Vars = append(e.Vars, "OPENCODE_SERVER_PASSWORD="+pass)
	setPluginOptions(t, e.Env, map[string]any{"minTurns": 1})
	e.reply(pnpmMarker, memoriesReply(pnpmMemory))
	s := startTUI2(t, e.Env)
	s.send("we moved to pnpm 9 last week " + pnpmMarker)
	session := waitExtractionEnd(t, e, extractWait)
	recs := e.logRecords(session)
	if len(withMsg(recs, "extraction done")) != 1 {
		t.Errorf("no finished extraction: %v", recs)
	}
	if files := waitMemory(t, e, 5*time.Second); len(files) != 1 {
		t.Errorf("memory files %v", files)
	}
	if n := len(e.extractions()); n != 1 {
		t.Errorf("%d extraction requests reached the model", n)
	}
	r.check(t, e, pass)
}

// TestRogueServerURLInTUIWithPort: the TUI with `--port N` listens on N,
// and the plugin's client goes there (the address OpenCode bound), not to
// localhost:4096: extraction writes its memory and the rogue gets nothing.
func TestRogueServerURLInTUIWithPort(t *testing.T) {
	SkipShort(t)
	r := startRogue(t)
	e := newExtractEnv(t)
	setPluginOptions(t, e.Env, map[string]any{"minTurns": 1})
	e.reply(pnpmMarker, memoriesReply(pnpmMemory))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := startTUIWith(t, e.Env, "--port", fmt.Sprint(port), "--hostname", "127.0.0.1")
	s.send("we moved to pnpm 9 last week " + pnpmMarker)
	session := waitExtractionEnd(t, e, extractWait)
	if recs := e.logRecords(session); len(withMsg(recs, "extraction done")) != 1 {
		t.Errorf("no finished extraction: %v", recs)
	}
	if files := waitMemory(t, e, 5*time.Second); len(files) != 1 {
		t.Errorf("memory files %v", files)
	}
	r.check(t, e, "")
}

// startTUIWith is startTUI2 for OpenCode 1.18 with arguments: `opencode
// args...` in a private tmux server, until its prompt shows.
func startTUIWith(t *testing.T, e *Env, args ...string) *tui2 {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux not installed")
	}
	s := &tui2{t: t, e: e, socket: fmt.Sprintf("ocmem-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())}
	cmd := []string{"-L", s.socket, "-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50", "-c", e.Dir, "--", "env", "-i"}
	cmd = append(cmd, e.Environ()...)
	cmd = append(cmd, "TERM=xterm-256color", e.OpenCode)
	cmd = append(cmd, args...)
	if out, err := exec.Command(tmux, cmd...).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("TUI screen at the end:\n%s", s.screen())
		}
		exec.Command(tmux, "-L", s.socket, "kill-server").Run()
		killHome(t, e.Home)
	})
	if !s.waitScreen("Ask anything", 60*time.Second) {
		t.Fatalf("the TUI did not show its prompt:\n%s", s.screen())
	}
	time.Sleep(2 * time.Second)
	return s
}

// TestExtractionServeWithPassword: `opencode serve` with
// OPENCODE_SERVER_PASSWORD, on a port of its own while a rogue holds 4096.
// The plugin's client reaches its own server at the address OpenCode bound,
// with the credentials OpenCode gave it: extraction writes the memory, and
// the rogue gets nothing.
func TestExtractionServeWithPassword(t *testing.T) {
	SkipShort(t)
	r := startRogue(t)
	e := newExtractEnv(t)
	pass := rand.Text()
	e.Vars = append(e.Vars, "OPENCODE_SERVER_PASSWORD="+pass)
	setPluginOptions(t, e.Env, map[string]any{"minTurns": 1})
	e.reply(pnpmMarker, memoriesReply(pnpmMemory))
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
	body := map[string]any{"parts": []any{map[string]any{"type": "text", "text": "we moved to pnpm 9 last week " + pnpmMarker}}}
	if err := srv.do(ctx, "POST", "/session/"+sess.ID+"/message", pass, body, nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(extractWait)
	for ends(e.logRecords(sess.ID)) == 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	recs := e.logRecords(sess.ID)
	if len(withMsg(recs, "extraction done")) != 1 {
		t.Errorf("no finished extraction: %v", recs)
	}
	if files := waitMemory(t, e, 5*time.Second); len(files) != 1 {
		t.Errorf("memory files %v", files)
	}
	r.check(t, e, pass)
}

// passwordServe is an `opencode serve` that wants Basic auth.
type passwordServe struct{ url string }

// startServeWithPassword starts `opencode serve` with OPENCODE_SERVER_PASSWORD
// in e's environment and waits until it answers with the password.
func startServeWithPassword(t *testing.T, e *Env, pass string) *passwordServe {
	t.Helper()
	cmd := exec.Command(e.OpenCode, "serve", "--port", "0", "--hostname", "127.0.0.1")
	cmd.Dir = e.Dir
	cmd.Env = e.Environ()
	setProcessGroup(cmd, false)
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
		_ = cmd.Process.Signal(interrupt)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		_ = killGroup(cmd)
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u := listenRE.FindString(sc.Text()); u != "" {
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
	case <-time.After(serveStartTimeout):
		t.Fatalf("opencode serve did not print its address in %v", serveStartTimeout)
	}
	if strings.HasSuffix(s.url, fmt.Sprintf(":%d", serverURLPort)) {
		t.Fatalf("opencode serve listens on %s, the rogue's port", s.url)
	}
	deadline := time.Now().Add(serveStartTimeout)
	for s.do(context.Background(), "GET", "/config", pass, nil, nil) != nil {
		if time.Now().After(deadline) {
			t.Fatalf("opencode serve at %s not ready in %v", s.url, serveStartTimeout)
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
	ctx, cancel := context.WithTimeout(ctx, RunTimeout)
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
