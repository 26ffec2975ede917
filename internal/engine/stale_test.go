package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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
	testenv.IsolatedGit(t)
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

// TestRememberAnchors: a write anchors a project memory to what its text
// names that exists, or to the anchors given, and records where they are
// true; anchors that name nothing or cannot be checked refuse the write,
// which then writes nothing.
func TestRememberAnchors(t *testing.T) {
	x := newCodeRepo(t)
	x.write("srv/server.go", "package srv\n\nfunc ListenPort() int { return 8080 }\n")
	x.write("srv/doc.go", "package srv\n")
	head := x.commit("start")
	global := filepath.Join(t.TempDir(), "global")
	e := New(Config{GlobalDir: global, ProjectDir: x.memoryDir(), Now: func() time.Time { return testNow }})
	tests := []struct {
		name    string
		req     RememberRequest
		want    []string // the anchors written
		wantErr string
	}{
		{"named by the text", RememberRequest{Summary: "the port comes from ListenPort", Body: "`ListenPort()` in `srv/server.go` returns it; `srv/gone.go` is not there."},
			[]string{"srv/server.go#ListenPort"}, ""},
		{"naming nothing that exists", RememberRequest{Summary: "deploys need a ticket", Body: "See `ops/deploy.sh`."}, nil, ""},
		{"given", RememberRequest{Summary: "the docs live beside the code", Body: "`srv/server.go` too.", Anchors: []string{" srv/doc.go ", "", "srv/doc.go"}},
			[]string{"srv/doc.go"}, ""},
		{"given, none", RememberRequest{Summary: "no anchors at all", Body: "`srv/server.go`", Anchors: []string{}}, nil, ""},
		{"global, named by the text", RememberRequest{Scope: "global", Summary: "a global note on servers", Body: "`srv/server.go`"}, nil, ""},
		{"global, given", RememberRequest{Scope: "global", Summary: "a global note on docs", Body: "x", Anchors: []string{"srv/doc.go"}},
			[]string{"srv/doc.go"}, ""},
		{"given, missing file", RememberRequest{Summary: "m1", Body: "x", Anchors: []string{"srv/missing.go"}}, nil, "srv/missing.go: no file or folder srv/missing.go"},
		{"given, missing symbol", RememberRequest{Summary: "m2", Body: "x", Anchors: []string{"srv/server.go#Port"}}, nil, "srv/server.go#Port: Port does not appear in srv/server.go"},
		{"given, glob matching nothing", RememberRequest{Summary: "m3", Body: "x", Anchors: []string{"srv/*.rs"}}, nil, "srv/*.rs: nothing matches it"},
		{"given, outside the root", RememberRequest{Summary: "m4", Body: "x", Anchors: []string{"../x.go"}}, nil, "path leaves the project root"},
	}
	for _, tt := range tests {
		tt.req.Category, tt.req.Kind, tt.req.Source = "facts", memory.KindFact, FromPerson
		before := tree(t, x.memoryDir())
		w, err := e.Remember(tt.req)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrBadRequest) {
				t.Errorf("%s: error %v; want a bad request saying %q", tt.name, err, tt.wantErr)
			}
			if d := treeDiff(before, tree(t, x.memoryDir())); len(d) > 0 {
				t.Errorf("%s: a refused write changed %v", tt.name, d)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		m := readMemory(t, w.Path)
		if !slices.Equal(m.Anchors, tt.want) {
			t.Errorf("%s: anchors %q, want %q", tt.name, m.Anchors, tt.want)
		}
		wantV := memory.Verified{}
		if tt.want != nil {
			wantV = memory.Verified{Commit: head, Time: testNow.UnixMilli(), Digests: m.Verified.Digests}
			if len(m.Verified.Digests) != 1 {
				t.Errorf("%s: digests %v; want one, of the anchored file", tt.name, m.Verified.Digests)
			}
		}
		if m.Verified.Commit != wantV.Commit || m.Verified.Time != wantV.Time || (tt.want == nil) != (len(m.Verified.Digests) == 0) {
			t.Errorf("%s: verified %+v; want commit %q, time %d", tt.name, m.Verified, wantV.Commit, wantV.Time)
		}
	}
}

