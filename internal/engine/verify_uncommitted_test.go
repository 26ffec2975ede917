package engine

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestVerifyUncommitted: a memory whose anchored code the worktree holds
// apart from HEAD is verified as the person sees it, by its digests and no
// commit: fresh at once, still fresh once the change is committed, changed
// when the code is edited again, and changed when the uncommitted change
// verified over is thrown away instead.
func TestVerifyUncommitted(t *testing.T) {
	for _, tt := range []struct {
		name     string
		anchor   string
		change   func(x *codeRepo)
		byDigest bool // the change is one the anchor covers
	}{
		{"clean", "srv/a.go", func(x *codeRepo) {}, false},
		{"edited", "srv/a.go", func(x *codeRepo) { x.write("srv/a.go", "package srv\n\nfunc A() int { return 2 }\n") }, true},
		{"edit staged", "srv/a.go#A", func(x *codeRepo) {
			x.write("srv/a.go", "package srv\n\nfunc A() int { return 2 }\n")
			x.git("add", "srv/a.go")
		}, true},
		{"new file staged in a folder", "srv", func(x *codeRepo) {
			x.write("srv/b.go", "package srv\n")
			x.git("add", "srv/b.go")
		}, true},
		{"untracked file in a folder", "srv", func(x *codeRepo) { x.write("srv/b.go", "package srv\n") }, true},
		{"untracked file a glob covers", "srv/*.go", func(x *codeRepo) { x.write("srv/b.go", "package srv\n") }, true},
		{"ignored file in a folder", "srv", func(x *codeRepo) {
			x.write(".gitignore", "*.log\n.memory/\n")
			x.commit("ignore logs")
			x.write("srv/out.log", "log\n")
		}, false},
		{"several", "srv", func(x *codeRepo) {
			x.write("srv/a.go", "package srv\n\nfunc A() int { return 2 }\n")
			x.write("srv/b.go", "package srv\n")
		}, true},
		{"elsewhere", "srv/a.go", func(x *codeRepo) { x.write("other.go", "package other\n") }, false},
	} {
		// setup returns an engine with the memory verified over the change.
		setup := func(t *testing.T) (*codeRepo, *Engine) {
			x := newCodeRepo(t)
			x.write("srv/a.go", "package srv\n\nfunc A() int { return 1 }\n")
			x.commit("start")
			x.anchored("facts/a", "A returns one", "A returns 1.", tt.anchor)
			x.write("srv/a.go", "package srv\n\nfunc A() int { return 3 }\n")
			x.commit("A returns 3")
			tt.change(x)
			e := x.engine()
			if list, err := e.Stale(); err != nil || len(list) != 1 {
				t.Fatalf("before verify, Stale = %+v, %v; want the memory stale", list, err)
			}
			w, err := e.Verify("", "facts/a", nil)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if w.ByDigest != tt.byDigest {
				t.Errorf("Verify: ByDigest = %v, want %v", w.ByDigest, tt.byDigest)
			}
			m := readMemory(t, filepath.Join(x.memoryDir(), "facts", "a.md"))
			if (m.Verified.Commit == "") != tt.byDigest || len(m.Verified.Digests) != 1 {
				t.Errorf("verified = %+v; want digests, and a commit only without uncommitted anchored changes", m.Verified)
			}
			staleCount(t, e, 0, "after verify")
			return x, e
		}
		t.Run(tt.name+"/committed then edited", func(t *testing.T) {
			x, e := setup(t)
			x.commit("take the change in")
			staleCount(t, e, 0, "after the commit")
			x.write("srv/a.go", "package srv\n\nfunc A() int { return 4 }\n")
			// An edit inside a folder is seen at the next git add (the
			// states are kept while the folder's own time stands).
			x.git("add", "srv")
			staleCount(t, e, 1, "after another edit")
		})
		t.Run(tt.name+"/thrown away", func(t *testing.T) {
			x, e := setup(t)
			x.git("reset", "-q", "--", "srv")
			x.git("checkout", "--", "srv")
			x.git("clean", "-fdq", "srv")
			want := 0
			if tt.byDigest {
				want = 1
			}
			staleCount(t, e, want, "after the change was thrown away")
		})
	}
}

// staleCount asserts how many memories Stale lists.
func staleCount(t *testing.T, e *Engine, want int, when string) {
	t.Helper()
	if list, err := e.Stale(); err != nil || len(list) != want {
		t.Errorf("%s, Stale = %+v, %v; want %d", when, list, err, want)
	}
}

// TestRememberUncommitted: a memory written about code just edited and not
// committed, the common case in a session, is fresh while that code
// stands, uncommitted or committed, and changed once it is edited again.
func TestRememberUncommitted(t *testing.T) {
	x := newCodeRepo(t)
	x.write("srv/a.go", "package srv\n\nfunc A() int { return 1 }\n")
	x.commit("start")
	x.write("srv/a.go", "package srv\n\nfunc A() int { return 2 }\n")
	e := x.engine()
	if _, err := e.Remember(RememberRequest{Category: "facts", Kind: "fact", Summary: "A returns two",
		Body: "`A()` in srv/a.go returns 2."}); err != nil {
		t.Fatal(err)
	}
	staleCount(t, e, 0, "written over the uncommitted edit")
	x.commit("A returns 2")
	staleCount(t, e, 0, "after the commit")
	x.write("srv/a.go", "package srv\n\nfunc A() int { return 3 }\n")
	staleCount(t, e, 1, "after another edit")
}

// TestVerifyOutsideGit: outside git nothing is uncommitted; the digests
// recorded decide.
func TestVerifyOutsideGit(t *testing.T) {
	dir := t.TempDir()
	writeString(t, filepath.Join(dir, "a.go"), "package a\n")
	e := New(Config{ProjectDir: filepath.Join(dir, ".memory"), Now: func() time.Time { return testNow }})
	w, err := e.Remember(RememberRequest{Category: "facts", Kind: "fact", Summary: "a is a package", Body: "a.", Anchors: []string{"a.go"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a // edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Verify("", w.ID, nil); err != nil {
		t.Fatalf("Verify outside git: %v", err)
	}
	if list, err := e.Stale(); err != nil || len(list) != 0 {
		t.Errorf("after verify, Stale = %+v, %v", list, err)
	}
}
