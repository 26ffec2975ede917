package anchor_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/anchor"
)

// Where the verified commit is not in this repository (a shallow clone, a
// rewritten history), digests decide; without a digest the memory stays
// fresh, never stale for want of a commit.
func TestCheckCommitUnknownFallsBackToDigests(t *testing.T) {
	r := newRepo(t)
	r.write("a.go", "package a\n\nfunc Keep() {}\n")
	r.write("b.go", "package a\n\nfunc Drop() {}\n")
	r.write("c.go", "package a\n")
	r.write("d.go", "package a\n")
	r.commit("one")
	ctx := context.Background()
	ref, err := anchor.Reference(ctx, r.dir, []string{"a.go#Keep", "b.go#Drop", "c.go", "d.go", "missing.go"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ref.Commit) < 40 || len(ref.Digests) != 4 || ref.Digests["a.go"] != anchor.Digest([]byte("package a\n\nfunc Keep() {}\n")) {
		t.Fatalf("Reference = %+v", ref)
	}
	r.edit("b.go", "Drop", "Dropped")
	r.edit("c.go", "package a", "package a // edited")
	r.commit("two")

	unknown := anchor.Ref{Commit: "0123456789abcdef0123456789abcdef01234567", Digests: ref.Digests}
	noDigest := anchor.Ref{Commit: unknown.Commit}
	tests := []struct {
		name    string
		anchors []string
		ref     anchor.Ref
		want    anchor.State
		why     string
	}{
		{"same digest", []string{"a.go#Keep", "d.go"}, unknown, anchor.Fresh, ""},
		{"digest differs", []string{"c.go"}, unknown, anchor.Changed, "c.go changed: its content differs from the digest recorded when verified"},
		{"symbol gone", []string{"b.go#Drop"}, unknown, anchor.Gone, "Drop no longer appears in b.go"},
		{"file missing", []string{"missing.go"}, unknown, anchor.Gone, "missing.go is not in the worktree"},
		{"no digest: not stale", []string{"c.go"}, noDigest, anchor.Fresh,
			"not checked: the verified commit is not in this repository and no digest was recorded"},
		{"never verified", []string{"c.go"}, anchor.Ref{}, anchor.Fresh, "not checked: never verified"},
		{"not a commit id", []string{"c.go"}, anchor.Ref{Commit: "HEAD~1", Digests: ref.Digests}, anchor.Changed,
			"c.go changed: its content differs from the digest recorded when verified"},
		{"a line break in the commit", []string{"c.go"}, anchor.Ref{Commit: "abcd\nHEAD", Digests: ref.Digests}, anchor.Changed,
			"c.go changed: its content differs from the digest recorded when verified"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := anchor.Check(ctx, r.dir, []anchor.Anchored{{ID: "m", Anchors: tt.anchors, Verified: tt.ref}})
			if err != nil {
				t.Fatal(err)
			}
			var why string
			for _, e := range res[0].Evidence {
				why = e.Why
				if !e.ByDigest {
					t.Errorf("evidence not by digest: %+v", e)
				}
			}
			if res[0].State != tt.want || why != tt.why {
				t.Errorf("Check = %s %q, want %s %q", res[0].State, why, tt.want, tt.why)
			}
		})
	}
}

// A folder outside git is checked by digest: a file, a folder and a glob.
func TestCheckOutsideGit(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("notes/a.md", "a\n")
	write("notes/b.md", "b\n")
	write("src/x.go", "package x\n")
	ctx := context.Background()
	anchors := []string{"notes", "src/*.go", "src/x.go"}
	ref, err := anchor.Reference(ctx, dir, anchors)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Commit != "" || len(ref.Digests) != 3 {
		t.Fatalf("Reference outside git = %+v", ref)
	}
	check := func(a string) anchor.State {
		t.Helper()
		res, err := anchor.Check(ctx, dir, []anchor.Anchored{{ID: "m", Anchors: []string{a}, Verified: ref}})
		if err != nil {
			t.Fatal(err)
		}
		return res[0].State
	}
	for _, a := range anchors {
		if s := check(a); s != anchor.Fresh {
			t.Errorf("%s unchanged: %s", a, s)
		}
	}
	// The same content with other line ends (a clone with core.autocrlf)
	// is no change.
	write("src/x.go", "package x\r\n")
	write("notes/a.md", "a\r\n")
	for _, a := range anchors {
		if s := check(a); s != anchor.Fresh {
			t.Errorf("%s with CRLF line ends: %s, want fresh", a, s)
		}
	}
	write("notes/c.md", "c\n")
	if s := check("notes"); s != anchor.Changed {
		t.Errorf("a file added to a folder: %s, want changed", s)
	}
	if s := check("src/x.go"); s != anchor.Fresh {
		t.Errorf("src/x.go untouched: %s", s)
	}
	if err := os.Remove(filepath.Join(dir, "src", "x.go")); err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"src/x.go", "src/*.go"} {
		if s := check(a); s != anchor.Gone {
			t.Errorf("%s after its file was removed: %s, want gone", a, s)
		}
	}
}

