package store_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/store"
)

func TestGlobalDir(t *testing.T) {
	base := tempDir(t)
	home := filepath.Join(base, "home")
	setHome := func() {
		t.Setenv("HOME", home)
		if runtime.GOOS == "windows" {
			t.Setenv("USERPROFILE", home)
		}
	}
	tests := []struct {
		name, opencode, xdg string
		want                string
	}{
		{"OPENCODE_CONFIG_DIR first", filepath.Join(base, "oc"), filepath.Join(base, "xdg"), filepath.Join(base, "oc", "memory")},
		{"then XDG_CONFIG_HOME", "", filepath.Join(base, "xdg"), filepath.Join(base, "xdg", "opencode", "memory")},
		{"then HOME", "", "", filepath.Join(home, ".config", "opencode", "memory")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			setHome()
			t.Setenv("OPENCODE_CONFIG_DIR", tc.opencode)
			t.Setenv("XDG_CONFIG_HOME", tc.xdg)
			got, err := store.GlobalDir()
			if err != nil || got != tc.want {
				t.Errorf("GlobalDir() = %q, %v; want %q", got, err, tc.want)
			}
		})
	}

	t.Run("relative OPENCODE_CONFIG_DIR is made absolute", func(t *testing.T) {
		t.Chdir(base)
		t.Setenv("OPENCODE_CONFIG_DIR", "cfg")
		got, err := store.GlobalDir()
		if want := filepath.Join(base, "cfg", "memory"); err != nil || got != want {
			t.Errorf("GlobalDir() = %q, %v; want %q", got, err, want)
		}
	})

	t.Run("no home", func(t *testing.T) {
		if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
			t.Skip("the home directory comes from other variables here")
		}
		t.Setenv("OPENCODE_CONFIG_DIR", "")
		t.Setenv("XDG_CONFIG_HOME", "")
		t.Setenv("HOME", "")
		if got, err := store.GlobalDir(); err == nil {
			t.Errorf("GlobalDir() = %q without HOME, want an error", got)
		}
	})
}

