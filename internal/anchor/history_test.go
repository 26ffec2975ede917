package anchor_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/anchor"
)

// The scripted history: a project's code, memories anchored to its files
// and symbols as of a first commit, then commits that rename or remove an
// anchored symbol, change an anchored file elsewhere, rename and delete
// anchored files, and touch only other files; and a worktree change not
// yet committed. Each memory carries the state a person reading the diff
// would give it; the test asserts every one, and reports each flag's
// precision and recall.
func TestScriptedHistory(t *testing.T) {
	r := newRepo(t)
	r.write("internal/api/server.go", "package api\n\nfunc ListenPort() int { return 8080 }\n\nfunc Shutdown() {}\n\nfunc Handler() {}\n")
	r.write("internal/api/routes.go", "package api\n\nfunc Routes() []string { return nil }\n")
	r.write("internal/store/db.go", "package store\n\nfunc Open() {}\n\nfunc Migrate() {}\n\nfunc Close() {}\n")
	r.write("internal/config/config.go", "package config\n\nfunc Load() {}\n\nfunc Default() {}\n")
	r.write("util/strings.go", "package util\n\nfunc Trim(s string) string { return s }\n")
	r.write("pkg/legacy/old.go", "package legacy\n\n// Legacy is kept for old callers.\nfunc Legacy() {}\n")
	r.write("pkg/legacy/gone.go", "package legacy\n\nfunc Gone() {}\n")
	r.write("cmd/main.go", "package main\n\nfunc main() {}\n")
	r.write("docs/guide.md", "# Guide\n\nRun it.\n")
	r.write("README.md", "# Project\n")
	r.write("other/notes.txt", "notes\n")
	base := r.commit("initial layout")
	ctx := context.Background()

	type mem struct {
		id      string
		anchors []string
		want    anchor.State
	}
	atBase := []mem{
		{"renamed-symbol", []string{"internal/api/server.go#ListenPort"}, anchor.Gone},
		{"renamed-symbol-2", []string{"internal/api/server.go#Handler"}, anchor.Gone},
		{"other-symbol-same-file", []string{"internal/api/server.go#Shutdown"}, anchor.Changed},
		{"removed-symbol", []string{"internal/store/db.go#Migrate"}, anchor.Gone},
		{"kept-symbol-same-file", []string{"internal/store/db.go#Open"}, anchor.Changed},
		{"whole-file-changed", []string{"internal/store/db.go"}, anchor.Changed},
		{"changed-elsewhere", []string{"util/strings.go#Trim"}, anchor.Changed},
		{"untouched-symbol", []string{"internal/config/config.go#Load"}, anchor.Fresh},
		{"untouched-file", []string{"internal/config/config.go"}, anchor.Fresh},
		{"untouched-glob", []string{"internal/*/config.go"}, anchor.Fresh},
		{"untouched-readme", []string{"README.md"}, anchor.Fresh},
		{"untouched-main", []string{"cmd/main.go#main"}, anchor.Fresh},
		{"renamed-file", []string{"pkg/legacy/old.go"}, anchor.Gone},
		{"renamed-file-symbol", []string{"pkg/legacy/old.go#Legacy"}, anchor.Gone},
		{"deleted-file", []string{"pkg/legacy/gone.go"}, anchor.Gone},
		{"folder-changed", []string{"docs/"}, anchor.Changed},
		{"two-anchors-one-gone", []string{"README.md", "internal/store/db.go#Migrate"}, anchor.Gone},
		{"uncommitted-edit", []string{"internal/api/routes.go#Routes"}, anchor.Changed},
	}

	r.edit("internal/api/server.go", "func ListenPort() int", "func Port() int")
	r.edit("internal/api/server.go", "func Handler()", "func ServeHTTP()")
	c1 := r.commit("api: rename ListenPort to Port, Handler to ServeHTTP")
	r.edit("internal/store/db.go", "func Migrate() {}\n\n", "")
	r.commit("store: drop Migrate")
	r.edit("util/strings.go", "\nfunc Trim", "\nfunc Upper(s string) string { return s }\n\nfunc Trim")
	r.commit("util: add Upper")
	r.mkdir("pkg/modern")
	r.git("mv", "pkg/legacy/old.go", "pkg/modern/new.go")
	r.git("rm", "-q", "pkg/legacy/gone.go")
	r.commit("pkg: move legacy to modern, delete gone.go")
	r.edit("docs/guide.md", "Run it.", "Run it with -v.")
	r.write("other/notes.txt", "more notes\n")
	r.commit("docs and notes")
	r.write("other/more.txt", "x\n")
	r.commit("notes only")
	r.edit("internal/api/routes.go", "return nil", "return []string{\"/\"}")
	r.edit("internal/store/db.go", "func Close() {}", "func Close() { /* flush */ }")

	// Memories verified later see only what came after: a second verified
	// commit is a second diff.
	atC1 := []mem{
		{"verified-after-rename", []string{"internal/api/server.go#Port"}, anchor.Fresh},
		{"verified-after-rename-file", []string{"internal/api/server.go"}, anchor.Fresh},
	}

	var mems []anchor.Anchored
	var want []mem
	for _, set := range []struct {
		commit string
		mems   []mem
	}{{base, atBase}, {c1, atC1}} {
		for _, m := range set.mems {
			mems = append(mems, anchor.Anchored{ID: m.id, Anchors: m.anchors, Verified: anchor.Ref{Commit: set.commit}})
			want = append(want, m)
		}
	}

	results, err := anchor.Check(ctx, r.dir, mems)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]anchor.Result{}
	for i, res := range results {
		got[res.ID] = res
		if res.State != want[i].want {
			t.Errorf("%s %q: %s, want %s; evidence %+v", res.ID, want[i].anchors, res.State, want[i].want, res.Evidence)
		}
	}

	// The Done-when, said out loud.
	for _, id := range []string{"renamed-symbol", "renamed-symbol-2", "removed-symbol"} {
		if got[id].State != anchor.Gone {
			t.Errorf("%s: a removed or renamed symbol is %s, want gone", id, got[id].State)
		}
	}
	for _, id := range []string{"untouched-symbol", "untouched-file", "untouched-glob", "untouched-readme", "untouched-main", "verified-after-rename"} {
		if got[id].State != anchor.Fresh {
			t.Errorf("%s: an untouched anchor is flagged %s: %+v", id, got[id].State, got[id].Evidence)
		}
	}
	for _, id := range []string{"other-symbol-same-file", "kept-symbol-same-file", "changed-elsewhere"} {
		if got[id].State != anchor.Changed {
			t.Errorf("%s: a file changed only elsewhere is %s, want changed", id, got[id].State)
		}
	}
	for _, id := range []string{"renamed-file", "renamed-file-symbol"} {
		if e := evidence(got[id]); e.RenamedTo != "pkg/modern/new.go" {
			t.Errorf("%s: renamed to %q, want pkg/modern/new.go (%+v)", id, e.RenamedTo, e)
		}
	}

	// The evidence of a change: how many commits, the last one's subject
	// and date; uncommitted changes said as such.
	e := evidence(got["changed-elsewhere"])
	if e.Commits != 1 || e.Subject != "util: add Upper" || !e.Date.Equal(time.Date(2026, 1, 5, 12, 0, 0, 0, time.UTC)) || e.Uncommitted {
		t.Errorf("changed-elsewhere evidence: %+v", e)
	}
	if e := evidence(got["whole-file-changed"]); e.Commits != 1 || e.Subject != "store: drop Migrate" || !e.Uncommitted ||
		e.Why != `internal/store/db.go changed in 1 commit, last "store: drop Migrate" on 2026-01-04, and in uncommitted changes` {
		t.Errorf("whole-file-changed evidence: %+v", e)
	}
	if e := evidence(got["uncommitted-edit"]); e.Commits != 0 || !e.Uncommitted || e.Why != "internal/api/routes.go changed in uncommitted changes" {
		t.Errorf("uncommitted-edit evidence: %+v", e)
	}
	if e := evidence(got["removed-symbol"]); e.Why != "Migrate no longer appears in internal/store/db.go" {
		t.Errorf("removed-symbol evidence: %+v", e)
	}
	if e := evidence(got["deleted-file"]); e.Why != "pkg/legacy/gone.go was deleted" || e.Commits != 1 {
		t.Errorf("deleted-file evidence: %+v", e)
	}
	if e := evidence(got["folder-changed"]); e.Path != "docs/guide.md" || e.Subject != "docs and notes" {
		t.Errorf("folder-changed evidence: %+v", e)
	}

	truth := make([]anchor.State, len(want))
	for i, m := range want {
		truth[i] = m.want
	}
	for _, flag := range []anchor.State{anchor.Gone, anchor.Changed} {
		p, rc := precisionRecall(results, truth, flag)
		t.Logf("scripted history, %d memories: %s precision %s, recall %s", len(results), flag, p, rc)
	}
	p, rc := precisionRecall(results, truth, "")
	t.Logf("scripted history: flagged at all (changed or gone) precision %s, recall %s", p, rc)
}

// evidence returns a result's one evidence that is not fresh.
func evidence(r anchor.Result) anchor.Evidence {
	for _, e := range r.Evidence {
		if e.State != anchor.Fresh {
			return e
		}
	}
	return anchor.Evidence{}
}

// precisionRecall of a flag over the memories, given each one's true
// state; flag "" is any flag (changed or gone).
func precisionRecall(results []anchor.Result, truth []anchor.State, flag anchor.State) (string, string) {
	is := func(s anchor.State) bool {
		if flag == "" {
			return s != anchor.Fresh
		}
		return s == flag
	}
	var tp, flagged, actual int
	for i, r := range results {
		if is(r.State) {
			flagged++
		}
		if is(truth[i]) {
			actual++
		}
		if is(r.State) && is(truth[i]) {
			tp++
		}
	}
	ratio := func(a, b int) string {
		if b == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.2f (%d/%d)", float64(a)/float64(b), a, b)
	}
	return ratio(tp, flagged), ratio(tp, actual)
}
