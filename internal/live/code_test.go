package live

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/testenv"
)

// Under Poll, a commit, which changes no memory file, is told to the
// listeners as a change of the engine's worktree, once; a look with
// nothing moved tells nothing of it.
func TestPollTellsACommit(t *testing.T) {
	testenv.IsolatedGit(t)
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "start")
	memo(t, filepath.Join(dir, ".memory"), "facts/a", "a is a package")
	e := newEngine(t, "", filepath.Join(dir, ".memory"))
	l := New(Config{})
	l.Add(e)
	var mu sync.Mutex
	var told [][2]string
	l.OnChange(func(root, path string) {
		if root != dir {
			return // the memory roots, polled
		}
		mu.Lock()
		defer mu.Unlock()
		told = append(told, [2]string{root, path})
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go l.Poll(ctx, 10*time.Millisecond)
	looked := func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		_, ok := l.code[e]
		return ok
	}
	for deadline := time.Now().Add(10 * time.Second); !looked(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("Poll never looked at the repository")
		}
	}
	time.Sleep(50 * time.Millisecond) // looks with nothing moved
	mu.Lock()
	if len(told) != 0 {
		t.Errorf("told %v with nothing moved", told)
	}
	mu.Unlock()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("commit", "-q", "-a", "-m", "add A")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(told)
		mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the commit was never told")
		}
	}
	time.Sleep(50 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(told) != 1 || told[0] != [2]string{dir, ""} {
		t.Errorf("told %v; want [%s \"\"] once", told, dir)
	}
}
