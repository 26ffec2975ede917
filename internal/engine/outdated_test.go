package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/memory"
)

// TestOutdated: a memory marked outdated (a model found it no longer
// true) is written with HEAD, the time and the reason masked; it is out of
// injection (no body, no outline line) from the files and from the load
// cache, last in recall with its reason, listed first by Stale and warned
// of by Inspect; verifying it clears the mark and gives it back.
func TestOutdated(t *testing.T) {
	x := stalePortRepo(t)
	head := x.git("rev-parse", "HEAD")
	token := fakeGitHubToken(3)
	docPath := filepath.Join(x.memoryDir(), "facts", "port-doc.md")
	e := x.engine()
	if _, err := e.Compile(); err != nil { // the memories were written by hand
		t.Fatal(err)
	}
	before := readString(t, docPath)
	if _, err := e.MarkOutdated("", "facts/port-doc", "the port\nmoved to Port; old key "+token); err != nil {
		t.Fatal(err)
	}
	o := readMemory(t, docPath).Outdated
	if o.Commit != head || o.Time != testNow.UnixMilli() || !strings.HasPrefix(o.Reason, "the port moved to Port; old key ") || strings.Contains(o.Reason, token) {
		t.Errorf("outdated %+v; want HEAD %s at %d, the reason on one line, masked", o, head, testNow.UnixMilli())
	}
	if b, a := before, withoutOutdated(readString(t, docPath)); a != b {
		t.Errorf("MarkOutdated changed more than outdated:\n%s\n---\n%s", b, a)
	}

	for _, name := range []string{"the writer", "load cache"} {
		e := e
		if name == "load cache" {
			e = x.engine()
			if _, err := e.Load(); err != nil {
				t.Fatal(err)
			}
			if !fromCache(e) {
				t.Fatalf("%s: not loaded from the cache", name)
			}
		}
		inj, err := e.Inject("kestrel listener port", InjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if doc := memoryFrame(inj.Bodies, "facts/port-doc"); doc != "" {
			t.Errorf("%s: the outdated memory was given:\n%s", name, doc)
		}
		if memoryFrame(inj.Bodies, "facts/port-plain") == "" {
			t.Errorf("%s: the fresh memory was not given:\n%s", name, inj.Bodies)
		}
		if strings.Contains(inj.Outline, "facts/port-doc") || !strings.Contains(inj.Outline, "- project:facts/port-plain — ") {
			t.Errorf("%s: outline keeps the outdated memory or lost the others:\n%s", name, inj.Outline)
		}
		hits, err := e.Recall("kestrel listener port", RecallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		for _, h := range hits {
			order = append(order, h.ID)
		}
		if len(hits) != 3 || hits[2].ID != "facts/port-doc" || !hits[2].Stale.IsOutdated() || !strings.Contains(hits[2].Stale.Why, "the port moved to Port") ||
			!strings.Contains(hits[2].Stale.Line, "no longer true") || hits[1].ID != "facts/listen-port" {
			t.Errorf("%s: recall %v, last %+v; want the outdated one last, below the gone one, with its reason", name, order, hits[len(hits)-1].Stale)
		}
	}

	list, err := e.Stale()
	if err != nil || len(list) != 2 || list[0].ID != "facts/port-doc" || list[0].State != StateOutdated ||
		!strings.Contains(list[0].Why, "judged no longer true at "+head[:12]) || list[1].ID != "facts/listen-port" {
		t.Fatalf("Stale %+v, %v; want the outdated one first, then the gone one", list, err)
	}
	rep, err := e.Inspect()
	if err != nil {
		t.Fatal(err)
	}
	var warned []string
	for _, is := range rep.Issues {
		if is.Check == "stale" && strings.HasSuffix(is.Path, "port-doc.md") {
			warned = append(warned, is.Message)
		}
	}
	if !rep.OK() || len(warned) != 1 || !strings.HasPrefix(warned[0], "outdated: judged no longer true") || strings.Contains(warned[0], token) {
		t.Errorf("Inspect: ok %v, warnings on port-doc %q", rep.OK(), warned)
	}

	if _, err := e.Verify("", "facts/port-doc", nil); err != nil {
		t.Fatal(err)
	}
	if m := readMemory(t, docPath); !m.Outdated.IsZero() || m.Verified.Commit != head {
		t.Errorf("verified: outdated %+v, verified %+v", m.Outdated, m.Verified)
	}
	inj, err := e.Inject("kestrel listener port", InjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if memoryFrame(inj.Bodies, "facts/port-doc") == "" || !strings.Contains(inj.Outline, "project:facts/port-doc") {
		t.Errorf("after verify, not given again:\n%s\n%s", inj.Bodies, inj.Outline)
	}
}

// TestMarkOutdatedRefuses: a hard rule is never marked (only people take
// a rule out of force), nor a memory without a reason, nor one that does
// not exist; a refused mark writes nothing.
func TestMarkOutdatedRefuses(t *testing.T) {
	x := stalePortRepo(t)
	writeMemory(t, x.memoryDir(), &memory.Memory{ID: "rules/port", Kind: memory.KindRule, Summary: "kestrel listener port is never hard-coded",
		Body: "Use ListenPort.", Created: testNow.UnixMilli(), Updated: testNow.UnixMilli()})
	e := x.engine()
	for _, c := range []struct{ id, reason, want string }{
		{"rules/port", "the code says otherwise", "hard rule"},
		{"facts/port-doc", " \n ", "no reason"},
	} {
		p := filepath.Join(x.memoryDir(), filepath.FromSlash(c.id)+".md")
		before := readString(t, p)
		if _, err := e.MarkOutdated("", c.id, c.reason); !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("MarkOutdated(%s) = %v; want a bad request saying %q", c.id, err, c.want)
		}
		if readString(t, p) != before {
			t.Errorf("a refused MarkOutdated(%s) changed the file", c.id)
		}
	}
	if _, err := e.MarkOutdated("", "facts/none", "gone"); !errors.Is(err, ErrNotFound) {
		t.Errorf("MarkOutdated of no memory: %v", err)
	}
}

// withoutOutdated is a memory file without its outdated block.
func withoutOutdated(file string) string {
	var keep []string
	in := false
	for _, l := range strings.Split(file, "\n") {
		switch {
		case strings.HasPrefix(l, "outdated:"):
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

// TestOutdatedSuperseded: a memory marked outdated is superseded as any
// other; the new memory is given, the old one is no longer listed.
func TestOutdatedSuperseded(t *testing.T) {
	x := stalePortRepo(t)
	e := x.engine()
	if _, err := e.MarkOutdated("", "facts/port-plain", "dev uses 3000"); err != nil {
		t.Fatal(err)
	}
	w, err := e.Remember(RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "kestrel listener port is 3000 in dev",
		Body: "The server port is 3000 in development.", LoadWhen: []string{"kestrel listener"}, Supersedes: "facts/port-plain", Source: FromPerson})
	if err != nil {
		t.Fatal(err)
	}
	if old := readMemory(t, filepath.Join(x.memoryDir(), "facts", "port-plain.md")); old.SupersededBy != w.ID || old.Outdated.IsZero() {
		t.Errorf("the old one: superseded_by %q, outdated %+v; want superseded by %s, its mark kept", old.SupersededBy, old.Outdated, w.ID)
	}
	list, err := e.Stale()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range list {
		if m.ID == "facts/port-plain" {
			t.Errorf("the superseded one is still listed: %+v", m)
		}
	}
	inj, err := e.Inject("which kestrel listener port is 3000 in development", InjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if memoryFrame(inj.Bodies, w.ID) == "" {
		t.Errorf("the new memory %s was not given:\n%s\nhits %+v (%s)", w.ID, inj.Bodies, inj.Hits, inj.Quiet)
	}
}

// An outdated mark stands where there is no worktree to check anchors in
// (a root opened outside its repository): the memory is still out of the
// bodies tier, and inspect still lists it, though its code's state is
// unknown there.
func TestOutdatedWithoutWorktree(t *testing.T) {
	x := stalePortRepo(t)
	if _, err := x.engine().MarkOutdated("", "facts/port-doc", "the port moved"); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "memories") // not .memory: no worktree
	if err := os.CopyFS(dir, os.DirFS(x.memoryDir())); err != nil {
		t.Fatal(err)
	}
	e := New(Config{ProjectDir: dir, Now: func() time.Time { return testNow }})
	inj, err := e.Inject("kestrel listener port", InjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if doc := memoryFrame(inj.Bodies, "facts/port-doc"); doc != "" {
		t.Errorf("the outdated memory was given:\n%s", doc)
	}
	rep, err := e.Inspect()
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, is := range rep.Issues {
		if is.Check == "stale" && strings.HasPrefix(is.Message, "outdated:") && strings.HasSuffix(is.Path, "port-doc.md") {
			found = true
		}
	}
	if !found {
		t.Errorf("inspect does not list the outdated memory without a worktree: %v", rep.Issues)
	}
}
