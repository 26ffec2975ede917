package engine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/anchor"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/testenv"
)

// codeRepo is a project in git: its code, and its memories in .memory.
type codeRepo struct {
	t    *testing.T
	dir  string
	when time.Time
}

func newCodeRepo(t *testing.T) *codeRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		testenv.Missing(t, "git is not installed")
	}
	for k, v := range map[string]string{
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.DevNull,
		"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
		"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
	} {
		t.Setenv(k, v)
	}
	x := &codeRepo{t: t, dir: t.TempDir(), when: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	x.git("init", "-q")
	return x
}

func (x *codeRepo) memoryDir() string { return filepath.Join(x.dir, ".memory") }

func (x *codeRepo) engine() *Engine {
	return New(Config{ProjectDir: x.memoryDir(), Now: func() time.Time { return testNow }})
}

func (x *codeRepo) git(args ...string) string {
	x.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = x.dir
	d := x.when.Format(time.RFC3339)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+d, "GIT_COMMITTER_DATE="+d)
	out, err := cmd.CombinedOutput()
	if err != nil {
		x.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (x *codeRepo) write(name, text string) {
	x.t.Helper()
	writeString(x.t, filepath.Join(x.dir, filepath.FromSlash(name)), text)
}

func (x *codeRepo) commit(msg string) string {
	x.t.Helper()
	x.when = x.when.Add(24 * time.Hour)
	x.git("add", "-A")
	x.git("commit", "-q", "-m", msg)
	return x.git("rev-parse", "HEAD")
}

// anchored writes a memory anchored to code, verified where the code is now.
func (x *codeRepo) anchored(id, summary, body string, anchors ...string) {
	x.t.Helper()
	ref, err := anchor.Reference(context.Background(), x.dir, anchors)
	if err != nil {
		x.t.Fatal(err)
	}
	writeMemory(x.t, x.memoryDir(), &memory.Memory{ID: id, Kind: memory.KindFact, Summary: summary, Body: body,
		LoadWhen: []string{"kestrel listener"}, Created: testNow.UnixMilli(), Updated: testNow.UnixMilli(),
		Anchors: anchors, Verified: memory.Verified{Commit: ref.Commit, Time: testNow.UnixMilli(), Digests: ref.Digests}})
}

// stalePortRepo: three memories about the server's port, one anchored to
// a symbol that a later commit renames (gone), one to a file the commit
// changes elsewhere (changed), and one anchored to nothing.
func stalePortRepo(t *testing.T) *codeRepo {
	x := newCodeRepo(t)
	x.write("srv/server.go", "package srv\n\nfunc ListenPort() int { return 8080 }\n")
	x.write("srv/doc.go", "package srv\n\n// The port is 8080.\n")
	x.commit("start")
	x.anchored("facts/listen-port", "kestrel listener port comes from ListenPort", "ListenPort returns the server port.", "srv/server.go#ListenPort")
	x.anchored("facts/port-doc", "kestrel listener port is documented in srv/doc.go", "The server port is documented in doc.go.", "srv/doc.go")
	writeMemory(t, x.memoryDir(), &memory.Memory{ID: "facts/port-plain", Kind: memory.KindFact, Summary: "kestrel listener port is 8080 in dev",
		Body: "The server port is 8080 in development.", LoadWhen: []string{"kestrel listener"}, Created: testNow.UnixMilli(), Updated: testNow.UnixMilli()})
	x.write("srv/server.go", "package srv\n\nfunc Port() int { return 8080 }\n")
	x.write("srv/doc.go", "package srv\n\n// The port is 8080; see Port.\n")
	x.commit("rename ListenPort to Port")
	return x
}

// TestStaleTurn: on a turn, a changed memory is given with one line saying
// what changed, a gone one ranks below every fresh match and is marked in
// the outline, and a fresh one is as it always was; the same from an
// engine that read its memories from the load cache.
func TestStaleTurn(t *testing.T) {
	x := stalePortRepo(t)
	for _, name := range []string{"files", "load cache"} {
		e := x.engine()
		if _, err := e.Load(); err != nil {
			t.Fatal(err)
		}
		if got := fromCache(e); got != (name == "load cache") {
			t.Fatalf("%s: loaded from the cache: %v", name, got)
		}
		inj, err := e.Inject("kestrel listener port", InjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		states := map[string]*Staleness{}
		for _, h := range inj.Hits {
			order = append(order, h.ID)
			states[h.ID] = h.Stale
		}
		if len(order) != 3 || order[2] != "facts/listen-port" {
			t.Errorf("%s: hits %v; want the gone facts/listen-port last of three", name, order)
		}
		if z := states["facts/listen-port"]; !z.Gone() || !strings.Contains(z.Why, "ListenPort no longer appears in srv/server.go") {
			t.Errorf("%s: facts/listen-port staleness %+v", name, z)
		}
		if z := states["facts/port-doc"]; z == nil || z.State != "changed" || z.Why != `srv/doc.go changed in 1 commit, last "rename ListenPort to Port" on 2026-05-03` {
			t.Fatalf("%s: facts/port-doc staleness %+v", name, z)
		}
		if z := states["facts/port-plain"]; z != nil {
			t.Errorf("%s: facts/port-plain, anchored to nothing, has staleness %+v", name, z)
		}
		doc := memoryFrame(inj.Bodies, "facts/port-doc")
		if want := "kestrel listener port is documented in srv/doc.go\n" + states["facts/port-doc"].Line + "\n"; !strings.Contains(doc, want) {
			t.Errorf("%s: the changed memory's body\n%s\nlacks, after its summary:\n%s", name, doc, want)
		}
		if plain := memoryFrame(inj.Bodies, "facts/port-plain"); plain == "" || strings.Contains(plain, "[ocmem:") {
			t.Errorf("%s: the fresh memory's body %q", name, plain)
		}
		if !strings.Contains(inj.Outline, "- project:facts/listen-port"+goneMark+" — ") ||
			strings.Count(inj.Outline, goneMark) != 1 {
			t.Errorf("%s: outline does not mark the gone memory alone:\n%s", name, inj.Outline)
		}
	}
}

// memoryFrame is the framed body of a memory in the bodies tier, or "".
func memoryFrame(bodies, id string) string {
	_, rest, ok := strings.Cut(bodies, "<memory id=\""+id+"\"")
	if !ok {
		return ""
	}
	frame, _, _ := strings.Cut(rest, "</memory>")
	return frame
}

// TestStaleGoneGivesUpItsPlace: with a limit, a gone memory that would
// have taken a place within it gives the place to the next fresh match.
func TestStaleGoneGivesUpItsPlace(t *testing.T) {
	x := stalePortRepo(t)
	e := x.engine()
	hits, err := e.Recall("ListenPort kestrel listener port", RecallOptions{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].ID == "facts/listen-port" {
		t.Fatalf("hits %v; want one, not the gone facts/listen-port", hits)
	}
	all, err := e.Recall("ListenPort kestrel listener port", RecallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 || all[2].ID != "facts/listen-port" || !all[2].Stale.Gone() {
		t.Fatalf("without a limit: %v; want the gone one last", all)
	}
}

// TestStaleNotPerTurn: the states are worked out once; turns that follow
// with nothing moved run no check against git.
func TestStaleNotPerTurn(t *testing.T) {
	x := stalePortRepo(t)
	e := x.engine()
	for range 3 {
		if _, err := e.Inject("kestrel listener port", InjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.stale.Checked(); n != 2 {
		t.Errorf("%d memories checked against git over three turns; want the two anchored ones, once", n)
	}
	x.write("srv/doc.go", "package srv\n\n// The port is 8081.\n")
	x.commit("port 8081")
	if _, err := e.Inject("kestrel listener port", InjectOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := e.stale.Checked(); n != 4 {
		t.Errorf("%d memories checked after a commit; want 4 (both again)", n)
	}
}
