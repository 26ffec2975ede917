package install

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// isolatedGit points git's global config at a file in a temp dir, so the
// user's own config is never read or written, and returns that file.
func isolatedGit(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "gitconfig"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	return filepath.Join(home, "gitconfig")
}

func TestInstallRegistersMergeDriver(t *testing.T) {
	gitconfig := isolatedGit(t)
	dir := t.TempDir()
	bin := "/opt/my tools/ocmem"

	// Not asked for: the git config is not touched.
	if _, err := Install(Options{ConfigDir: dir, Bin: bin}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(gitconfig); !os.IsNotExist(err) {
		t.Fatalf("install without GitMergeDriver wrote %s: %v", gitconfig, err)
	}

	o := Options{ConfigDir: dir, Bin: bin, GitMergeDriver: true}
	res, err := Install(o)
	if err != nil {
		t.Fatal(err)
	}
	want := "'/opt/my tools/ocmem' merge-driver %O %A %B %P"
	if d := res.MergeDriver; d == nil || !d.Changed || d.Command != want {
		t.Fatalf("first install: %+v", d)
	}
	if got, _ := gitConfigGet("merge.ocmem.driver"); got != want {
		t.Errorf("merge.ocmem.driver = %q, want %q", got, want)
	}
	if !strings.Contains(strings.Join(res.Lines(), "\n"), "registered the git merge driver") {
		t.Errorf("Lines do not say so: %q", res.Lines())
	}
	again, err := Install(o)
	if err != nil || again.MergeDriver == nil || again.MergeDriver.Changed {
		t.Errorf("second install: %+v, %v", again.MergeDriver, err)
	}
	// A moved binary updates the driver.
	moved, err := Install(Options{ConfigDir: dir, Bin: "/usr/local/bin/ocmem", GitMergeDriver: true})
	if err != nil || !moved.MergeDriver.Changed {
		t.Errorf("install from a moved binary: %+v, %v", moved.MergeDriver, err)
	}
	if got, _ := gitConfigGet("merge.ocmem.driver"); got != "/usr/local/bin/ocmem merge-driver %O %A %B %P" {
		t.Errorf("after a move: merge.ocmem.driver = %q", got)
	}

	// A project uninstall keeps it; a global one removes it, once.
	if un, err := Uninstall(Options{ConfigDir: dir, GitMergeDriver: true, Project: true, Dir: t.TempDir()}); err != nil || un.MergeDriver != nil {
		t.Errorf("project uninstall: %+v, %v", un, err)
	}
	un, err := Uninstall(o)
	if err != nil || un.MergeDriver == nil || !un.MergeDriver.Changed {
		t.Fatalf("uninstall: %+v, %v", un, err)
	}
	if got, _ := gitConfigGet("merge.ocmem.driver"); got != "" {
		t.Errorf("after uninstall: merge.ocmem.driver = %q", got)
	}
	// The global git config held only the driver: no empty file is left.
	if _, err := os.Stat(gitconfig); !os.IsNotExist(err) {
		b, _ := os.ReadFile(gitconfig)
		t.Errorf("uninstall left %s (%q)", gitconfig, b)
	}
	if un, err := Uninstall(o); err != nil || un.MergeDriver.Changed {
		t.Errorf("second uninstall: %+v, %v", un.MergeDriver, err)
	}
}
