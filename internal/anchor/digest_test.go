package anchor_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ocmem/ocmem/internal/anchor"
)

// Where git says an anchored path changed since the verified commit, a
// digest recorded then decides first: content as it was verified is no
// change, however it came back; other content is today's evidence.
func TestCheckDigestDecidesFirst(t *testing.T) {
	tests := []struct {
		name    string
		anchors []string
		digests bool // whether the reference point records digests
		then    func(r *repo)
		want    anchor.State
		why     string
	}{
		{"changed and changed back in commits", []string{"a.go"}, true, func(r *repo) {
			r.edit("a.go", "Keep()", "Keep(n int)")
			r.commit("edit")
			r.edit("a.go", "Keep(n int)", "Keep()")
			r.commit("revert")
		}, anchor.Fresh, ""},
		{"changed in a commit, changed back uncommitted", []string{"a.go"}, true, func(r *repo) {
			r.edit("a.go", "Keep()", "Keep(n int)")
			r.commit("edit")
			r.edit("a.go", "Keep(n int)", "Keep()")
		}, anchor.Fresh, ""},
		{"a symbol's file back as verified, uncommitted", []string{"a.go#Keep"}, true, func(r *repo) {
			r.edit("a.go", "Keep()", "Keep(n int)")
			r.commit("edit")
			r.edit("a.go", "Keep(n int)", "Keep()")
		}, anchor.Fresh, ""},
		{"a folder back as verified, uncommitted", []string{"dir"}, true, func(r *repo) {
			r.edit("dir/x.go", "package dir", "package dir // edited")
			r.commit("edit")
			r.edit("dir/x.go", "package dir // edited", "package dir")
		}, anchor.Fresh, ""},
		{"a glob back as verified, uncommitted", []string{"g/*.go"}, true, func(r *repo) {
			r.write("g/three.go", "package g\n")
			r.commit("add")
			r.git("rm", "-q", "g/three.go")
		}, anchor.Fresh, ""},
		{"still different", []string{"a.go"}, true, func(r *repo) {
			r.edit("a.go", "Keep()", "Keep(n int)")
			r.commit("edit")
		}, anchor.Changed, `a.go changed in 1 commit, last "edit" on 2026-01-03`},
		{"a symbol still different", []string{"a.go#Keep"}, true, func(r *repo) {
			r.edit("a.go", "Other", "Another")
			r.commit("edit")
		}, anchor.Changed, `a.go changed in 1 commit, last "edit" on 2026-01-03`},
		{"a symbol gone", []string{"a.go#Keep"}, true, func(r *repo) {
			r.edit("a.go", "Keep", "Kept")
			r.commit("rename")
		}, anchor.Gone, "Keep no longer appears in a.go"},
		{"a folder with one file more", []string{"dir"}, true, func(r *repo) {
			r.write("dir/z.go", "package dir\n")
			r.commit("add")
		}, anchor.Changed, `dir changed in 1 commit, last "add" on 2026-01-03`},
		{"a glob with one file changed", []string{"g/*.go"}, true, func(r *repo) {
			r.edit("g/one.go", "package g", "package g // edited")
		}, anchor.Changed, "g/*.go changed in uncommitted changes"},
		{"deleted", []string{"del.go"}, true, func(r *repo) {
			r.git("rm", "-q", "del.go")
			r.commit("delete")
		}, anchor.Gone, "del.go was deleted"},
		{"without a digest git alone decides", []string{"a.go"}, false, func(r *repo) {
			r.edit("a.go", "Keep()", "Keep(n int)")
			r.commit("edit")
			r.edit("a.go", "Keep(n int)", "Keep()")
		}, anchor.Changed, `a.go changed in 1 commit, last "edit" on 2026-01-03, and in uncommitted changes`},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			r.write("a.go", "package a\n\nfunc Keep() {}\n\nfunc Other() {}\n")
			r.write("dir/x.go", "package dir\n")
			r.write("dir/y.go", "package dir\n")
			r.write("g/one.go", "package g\n")
			r.write("g/two.go", "package g\n")
			r.write("del.go", "package a\n")
			r.commit("base")
			ref, err := anchor.Reference(ctx, r.dir, tt.anchors)
			if err != nil {
				t.Fatal(err)
			}
			if len(ref.Commit) < 40 || len(ref.Digests) != 1 {
				t.Fatalf("Reference = %+v", ref)
			}
			if !tt.digests {
				ref.Digests = nil
			}
			tt.then(r)
			res, err := anchor.Check(ctx, r.dir, []anchor.Anchored{{ID: "m", Anchors: tt.anchors, Verified: ref}})
			if err != nil {
				t.Fatal(err)
			}
			var why string
			for _, e := range res[0].Evidence {
				why = e.Why
			}
			if res[0].State != tt.want || why != tt.why {
				t.Errorf("Check = %s %q, want %s %q", res[0].State, why, tt.want, tt.why)
			}
		})
	}
}

