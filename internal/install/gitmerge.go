package install

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ocmem/ocmem/internal/mergedriver"
)

// The git merge driver
//
// Every memory root's .gitattributes sends ROOT.md to the merge driver
// "ocmem" (see internal/store/gitfiles.go). Git reads a driver's command
// from its config only, never from the repository, so install registers it
// in the user's global git config:
//
//	[merge "ocmem"]
//		name = ocmem: regenerate compiled sections of ROOT.md
//		driver = /path/to/ocmem merge-driver %O %A %B %P
//
// Without it git merges ROOT.md as text, and the next `ocmem compile`
// resolves a conflict left in its compiled tables; with it, no such
// conflict arises. Install runs `git config --global`, so HOME (or
// GIT_CONFIG_GLOBAL) decides which file; tests point both at a temp dir.

const mergeDriverName = "ocmem: regenerate compiled sections of ROOT.md"

// MergeDriverStatus is the git side of an install.
type MergeDriverStatus struct {
	Command string `json:"command,omitempty"` // merge.ocmem.driver as registered
	Changed bool   `json:"changed"`           // the git config was changed
	Skipped string `json:"skipped,omitempty"` // why nothing was registered
}

// git runs git with args and returns its trimmed standard output.
func git(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// gitConfigGet returns a global config value, "" when it is not set.
func gitConfigGet(key string) (string, error) {
	out, err := git("config", "--global", "--get", key)
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 { // the key is not set
		return "", nil
	}
	return out, err
}

// registerMergeDriver makes merge.ocmem run bin. Without git on the PATH
// there is nothing to register; that is not an error.
func registerMergeDriver(bin string) (*MergeDriverStatus, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return &MergeDriverStatus{Skipped: "git is not installed"}, nil
	}
	st := &MergeDriverStatus{Command: mergedriver.Command(bin)}
	for _, kv := range [][2]string{{"merge.ocmem.name", mergeDriverName}, {"merge.ocmem.driver", st.Command}} {
		have, err := gitConfigGet(kv[0])
		if err != nil {
			return nil, err
		}
		if have == kv[1] {
			continue
		}
		if _, err := git("config", "--global", kv[0], kv[1]); err != nil {
			return nil, err
		}
		st.Changed = true
	}
	return st, nil
}

// unregisterMergeDriver removes merge.ocmem from the global git config.
func unregisterMergeDriver() (*MergeDriverStatus, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return &MergeDriverStatus{Skipped: "git is not installed"}, nil
	}
	have, err := gitConfigGet("merge.ocmem.driver")
	if err != nil {
		return nil, err
	}
	name, err := gitConfigGet("merge.ocmem.name")
	if err != nil {
		return nil, err
	}
	if have == "" && name == "" {
		return &MergeDriverStatus{}, nil
	}
	if _, err := git("config", "--global", "--remove-section", "merge.ocmem"); err != nil {
		return nil, err
	}
	removeEmptyGlobalGitConfig()
	return &MergeDriverStatus{Command: have, Changed: true}, nil
}

// removeEmptyGlobalGitConfig removes the global git config file when
// taking the merge driver out left it empty: install may have created it
// for the driver alone.
func removeEmptyGlobalGitConfig() {
	var paths []string
	if p := os.Getenv("GIT_CONFIG_GLOBAL"); p != "" {
		paths = append(paths, p)
	} else {
		if home, err := os.UserHomeDir(); err == nil {
			paths = append(paths, filepath.Join(home, ".gitconfig"))
		}
		if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
			paths = append(paths, filepath.Join(x, "git", "config"))
		}
	}
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil && len(bytes.TrimSpace(b)) == 0 {
			os.Remove(p)
		}
	}
}

// MergeDriver reports the merge driver registered in the global git config
// ("" when none) and whether it runs bin; without git, why not.
func MergeDriver(bin string) (command string, current bool, skipped string) {
	if _, err := exec.LookPath("git"); err != nil {
		return "", false, "git is not installed"
	}
	have, err := gitConfigGet("merge.ocmem.driver")
	if err != nil {
		return "", false, err.Error()
	}
	return have, have != "" && have == mergedriver.Command(bin), ""
}
