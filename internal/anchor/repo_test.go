package anchor_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/testenv"
)

// repo is a git repository a test writes and commits to.
type repo struct {
	t    testing.TB
	dir  string
	when time.Time // the date of the next commit
}

// newRepo makes an empty repository, isolated from the user's and the
// system's git config; the code under test runs git in the same setting.
func newRepo(t testing.TB) *repo {
	t.Helper()
	testenv.IsolatedGit(t)
	r := &repo{t: t, dir: t.TempDir(), when: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	r.git("init", "-q")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	d := r.when.Format(time.RFC3339)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+d, "GIT_COMMITTER_DATE="+d)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *repo) write(name, text string) {
	r.t.Helper()
	p := filepath.Join(r.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// edit replaces old with new in a file, which must hold old.
func (r *repo) edit(name, old, new string) {
	r.t.Helper()
	p := filepath.Join(r.dir, filepath.FromSlash(name))
	b, err := os.ReadFile(p)
	if err != nil {
		r.t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		r.t.Fatalf("%s does not hold %q", name, old)
	}
	r.write(name, strings.Replace(string(b), old, new, 1))
}

// commit commits everything, a day after the last commit, and returns its id.
func (r *repo) commit(msg string) string {
	r.t.Helper()
	r.when = r.when.Add(24 * time.Hour)
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

func (r *repo) mkdir(name string) {
	r.t.Helper()
	if err := os.MkdirAll(filepath.Join(r.dir, filepath.FromSlash(name)), 0o755); err != nil {
		r.t.Fatal(err)
	}
}
