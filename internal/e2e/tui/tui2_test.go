package tui

// OpenCode 2's TUI, run under tmux and read with capture-pane: the only
// place OpenCode 2 shows a plugin's toasts (docs/OPENCODE-NOTES.md,
// "Toasts").

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
	"github.com/ocmem/ocmem/internal/testenv"
)

// tui2 is one OpenCode 2 TUI in a tmux server of its own.
type tui2 struct {
	t      *testing.T
	e      *e2e.Env
	socket string
	seen   []string // every toast text read so far, in order
}

// startTUI2 starts `opencode` (the TUI) for e in a private tmux server, 200
// by 50 cells, and waits until its prompt is on screen. At cleanup the tmux
// server goes, and with it every process of e's HOME (the TUI leaves a
// background `opencode serve --service`, which runs `ocmem serve`).
func startTUI2(t *testing.T, e *e2e.Env) *tui2 {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		testenv.Missing(t, "tmux not installed: OpenCode 2's toasts show only in its TUI (apt-get install tmux)")
	}
	servicePort(t, e)
	s := &tui2{t: t, e: e, socket: fmt.Sprintf("ocmem-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())}
	args := []string{"-L", s.socket, "-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50", "-c", e.Dir, "--", "env", "-i"}
	args = append(args, e.Environ()...)
	args = append(args, "TERM=xterm-256color", e.OpenCode)
	if out, err := exec.Command(tmux, args...).CombinedOutput(); err != nil {
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
func servicePort(t *testing.T, e *e2e.Env) {
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
func killHome(t *testing.T, home string) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids := e2e.ProcessesWithHome(home)
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
				syscall.Kill(pid, syscall.SIGTERM)
			}
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func (s *tui2) tmux(args ...string) string {
	out, _ := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).Output()
	return string(out)
}

func (s *tui2) screen() string { return s.tmux("capture-pane", "-p") }

func (s *tui2) waitScreen(text string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if strings.Contains(s.screen(), text) {
			return true
		}
		time.Sleep(200 * time.Millisecond)
	}
	return false
}

// waitAgentRequests waits until the model got n agent requests, then a
// moment more for the turn to end.
func (s *tui2) waitAgentRequests(n int) {
	s.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for len(fakellm.Agent(s.e.Fake.Requests())) < n {
		if time.Now().After(deadline) {
			s.t.Fatalf("%d agent requests, want %d:\n%s", len(fakellm.Agent(s.e.Fake.Requests())), n, s.screen())
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(time.Second)
}

// send types a message and presses Enter.
func (s *tui2) send(msg string) {
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

// waitToast waits until a toast titled ocmem shows a text that holds want
// (compared without spaces); it reads the screen every 150 ms, as a toast
// stays 4 s.
func (s *tui2) waitToast(want string, d time.Duration) bool {
	want = strings.Join(strings.Fields(want), "")
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		text := toastText(s.screen())
		if text != "" && (len(s.seen) == 0 || s.seen[len(s.seen)-1] != text) {
			s.seen = append(s.seen, text)
		}
		if strings.HasPrefix(text, "ocmem") && strings.Contains(text, want) {
			return true
		}
		time.Sleep(150 * time.Millisecond)
	}
	return false
}

// TestV2ToastsInTUI is TestToasts on OpenCode 2, in its TUI: ocmem's
// notices reach the TUI entry (tui.js, which `ocmem install` writes into
// the plugin folder) from the server half and show as ocmem toasts: the
// first injection of a session, with the memory's id, and a memory the
// model remembered. With "toasts": false none shows.
func TestV2ToastsInTUI(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprintf("toasts=%v", on), func(t *testing.T) {
			e := e2e.NewOcmemEnv2(t)
			deploy := e.RememberDeploy()
			if !on {
				setOcmemOptions(t, e, map[string]any{"toasts": false})
			}
			e.Fake.SetResponder(fakellm.Script(
				fakellm.Text("ok"), // turn 1
				fakellm.Call("memory_remember", map[string]any{"category": "decisions", "kind": "decision",
					"summary": "Use SQLite for the session cache", "body": "One file, no server."}),
				fakellm.Text("done"),
			))
			wait := 30 * time.Second
			if !on {
				wait = 8 * time.Second
			}
			s := startTUI2(t, e)
			s.send("what should I check before a deploy?")
			first := s.waitToast("added to your message: project:"+deploy.ID, wait)
			s.waitAgentRequests(1)
			s.send("remember that we use SQLite for the session cache")
			remembered := s.waitToast("remembered project:decisions/use-sqlite-session-cache", wait)
			s.waitAgentRequests(3)
			t.Logf("toasts seen: %q", s.seen)
			if on && (!first || !remembered) {
				t.Errorf("toasts seen: %q; want the first injection (%v) and the memory remembered (%v)", s.seen, first, remembered)
			}
			if !on {
				for _, text := range s.seen {
					if strings.HasPrefix(text, "ocmem") {
						t.Errorf("toasts off, and an ocmem toast showed: %q", text)
					}
				}
			}
			// The turns really ran through ocmem: the memory is on disk.
			if !e2e.FileExists(filepath.Join(e.Project, ".memory", "decisions", "use-sqlite-session-cache.md")) {
				t.Errorf("the model's memory was not written")
			}
		})
	}
}

// setOcmemOptions sets the options of the ocmem entry `ocmem install`
// wrote into the global config.
func setOcmemOptions(t *testing.T, e *e2e.Env, options map[string]any) {
	t.Helper()
	path := filepath.Join(e.ConfigDir(), "opencode.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	list, _ := cfg["plugin"].([]any)
	if len(list) != 1 {
		t.Fatalf("global config's plugin list: %v", cfg["plugin"])
	}
	entry, _ := list[0].([]any)
	if len(entry) != 2 {
		t.Fatalf("ocmem's entry: %v", list[0])
	}
	cfg["plugin"] = []any{[]any{entry[0], options}}
	e.WriteJSON(path, cfg)
}

// TestV2NpmToastsInTUI: with ocmem from npm ("ocmem@V" in the config), the
// TUI loads the package's "./tui" export and shows ocmem's toasts.
func TestV2NpmToastsInTUI(t *testing.T) {
	e, _ := e2e.NewNpmEnvWith(t, e2e.EnvOptions{V2: true})
	deploy := e.RememberDeploy()
	e.SetPlugins(e2e.PluginTuple("ocmem@"+e2e.NpmVersion, map[string]any{}))
	s := startTUI2(t, e)
	s.send("what should I check before a deploy?")
	if !s.waitToast("added to your message: project:"+deploy.ID, 60*time.Second) {
		t.Errorf("no first-injection toast; toasts seen: %q", s.seen)
	}
	s.waitAgentRequests(1)
}
