package anchor_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ocmem/ocmem/internal/anchor"
)

// TestUncommitted: the paths anchors cover that the worktree holds apart
// from HEAD, by project path, for a project in a subfolder of its
// repository; what lies outside the anchors, or is ignored, is not named.
func TestUncommitted(t *testing.T) {
	r := newRepo(t)
	r.write("proj/src/a.go", "package a\n")
	r.write("proj/src/b.go", "package a\n")
	r.write("proj/lib/c.go", "package c\n")
	r.write("proj/.gitignore", "*.log\n")
	r.write("src/a.go", "package outside\n")
	r.commit("one")
	r.edit("proj/src/a.go", "package a", "package a // edited")
	r.git("mv", "proj/src/b.go", "proj/src/b2.go")
	r.write("proj/lib/new.go", "package c\n")
	r.write("proj/lib/out.log", "log\n")
	r.edit("src/a.go", "outside", "outside2")
	root := filepath.Join(r.dir, "proj")
	for _, tt := range []struct {
		anchors []string
		want    []string
	}{
		{[]string{"src/a.go#A"}, []string{"src/a.go"}},
		{[]string{"src/b.go"}, []string{"src/b.go"}},
		{[]string{"src/b2.go"}, []string{"src/b2.go"}},
		{[]string{"src"}, []string{"src/a.go", "src/b.go", "src/b2.go"}},
		{[]string{"lib"}, []string{"lib/new.go"}},
		{[]string{"lib/*.go", "lib/c.go"}, []string{"lib/new.go"}},
		{[]string{"lib/c.go", "bad#"}, nil},
		{[]string{"."}, []string{"lib/new.go", "src/a.go", "src/b.go", "src/b2.go"}},
	} {
		got, err := anchor.Uncommitted(context.Background(), root, tt.anchors)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Uncommitted(%q) = %q; want %q", tt.anchors, got, tt.want)
		}
	}
	r.commit("two")
	if got, err := anchor.Uncommitted(context.Background(), root, []string{"."}); err != nil || got != nil {
		t.Errorf("after the commit, Uncommitted = %q, %v", got, err)
	}
}

// TestUncommittedOutsideGit: outside git nothing is uncommitted.
func TestUncommittedOutsideGit(t *testing.T) {
	dir := t.TempDir()
	if got, err := anchor.Uncommitted(context.Background(), dir, []string{"."}); err != nil || got != nil {
		t.Errorf("Uncommitted = %q, %v", got, err)
	}
}
