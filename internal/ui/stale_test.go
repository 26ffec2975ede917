package ui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/testenv"
)

// staleRepo is a git repository holding code and, in .memory, two
// memories: one anchored to a symbol a later commit renamed (gone), one
// anchored to nothing. It returns the global and project roots.
func staleRepo(t *testing.T) (global, project string) {
	global, project, rename := anchoredRepo(t)
	rename()
	return global, project
}

// anchoredRepo is staleRepo before the commit that renames the symbol,
// and that commit, which changes no memory file.
func anchoredRepo(t *testing.T) (global, project string, rename func()) {
	t.Helper()
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
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("srv/server.go", "package srv\n\nfunc ListenPort() int { return 8080 }\n")
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "start")
	global, project = filepath.Join(dir, "global"), filepath.Join(dir, ".memory")
	e := engine.New(engine.Config{GlobalDir: global, ProjectDir: project})
	for _, req := range []engine.RememberRequest{
		{Category: "facts", Kind: engine.Kind("fact"), Summary: "the port comes from ListenPort", Body: "`ListenPort()` in `srv/server.go`."},
		{Category: "facts", Kind: engine.Kind("fact"), Summary: "the port is 8080 in dev", Body: "8080."},
	} {
		req.Source = engine.FromPerson
		if _, err := e.Remember(req); err != nil {
			t.Fatal(err)
		}
	}
	return global, project, func() {
		write("srv/server.go", "package srv\n\nfunc Port() int { return 8080 }\n")
		git("commit", "-q", "-a", "-m", "rename ListenPort to Port")
	}
}

// The memory list marks a stale memory with its state and filters on it,
// once the checks are done.
func TestMemoriesStale(t *testing.T) {
	g, p := staleRepo(t)
	f := newFixtureAt(t, Config{}, nil, g, p)
	f.get("/memories") // starts the check
	f.s.waitChecks()
	_, body := f.get("/memories")
	if n := strings.Count(body, `<span class="tag stale gone"`); n != 1 {
		t.Errorf("%d gone badges, want 1:\n%s", n, body)
	}
	if strings.Contains(body, `class="tag stale changed"`) {
		t.Errorf("a changed badge where nothing changed:\n%s", body)
	}
	for _, tc := range []struct{ query, want string }{
		{"", "[project:facts/port-8080-dev project:facts/port-comes-listenport]"},
		{"stale=1", "[project:facts/port-comes-listenport]"},
		{"stale=1&kind=decision", "[]"},
	} {
		_, body := f.get("/memories?" + tc.query)
		if got := fmt.Sprint(ids(body)); got != tc.want {
			t.Errorf("%s: rows %s, want %s", tc.query, got, tc.want)
		}
	}
	if _, body := f.get("/memories?stale=1"); !strings.Contains(body, `id="stale-only" checked`) {
		t.Errorf("the stale filter is not shown on:\n%s", body)
	}
}

// A memory judged no longer true gets an "outdated" badge and is among
// the stale ones, anchored or not.
func TestMemoriesOutdated(t *testing.T) {
	g, p := staleRepo(t)
	e := engine.New(engine.Config{GlobalDir: g, ProjectDir: p})
	if _, err := e.MarkOutdated(engine.Project, "facts/port-8080-dev", "the dev port is 3000 now"); err != nil {
		t.Fatal(err)
	}
	f := newFixtureAt(t, Config{}, nil, g, p)
	f.get("/memories")
	f.s.waitChecks()
	_, body := f.get("/memories")
	if n := strings.Count(body, `<span class="tag stale outdated" title="judged no longer true`); n != 1 {
		t.Errorf("%d outdated badges, want 1:\n%s", n, body)
	}
	_, body = f.get("/memories?stale=1")
	if got := fmt.Sprint(ids(body)); got != "[project:facts/port-8080-dev project:facts/port-comes-listenport]" {
		t.Errorf("stale=1: rows %s, want both", got)
	}
}

// A commit that makes a memory stale, touching no memory file, shows its
// badge on the next look at the list: the checks run again when the
// repository moves, as when files change.
func TestMemoriesStaleAfterCommit(t *testing.T) {
	g, p, rename := anchoredRepo(t)
	f := newFixtureAt(t, Config{}, nil, g, p)
	f.get("/memories")
	f.s.waitChecks()
	if _, body := f.get("/memories"); strings.Contains(body, `class="tag stale`) {
		t.Fatalf("a stale badge before the commit:\n%s", body)
	}
	gen := f.s.generation()
	rename()
	f.get("/memories") // starts the check
	f.s.waitChecks()
	_, body := f.get("/memories")
	if n := strings.Count(body, `<span class="tag stale gone"`); n != 1 {
		t.Errorf("%d gone badges after the commit, want 1:\n%s", n, body)
	}
	if _, only := f.get("/memories?stale=1"); fmt.Sprint(ids(only)) != "[project:facts/port-comes-listenport]" {
		got := fmt.Sprint(ids(only))
		t.Errorf("stale only: rows %s", got)
	}
	if f.s.generation() != gen {
		t.Errorf("generation %d, was %d: no memory file changed", f.s.generation(), gen)
	}
}
