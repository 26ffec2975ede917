package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

var (
	ocmemOnce sync.Once
	ocmemDir  string
	ocmemBin  string
	ocmemErr  error
)

// Ocmem returns the ocmem binary, built from ./cmd/ocmem once per test
// process (the module root is found with `go env GOMOD`). Main deletes it.
func Ocmem(t testing.TB) string {
	t.Helper()
	ocmemOnce.Do(func() {
		var root string
		if root, ocmemErr = moduleRoot(); ocmemErr != nil {
			return
		}
		if ocmemDir, ocmemErr = os.MkdirTemp("", "ocmem-e2e-bin-"); ocmemErr != nil {
			return
		}
		ocmemBin = filepath.Join(ocmemDir, "ocmem")
		if runtime.GOOS == "windows" {
			ocmemBin += ".exe"
		}
		cmd := exec.Command("go", "build", "-o", ocmemBin, "./cmd/ocmem")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			ocmemErr = fmt.Errorf("go build ./cmd/ocmem: %v\n%s", err, out)
		}
	})
	if ocmemErr != nil {
		t.Fatalf("e2e: %v", ocmemErr)
	}
	return ocmemBin
}

// Main runs a package's tests and then deletes what Ocmem and Release
// built; a package of end-to-end tests calls it from its TestMain.
func Main(m *testing.M) {
	code := m.Run()
	RemoveOcmemBuild()
	os.Exit(code)
}

// RemoveOcmemBuild deletes what Ocmem and Release built.
func RemoveOcmemBuild() {
	if ocmemDir != "" {
		os.RemoveAll(ocmemDir)
	}
	removeReleases()
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside a Go module")
	}
	return filepath.Dir(mod), nil
}

// RunOcmem runs the ocmem binary in e.Dir with e's environment (so its
// default roots are the private ~/.config/opencode/memory and the project's
// .memory/) and returns its stdout; a non-zero exit fails the test.
func (e *Env) RunOcmem(args ...string) string {
	e.T.Helper()
	cmd := exec.Command(Ocmem(e.T), args...)
	cmd.Dir = e.Dir
	cmd.Env = e.Environ()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		e.T.Fatalf("ocmem %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return string(out)
}

// InstallOcmem runs `ocmem install` as a user would: it writes the plugin
// into ~/.config/opencode/ocmem/ and registers it in the global config.
// It returns the plugin's path.
func (e *Env) InstallOcmem() string {
	e.T.Helper()
	var res struct {
		Plugin, Config, Bin string
	}
	if err := json.Unmarshal([]byte(e.RunOcmem("install", "--json")), &res); err != nil {
		e.T.Fatal(err)
	}
	if res.Bin != Ocmem(e.T) {
		e.T.Fatalf("ocmem install wrote a plugin running %q, want %q", res.Bin, Ocmem(e.T))
	}
	return res.Plugin
}

// Memory is a memory file written by Remember.
type Memory struct {
	ID, Scope, Path, Kind string
}

// Remember writes a memory with `ocmem remember` (a person writing it) and
// returns where it went. extra are more flags, e.g. "--load-when", "部署".
func (e *Env) Remember(category, kind, summary, body string, extra ...string) Memory {
	e.T.Helper()
	args := append([]string{"remember", "--json", "--category", category, "--kind", kind, "--summary", summary, "--body", body}, extra...)
	var m Memory
	if err := json.Unmarshal([]byte(e.RunOcmem(args...)), &m); err != nil {
		e.T.Fatal(err)
	}
	return m
}

// ServePIDs returns the pids of the `ocmem serve` processes running this
// test binary's ocmem with this Env's HOME (Linux: read from /proc).
func (e *Env) ServePIDs() []int {
	e.T.Helper()
	if runtime.GOOS != "linux" {
		e.T.Skip("ServePIDs reads /proc")
	}
	bin := Ocmem(e.T)
	entries, err := os.ReadDir("/proc")
	if err != nil {
		e.T.Fatal(err)
	}
	var pids []int
	for _, ent := range entries {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", ent.Name(), "cmdline"))
		if err != nil {
			continue
		}
		argv := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		if len(argv) < 2 || argv[0] != bin || argv[1] != "serve" {
			continue
		}
		environ, err := os.ReadFile(filepath.Join("/proc", ent.Name(), "environ"))
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(string(environ), "\x00") {
			if kv == "HOME="+e.Home {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}