// TestStaleListVerify: Stale and Inspect list the stale memories with
// their evidence, as warnings; Verify moves a memory's reference point to
// HEAD, changing nothing else in its file, and it is fresh again; a memory
// whose anchor names nothing now, or that has no anchors, is refused and
// its file left as it was.
func TestStaleListVerify(t *testing.T) {
	x := stalePortRepo(t)
	head := x.git("rev-parse", "HEAD")
	e := x.engine()
	list, err := e.Stale()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range list {
		got = append(got, m.State+" "+m.ID+": "+m.Why)
	}
	want := []string{
		"gone facts/listen-port: ListenPort no longer appears in srv/server.go",
		`changed facts/port-doc: srv/doc.go changed in 1 commit, last "rename ListenPort to Port" on 2026-05-03`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Stale:\n%q\nwant\n%q", got, want)
	}
	if ev := list[1].Evidence; len(ev) != 1 || ev[0].Path != "srv/doc.go" || ev[0].Commits != 1 || ev[0].Subject != "rename ListenPort to Port" {
		t.Errorf("evidence of the changed memory: %+v", ev)
	}
	if _, err := e.Compile(); err != nil { // the memories were written by hand
		t.Fatal(err)
	}
	rep, err := e.Inspect()
	if err != nil {
		t.Fatal(err)
	}
	var stale []string
	for _, is := range rep.Issues {
		if is.Check == "stale" {
			stale = append(stale, string(is.Severity)+" "+filepath.Base(is.Path))
		}
	}
	if !rep.OK() || !slices.Equal(stale, []string{"warning listen-port.md", "warning port-doc.md"}) {
		t.Errorf("Inspect: ok %v, stale issues %q (all: %v)", rep.OK(), stale, rep.Issues)
	}

	docPath := filepath.Join(x.memoryDir(), "facts", "port-doc.md")
	before := readString(t, docPath)
	if _, err := e.Verify("", "facts/port-doc", nil); err != nil {
		t.Fatal(err)
	}
	after := readMemory(t, docPath)
	if after.Verified.Commit != head || after.Verified.Time != testNow.UnixMilli() || after.Updated != testNow.UnixMilli() {
		t.Errorf("verified %+v, updated %d; want commit %s at %d, updated unchanged", after.Verified, after.Updated, head, testNow.UnixMilli())
	}
	if b, a := withoutVerified(before), withoutVerified(readString(t, docPath)); a != b {
		t.Errorf("Verify changed more than verified:\n%s\n---\n%s", b, a)
	}
	list, err = e.Stale()
	if err != nil || len(list) != 1 || list[0].ID != "facts/listen-port" {
		t.Errorf("after verify, Stale = %+v, %v; want the gone one alone", list, err)
	}
	inj, err := e.Inject("kestrel listener port", InjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if doc := memoryFrame(inj.Bodies, "facts/port-doc"); doc == "" || strings.Contains(doc, "[ocmem:") {
		t.Errorf("after verify, the body %q", doc)
	}

	for _, c := range []struct{ id, want string }{
		{"facts/listen-port", "srv/server.go#ListenPort: ListenPort does not appear in srv/server.go"},
		{"facts/port-plain", "has no anchors"},
	} {
		p := filepath.Join(x.memoryDir(), filepath.FromSlash(c.id)+".md")
		before := readString(t, p)
		if _, err := e.Verify("", c.id, nil); err == nil || !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Verify(%s) = %v; want a bad request saying %q", c.id, err, c.want)
		}
		if readString(t, p) != before {
			t.Errorf("a refused Verify(%s) changed the file", c.id)
		}
	}
	if _, err := e.Verify("", "facts/none", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("Verify of no memory: %v", err)
	}

	// The gone one, anchored anew to the code it is about now.
	portPath := filepath.Join(x.memoryDir(), "facts", "listen-port.md")
	if _, err := e.Verify("", "facts/listen-port", []string{"srv/server.go#Nope"}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("Verify with an anchor naming nothing: %v", err)
	}
	if _, err := e.Verify("", "facts/listen-port", []string{"srv/server.go#Port"}); err != nil {
		t.Fatal(err)
	}
	if m := readMemory(t, portPath); !slices.Equal(m.Anchors, []string{"srv/server.go#Port"}) || m.Verified.Commit != head {
		t.Errorf("re-anchored: anchors %q, verified %+v", m.Anchors, m.Verified)
	}
	if list, err := e.Stale(); err != nil || len(list) != 0 {
		t.Errorf("after both were verified, Stale = %+v, %v", list, err)
	}
}

// withoutVerified is a memory file without its verified block.
func withoutVerified(file string) string {
	var keep []string
	in := false
	for _, l := range strings.Split(file, "\n") {
		switch {
		case strings.HasPrefix(l, "verified:"):
			in = true
			continue
		case in && strings.HasPrefix(l, " "):
			continue
		}
		in = false
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

// TestStaleConcurrent: turns from several goroutines share the states
// (run under -race).
func TestStaleConcurrent(t *testing.T) {
	x := stalePortRepo(t)
	e := x.engine()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			if i%2 == 0 {
				inj, err := e.Inject("kestrel listener port", InjectOptions{})
				if err == nil && !strings.Contains(inj.Outline, goneMark) {
					err = errors.New("outline without the gone mark")
				}
				errs <- err
				return
			}
			hits, err := e.Recall("kestrel listener port", RecallOptions{})
			if err == nil && (len(hits) != 3 || !hits[2].Stale.Gone()) {
				err = fmt.Errorf("hits %v", hits)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// TestStaleLineMasked: a commit subject holding a secret is shown masked
// in the line the model gets and in the list a person reads.
func TestStaleLineMasked(t *testing.T) {
	x := newCodeRepo(t)
	x.write("srv/doc.go", "package srv\n")
	x.commit("start")
	x.anchored("facts/doc", "kestrel listener docs live in srv/doc.go", "See doc.go.", "srv/doc.go")
	token := fakeGitHubToken(7)
	x.write("srv/doc.go", "package srv // v2\n")
	x.commit("rotate " + token)
	e := x.engine()
	hits, err := e.Recall("kestrel listener docs", RecallOptions{})
	if err != nil || len(hits) != 1 || hits[0].Stale == nil {
		t.Fatalf("hits %+v, %v", hits, err)
	}
	list, err := e.Stale()
	if err != nil || len(list) != 1 {
		t.Fatalf("Stale %+v, %v", list, err)
	}
	for what, s := range map[string]string{"line": hits[0].Stale.Line, "why": hits[0].Stale.Why, "listed": list[0].Why, "evidence": list[0].Evidence[0].Subject} {
		if strings.Contains(s, token) || !strings.Contains(s, "rotate ") {
			t.Errorf("%s %q shows the secret or lost the subject", what, s)
		}
	}
}

// goneMark is how the outline marks a gone memory (stale.MarkOutline).
const goneMark = " (gone: the code it is about is no longer there)"
