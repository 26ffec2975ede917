package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestVerifyUncommitted: a memory whose anchored code the worktree holds
// apart from HEAD is not verified, since its reference point would be
// HEAD while the person checked other content: ocmem stale would call it
// changed at once, and again after the commit. The refusal names the
// path, writes nothing, and once the change is committed, verify takes
// and holds.
func TestVerifyUncommitted(t *testing.T) {
	for _, tt := range []struct {
		name   string
		anchor string
		change func(x *codeRepo)
		want   string // the paths the refusal names; "" : verified
	}{
		{"clean", "srv/a.go", func(x *codeRepo) {}, ""},
		{"edited", "srv/a.go", func(x *codeRepo) { x.write("srv/a.go", "package srv\n\nfunc A() int { return 2 }\n") }, "srv/a.go has"},
		{"edit staged", "srv/a.go#A", func(x *codeRepo) {
			x.write("srv/a.go", "package srv\n\nfunc A() int { return 2 }\n")
			x.git("add", "srv/a.go")
		}, "srv/a.go has"},
		{"new file staged in a folder", "srv", func(x *codeRepo) {
			x.write("srv/b.go", "package srv\n")
			x.git("add", "srv/b.go")
		}, "srv/b.go has"},
		{"untracked file in a folder", "srv", func(x *codeRepo) { x.write("srv/b.go", "package srv\n") }, "srv/b.go has"},
		{"untracked file a glob covers", "srv/*.go", func(x *codeRepo) { x.write("srv/b.go", "package srv\n") }, "srv/b.go has"},
		{"ignored file in a folder", "srv", func(x *codeRepo) {
			x.write(".gitignore", "*.log\n.memory/\n")
			x.commit("ignore logs")
			x.write("srv/out.log", "log\n")
		}, ""},
		{"several", "srv", func(x *codeRepo) {
			x.write("srv/a.go", "package srv\n\nfunc A() int { return 2 }\n")
			x.write("srv/b.go", "package srv\n")
		}, "srv/a.go, srv/b.go have"},
		{"elsewhere", "srv/a.go", func(x *codeRepo) { x.write("other.go", "package other\n") }, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x := newCodeRepo(t)
			x.write("srv/a.go", "package srv\n\nfunc A() int { return 1 }\n")
			x.commit("start")
			x.anchored("facts/a", "A returns one", "A returns 1.", tt.anchor)
			x.write("srv/a.go", "package srv\n\nfunc A() int { return 3 }\n")
			x.commit("A returns 3")
			tt.change(x)
			e := x.engine()
			p := filepath.Join(x.memoryDir(), "facts", "a.md")
			before := readString(t, p)
			_, err := e.Verify("", "facts/a", nil)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				if list, err := e.Stale(); err != nil || len(list) != 0 {
					t.Errorf("after verify, Stale = %+v, %v", list, err)
				}
				return
			}
			if !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), "not verified: "+tt.want+" uncommitted changes") ||
				!strings.Contains(err.Error(), "commit them first") {
				t.Fatalf("Verify = %v; want a bad request naming %q and saying to commit first", err, tt.want)
			}
			if readString(t, p) != before {
				t.Errorf("a refused Verify changed the file")
			}
			if list, err := e.Stale(); err != nil || len(list) != 1 {
				t.Errorf("after a refused verify, Stale = %+v, %v; want the memory still stale", list, err)
			}
			x.commit("take the change in")
			if _, err := e.Verify("", "facts/a", nil); err != nil {
				t.Fatalf("Verify after the commit: %v", err)
			}
			if list, err := e.Stale(); err != nil || len(list) != 0 {
				t.Errorf("after the commit and verify, Stale = %+v, %v", list, err)
			}
		})
	}
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
