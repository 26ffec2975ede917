package serve

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/testenv"
)

const kafkaMemory = "---\nid: facts/kafka\nkind: fact\nsummary: kafka retention\ncreated: 1700000000000\nupdated: 1700000000000\n---\nRetention is seven days.\n"

// gitRepo makes dir a git repository holding .memory/facts/kafka.md,
// committed, and returns a runner of git commands in it.
func gitRepo(t *testing.T, dir string) func(args ...string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		testenv.Missing(t, "git is not installed")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(dir, "no-gitconfig"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	git := func(args ...string) { t.Helper(); testenv.Git(t, dir, args...) }
	git("init", "-q")
	writeAt(t, filepath.Join(dir, ".memory", "facts", "kafka.md"), kafkaMemory, time.UnixMilli(1700000000000))
	git("add", ".")
	git("commit", "-q", "-m", "seed")
	return git
}

func writeAt(t *testing.T, file, data string, mtime time.Time) {
	t.Helper()
	os.MkdirAll(filepath.Dir(file), 0o755)
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(file, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// A memory edited by hand while serve runs gets the edit's time as its
// updated, in the file, with no other byte changed.
func TestHandEditMovesUpdated(t *testing.T) {
	g, _ := roots(t)
	repo := t.TempDir()
	gitRepo(t, repo)
	p := filepath.Join(repo, ".memory")
	file := filepath.Join(p, "facts", "kafka.md")
	c := start(t, Config{GlobalDir: g, ProjectDir: p})
	if r := c.call("system", map[string]any{}); !strings.Contains(r.Result.Text, "kafka retention") {
		t.Fatalf("outline: %q", r.Result.Text)
	}
	edited := strings.Replace(kafkaMemory, "seven days", "thirty days", 1)
	writeAt(t, file, edited, time.UnixMilli(1760000000000))
	want := strings.Replace(edited, "updated: 1700000000000", "updated: 1760000000000", 1)
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, _ := os.ReadFile(file)
		if string(data) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a hand edit:\n%s\nwant:\n%s", data, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A file a git checkout changed equals what HEAD holds: recompiling after
// it rewrites nothing, and git sees no change.
func TestCheckoutKeepsUpdated(t *testing.T) {
	g, _ := roots(t)
	repo := t.TempDir()
	git := gitRepo(t, repo)
	p := filepath.Join(repo, ".memory")
	file := filepath.Join(p, "facts", "kafka.md")
	writeAt(t, file, strings.Replace(kafkaMemory, "seven days", "thirty days", 1), time.UnixMilli(1760000000000))
	git("commit", "-q", "-am", "thirty")
	s := New(Config{GlobalDir: g, ProjectDir: p})
	e, err := s.engineFor(&common{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Load(); err != nil {
		t.Fatal(err)
	}
	git("checkout", "-q", "HEAD~1")
	e.InvalidateFile(p, file) // as the watcher does
	if _, err := s.live.Recompile(p); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(file); string(data) != kafkaMemory {
		t.Errorf("a file git checked out was rewritten:\n%s", data)
	}
	cmd := exec.Command("git", "status", "--porcelain", "--", ".memory/facts/kafka.md")
	cmd.Dir = repo
	if out, err := cmd.Output(); err != nil || len(out) > 0 {
		t.Errorf("git status after a checkout: %q (%v)", out, err)
	}
}

// Outside git, a hand edit is told from the version serve held before.
func TestHandEditMovesUpdatedOutsideGit(t *testing.T) {
	g, p := roots(t)
	file := filepath.Join(p, "facts", "kafka.md")
	writeAt(t, file, kafkaMemory, time.UnixMilli(1700000000000))
	s := New(Config{GlobalDir: g, ProjectDir: p})
	e, err := s.engineFor(&common{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Load(); err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(kafkaMemory, "seven days", "thirty days", 1)
	writeAt(t, file, edited, time.UnixMilli(1760000000000))
	e.InvalidateFile(p, file)
	if _, err := s.live.Recompile(p); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(edited, "updated: 1700000000000", "updated: 1760000000000", 1)
	if data, _ := os.ReadFile(file); string(data) != want {
		t.Errorf("after a hand edit:\n%s\nwant:\n%s", data, want)
	}
}
