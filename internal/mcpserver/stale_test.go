package mcpserver_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/testenv"
)

// A commit that makes a memory stale, touching no memory file, shows in
// the next memory_inspect and memory_recall: the states are looked at on
// each call, by the repository's fingerprint.
func TestCommitSeenWithoutMemoryChange(t *testing.T) {
	testenv.IsolatedGit(t)
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	src := filepath.Join(dir, "srv", "server.go")
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte("package srv\n\nfunc ListenPort() int { return 8080 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "start")
	e := engine.New(engine.Config{GlobalDir: filepath.Join(dir, "global"), ProjectDir: filepath.Join(dir, ".memory")})
	seed(t, e, engine.RememberRequest{Category: "facts", Kind: "fact", Summary: "The kestrel port comes from ListenPort",
		Body: "`ListenPort()` in `srv/server.go`."})
	cs := connect(t, e)
	if txt := mustCall(t, cs, "inspect", nil); strings.Contains(txt, "[stale]") {
		t.Fatalf("a stale warning before the commit:\n%s", txt)
	}
	if txt := mustCall(t, cs, "recall", map[string]any{"query": "kestrel port"}); strings.Contains(txt, "[ocmem:") {
		t.Fatalf("a stale line before the commit:\n%s", txt)
	}
	if err := os.WriteFile(src, []byte("package srv\n\nfunc Port() int { return 8080 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("commit", "-q", "-a", "-m", "rename ListenPort to Port")
	if txt := mustCall(t, cs, "inspect", nil); !strings.Contains(txt, "[stale]") || !strings.Contains(txt, "ListenPort no longer appears in srv/server.go") {
		t.Errorf("no stale warning after the commit:\n%s", txt)
	}
	if txt := mustCall(t, cs, "recall", map[string]any{"query": "kestrel port"}); !strings.Contains(txt, "[ocmem: the code this memory is about is gone") {
		t.Errorf("no stale line after the commit:\n%s", txt)
	}
}
