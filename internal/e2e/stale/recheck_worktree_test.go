package stale

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// The idle re-check of a session in a linked worktree on another branch
// runs against that worktree's code. The worktree's branch changed
// srv/start.go; the main checkout changed srv/port.go. A session in the
// worktree given both memories has the start memory re-checked, with the
// worktree's text, and verified at the worktree's HEAD; the port memory,
// fresh there, is not asked about and not marked. On OpenCode 1.x and 2.
func TestWorktreeRecheck(t *testing.T) {
	worktreeRecheck(t, e2e.EnvOptions{}, func(e *e2e.ExtractEnv, srv *e2e.OpenCodeServe, msg string) string {
		return e.Conversation(srv, "", msg)
	})
}

func TestV2WorktreeRecheck(t *testing.T) {
	worktreeRecheck(t, e2e.EnvOptions{V2: true}, func(e *e2e.ExtractEnv, srv *e2e.OpenCodeServe, msg string) string {
		e.MustRun("run", "--server", srv.URL, msg)
		return e2e.V2Session(t, e)
	})
}

// worktreeRecheck runs the scenario; turn asks msg in a new session in
// the worktree and returns its id.
func worktreeRecheck(t *testing.T, opts e2e.EnvOptions, turn func(e *e2e.ExtractEnv, srv *e2e.OpenCodeServe, msg string) string) {
	e := e2e.NewExtractEnvWith(t, opts)
	e2e.SetPluginOptions(t, e.Env, map[string]any{"minTurns": 1})
	e.WriteFile("srv/start.go", "package srv\n\n// Start warms the cache.\nfunc Start() {}\n")
	e.WriteFile("srv/port.go", "package srv\n\n// Port is where kestrel listens.\nconst Port = 7000\n")
	e.Git("add", "-A")
	e.Git("commit", "-q", "-m", "start")
	start := e.Remember("facts", "fact", "kestrel warms its cache on start", "RECHECK-BODY: `srv/start.go` warms the cache first.",
		"--load-when", "kestrel")
	port := e.Remember("facts", "fact", "kestrel listens on port 7000", "`srv/port.go` sets the port kestrel opens.",
		"--load-when", "kestrel")
	for _, m := range []e2e.Memory{start, port} {
		if got := e2e.ReadFileString(m.Path); !strings.Contains(got, "  - srv/") {
			t.Fatalf("%s is not anchored to the file its text names:\n%s", m.ID, got)
		}
	}
	wt := e.AddWorktree("feature")
	e.WriteFile("srv/port.go", "package srv\n\n// Port is where kestrel listens.\nconst Port = 7100\n")
	e.Git("commit", "-q", "-a", "-m", "port 7100")
	const worktreeCode = "// Start warms the cache, then opens the port (feature branch)."
	e.WriteFile(filepath.Join(wt, "srv", "start.go"), "package srv\n\n"+worktreeCode+"\nfunc Start() {}\n")
	e.GitIn(wt, "commit", "-q", "-a", "-m", "open the port after warming")
	head := e.GitIn(wt, "rev-parse", "HEAD")

	e.Fake.SetResponder(func(r fakellm.Request) fakellm.Reply {
		all := r.SystemText() + "\n" + r.LastUserText()
		switch {
		case strings.Contains(all, recheckMarker) && strings.Contains(all, start.ID+")"):
			return fakellm.Text(`{"verdict": "still_true"}`)
		case strings.Contains(all, recheckMarker) && strings.Contains(all, port.ID+")"):
			return fakellm.Text(`{"verdict": "no_longer_true", "reason": "the port is 7100 now"}`)
		case strings.Contains(all, e2e.ExtractionMarker):
			return fakellm.Text(`{"memories": []}`)
		}
		return fakellm.Text("ok")
	})
	e.Dir = wt
	srv := e.Serve()
	id := turn(e, srv, "what does kestrel do on start, and which port does kestrel listen on?")
	recs := e2e.WaitEnd(t, e, id, 1)
	actions := map[string]string{}
	for _, r := range e2e.WithMsg(recs, "recheck done") {
		actions[r.Str("memory")] = r.Str("action")
	}
	if want := map[string]string{"project:" + start.ID: "verified"}; fmt.Sprint(actions) != fmt.Sprint(want) {
		t.Fatalf("re-checks %v, want %v", actions, want)
	}
	var shown bool
	for _, r := range e.Fake.Requests() {
		if all := r.SystemText() + "\n" + r.LastUserText(); strings.Contains(all, recheckMarker) && strings.Contains(all, worktreeCode) {
			shown = true
		}
	}
	if !shown {
		t.Errorf("no re-check request shows the worktree's srv/start.go")
	}
	if got := e2e.ReadFileString(start.Path); !strings.Contains(got, "commit: "+head) {
		t.Errorf("the start memory is not verified at the worktree's HEAD %s:\n%s", head, got)
	}
	if got := e2e.ReadFileString(port.Path); strings.Contains(got, "outdated:") {
		t.Errorf("the port memory, fresh in the worktree, was marked:\n%s", got)
	}
	e.Dir = e.Project
	if out := e.RunOcmem("stale"); !strings.Contains(out, "changed project:"+port.ID) {
		t.Errorf("ocmem stale in the main checkout lacks the port memory, changed there:\n%s", out)
	}
}
