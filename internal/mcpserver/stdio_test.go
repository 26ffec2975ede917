package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocmem/ocmem/internal/engine"
)

// The tests in this file run the real ocmem binary, built once per test
// process, as an MCP client would: a child process on stdin and stdout.

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// ocmemBinary builds ./cmd/ocmem into a temporary folder on first use.
func ocmemBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "ocmem-mcp-test-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "ocmem")
		if runtime.GOOS == "windows" {
			binPath += ".exe"
		}
		cmd := exec.Command("go", "build", "-o", binPath, "github.com/ocmem/ocmem/cmd/ocmem")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build ./cmd/ocmem: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// childEnv is the test process's environment without anything that would
// choose roots or a log for the child, plus the given variables.
func childEnv(t *testing.T, vars ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "OCMEM_") || strings.HasPrefix(k, "OPENCODE_") || strings.HasPrefix(k, "XDG_") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "OCMEM_LOG="+filepath.Join(t.TempDir(), "ocmem.log"))
	return append(env, vars...)
}

// connectBinary starts `ocmem mcp args…` in dir and returns a client session.
// Every call waits for its reply before the next, and the session is closed
// (stdin closed, the process awaited) only at cleanup, after the replies:
// closing stdin first loses replies in the SDK (go-sdk issue #1061).
func connectBinary(t *testing.T, dir string, env []string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(ocmemBinary(t), append([]string{"mcp"}, args...)...)
	cmd.Dir = dir
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	client := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to ocmem mcp: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("ocmem mcp did not exit cleanly when its input closed: %v\nstderr:\n%s", err, stderr.String())
		}
		if !cmd.ProcessState.Success() {
			t.Errorf("ocmem mcp exited with %v\nstderr:\n%s", cmd.ProcessState, stderr.String())
		}
	})
	return cs
}

func TestBinaryRecallOverStdio(t *testing.T) {
	r := newRoots(t)
	seed(t, r.engine(), engine.RememberRequest{
		Category: "pitfalls", Kind: "pitfall",
		Summary:  "SQLite FTS5 cannot find CJK words",
		LoadWhen: []string{"SQLite", "分词"},
		Body:     "unicode61 indexes 部署脚本用 as one token; ocmem tokenizes CJK into bigrams.",
	})
	cs := connectBinary(t, t.TempDir(), childEnv(t), "--global", r.global, "--project", r.project)
	if got := cs.InitializeResult().ServerInfo.Name; got != "ocmem" {
		t.Errorf("server name %q", got)
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if want := []string{"forget", "inspect", "recall", "remember"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	txt := mustCall(t, cs, "recall", map[string]any{"query": "SQLite 分词"})
	for _, want := range []string{"project:pitfalls/sqlite-fts5-cannot-find-cjk (pitfall)", "ocmem tokenizes CJK into bigrams", "why: matched"} {
		if !strings.Contains(txt, want) {
			t.Errorf("recall over stdio lacks %q:\n%s", want, txt)
		}
	}
}

// With no --project, the project root is the .memory folder of the main
// checkout around the working directory, even from a linked worktree; the
// global root follows OpenCode's config folder.
func TestBinaryDefaultRoots(t *testing.T) {
	base := t.TempDir()
	if r, err := filepath.EvalSymlinks(base); err == nil {
		base = r
	}
	repo := filepath.Join(base, "repo")
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(childEnv(t), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+base)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(filepath.Join(repo, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	git(repo, "init", "-q")
	if err := os.WriteFile(filepath.Join(repo, "README.md"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(repo, "add", "-A")
	git(repo, "commit", "-q", "-m", "init")
	wt := filepath.Join(base, "wt")
	git(repo, "worktree", "add", "-q", "-b", "feature", wt)
	sub := filepath.Join(wt, "src")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(base, "config")
	env := childEnv(t, "XDG_CONFIG_HOME="+config, "HOME="+base)
	// A model writes the global root only from a project the person
	// trusts (TestUntrustedProjectCannotWriteGlobal).
	trust := exec.Command(ocmemBinary(t), "trust")
	trust.Dir, trust.Env = sub, env
	if out, err := trust.CombinedOutput(); err != nil {
		t.Fatalf("ocmem trust: %v\n%s", err, out)
	}
	cs := connectBinary(t, sub, env)
	mustCall(t, cs, "remember", map[string]any{
		"category": "decisions", "kind": "decision", "summary": "Worktrees share one memory", "body": "The main checkout's .memory.",
	})
	mustCall(t, cs, "remember", map[string]any{
		"category": "preferences", "kind": "preference", "scope": "global", "summary": "Short commit subjects", "body": "Under 60 characters.",
	})
	for _, p := range []string{
		filepath.Join(repo, ".memory", "decisions", "worktrees-share-one-memory.md"),
		filepath.Join(config, "opencode", "memory", "preferences", "short-commit-subjects.md"),
	} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("memory not where the default roots put it: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(wt, ".memory")); !os.IsNotExist(err) {
		t.Errorf("a .memory folder appeared in the linked worktree (%v); want the main checkout's", err)
	}
}

// A client that writes its requests and closes stdin at once still gets
// every reply (ServeStdio's drain). Without the drain the SDK drops the
// replies not yet written when it reads end of input, most of the time; a
// few rounds make a pass by luck unlikely.
func TestBinaryOneShotPipe(t *testing.T) {
	r := newRoots(t)
	seed(t, r.engine(), engine.RememberRequest{
		Category: "facts", Kind: "fact", Summary: "The staging cluster is called kestrel", Body: "kestrel.internal",
	})
	requests := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recall","arguments":{"query":"kestrel staging"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"inspect","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"context","arguments":{"message":"kestrel"}}}`,
	}, "\n") + "\n"
	env := childEnv(t, "OCMEM_GLOBAL="+r.global, "OCMEM_PROJECT="+r.project)
	for round := range 5 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, ocmemBinary(t), "mcp")
		cmd.Env = env
		cmd.Stdin = strings.NewReader(requests)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		cancel()
		if err != nil {
			t.Fatalf("round %d: ocmem mcp: %v\nstderr:\n%s", round, err, stderr.String())
		}
		replies := map[int]string{}
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var msg struct {
				ID     int             `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
				t.Fatalf("round %d: reply %q: %v", round, sc.Text(), err)
			}
			replies[msg.ID] = string(msg.Result)
		}
		for id, want := range map[int]string{1: `"serverInfo"`, 2: "facts/staging-cluster-called-kestrel", 3: "Consistency: OK", 4: "kestrel.internal"} {
			if !strings.Contains(replies[id], want) {
				t.Fatalf("round %d: reply %d lacks %q; got replies to %v", round, id, want, slices.Sorted(maps.Keys(replies)))
			}
		}
	}
}