// git runs git in dir, isolated from the user's and the system's config, and
// returns its trimmed output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "GIT_") {
			env = append(env, e)
		}
	}
	cmd.Env = append(env,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

func mkdirAll(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// newRepo makes a git repository with one commit, so worktrees can be added.
func newRepo(t *testing.T, dir string) {
	t.Helper()
	mkdirAll(t, dir)
	git(t, dir, "init", "-q")
	writeFile(t, filepath.Join(dir, "README"), "x\n")
	git(t, dir, "add", "README")
	git(t, dir, "commit", "-q", "-m", "init")
}

func canonical(t *testing.T, dir string) string {
	t.Helper()
	got, err := store.CanonicalRoot(dir)
	if err != nil {
		t.Fatalf("CanonicalRoot(%s): %v", dir, err)
	}
	return got
}

// gitCommonParent is what the spec defines the canonical root as: the
// parent of `git rev-parse --git-common-dir`.
func gitCommonParent(t *testing.T, dir string) string {
	t.Helper()
	common := git(t, dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
	real, err := filepath.EvalSymlinks(common)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(real)
}

func TestCanonicalRoot(t *testing.T) {
	needGit(t)
	base := tempDir(t)
	repo := filepath.Join(base, "repo")
	newRepo(t, repo)
	sub := filepath.Join(repo, "a", "b")
	mkdirAll(t, sub)

	t.Run("repository", func(t *testing.T) {
		for _, d := range []string{repo, sub, filepath.Join(repo, ".git"), filepath.Join(repo, ".git", "refs")} {
			if got := canonical(t, d); got != repo {
				t.Errorf("CanonicalRoot(%s) = %s, want %s", d, got, repo)
			}
		}
		if got, want := canonical(t, sub), gitCommonParent(t, sub); got != want {
			t.Errorf("CanonicalRoot = %s, git says %s", got, want)
		}
	})

	t.Run("relative", func(t *testing.T) {
		t.Chdir(sub)
		if got := canonical(t, "."); got != repo {
			t.Errorf("CanonicalRoot(.) = %s, want %s", got, repo)
		}
		if got := canonical(t, ".."); got != repo {
			t.Errorf("CanonicalRoot(..) = %s, want %s", got, repo)
		}
	})

	t.Run("linked worktree", func(t *testing.T) {
		wt := filepath.Join(base, "wt")
		git(t, repo, "worktree", "add", "-q", wt)
		wtSub := filepath.Join(wt, "x", "y")
		mkdirAll(t, wtSub)
		for _, d := range []string{wt, wtSub} {
			if got := canonical(t, d); got != repo {
				t.Errorf("CanonicalRoot(%s) = %s, want the main checkout %s", d, got, repo)
			}
			if got, want := canonical(t, d), gitCommonParent(t, d); got != want {
				t.Errorf("CanonicalRoot(%s) = %s, git says %s", d, got, want)
			}
		}
		if got, want := mustProjectDir(t, wtSub), filepath.Join(repo, ".memory"); got != want {
			t.Errorf("ProjectDir of a worktree = %s, want %s", got, want)
		}

		// The same worktree with a relative gitdir (git ≥ 2.48 can write
		// one: worktree.useRelativePaths).
		gitFile := filepath.Join(wt, ".git")
		b, err := os.ReadFile(gitFile)
		if err != nil {
			t.Fatal(err)
		}
		abs := strings.TrimSpace(strings.TrimPrefix(string(b), "gitdir:"))
		rel, err := filepath.Rel(wt, abs)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, gitFile, "gitdir: "+filepath.ToSlash(rel)+"\n")
		if got := canonical(t, wtSub); got != repo {
			t.Errorf("CanonicalRoot with a relative gitdir = %s, want %s", got, repo)
		}
	})

	t.Run("submodule", func(t *testing.T) {
		// A .git file whose git dir has no commondir: its own root.
		mod := filepath.Join(repo, "vendor", "mod")
		modGit := filepath.Join(repo, ".git", "modules", "mod")
		mkdirAll(t, filepath.Join(modGit, "refs"))
		writeFile(t, filepath.Join(modGit, "HEAD"), "ref: refs/heads/main\n")
		writeFile(t, filepath.Join(mod, ".git"), "gitdir: ../../.git/modules/mod\n")
		mkdirAll(t, filepath.Join(mod, "src"))
		if got := canonical(t, filepath.Join(mod, "src")); got != mod {
			t.Errorf("CanonicalRoot in a submodule = %s, want %s", got, mod)
		}

		// A real one, made by git.
		upstream := filepath.Join(base, "upstream")
		newRepo(t, upstream)
		git(t, repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", upstream, "libs/up")
		real := filepath.Join(repo, "libs", "up")
		if got := canonical(t, real); got != real {
			t.Errorf("CanonicalRoot in a git submodule = %s, want %s", got, real)
		}
	})

	t.Run("damaged .git file", func(t *testing.T) {
		d := filepath.Join(repo, "odd")
		writeFile(t, filepath.Join(d, ".git"), "not a gitdir line\n")
		if got := canonical(t, d); got != d {
			t.Errorf("CanonicalRoot(%s) = %s, want the directory itself", d, got)
		}
	})

	t.Run("symlinks", func(t *testing.T) {
		link := filepath.Join(base, "link-to-sub")
		symlink(t, sub, link)
		if got := canonical(t, link); got != repo {
			t.Errorf("CanonicalRoot through a symlink = %s, want %s", got, repo)
		}
		repoLink := filepath.Join(base, "repo-link")
		symlink(t, repo, repoLink)
		if got := canonical(t, filepath.Join(repoLink, "a")); got != repo {
			t.Errorf("CanonicalRoot through a symlinked repository = %s, want %s", got, repo)
		}
	})
}

func TestCanonicalRootOutsideGit(t *testing.T) {
	needGit(t)
	base := tempDir(t)
	cmd := exec.Command("git", "rev-parse", "--show-toplevel")
	cmd.Dir = base
	if out, err := cmd.Output(); err == nil {
		t.Skipf("the temp directory is inside a git repository (%s)", strings.TrimSpace(string(out)))
	}
	dir := filepath.Join(base, "plain", "project")
	mkdirAll(t, dir)
	if got := canonical(t, dir); got != dir {
		t.Errorf("CanonicalRoot(%s) = %s, want the directory itself", dir, got)
	}
	link := filepath.Join(base, "link")
	symlink(t, dir, link)
	if got := canonical(t, link); got != dir {
		t.Errorf("CanonicalRoot(%s) = %s, want the resolved %s", link, got, dir)
	}
	// A directory that does not exist is taken as it is.
	missing := filepath.Join(base, "missing")
	if got := canonical(t, missing); got != missing {
		t.Errorf("CanonicalRoot(%s) = %s", missing, got)
	}
	if got, want := mustProjectDir(t, dir), filepath.Join(dir, ".memory"); got != want {
		t.Errorf("ProjectDir = %s, want %s", got, want)
	}
}

func mustProjectDir(t *testing.T, dir string) string {
	t.Helper()
	p, err := store.ProjectDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestProjectDirNotHome: the home folder is no project root, as a plain
// folder or as a git checkout (dotfiles), reached directly, from a folder
// below it in the same repository, or through a link; a project below it
// is one.
func TestProjectDirNotHome(t *testing.T) {
	needGit(t)
	base := tempDir(t)
	home := filepath.Join(base, "home")
	mkdirAll(t, filepath.Join(home, "notes"))
	mkdirAll(t, filepath.Join(home, "src", "app"))
	t.Setenv("HOME", home)
	if runtime.GOOS == "windows" {
		t.Setenv("USERPROFILE", home)
	}
	link := filepath.Join(base, "home-link")
	symlink(t, home, link)
	for _, dir := range []string{home, link} {
		if got := mustProjectDir(t, dir); got != "" {
			t.Errorf("ProjectDir(%s) = %q, want none: the home folder is no project", dir, got)
		}
	}
	if got, want := mustProjectDir(t, filepath.Join(home, "notes")), filepath.Join(home, "notes", ".memory"); got != want {
		t.Errorf("outside git, a folder in home: ProjectDir = %q, want %q", got, want)
	}
	git(t, home, "init", "-q") // dotfiles
	git(t, filepath.Join(home, "src", "app"), "init", "-q")
	for _, dir := range []string{home, link, filepath.Join(home, "notes")} {
		if got := mustProjectDir(t, dir); got != "" {
			t.Errorf("in a home that is a git checkout: ProjectDir(%s) = %q, want none", dir, got)
		}
	}
	if got, want := mustProjectDir(t, filepath.Join(home, "src", "app")), filepath.Join(home, "src", "app", ".memory"); got != want {
		t.Errorf("a repository in home: ProjectDir = %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(home, ".memory")); err == nil {
		t.Error("~/.memory was created")
	}
}

// TestCanonicalRootBoundsGitFile: a ".git" file is a line ("gitdir: …");
// one of gigabytes in a directory that did not come from git is not read.
func TestCanonicalRootBoundsGitFile(t *testing.T) {
	const size = 8 << 20
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("gitdir: elsewhere\n")
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := store.CanonicalRoot(dir)
	runtime.ReadMemStats(&after)
	if real, _ := filepath.EvalSymlinks(dir); err != nil || got != real {
		t.Errorf("CanonicalRoot = %q, %v; want %s", got, err, real)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/4 {
		t.Errorf("CanonicalRoot allocated %d bytes beside a %d-byte .git file", alloc, size)
	}
}
