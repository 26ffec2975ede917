package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// GlobalDir returns the default global root:
// $OPENCODE_CONFIG_DIR/memory, else $XDG_CONFIG_HOME/opencode/memory, else
// ~/.config/opencode/memory (on every OS, as OpenCode itself does).
func GlobalDir() (string, error) {
	cfg, err := OpenCodeConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cfg, "memory"), nil
}

// OpenCodeConfigDir returns OpenCode's global configuration directory.
func OpenCodeConfigDir() (string, error) {
	if d := os.Getenv("OPENCODE_CONFIG_DIR"); d != "" {
		return filepath.Abs(d)
	}
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "opencode"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errors.New("cannot find the home directory; set OCMEM_GLOBAL or --global")
	}
	return filepath.Join(home, ".config", "opencode"), nil
}

// ProjectDir returns the project root for a working directory: the .memory
// folder of its canonical project root; "" when that is the home folder
// (IsHome).
func ProjectDir(dir string) (string, error) {
	root, err := CanonicalRoot(dir)
	if err != nil {
		return "", err
	}
	if IsHome(root) {
		return "", nil
	}
	return filepath.Join(root, ".memory"), nil
}

// IsHome reports whether dir is the user's home folder, which is never a
// project root: OpenCode runs there without being asked to (OpenCode 2's
// background service starts in $HOME), a dotfiles repository makes it a
// git checkout, and a ~/.memory would then collect every project's
// memories, to be committed with the dotfiles. The global root is where
// memories of no one project belong.
func IsHome(dir string) bool {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || dir == "" {
		return false
	}
	a, err := os.Stat(dir)
	if err != nil {
		return false
	}
	b, err := os.Stat(home)
	return err == nil && os.SameFile(a, b)
}

// CanonicalRoot returns the main checkout of the git repository holding dir,
// the same for every worktree of it: the parent of the common git directory.
// A submodule's root is its own work tree. Outside git, dir itself (made
// absolute) is the root. It reads .git files directly rather than running
// git, so it works where git is not installed and costs no process.
func CanonicalRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for d := abs; ; {
		gitPath := filepath.Join(d, ".git")
		info, err := os.Stat(gitPath)
		if err == nil {
			if info.IsDir() {
				return d, nil
			}
			if main, ok := mainCheckout(d, gitPath); ok {
				return main, nil
			}
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return abs, nil
		}
		d = parent
	}
}

// maxGitLinkSize bounds a ".git" file and a "commondir": a path on a line.
const maxGitLinkSize = 64 << 10

// mainCheckout follows a ".git" file ("gitdir: <path>") of a linked worktree
// to its common directory ("commondir" inside the worktree's git dir) and
// returns the main checkout, the parent of that common directory.
func mainCheckout(workTree, gitFile string) (string, bool) {
	// Both files are a line long; a directory that did not come from git
	// can hold anything under these names (a FIFO, gigabytes).
	b, _, err := readRegular(gitFile, maxGitLinkSize)
	if err != nil {
		return "", false
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	gitDir, ok := strings.CutPrefix(strings.TrimSpace(string(line)), "gitdir:")
	if !ok {
		return "", false
	}
	gitDir = strings.TrimSpace(gitDir)
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(workTree, gitDir)
	}
	cd, _, err := readRegular(filepath.Join(gitDir, "commondir"), maxGitLinkSize)
	if err != nil {
		return "", false // a submodule: its git dir has no commondir
	}
	common := strings.TrimSpace(string(cd))
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitDir, common)
	}
	common = filepath.Clean(common)
	if real, err := filepath.EvalSymlinks(common); err == nil {
		common = real
	}
	if filepath.Base(common) != ".git" {
		return "", false // a bare repository's worktree: no main checkout
	}
	return filepath.Dir(common), true
}
