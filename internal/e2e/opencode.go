// Package e2e is the harness of ocmem's end-to-end tests: it runs the real
// OpenCode binary against a fake model server (internal/fakellm) with the
// ocmem plugin installed, and checks what the model was shown and what
// landed on disk.
//
//	e := e2e.NewEnv(t)            // private HOME, git project, fake provider
//	res := e.Run(ctx, "run", "hi") // opencode run hi
//
// OpenCode itself is installed from npm once into a cache folder the tests
// own (see OpenCode); e2e tests are skipped with -short and fail, not skip,
// when npm is missing, so CI cannot silently run none of them.
//
// The tests are in packages below this one, one per OpenCode line and
// concern, so that each package finishes well within go test's default
// timeout (and go test runs them side by side):
//
//	v1          ocmem in OpenCode 1.x under `opencode run`: tools, injection, worktrees, permissions
//	v1serve     ocmem in a long-lived OpenCode 1.x (`opencode serve`): hand edits, compaction, toasts
//	v2          the same on OpenCode 2, and `ocmem doctor` on both lines
//	extraction  automatic extraction, on both lines
//	npm         ocmem installed from npm through a registry on 127.0.0.1, on both lines
//	tui         OpenCode 2's TUI under tmux: toasts
//	mcp         `ocmem mcp` as OpenCode's MCP server, without the plugin
//	probe       probes of OpenCode's plugin API (OCMEM_E2E_PROBES=1)
//
// Each calls Main from its TestMain. A test may live in this package too
// and use the same names unqualified.
package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// OpenCodeVersion is the OpenCode 1.x release the tests pin.
const OpenCodeVersion = "1.18.33"

// OpenCode2Version is the OpenCode 2.x release the tests pin. Its npm
// packages are platform packages only (@opencode/cli-<os>-<arch>[-baseline],
// one binary each); the launcher package is not on the registry.
const OpenCode2Version = "2.0.15"

// installTimeout bounds the npm install (7 s measured on a warm registry).
const installTimeout = 5 * time.Minute

var (
	opencodeOnce sync.Once
	opencodeBin  string
	opencodeErr  error

	opencode2Once sync.Once
	opencode2Bin  string
	opencode2Err  error

	depsOnce sync.Once
	depsDir  string
	depsErr  error
)

// SkipShort skips the test in -short mode: every e2e test starts OpenCode.
func SkipShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("e2e: skipped in -short mode")
	}
}

// CacheDir is where OpenCode is installed: $OCMEM_E2E_CACHE, else
// <user cache dir>/ocmem-e2e/opencode-<version>.
func CacheDir() (string, error) {
	if d := os.Getenv("OCMEM_E2E_CACHE"); d != "" {
		return filepath.Abs(d)
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "ocmem-e2e", "opencode-"+OpenCodeVersion), nil
}

// OpenCode returns the path of the pinned OpenCode binary, installing it
// with npm on first use. It skips in -short mode and fails when npm is missing.
func OpenCode(t testing.TB) string {
	t.Helper()
	SkipShort(t)
	opencodeOnce.Do(func() {
		// The check runs the binary (1.5 s); remember what it found rather
		// than run it again, moving the path along if the install was renamed.
		var checked, found string
		check := func(prefix string) error {
			bin, err := checkOpenCode(prefix)
			checked, found = prefix, bin
			return err
		}
		var prefix string
		if prefix, opencodeErr = cachedNpmInstall("install", check, "opencode-ai@"+OpenCodeVersion); opencodeErr == nil {
			rel, err := filepath.Rel(checked, found)
			opencodeBin, opencodeErr = filepath.Join(prefix, rel), err
		}
	})
	if opencodeErr != nil {
		t.Fatalf("e2e: OpenCode %s: %v", OpenCodeVersion, opencodeErr)
	}
	return opencodeBin
}

// OpenCode2 returns the path of the pinned OpenCode 2 binary, installing
// it with npm on first use into the same cache as OpenCode (one npm
// install of one 88 MB package, shared by every 2.x test). It skips in
// -short mode and fails when npm is missing.
func OpenCode2(t testing.TB) string {
	t.Helper()
	SkipShort(t)
	opencode2Once.Do(func() {
		// The baseline build runs on any x64 CPU. Only
		// @opencode/cli-linux-x64-baseline was checked on the registry; the
		// other platforms' names follow the same pattern, unchecked.
		pkg := "@opencode/cli-" + nodeOS() + "-" + nodeArch()
		if nodeArch() == "x64" {
			pkg += "-baseline"
		}
		bin := func(prefix string) string {
			exe := "opencode"
			if runtime.GOOS == "windows" {
				exe = "opencode.exe"
			}
			return filepath.Join(prefix, "node_modules", filepath.FromSlash(pkg), "bin", exe)
		}
		var prefix string
		prefix, opencode2Err = cachedNpmInstall("opencode-"+OpenCode2Version, func(prefix string) error {
			return checkVersion(bin(prefix), "opencode v"+OpenCode2Version)
		}, pkg+"@"+OpenCode2Version)
		opencode2Bin = bin(prefix)
	})
	if opencode2Err != nil {
		t.Fatalf("e2e: OpenCode %s: %v", OpenCode2Version, opencode2Err)
	}
	return opencode2Bin
}

