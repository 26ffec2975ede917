package reliability_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/store"
)

// long reports whether the long versions run (OCMEM_LONG=1): more time,
// more kills, more processes. The short versions always run.
func long() bool { return os.Getenv("OCMEM_LONG") == "1" }

func TestMain(m *testing.M) {
	// The test binary doubles as a writer process for TestKilledWriters.
	if root := os.Getenv(envCrashWriter); root != "" {
		os.Exit(crashWriter(root))
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// ocmemBin builds ./cmd/ocmem once per test process.
func ocmemBin(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			binErr = fmt.Errorf("go env GOMOD: %v", err)
			return
		}
		root := filepath.Dir(strings.TrimSpace(string(out)))
		if binDir, binErr = os.MkdirTemp("", "ocmem-reliability-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "ocmem")
		if runtime.GOOS == "windows" {
			binPath += ".exe"
		}
		// Under -race the binary is built with the race detector too, so
		// the concurrent serve and CLI processes are checked as well.
		args := []string{"build", "-o", binPath}
		if raceEnabled {
			args = append(args, "-race")
		}
		cmd := exec.Command("go", append(args, "./cmd/ocmem")...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build ./cmd/ocmem: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// world is one user's machine: a home, an OpenCode config dir (with the
// trust list), a cache, a log, and the two memory roots, all under one
// temporary directory. Nothing reaches the real home of whoever runs the
// tests.
type world struct {
	dir, global, project string
	env                  []string
}

func newWorld(t testing.TB) *world {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &world{dir: d, global: filepath.Join(d, "home", ".config", "opencode", "memory"), project: filepath.Join(d, "repo", ".memory")}
	if err := os.MkdirAll(filepath.Join(d, "repo", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(d, "home")
	vars := map[string]string{
		"HOME": home, "USERPROFILE": home,
		"XDG_CONFIG_HOME":     filepath.Join(home, ".config"),
		"XDG_CACHE_HOME":      filepath.Join(home, ".cache"),
		"OPENCODE_CONFIG_DIR": filepath.Join(home, ".config", "opencode"),
		"OCMEM_GLOBAL":        w.global,
		"OCMEM_PROJECT":       w.project,
		"OCMEM_CACHE_DIR":     filepath.Join(d, "cache"),
		"OCMEM_LOG":           filepath.Join(d, "ocmem.log"),
		"OCMEM_TRUST_FILE":    "",
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := vars[k]; !ok {
			w.env = append(w.env, kv)
		}
	}
	for k, v := range vars {
		w.env = append(w.env, k+"="+v)
	}
	return w
}

// result is what one ocmem run did.
type result struct {
	stdout, stderr string
	code           int
}

// ocmem runs the binary in the world and returns what it did; a run that
// takes over a minute is killed and fails the test.
func (w *world) ocmem(t testing.TB, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, ocmemBin(t), args...)
	cmd.Env = w.env
	cmd.Dir = filepath.Dir(w.project)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("ocmem %s: no answer within a minute (deadlock?)\n%s", strings.Join(args, " "), errb.String())
	}
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("ocmem %s: %v", strings.Join(args, " "), err)
		}
		code = ee.ExitCode()
	}
	return result{out.String(), errb.String(), code}
}

// fileState is what hashTree records of one path.
type fileState struct {
	mode fs.FileMode
	size int64
	data string // regular files' bytes, symlinks' targets
}

// hashTree records every path under dir without following symlinks or
// opening anything but regular files (a named pipe is never opened).
// Modification times are left out: the content and mode are what must not
// change.
func hashTree(t testing.TB, dir string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if err != nil {
			out[rel] = fileState{data: "error: " + err.Error()}
			if d != nil && d.IsDir() && p != dir {
				return fs.SkipDir
			}
			return nil
		}
		info, err := os.Lstat(p)
		if err != nil {
			out[rel] = fileState{data: "error: " + err.Error()}
			return nil
		}
		st := fileState{mode: info.Mode(), size: info.Size()}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			st.data, _ = os.Readlink(p)
		case d.Name() == store.LockFile:
			// Its content counts the root's writes (store/generation.go).
			st.size = 0
		case info.Mode().IsRegular() && info.Mode().Perm()&0o444 != 0:
			if b, err := os.ReadFile(p); err == nil {
				st.data = string(b)
			}
		}
		if info.IsDir() {
			st.size = 0 // directory sizes change with their entries' history
		}
		out[rel] = st
		return nil
	})
	return out
}

// treeDiff lists what differs between two hashTree results.
func treeDiff(before, after map[string]fileState) []string {
	var d []string
	for k, b := range before {
		a, ok := after[k]
		switch {
		case !ok:
			d = append(d, "removed "+k)
		case a != b:
			d = append(d, "changed "+k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			d = append(d, "added "+k)
		}
	}
	sort.Strings(d)
	return d
}

// watchdog fails the test with every goroutine's stack when fn does not
// return within d. A deadlock must fail the test, not hang CI.
func watchdog(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("%s did not finish within %v (deadlock or hang); goroutines:\n%s", what, d, buf)
	}
}