// A project root below the repository's top: anchors are relative to the
// project, and so are the paths the evidence names; the commits that
// changed an anchor are counted there too.
func TestCheckProjectInSubfolder(t *testing.T) {
	r := newRepo(t)
	r.write("proj/src/a.go", "package a\n\nfunc A() {}\n")
	r.write("proj/src/c.go", "package a\n")
	r.write("proj/lib/b.go", "package b\n")
	r.write("src/a.go", "package outside\n")
	base := r.commit("one")
	r.mkdir("proj/pkg")
	r.git("mv", "proj/lib", "proj/pkg/lib")
	r.edit("src/a.go", "outside", "outside2") // same name outside the project: not an anchor's
	r.commit("move lib")
	r.edit("proj/src/c.go", "package a", "package a // edited")
	r.commit("edit c")

	res, err := anchor.Check(context.Background(), filepath.Join(r.dir, "proj"), []anchor.Anchored{
		{ID: "file", Anchors: []string{"src/a.go#A"}, Verified: anchor.Ref{Commit: base}},
		{ID: "folder", Anchors: []string{"lib"}, Verified: anchor.Ref{Commit: base}},
		{ID: "changed", Anchors: []string{"src/c.go"}, Verified: anchor.Ref{Commit: base}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].State != anchor.Fresh {
		t.Errorf("src/a.go, changed only outside the project: %s %+v", res[0].State, res[0].Evidence)
	}
	if e := evidence(res[1]); res[1].State != anchor.Gone || e.RenamedTo != "pkg/lib" || e.Why != "lib was renamed to pkg/lib" ||
		e.Commits != 1 || e.Subject != "move lib" {
		t.Errorf("a renamed folder: %s %+v", res[1].State, e)
	}
	if e := evidence(res[2]); res[2].State != anchor.Changed || e.Commits != 1 ||
		e.Why != `src/c.go changed in 1 commit, last "edit c" on 2026-01-04` {
		t.Errorf("a changed file: %s %+v", res[2].State, e)
	}
}

// An anchor that cannot be checked is said so, and does not flag the memory.
func TestCheckBadAnchor(t *testing.T) {
	r := newRepo(t)
	r.write("a.go", "package a\n")
	base := r.commit("one")
	res, err := anchor.Check(context.Background(), r.dir, []anchor.Anchored{
		{ID: "m", Anchors: []string{"../x.go", "/etc/passwd"}, Verified: anchor.Ref{Commit: base}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].State != anchor.Fresh || len(res[0].Evidence) != 2 || res[0].Evidence[0].Why != `not checked: anchor "../x.go": path leaves the project root` {
		t.Errorf("Check = %+v", res[0])
	}
}

// The worktree's changes follow the committed ones: a file changed in a
// commit and then deleted or moved in the worktree is gone, a file renamed
// in a commit and edited since stays gone with its new path, and a file
// only moved in the worktree (staged) is gone with its new path.
func TestCheckCommittedThenWorktree(t *testing.T) {
	r := newRepo(t)
	for _, f := range []string{"a.go", "b.go", "c.go", "d.go", "e.go"} {
		r.write(f, "package x // "+f+"\n")
	}
	base := r.commit("one")
	r.edit("a.go", "package x", "package x // edited")
	r.edit("b.go", "package x", "package x // edited")
	r.git("mv", "c.go", "c2.go")
	r.commit("two")
	r.git("rm", "-q", "a.go")                 // changed, then deleted
	r.mkdir("sub")                            //
	r.git("mv", "b.go", "sub/b.go")           // changed, then moved
	r.edit("c2.go", "package x", "package y") // moved, then edited
	r.git("mv", "d.go", "d2.go")              // moved in the worktree only
	r.edit("e.go", "package x", "package z")  // edited in the worktree only

	tests := []struct {
		anchor    string
		want      anchor.State
		renamedTo string
	}{
		{"a.go", anchor.Gone, ""},
		{"b.go", anchor.Gone, "sub/b.go"},
		{"c.go", anchor.Gone, "c2.go"},
		{"d.go", anchor.Gone, "d2.go"},
		{"e.go", anchor.Changed, ""},
		{"[ab].go", anchor.Gone, ""},
	}
	var mems []anchor.Anchored
	for _, tt := range tests {
		mems = append(mems, anchor.Anchored{ID: tt.anchor, Anchors: []string{tt.anchor}, Verified: anchor.Ref{Commit: base}})
	}
	res, err := anchor.Check(context.Background(), r.dir, mems)
	if err != nil {
		t.Fatal(err)
	}
	for i, tt := range tests {
		e := evidence(res[i])
		if res[i].State != tt.want || e.RenamedTo != tt.renamedTo || !e.Uncommitted {
			t.Errorf("%s: %s %+v; want %s, renamed to %q, uncommitted", tt.anchor, res[i].State, e, tt.want, tt.renamedTo)
		}
	}
	if e := evidence(res[len(res)-1]); e.Why != "nothing matches [ab].go any more" {
		t.Errorf("a glob that matches nothing now: %q", e.Why)
	}
}

// An abbreviated commit id is as good as a full one, and memories verified
// at several commits are each decided from their own.
func TestCheckAbbreviatedAndSeveralCommits(t *testing.T) {
	r := newRepo(t)
	r.write("a.go", "package a\n")
	one := r.commit("one")
	r.edit("a.go", "package a", "package a // two")
	two := r.commit("two")
	r.write("b.go", "package b\n")
	r.commit("three: b only")
	res, err := anchor.Check(context.Background(), r.dir, []anchor.Anchored{
		{ID: "short", Anchors: []string{"a.go"}, Verified: anchor.Ref{Commit: one[:8]}},
		{ID: "later", Anchors: []string{"a.go"}, Verified: anchor.Ref{Commit: two}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if e := evidence(res[0]); res[0].State != anchor.Changed || e.ByDigest || e.Commits != 1 || e.Subject != "two" {
		t.Errorf("verified at an abbreviated id: %s %+v", res[0].State, e)
	}
	if res[1].State != anchor.Fresh {
		t.Errorf("verified after the change: %s %+v", res[1].State, res[1].Evidence)
	}
}

// Past MaxPerMemory a memory's anchors are not checked, and it says so.
func TestCheckTooManyAnchors(t *testing.T) {
	r := newRepo(t)
	r.write("a.go", "package a\n")
	base := r.commit("one")
	if err := os.Remove(filepath.Join(r.dir, "a.go")); err != nil {
		t.Fatal(err)
	}
	anchors := make([]string, anchor.MaxPerMemory)
	for i := range anchors {
		anchors[i] = "other.go"
	}
	res, err := anchor.Check(context.Background(), r.dir, []anchor.Anchored{
		{ID: "m", Anchors: append(anchors, "a.go"), Verified: anchor.Ref{Commit: base}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].State != anchor.Fresh || len(res[0].Evidence) != 1 || res[0].Evidence[0].Why != "not checked: anchors past the first 100 (1 more)" {
		t.Errorf("Check = %+v", res[0])
	}
}

// A file moved and then rewritten: across the whole range its old and new
// contents are too far apart for git to pair them, but the commit that
// removed the old path renamed it, and the evidence names where it went.
// A move whose new file is gone again names nothing rather than a path
// that is not there; an outright deletion names nothing.
func TestCheckMovedThenRewritten(t *testing.T) {
	r := newRepo(t)
	lines := func(word string) string {
		var b strings.Builder
		b.WriteString("package x\n\n")
		for i := range 30 {
			fmt.Fprintf(&b, "func %s%d() {}\n", word, i)
		}
		return b.String()
	}
	r.write("src/algo.go", lines("Match")+"\nfunc Keep() {}\n")
	r.write("src/util.go", lines("Util"))
	r.write("src/temp.go", lines("Temp"))
	r.write("src/dead.go", lines("Dead"))
	r.write("sub/lib/x.go", lines("Lib"))
	base := r.commit("flat layout")
	r.mkdir("src/algo")
	r.mkdir("src/util")
	r.git("mv", "src/algo.go", "src/algo/algo.go")
	r.git("mv", "src/util.go", "src/util/util.go")
	r.git("mv", "src/temp.go", "src/util/temp.go")
	r.git("rm", "-q", "src/dead.go")
	r.git("mv", "sub/lib/x.go", "sub/lib/y.go")
	r.commit("reorganize source code")
	r.write("src/algo/algo.go", lines("Score")+"\nfunc Keep() {}\n")
	r.write("src/util/util.go", lines("Helper"))
	r.write("sub/lib/y.go", lines("Other"))
	r.git("rm", "-q", "src/util/temp.go")
	r.commit("rewrite")

	tests := []struct {
		root, anchor string
		renamedTo    string
	}{
		{".", "src/algo.go", "src/algo/algo.go"},
		{".", "src/algo.go#Keep", "src/algo/algo.go"},
		{".", "src/util.go", "src/util/util.go"},
		{".", "src/temp.go", ""},
		{".", "src/dead.go", ""},
		{"sub", "lib/x.go", "lib/y.go"},
	}
	for _, tt := range tests {
		res, err := anchor.Check(context.Background(), filepath.Join(r.dir, tt.root),
			[]anchor.Anchored{{ID: "m", Anchors: []string{tt.anchor}, Verified: anchor.Ref{Commit: base}}})
		if err != nil {
			t.Fatal(err)
		}
		e := evidence(res[0])
		if res[0].State != anchor.Gone || e.RenamedTo != tt.renamedTo {
			t.Errorf("%s in %s: %s %+v; want gone, renamed to %q", tt.anchor, tt.root, res[0].State, e, tt.renamedTo)
		}
	}
}

// A move made on one line of history and merged into another: git log's
// default simplification follows only the parent the merge left the path
// unchanged against, and would hide the commits that touched it; the
// check sees every line.
func TestCheckMovedOnMergedLine(t *testing.T) {
	r := newRepo(t)
	r.write("README", "readme\n")
	root := r.commit("root")
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, "func F%d() {}\n", i)
	}
	r.write("a.go", "package a\n\n"+b.String())
	base := r.commit("add a.go")
	r.git("mv", "a.go", "b.go")
	r.commit("move a.go to b.go")
	r.write("b.go", "package a\n\n"+strings.ReplaceAll(b.String(), "F", "G"))
	tip := r.commit("rewrite b.go")
	r.git("checkout", "-q", "-b", "side", root)
	r.write("side.txt", "side\n")
	r.commit("side work")
	r.git("merge", "-q", "--no-edit", tip)

	res, err := anchor.Check(context.Background(), r.dir, []anchor.Anchored{{ID: "m", Anchors: []string{"a.go"}, Verified: anchor.Ref{Commit: base}}})
	if err != nil {
		t.Fatal(err)
	}
	if e := evidence(res[0]); res[0].State != anchor.Gone || e.RenamedTo != "b.go" || e.Commits != 1 || e.Subject != "move a.go to b.go" {
		t.Errorf("a.go: %s %+v; want gone, renamed to b.go in 1 commit", res[0].State, e)
	}
}

func TestDigestReadsLineEndsAsNewlines(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b string
		same bool
	}{
		{"CRLF and LF", "package a\r\n\r\nfunc Keep() {}\r\n", "package a\n\nfunc Keep() {}\n", true},
		{"mixed", "a\r\nb\n", "a\nb\n", true},
		{"a lone CR is content", "a\rb\n", "a\nb\n", false},
		{"a changed line", "a\r\nb\r\n", "a\nc\n", false},
	} {
		if got := anchor.Digest([]byte(c.a)) == anchor.Digest([]byte(c.b)); got != c.same {
			t.Errorf("%s: Digest(%q) == Digest(%q) is %v, want %v", c.name, c.a, c.b, got, c.same)
		}
	}
}