// A reference point taken over uncommitted changes records the digests of
// what the worktree holds, and no commit: that content is fresh while it
// stands, uncommitted or committed, and changed once it is edited again or
// thrown away.
func TestReferenceOverUncommitted(t *testing.T) {
	type step struct {
		do   func(r *repo)
		want anchor.State
	}
	edit := func(r *repo) { r.edit("a.go", "Keep()", "Keep(n int)") }
	tests := []struct {
		name    string
		anchors []string
		before  func(r *repo) // the uncommitted change verified over
		steps   []step
	}{
		{"an edit, committed, then edited again", []string{"a.go"}, edit, []step{
			{func(*repo) {}, anchor.Fresh},
			{func(r *repo) { r.commit("keep takes n") }, anchor.Fresh},
			{func(r *repo) { r.edit("a.go", "Keep(n int)", "Keep(n, m int)") }, anchor.Changed},
		}},
		{"an edit thrown away", []string{"a.go"}, edit, []step{
			{func(*repo) {}, anchor.Fresh},
			{func(r *repo) { r.git("checkout", "--", "a.go") }, anchor.Changed},
		}},
		{"a symbol's file, staged, then thrown away", []string{"a.go#Keep"}, func(r *repo) {
			edit(r)
			r.git("add", "a.go")
		}, []step{
			{func(*repo) {}, anchor.Fresh},
			{func(r *repo) { r.git("reset", "-q", "--hard") }, anchor.Changed},
		}},
		{"a new file in a folder, committed, then removed", []string{"dir"}, func(r *repo) {
			r.write("dir/new.go", "package dir\n")
		}, []step{
			{func(*repo) {}, anchor.Fresh},
			{func(r *repo) { r.commit("new file") }, anchor.Fresh},
			{func(r *repo) { r.git("rm", "-q", "dir/new.go") }, anchor.Changed},
		}},
		{"an edited file deleted", []string{"a.go"}, edit, []step{
			{func(r *repo) { r.git("rm", "-q", "-f", "a.go") }, anchor.Gone},
		}},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			r.write("a.go", "package a\n\nfunc Keep() {}\n")
			r.write("dir/x.go", "package dir\n")
			r.commit("base")
			tt.before(r)
			ref, err := anchor.Reference(ctx, r.dir, tt.anchors)
			if err != nil {
				t.Fatal(err)
			}
			if ref.Commit != "" || len(ref.Digests) != 1 {
				t.Fatalf("Reference over uncommitted changes = %+v, want digests and no commit", ref)
			}
			for i, s := range tt.steps {
				s.do(r)
				res, err := anchor.Check(ctx, r.dir, []anchor.Anchored{{ID: "m", Anchors: tt.anchors, Verified: ref}})
				if err != nil {
					t.Fatal(err)
				}
				if res[0].State != s.want {
					t.Errorf("step %d: Check = %s %+v, want %s", i, res[0].State, res[0].Evidence, s.want)
				}
			}
		})
	}
}

// A file anchored and clean keeps its commit even when other files of the
// worktree hold uncommitted changes.
func TestReferenceCleanAnchorsKeepCommit(t *testing.T) {
	r := newRepo(t)
	r.write("a.go", "package a\n")
	r.write("b.go", "package a\n")
	head := r.commit("base")
	if err := os.WriteFile(filepath.Join(r.dir, "b.go"), []byte("package a // edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ref, err := anchor.Reference(context.Background(), r.dir, []string{"a.go"})
	if err != nil {
		t.Fatal(err)
	}
	if ref.Commit != head {
		t.Errorf("Reference commit = %q, want HEAD %s", ref.Commit, head)
	}
}
