package reliability_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/testenv"
)

// serveProc drives a real `ocmem serve` process over its pipes, as the
// OpenCode plugin does. Calls may overlap: replies are matched by id.
type serveProc struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	wmu     sync.Mutex
	mu      sync.Mutex
	pending map[string]chan rpcReply
	next    int
	exited  chan struct{}
	stderr  strings.Builder
}

type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Result struct {
		Text string   `json:"text"`
		IDs  []string `json:"ids"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// callTimeout is how long one request may take before the test calls it a
// deadlock.
const callTimeout = 30 * time.Second

func startServe(t testing.TB, w *world) *serveProc {
	t.Helper()
	cmd := exec.Command(ocmemBin(t), "serve")
	cmd.Env = w.env
	cmd.Dir = w.dir
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	sp := &serveProc{cmd: cmd, in: in, pending: map[string]chan rpcReply{}, exited: make(chan struct{})}
	cmd.Stderr = &lockedWriter{b: &sp.stderr, mu: &sp.mu}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(sp.exited)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var r rpcReply
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Errorf("serve wrote a line that is not JSON: %q", sc.Bytes())
				continue
			}
			sp.mu.Lock()
			ch := sp.pending[string(r.ID)]
			delete(sp.pending, string(r.ID))
			sp.mu.Unlock()
			if ch == nil {
				t.Errorf("serve answered id %s, which nobody asked for", r.ID)
				continue
			}
			ch <- r
		}
		cmd.Wait()
	}()
	return sp
}

type lockedWriter struct {
	b  *strings.Builder
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// call sends one request and waits for its reply; no reply within
// callTimeout fails the test.
func (sp *serveProc) call(t testing.TB, method string, params map[string]any) rpcReply {
	t.Helper()
	sp.mu.Lock()
	sp.next++
	n := sp.next // read under the lock: a concurrent call may increment it next
	id := fmt.Sprint(n)
	ch := make(chan rpcReply, 1)
	sp.pending[id] = ch
	sp.mu.Unlock()
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": n, "method": method, "params": testenv.ToolParams(method, params)})
	sp.wmu.Lock()
	_, err := sp.in.Write(append(line, '\n'))
	sp.wmu.Unlock()
	if err != nil {
		t.Fatalf("serve %s: %v", method, err)
	}
	select {
	case r := <-ch:
		return r
	case <-sp.exited:
		t.Fatalf("serve exited during %s: %s", method, sp.stderrText())
	case <-time.After(callTimeout):
		t.Fatalf("serve %s: no reply within %v (deadlock?)", method, callTimeout)
	}
	return rpcReply{}
}

func (sp *serveProc) stderrText() string {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.stderr.String()
}

// close ends the process by closing its input, as the plugin does; it must
// exit on its own.
func (sp *serveProc) close(t testing.TB) {
	t.Helper()
	sp.in.Close()
	select {
	case <-sp.exited:
		// Under the race detector a race makes the process exit 66.
		if code := sp.cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("serve exited %d:\n%s", code, sp.stderrText())
		}
	case <-time.After(callTimeout):
		sp.cmd.Process.Kill()
		t.Errorf("serve did not exit within %v of its input closing", callTimeout)
	}
}
