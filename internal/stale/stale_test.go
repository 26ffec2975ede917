package stale_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/anchor"
	"github.com/ocmem/ocmem/internal/stale"
)

// TestTrackerChecksOnlyWhenSomethingMoved: a state is computed once and
// reused while nothing moved; a commit, an uncommitted edit of an anchored
// file and a change of the memory's verified point each make it computed
// again, and the state follows the code.
func TestTrackerChecksOnlyWhenSomethingMoved(t *testing.T) {
	r := newRepo(t)
	r.write("srv/server.go", "package srv\n\nfunc ListenPort() int { return 8080 }\n")
	r.write("other.go", "package other\n")
	c1 := r.commit("start")
	ctx := context.Background()
	tr := stale.NewTracker(r.dir)
	ref, err := tr.Reference(ctx, []string{"srv/server.go#ListenPort"}, time.UnixMilli(1))
	if err != nil || ref.Commit != c1 || ref.Digests["srv/server.go"] == "" || ref.Time != 1 {
		t.Fatalf("Reference = %+v, %v; want commit %s and a digest", ref, err, c1)
	}
	mems := []stale.Memory{
		{Key: "project:facts/port", Anchors: []string{"srv/server.go#ListenPort"}, Verified: ref},
		{Key: "project:facts/plain"},
	}
	steps := []struct {
		name   string
		change func()
		want   anchor.State
		checks int // total memories checked against git after the step
	}{
		{"first", func() {}, anchor.Fresh, 1},
		{"nothing moved", func() {}, anchor.Fresh, 1},
		{"a commit elsewhere", func() { r.write("other.go", "package other\n// x\n"); r.commit("other") }, anchor.Fresh, 2},
		{"nothing moved again", func() {}, anchor.Fresh, 2},
		{"an uncommitted edit", func() {
			r.edit("srv/server.go", "8080", "8081")
		}, anchor.Changed, 3},
		{"the symbol removed in a commit", func() {
			r.edit("srv/server.go", "ListenPort", "Port")
			r.commit("rename ListenPort to Port")
		}, anchor.Gone, 4},
		{"asked again", func() {}, anchor.Gone, 4},
		{"verified again at HEAD, anchored to the new name", func() {
			mems[0].Anchors = []string{"srv/server.go#Port"}
			v, err := tr.Reference(ctx, mems[0].Anchors, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			mems[0].Verified = v
		}, anchor.Fresh, 5},
	}
	for _, s := range steps {
		s.change()
		got, err := tr.States(ctx, mems)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got[0].State != s.want || got[1].State != anchor.Fresh {
			t.Errorf("%s: states %s, %s; want %s, fresh (evidence %+v)", s.name, got[0].State, got[1].State, s.want, got[0].Evidence)
		}
		if n := tr.Checked(); n != s.checks {
			t.Errorf("%s: %d memories checked against git so far, want %d", s.name, n, s.checks)
		}
	}
}

func TestStateLine(t *testing.T) {
	when := time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		state stale.State
		want  []string // parts of the line, in order; none: no line
	}{
		{"fresh", stale.State{State: anchor.Fresh, Evidence: []anchor.Evidence{{State: anchor.Fresh, Why: "not checked: x"}}}, nil},
		{"changed", stale.State{State: anchor.Changed, Evidence: []anchor.Evidence{
			{State: anchor.Fresh, Why: "not checked: bad"},
			{State: anchor.Changed, Path: "a.go", Commits: 2, Subject: "tidy", Date: when, Why: `a.go changed in 2 commits, last "tidy" on 2026-03-04`},
			{State: anchor.Changed, Why: "b.go changed in uncommitted changes"},
		}}, []string{"changed since it was verified", `a.go changed in 2 commits, last "tidy" on 2026-03-04 (and 1 more)`, "Check it before relying"}},
		{"gone", stale.State{State: anchor.Gone, Evidence: []anchor.Evidence{
			{State: anchor.Changed, Why: "b.go changed"},
			{State: anchor.Gone, Why: "a.go was renamed to c.go"},
		}}, []string{"gone since it was verified", "a.go was renamed to c.go.", "out of date"}},
	}
	for _, tt := range tests {
		line := tt.state.Line()
		if (line == "") != (tt.want == nil) || strings.Contains(line, "\n") {
			t.Errorf("%s: line %q", tt.name, line)
		}
		rest := line
		for _, w := range tt.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%s: line %q lacks %q (in order)", tt.name, line, w)
				break
			}
			rest = rest[i+len(w):]
		}
		if tt.state.Stale() != (tt.want != nil) {
			t.Errorf("%s: Stale() = %v", tt.name, tt.state.Stale())
		}
	}
}

// TestTrackerOutsideGit: outside git, digests decide, and a state is still
// reused until an anchored file changes.
func TestTrackerOutsideGit(t *testing.T) {
	dir := t.TempDir()
	r := &repo{t: t, dir: dir}
	r.write("notes/a.txt", "one\n")
	ctx := context.Background()
	tr := stale.NewTracker(dir)
	v, err := tr.Reference(ctx, []string{"notes/a.txt"}, time.Now())
	if err != nil || v.Commit != "" || len(v.Digests) != 1 {
		t.Fatalf("Reference outside git = %+v, %v", v, err)
	}
	mems := []stale.Memory{{Key: "k", Anchors: []string{"notes/a.txt"}, Verified: v}}
	for i, want := range []anchor.State{anchor.Fresh, anchor.Changed} {
		if i == 1 {
			r.write("notes/a.txt", "two, longer\n")
		}
		got, err := tr.States(ctx, mems)
		if err != nil || got[0].State != want {
			t.Errorf("step %d: %+v, %v; want %s", i, got, err, want)
		}
	}
}
