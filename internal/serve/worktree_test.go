package serve

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/anchor"
	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/testenv"
)

// gitIn runs git in dir, isolated from the user's and the system's config.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func writeIn(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSessionsSeeTheirWorktree: sessions in the main checkout and in a
// linked worktree on another branch share the project's engine, and each
// is shown the states of its own worktree's code: in a memory's body, the
// outline, memory_inspect, and the anchors a write checks.
func TestSessionsSeeTheirWorktree(t *testing.T) {
	testenv.IsolatedGit(t)
	d := t.TempDir()
	main, wt := filepath.Join(d, "main"), filepath.Join(d, "wt")
	if err := os.Mkdir(main, 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, main, "init", "-q")
	writeIn(t, main, "srv/server.go", "package srv\n\nfunc ListenPort() int { return 8080 }\n")
	gitIn(t, main, "add", "-A")
	gitIn(t, main, "commit", "-q", "-m", "start")
	ref, err := anchor.Reference(context.Background(), main, []string{"srv/server.go#ListenPort"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixMilli()
	m := &memory.Memory{ID: "facts/listen-port", Kind: memory.KindFact, Summary: "kestrel listener port comes from ListenPort",
		Body: "ListenPort returns the port.", LoadWhen: []string{"kestrel listener"}, Created: now, Updated: now,
		Anchors: []string{"srv/server.go#ListenPort"}, Verified: memory.Verified{Commit: ref.Commit, Time: now, Digests: ref.Digests}}
	writeIn(t, filepath.Join(main, ".memory"), "facts/listen-port.md", string(m.Format()))
	gitIn(t, main, "worktree", "add", "-q", "-b", "other", wt)
	// The main checkout renames the symbol; the worktree's branch keeps it
	// and adds a file of its own.
	writeIn(t, main, "srv/server.go", "package srv\n\nfunc Port() int { return 8080 }\n")
	gitIn(t, main, "commit", "-q", "-am", "rename ListenPort to Port")
	writeIn(t, wt, "srv/extra.go", "package srv\n\nfunc Extra() {}\n")
	gitIn(t, wt, "add", "-A")
	gitIn(t, wt, "commit", "-q", "-m", "add Extra")

	c := start(t, Config{GlobalDir: filepath.Join(d, "global")})
	const gone = "[ocmem: the code this memory is about is gone"
	// OpenCode's worktree is the project's and can name another checkout
	// of it; the directory is the session's own.
	for _, s := range []struct {
		name, worktree, dir string
		gone                bool
	}{
		{"main checkout", main, main, true},
		{"linked worktree", main, wt, false},
		{"linked worktree's folder", main, filepath.Join(wt, "srv"), false},
		{"main checkout again", wt, main, true},
	} {
		ctx := map[string]any{"sessionID": "ses_" + strings.ReplaceAll(s.name, " ", "_"), "worktree": s.worktree, "directory": s.dir}
		with := func(extra map[string]any) map[string]any {
			out := map[string]any{}
			for _, m := range []map[string]any{ctx, extra} {
				for k, v := range m {
					out[k] = v
				}
			}
			return out
		}
		sys := c.call("system", with(nil))
		if sys.Error != nil || strings.Contains(sys.Result.Text, "facts/listen-port (gone") != s.gone {
			t.Errorf("%s: system %+v, outline marks the memory gone: %v, want %v\n%s", s.name, sys.Error,
				!s.gone, s.gone, sys.Result.Text)
		}
		msg := c.call("message", with(map[string]any{"messageID": "msg_1", "text": "kestrel listener port"}))
		if msg.Error != nil || len(msg.Result.IDs) != 1 || strings.Contains(msg.Result.Text, gone) != s.gone {
			t.Errorf("%s: message %+v %v, stale line want %v:\n%s", s.name, msg.Error, msg.Result.IDs, s.gone, msg.Result.Text)
		}
		rec := c.call("recall", with(map[string]any{"query": "kestrel listener port"}))
		if rec.Error != nil || strings.Contains(rec.Result.Text, gone) != s.gone {
			t.Errorf("%s: recall %+v, stale line want %v:\n%s", s.name, rec.Error, s.gone, rec.Result.Text)
		}
		ins := c.call("inspect", with(nil))
		if ins.Error != nil || strings.Contains(ins.Result.Text, "[stale]") != s.gone {
			t.Errorf("%s: inspect %+v, stale warning want %v:\n%s", s.name, ins.Error, s.gone, ins.Result.Text)
		}
		// srv/extra.go is the worktree's alone: an anchor to it is
		// checked where the session runs.
		r := c.call("remember", with(map[string]any{"category": "facts", "kind": "fact", "summary": "Extra hooks, seen from the " + s.name,
			"body": "b", "anchors": []string{"srv/extra.go#Extra"}}))
		if refused := r.Error != nil && strings.Contains(r.Error.Message, "anchors name nothing"); refused != s.gone {
			t.Errorf("%s: remember anchored to srv/extra.go: %+v %q; want refused %v", s.name, r.Error, r.Result.Text, s.gone)
		}
	}
}

// TestIdleCarriesSessionWorktree: an idle's extraction is given the
// worktree the session runs in, found as for its turns (common.codeDir),
// so that the re-check reads and verifies that worktree's code.
func TestIdleCarriesSessionWorktree(t *testing.T) {
	testenv.IsolatedGit(t)
	d := t.TempDir()
	main, wt := filepath.Join(d, "main"), filepath.Join(d, "wt")
	if err := os.MkdirAll(filepath.Join(main, ".memory"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, main, "init", "-q")
	writeIn(t, main, "srv/server.go", "package srv\n")
	gitIn(t, main, "add", "srv")
	gitIn(t, main, "commit", "-q", "-m", "start")
	gitIn(t, main, "worktree", "add", "-q", "-b", "other", wt)
	reqs := make(chan IdleRequest, 4)
	c := start(t, Config{GlobalDir: filepath.Join(d, "global"), IdleRemainderAfter: time.Hour,
		Extract: func(_ context.Context, _ *engine.Engine, req IdleRequest) { reqs <- req }})
	real := func(p string) string {
		t.Helper()
		r, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, s := range []struct{ name, dir, want string }{
		{"linked worktree's folder", filepath.Join(wt, "srv"), real(wt)},
		{"main checkout", main, real(main)},
	} {
		c.call("idle", map[string]any{"sessionID": "ses_" + strings.ReplaceAll(s.name, " ", "_"), "serverUrl": "http://127.0.0.1:1",
			"worktree": main, "directory": s.dir})
		select {
		case r := <-reqs:
			if r.CodeDir != s.want {
				t.Errorf("%s: the extraction's worktree is %q; want %q", s.name, r.CodeDir, s.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no extraction", s.name)
		}
	}
}
