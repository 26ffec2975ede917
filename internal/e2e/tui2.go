package e2e

// OpenCode 2's TUI, run under tmux and read with capture-pane: the only
// place OpenCode 2 shows a plugin's toasts (docs/OPENCODE-NOTES.md,
// "Toasts").

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/fakellm"
	"github.com/ocmem/ocmem/internal/testenv"
)

// TUI2 is one OpenCode 2 TUI in a tmux server of its own.
type TUI2 struct {
	t      testing.TB
	e      *Env
	socket string
	Seen   []string // every toast text WaitToast read, in order
}

// StartTUI2 starts `opencode opencodeArgs…` (the TUI) for e in a private
// tmux server, 200 by 50 cells, and waits until its prompt is on screen. At
// cleanup the tmux server goes, and with it every process of e's HOME (the
// TUI leaves a background `opencode serve --service`, which runs `ocmem
// serve`).
func StartTUI2(t testing.TB, e *Env, opencodeArgs ...string) *TUI2 {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		testenv.Missing(t, "tmux not installed: OpenCode 2's toasts show only in its TUI (apt-get install tmux)")
	}
	servicePort(t, e)
	s := &TUI2{t: t, e: e, socket: fmt.Sprintf("ocmem-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())}
	args := []string{"-L", s.socket, "-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50", "-c", e.Dir, "--", "env", "-i"}
	args = append(args, e.Environ()...)
	args = append(args, "TERM=xterm-256color", e.OpenCode)
	args = append(args, opencodeArgs...)
	if out, err := exec.Command(tmux, args...).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("TUI screen at the end:\n%s", s.Screen())
		}
		exec.Command(tmux, "-L", s.socket, "kill-server").Run()
		killHome(t, e.Home)
	})
	if !s.WaitScreen("Ask anything", 60*time.Second) {
		t.Fatalf("the TUI did not show its prompt:\n%s", s.Screen())
	}
	// OpenCode 2's TUI shows its prompt before it has read the configured
	// model; a message sent then goes to a model of OpenCode's own, which
	// is unreachable here (seen on a loaded machine). Its footer names the
	// model once it is chosen.
	if e.V2 && !s.WaitScreen("Fake Fake", 60*time.Second) {
		t.Fatalf("the TUI shows no configured model:\n%s", s.Screen())
	}
	// The plugins' TUI entries load after the first frame.
	time.Sleep(2 * time.Second)
	return s
}

// defaultServicePort is where OpenCode 2's TUI starts its background
// service when its config names no port (2.0.15).
const defaultServicePort = 49374

// servicePort gives e's OpenCode 2 a background service port of its own,
// free now, in its HOME's config (.config/opencode/service.json, what
// `opencode service set port` writes): a service that outlived a run that
// was killed (a test binary's timeout runs no cleanup) holds the default
// port, and every TUI started after it failed with "Managed service port
// 49374 … is already in use by another process". While the test runs it
// also holds the default port itself, when it is free, so that a TUI
// which still went there would fail here and not on someone's next run.
func servicePort(t testing.TB, e *Env) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	e.WriteJSON(filepath.Join(e.Home, ".config", "opencode", "service.json"), map[string]any{"port": port})
	if d, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", defaultServicePort)); err == nil {
		t.Cleanup(func() { d.Close() })
	}
}

// killHome ends the processes whose HOME is home: only this test's.
func killHome(t testing.TB, home string) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids := ProcessesWithHome(home)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes of the test's HOME still running: %v", pids)
			return
		}
		for _, p := range pids {
			var pid int
			if _, err := fmt.Sscan(p, &pid); err == nil && pid > 0 {
				terminate(pid)
			}
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func (s *TUI2) tmux(args ...string) string {
	out, _ := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).Output()
	return string(out)
}

// Screen is the text on the TUI's screen now.
func (s *TUI2) Screen() string { return s.tmux("capture-pane", "-p") }

// WaitScreen waits up to d for text to be on the screen.
func (s *TUI2) WaitScreen(text string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if strings.Contains(s.Screen(), text) {
			return true
		}
		time.Sleep(200 * time.Millisecond)
	}
	return false
}

// WaitAgentRequests waits until the model got n agent requests, then a
// moment more for the turn to end.
func (s *TUI2) WaitAgentRequests(n int) {
	s.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for len(fakellm.Agent(s.e.Fake.Requests())) < n {
		if time.Now().After(deadline) {
			s.t.Fatalf("%d agent requests, want %d:\n%s", len(fakellm.Agent(s.e.Fake.Requests())), n, s.Screen())
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(time.Second)
}

// Send types a message and presses Enter.
func (s *TUI2) Send(msg string) {
	s.tmux("send-keys", "-t", "0", "-l", msg)
	time.Sleep(200 * time.Millisecond)
	s.tmux("send-keys", "-t", "0", "Enter")
}

// toastText is the text of the toasts on a screen: OpenCode 2 draws a toast
// as a box at the right edge, so on each line of it the text lies between
// the line's last two "┃". A toast's text wraps inside its box; the lines
// are joined without spaces, and the caller compares without spaces too.
func toastText(screen string) string {
	var b strings.Builder
	for _, line := range strings.Split(screen, "\n") {
		line = strings.TrimRight(line, " ")
		if !strings.HasSuffix(line, "┃") {
			continue
		}
		inner := strings.TrimSuffix(line, "┃")
		i := strings.LastIndex(inner, "┃")
		if i < 0 {
			continue
		}
		b.WriteString(strings.Join(strings.Fields(inner[i+len("┃"):]), ""))
	}
	return b.String()
}

// WaitToast waits until a toast titled ocmem shows a text that holds want
// (compared without spaces); it reads the screen every 150 ms, as a toast
// stays 4 s.
func (s *TUI2) WaitToast(want string, d time.Duration) bool {
	want = strings.Join(strings.Fields(want), "")
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		text := toastText(s.Screen())
		if text != "" && (len(s.Seen) == 0 || s.Seen[len(s.Seen)-1] != text) {
			s.Seen = append(s.Seen, text)
		}
		if strings.HasPrefix(text, "ocmem") && strings.Contains(text, want) {
			return true
		}
		time.Sleep(150 * time.Millisecond)
	}
	return false
}
