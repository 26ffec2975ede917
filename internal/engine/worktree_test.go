package engine

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/store"
)

// worktreeRepo: a repository and a linked worktree on another branch, both
// from the commit two memories were verified at. The main checkout then
// renames ListenPort (facts/listen-port is gone there, present in the
// worktree); the worktree's branch removes DocPort (facts/doc-port is gone
// there, present in the main checkout) and adds srv/extra.go.
func worktreeRepo(t *testing.T) (x *codeRepo, wt string) {
	x = newCodeRepo(t)
	x.write("srv/server.go", "package srv\n\nfunc ListenPort() int { return 8080 }\n")
	x.write("srv/doc.go", "package srv\n\nconst DocPort = 8080\n")
	x.commit("start")
	x.anchored("facts/listen-port", "kestrel listener port comes from ListenPort", "ListenPort returns the port.", "srv/server.go#ListenPort")
	x.anchored("facts/doc-port", "kestrel listener port is DocPort", "DocPort holds the port.", "srv/doc.go#DocPort")
	wt = filepath.Join(t.TempDir(), "wt")
	x.git("worktree", "add", "-q", "-b", "other", wt)
	x.write("srv/server.go", "package srv\n\nfunc Port() int { return 8080 }\n")
	x.commit("rename ListenPort to Port")
	w := *x
	w.dir = wt
	w.write("srv/doc.go", "package srv\n")
	w.write("srv/extra.go", "package srv\n\nfunc Extra() {}\n")
	w.commit("drop DocPort")
	return x, wt
}

// TestStaleWorktrees: one engine serves the main checkout and a linked
// worktree on another branch; each call sees the states of the worktree
// it names: the stale line and rank of the bodies and recall, the
// outline's marks, inspect's warnings, and the anchors a write names and
// checks. Each worktree's states are still worked out once, not per turn.
func TestStaleWorktrees(t *testing.T) {
	x, wt := worktreeRepo(t)
	e := x.engine()
	for _, c := range []struct {
		name, dir, gone, fresh string
	}{
		{"main checkout", "", "facts/listen-port", "facts/doc-port"},
		{"linked worktree", wt, "facts/doc-port", "facts/listen-port"},
		{"main checkout again", "", "facts/listen-port", "facts/doc-port"},
		{"main checkout named", x.dir, "facts/listen-port", "facts/doc-port"},
	} {
		inj, err := e.Inject("kestrel listener port", InjectOptions{CodeDir: c.dir})
		if err != nil {
			t.Fatal(err)
		}
		states := map[string]*Staleness{}
		for _, h := range inj.Hits {
			states[h.ID] = h.Stale
		}
		if len(inj.Hits) != 2 || inj.Hits[1].ID != c.gone || !states[c.gone].Gone() || states[c.fresh] != nil {
			t.Errorf("%s: hits %v, states %v; want %s gone and last, %s fresh", c.name, inj.Hits, states, c.gone, c.fresh)
		}
		if !strings.Contains(memoryFrame(inj.Bodies, c.gone), "[ocmem: the code this memory is about is gone") ||
			strings.Contains(memoryFrame(inj.Bodies, c.fresh), "[ocmem:") {
			t.Errorf("%s: bodies\n%s\nwant the stale line on %s alone", c.name, inj.Bodies, c.gone)
		}
		if !strings.Contains(inj.Outline, "- project:"+c.gone+goneMark+" — ") || strings.Count(inj.Outline, goneMark) != 1 {
			t.Errorf("%s: outline marks\n%s\nwant %s alone", c.name, inj.Outline, c.gone)
		}
		hits, err := e.Recall("kestrel listener port", RecallOptions{CodeDir: c.dir, Limit: 1})
		if err != nil || len(hits) != 1 || hits[0].ID != c.fresh || hits[0].Stale != nil {
			t.Errorf("%s: recall with a limit of 1 gives %v, %v; want the fresh %s", c.name, hits, err, c.fresh)
		}
		rep, err := e.InspectIn(c.dir)
		if err != nil {
			t.Fatal(err)
		}
		var warned []string
		for _, is := range rep.Issues {
			if is.Check == "stale" {
				warned = append(warned, filepath.ToSlash(is.Path))
			}
		}
		if len(warned) != 1 || !strings.HasSuffix(warned[0], c.gone+".md") {
			t.Errorf("%s: inspect warns of %v; want %s alone", c.name, warned, c.gone)
		}
	}
	if n := e.stale.Checked(); n != 2 {
		t.Errorf("the main checkout's tracker checked %d memories; want 2, once", n)
	}
	if n := e.code(wt).t.Checked(); n != 2 {
		t.Errorf("the worktree's tracker checked %d memories; want 2, once", n)
	}

	// A write from the worktree names and checks its anchors there.
	req := RememberRequest{Scope: store.Project, Category: "facts", Kind: "fact", Summary: "extra hooks live in srv/extra.go",
		Body: "`Extra()` in `srv/extra.go` runs them.", Source: FromModel}
	w, err := e.Remember(req)
	if err != nil {
		t.Fatal(err)
	}
	named := readMemory(t, w.Path)
	if len(named.Anchors) != 0 {
		t.Errorf("written from the main checkout, which lacks srv/extra.go: anchors %q", named.Anchors)
	}
	req.Summary, req.CodeDir = "extra hooks are in srv/extra.go", wt
	if w, err = e.Remember(req); err != nil {
		t.Fatal(err)
	}
	m := readMemory(t, w.Path)
	if strings.Join(m.Anchors, ",") != "srv/extra.go#Extra" || m.Verified.Commit != (&codeRepo{t: t, dir: wt}).git("rev-parse", "HEAD") {
		t.Errorf("written from the worktree: anchors %q verified at %q; want srv/extra.go#Extra, at the worktree's HEAD", m.Anchors, m.Verified.Commit)
	}
	given := RememberRequest{Scope: store.Project, Category: "facts", Kind: "fact", Summary: "Port is the port",
		Body: "b", Source: FromModel, Anchors: []string{"srv/server.go#Port"}}
	given.CodeDir = wt
	if _, err := e.Remember(given); err == nil || !strings.Contains(err.Error(), "anchors name nothing") {
		t.Errorf("anchor absent from the worktree given from it: %v; want refused", err)
	}
	given.CodeDir = ""
	if _, err := e.Remember(given); err != nil {
		t.Errorf("anchor present in the main checkout given from it: %v", err)
	}
}

