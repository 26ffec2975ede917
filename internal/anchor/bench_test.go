package anchor_test

import (
	"context"
	"fmt"
	"os/exec"
	"testing"

	"github.com/ocmem/ocmem/internal/anchor"
)

// BenchmarkRefresh measures the refresh after a commit: 10,000 memories,
// each anchored to one of 10,000 files (every other one to a symbol in it),
// verified before the last commit, which changed 10 of those files.
//
//   - one-commit: all verified at the commit before the last;
//   - 100-commits: verified at 100 different commits, as memories written
//     over months are;
//   - one-commit-digests: as one-commit, each memory also recording its
//     file's digest, as Reference does, so that the 10 changed files are
//     read and their digests compared.
//
// Its baselines, in the same run, are one bare `git diff --name-status`
// between the two commits, the least any refresh asks of git, and one
// `git status`, which reads the worktree as the check does.
func BenchmarkRefresh(b *testing.B) {
	const files, changed, history = 10_000, 10, 100
	r := newRepo(b)
	for i := range files {
		r.write(fmt.Sprintf("pkg%02d/file%05d.go", i%100, i), fmt.Sprintf("package pkg%02d\n\nfunc Func%05d() {}\n", i%100, i))
	}
	commits := []string{r.commit("10,000 files")}
	for i := 1; i < history; i++ {
		r.write("history.txt", fmt.Sprintf("%d\n", i))
		commits = append(commits, r.commit(fmt.Sprintf("history %d", i)))
	}
	base := commits[len(commits)-1]
	for i := range changed {
		n := i * (files / changed)
		r.edit(fmt.Sprintf("pkg%02d/file%05d.go", n%100, n), "{}", "{ return }")
	}
	r.commit("change 10 files")

	memories := func(distinct int, digests bool) []anchor.Anchored {
		mems := make([]anchor.Anchored, files)
		for i := range mems {
			p := fmt.Sprintf("pkg%02d/file%05d.go", i%100, i)
			a := p
			if i%2 == 0 {
				a += fmt.Sprintf("#Func%05d", i)
			}
			c := commits[len(commits)-1-i%distinct]
			mems[i] = anchor.Anchored{ID: fmt.Sprint(i), Anchors: []string{a}, Verified: anchor.Ref{Commit: c}}
			if digests {
				text := fmt.Sprintf("package pkg%02d\n\nfunc Func%05d() {}\n", i%100, i)
				mems[i].Verified.Digests = map[string]string{p: anchor.Digest([]byte(text))}
			}
		}
		return mems
	}
	ctx := context.Background()
	for _, v := range []struct {
		name     string
		distinct int
		digests  bool
	}{{"one-commit", 1, false}, {"100-commits", history, false}, {"one-commit-digests", 1, true}} {
		mems := memories(v.distinct, v.digests)
		b.Run(v.name, func(b *testing.B) {
			for b.Loop() {
				res, err := anchor.Check(ctx, r.dir, mems)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for _, x := range res {
					if x.State != anchor.Fresh {
						n++
					}
				}
				if n != changed {
					b.Fatalf("%d memories flagged, want %d", n, changed)
				}
			}
		})
	}
	for _, bl := range []struct {
		name string
		args []string
	}{
		{"baseline-git-diff", []string{"diff", "--name-status", "-M", base, "HEAD"}},
		{"baseline-git-status", []string{"status", "--porcelain"}},
	} {
		b.Run(bl.name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command("git", bl.args...)
				cmd.Dir = r.dir
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
