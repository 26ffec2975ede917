package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
)

// TestHomeIsNoProject: a serve asked for the home folder as a worktree
// (OpenCode 2's background service runs in $HOME), here a dotfiles git
// checkout, resolves no project root: the global root only, no ~/.memory
// made by any request, and a write lands in the global root. An idle
// there owns a session of the home folder and not one of a project
// below it, which that project's own idle extracts.
func TestHomeIsNoProject(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	d := t.TempDir()
	home := filepath.Join(d, "home")
	repo := filepath.Join(home, "src", "app")
	os.MkdirAll(repo, 0o755)
	t.Setenv("HOME", home)
	if runtime.GOOS == "windows" {
		t.Setenv("USERPROFILE", home)
	}
	for _, dir := range []string{home, repo} {
		if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
	}
	global := filepath.Join(home, ".config", "opencode", "memory")
	reqs := make(chan IdleRequest, 1)
	c := start(t, Config{GlobalDir: global, Extract: func(_ context.Context, _ *engine.Engine, req IdleRequest) { reqs <- req }})
	at := map[string]any{"sessionID": "ses_1", "worktree": home, "directory": home}
	with := func(m map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range at {
			out[k] = v
		}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "roots", "params": at})
	fmt.Fprintln(c.in, string(line))
	if !c.out.Scan() {
		t.Fatal("no reply to roots")
	}
	var roots struct {
		Result *rootsResult
	}
	if err := json.Unmarshal(c.out.Bytes(), &roots); err != nil || roots.Result == nil {
		t.Fatalf("roots: %s", c.out.Bytes())
	}
	if *roots.Result != (rootsResult{Global: global}) {
		t.Errorf("roots of the home folder = %+v, want the global root only", *roots.Result)
	}
	for _, call := range []struct {
		method string
		params map[string]any
	}{
		{"system", nil},
		{"message", map[string]any{"messageID": "msg_1", "text": "what do we deploy with?"}},
		{"remember", map[string]any{"category": "preferences", "kind": "preference", "summary": "Answer briefly", "body": "Short answers."}},
		{"recall", map[string]any{"query": "briefly"}},
		{"inspect", nil},
		{"idle", map[string]any{"serverUrl": "http://127.0.0.1:1"}},
	} {
		if r := c.call(call.method, with(call.params)); r.Error != nil {
			t.Errorf("%s: %+v", call.method, r.Error)
		}
	}
	if _, err := os.Stat(filepath.Join(global, "preferences", "answer-briefly.md")); err != nil {
		t.Errorf("the write from the home folder is not in the global root: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, ".memory")); err == nil {
		t.Errorf("a request for the home folder made %s", filepath.Join(home, ".memory"))
	}
	select {
	case req := <-reqs:
		if req.Owns == nil || !req.Owns(home) || req.Owns(repo) || req.Owns(filepath.Join(repo, "cmd")) {
			t.Errorf("the home folder's idle: owns a session of home %v, of %s %v", req.Owns != nil && req.Owns(home), repo, req.Owns != nil && req.Owns(repo))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no extraction for the idle")
	}
}