// TestWorktreesBounded: the trackers of other worktrees are kept up to
// maxWorktrees, the one used longest ago dropped first.
func TestWorktreesBounded(t *testing.T) {
	e := New(Config{ProjectDir: filepath.Join(t.TempDir(), ".memory")})
	dirs := make([]string, maxWorktrees+1)
	first := map[string]codeView{}
	for i := range dirs {
		dirs[i] = filepath.Join(t.TempDir(), "wt")
		first[dirs[i]] = e.code(dirs[i])
		e.code(dirs[0]) // used again: kept
	}
	if len(e.worktrees.views) != maxWorktrees {
		t.Fatalf("%d trackers kept; want %d", len(e.worktrees.views), maxWorktrees)
	}
	if e.code(dirs[0]).t != first[dirs[0]].t {
		t.Error("the worktree used last lost its tracker")
	}
	if e.code(dirs[1]).t == first[dirs[1]].t {
		t.Error("the worktree used longest ago kept its tracker")
	}
	if own := e.code(filepath.Dir(e.project.Dir)); own.t != e.stale || own.marks != &e.marks {
		t.Error("the engine's own worktree, named, is not the engine's own view")
	}
}

// TestStaleInWorktree: the re-check's calls (StaleIn, AnchorTextIn,
// VerifyIn, MarkOutdatedIn) list, read and move the reference point in
// the worktree named, and their "" forms in the engine's own.
func TestStaleInWorktree(t *testing.T) {
	x, wt := worktreeRepo(t)
	e := x.engine()
	mainHead, wtHead := x.git("rev-parse", "HEAD"), (&codeRepo{t: t, dir: wt}).git("rev-parse", "HEAD")
	staleIDs := func(dir string) []string {
		t.Helper()
		list, err := e.StaleIn(dir)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, m := range list {
			ids = append(ids, m.ID+" "+m.State)
		}
		return ids
	}
	for _, c := range []struct {
		name, dir, want string
	}{
		{"main checkout", "", "facts/listen-port gone"},
		{"linked worktree", wt, "facts/doc-port gone"},
	} {
		if got := staleIDs(c.dir); strings.Join(got, ",") != c.want {
			t.Errorf("%s: stale %v; want %s", c.name, got, c.want)
		}
	}
	if text, err := e.AnchorTextIn(wt, store.Project, "facts/listen-port"); err != nil || !strings.Contains(text, "func ListenPort()") {
		t.Errorf("anchor text in the worktree: %q, %v; want its ListenPort", text, err)
	}
	if text, err := e.AnchorText(store.Project, "facts/listen-port"); err != nil || !strings.Contains(text, "func Port()") {
		t.Errorf("anchor text in the main checkout: %q, %v; want its Port", text, err)
	}

	if _, err := e.Verify(store.Project, "facts/listen-port", nil); err == nil || !strings.Contains(err.Error(), "anchors name nothing") {
		t.Errorf("verify in the main checkout, where ListenPort is gone: %v; want refused", err)
	}
	if _, err := e.VerifyIn(wt, store.Project, "facts/listen-port", nil); err != nil {
		t.Fatalf("verify in the worktree: %v", err)
	}
	if v := readMemory(t, filepath.Join(x.memoryDir(), "facts", "listen-port.md")).Verified; v.Commit != wtHead {
		t.Errorf("verified in the worktree at %q; want its HEAD %s", v.Commit, wtHead)
	}
	if _, err := e.MarkOutdatedIn(wt, store.Project, "facts/doc-port", "DocPort was dropped"); err != nil {
		t.Fatal(err)
	}
	if o := readMemory(t, filepath.Join(x.memoryDir(), "facts", "doc-port.md")).Outdated; o.Commit != wtHead || o.Commit == mainHead {
		t.Errorf("marked outdated at %q; want the worktree's HEAD %s", o.Commit, wtHead)
	}
}