func nodeOS() string {
	if runtime.GOOS == "windows" {
		return "windows"
	}
	return runtime.GOOS
}

func nodeArch() string {
	if runtime.GOARCH == "amd64" {
		return "x64"
	}
	return runtime.GOARCH
}

// pluginDeps returns an npm prefix holding @opencode-ai/plugin at
// OpenCode's version: what OpenCode itself installs into a fresh
// ~/.config/opencode on first start (10–30 s, network bound). Env seeds each
// private HOME with it so only tests that ask for a cold start pay that.
func pluginDeps(t testing.TB) string {
	t.Helper()
	depsOnce.Do(func() {
		depsDir, depsErr = cachedNpmInstall("plugin-deps", func(prefix string) error {
			_, err := os.Stat(filepath.Join(prefix, "node_modules", "@opencode-ai", "plugin", "package.json"))
			return err
		}, "--save-exact", "@opencode-ai/plugin@"+OpenCodeVersion)
	})
	if depsErr != nil {
		t.Fatalf("e2e: @opencode-ai/plugin %s: %v", OpenCodeVersion, depsErr)
	}
	return depsDir
}

// cachedNpmInstall runs `npm install args...` into <cache>/name once and
// returns that prefix; check says whether an install is sound.
//
// Concurrent test processes may race: each installs into its own temporary
// sibling and renames it into place. Renaming a directory onto an existing
// non-empty one fails, so the first complete install wins and the others
// throw theirs away; a half-finished install is never visible under the
// final name.
func cachedNpmInstall(name string, check func(prefix string) error, args ...string) (string, error) {
	cache, err := CacheDir()
	if err != nil {
		return "", fmt.Errorf("cache dir: %w", err)
	}
	final := filepath.Join(cache, name)
	if check(final) == nil {
		return final, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("npm not found on PATH: the e2e tests install opencode-ai@%s with npm (install Node.js and npm, or run go test -short to skip them)", OpenCodeVersion)
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(cache, name+"-tmp-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // gone after a successful rename; removes a loser's copy
	// A package.json keeps npm from walking up to an unrelated project.
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), []byte(`{"private":true}`+"\n"), 0o644); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, append([]string{"install", "--no-audit", "--no-fund", "--prefix", tmp}, args...)...)
	cmd.Dir = tmp
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("npm install %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if err := check(tmp); err != nil {
		return "", fmt.Errorf("after npm install %s: %w\nnpm said:\n%s", strings.Join(args, " "), err, out)
	}
	if err := os.Rename(tmp, final); err != nil {
		// Someone else finished first; use theirs if it is sound.
		if check(final) == nil {
			return final, nil
		}
		return "", fmt.Errorf("move install into place: %w", err)
	}
	return final, nil
}

// checkOpenCode finds a binary under an npm prefix that runs and prints
// the pinned version. The platform packages' native binaries come first (no
// launcher in between); a CPU or libc that cannot run one falls through to
// the next, and last to the npm bin link, which the package's postinstall
// points at the right one.
func checkOpenCode(prefix string) (string, error) {
	nm := filepath.Join(prefix, "node_modules")
	exe := "opencode"
	if runtime.GOOS == "windows" {
		exe = "opencode.exe"
	}
	arch := runtime.GOARCH
	if arch == "amd64" {
		arch = "x64"
	}
	pkg := "opencode-" + runtime.GOOS + "-" + arch
	var errs []error
	for _, bin := range []string{
		filepath.Join(nm, pkg, "bin", exe),
		filepath.Join(nm, pkg+"-baseline", "bin", exe),
		filepath.Join(nm, pkg+"-musl", "bin", exe),
		filepath.Join(nm, pkg+"-baseline-musl", "bin", exe),
		filepath.Join(nm, ".bin", exe),
	} {
		if _, err := os.Stat(bin); err != nil {
			continue
		}
		if err := checkVersion(bin, OpenCodeVersion); err != nil {
			errs = append(errs, err)
			continue
		}
		return bin, nil
	}
	if len(errs) == 0 {
		return "", errors.New("no opencode binary under " + nm)
	}
	return "", errors.Join(errs...)
}

// checkVersion runs bin --version and compares what it prints with want.
func checkVersion(bin, want string) error {
	if _, err := os.Stat(bin); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	home, err := os.MkdirTemp("", "ocmem-e2e-version-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_DATA_HOME="+home,
		"XDG_CACHE_HOME="+home, "XDG_STATE_HOME="+home) // never touch the real ~/.config/opencode
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%s --version: %w", bin, err)
	}
	if v := strings.TrimSpace(string(out)); v != want {
		return fmt.Errorf("%s --version printed %q, want %s", bin, v, want)
	}
	return nil
}
