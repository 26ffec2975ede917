package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLauncherForwardsSignals: a signal that stops the launcher stops the
// binary it runs, and the launcher ends as the binary did (killed by the
// signal, or its exit status), for the long-running commands a person or
// a client starts through it. Before, the binary kept running on its own.
func TestLauncherForwardsSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ocmem")
	}
	if runtime.GOOS != "linux" {
		t.Skip("finds the binary's process in /proc")
	}
	node := needNode(t)
	js := launcherPackage(t, "0.0.0-launcher")
	for _, tt := range []struct {
		args []string
		sig  syscall.Signal
		// The binary's own end: ui stops cleanly on SIGTERM and SIGINT,
		// serve and mcp on SIGINT; otherwise the signal kills it.
		wantSignal syscall.Signal
		wantCode   int
	}{
		{[]string{"ui", "--no-open", "--addr", "127.0.0.1:0"}, syscall.SIGTERM, 0, 0},
		{[]string{"ui", "--no-open", "--addr", "127.0.0.1:0"}, syscall.SIGHUP, syscall.SIGHUP, 0},
		{[]string{"serve"}, syscall.SIGTERM, syscall.SIGTERM, 0},
		{[]string{"serve"}, syscall.SIGHUP, syscall.SIGHUP, 0},
		{[]string{"serve"}, syscall.SIGINT, 0, 0},
		{[]string{"mcp"}, syscall.SIGTERM, syscall.SIGTERM, 0},
		{[]string{"mcp"}, syscall.SIGHUP, syscall.SIGHUP, 0},
		{[]string{"mcp"}, syscall.SIGINT, 0, 0},
		{[]string{"ui", "--no-open", "--addr", "127.0.0.1:0"}, syscall.SIGINT, 0, 0},
	} {
		name := fmt.Sprintf("%s/%v", tt.args[0], tt.sig)
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(node, append([]string{js}, tt.args...)...)
			cmd.Env = launcherEnv(t)
			stdin, err := cmd.StdinPipe() // held open: serve and mcp stop when it closes
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			child := waitChild(t, cmd.Process.Pid)
			defer func() {
				if alive(child) {
					syscall.Kill(child, syscall.SIGKILL)
				}
			}()
			// Signal it once it is ready, when its own handling of the
			// signal is in place: that is how it ends, and the launcher
			// must end the same way.
			ready(t, tt.args[0], stdin, bufio.NewReader(stdout), bufio.NewReader(stderr))
			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			var werr error
			select {
			case werr = <-waited:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("the launcher did not end after %v", tt.sig)
			}
			if alive(child) {
				t.Errorf("ocmem %s (pid %d) still runs after the launcher got %v", tt.args[0], child, tt.sig)
			}
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			switch {
			case tt.wantSignal != 0 && !(ws.Signaled() && ws.Signal() == tt.wantSignal):
				t.Errorf("the launcher ended with %v (%v), want killed by %v as the binary was", ws, werr, tt.wantSignal)
			case tt.wantSignal == 0 && (ws.Signaled() || ws.ExitStatus() != tt.wantCode):
				t.Errorf("the launcher ended with %v (%v), want exit %d as the binary's", ws, werr, tt.wantCode)
			}
		})
	}
}

// ready waits until the command answers: ui has printed its URL and that
// it serves; serve and mcp have answered a first request.
func ready(t *testing.T, command string, stdin io.Writer, stdout, stderr *bufio.Reader) {
	t.Helper()
	var req, want string
	switch command {
	case "ui":
		if line, err := stdout.ReadString('\n'); err != nil || !strings.HasPrefix(line, "http://127.0.0.1:") {
			t.Fatalf("ui printed %q, %v", line, err)
		}
		for {
			line, err := stderr.ReadString('\n')
			if err != nil {
				t.Fatalf("ui did not say it serves: %v", err)
			}
			if strings.Contains(line, "serving") {
				return
			}
		}
	case "serve":
		req, want = `{"jsonrpc":"2.0","id":1,"method":"ping"}`, `"version"`
	case "mcp":
		req, want = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`, `"serverInfo"`
	}
	if _, err := io.WriteString(stdin, req+"\n"); err != nil {
		t.Fatal(err)
	}
	if line, err := stdout.ReadString('\n'); err != nil || !strings.Contains(line, want) {
		t.Fatalf("%s answered %q, %v", command, line, err)
	}
}

// waitChild returns the pid of the process parent started.
func waitChild(t *testing.T, parent int) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if ppid, _ := procParent(pid); ppid == parent {
				return pid
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the launcher (pid %d) started no process", parent)
	return 0
}

// procParent reads a process's parent and state from /proc/PID/stat.
func procParent(pid int) (ppid int, state string) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, ""
	}
	// pid (comm) state ppid …; comm may hold spaces and parentheses.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 2 {
		return 0, ""
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, f[0]
}

// alive reports whether pid is a running process (not gone, not a zombie
// waiting to be reaped).
func alive(pid int) bool {
	_, state := procParent(pid)
	return state != "" && state != "Z"
}
