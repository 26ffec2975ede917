//go:build unix

package store_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/store"
)

// mkfifo makes a named pipe. Opening one for reading blocks until a writer
// comes, so every read of a root must check what a path is first.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// within fails the test when fn does not return in time: a read that
// blocks on a pipe would otherwise hang the whole test binary.
func within(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %v (blocked on a named pipe?)", what, d)
	}
}

func TestNamedPipesNeverBlock(t *testing.T) {
	dir := tempDir(t)
	writeFile(t, filepath.Join(dir, "facts", "good.md"), mem("facts/good"))
	mkfifo(t, filepath.Join(dir, "facts", "pipe.md"))
	mkfifo(t, filepath.Join(dir, "pipes", "target"))
	symlink(t, "target", filepath.Join(dir, "pipes", "linked.md")) // a symlink to a pipe, inside the root
	mkfifo(t, filepath.Join(dir, store.RootFile))
	mkfifo(t, filepath.Join(dir, "facts", store.IndexFile))
	mkfifo(t, filepath.Join(dir, store.StateFile))
	r := store.Root{Scope: store.Project, Dir: dir}

	within(t, 5*time.Second, "Load", func() {
		files, problems, err := r.Load()
		if err != nil {
			t.Error(err)
			return
		}
		if len(files) != 1 || files[0].Rel != "facts/good.md" {
			t.Errorf("loaded %v, want facts/good.md only", files)
		}
		got := map[string]string{}
		for _, p := range problems {
			got[p.Rel] = p.Err.Error()
		}
		for _, rel := range []string{"facts/pipe.md", "pipes/linked.md"} {
			if !strings.Contains(got[rel], "not a regular file") {
				t.Errorf("%s: problem %q, want not a regular file", rel, got[rel])
			}
		}
	})
	within(t, 5*time.Second, "ReadRootMD", func() {
		if _, err := r.ReadRootMD(); err == nil || !store.IsNotRegular(err) || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("ReadRootMD of a pipe: %v", err)
		}
	})
	within(t, 5*time.Second, "ReadFile", func() {
		if _, err := r.ReadFile("facts/index.md"); !store.IsNotRegular(err) {
			t.Errorf("ReadFile of a pipe: %v", err)
		}
	})
	within(t, 5*time.Second, "ReadState", func() {
		if s := r.ReadState(); len(s.Hits) != 0 {
			t.Errorf("ReadState of a pipe: %+v", s)
		}
	})
	// A compiled file that is a pipe is replaced, not read.
	within(t, 5*time.Second, "WriteFile", func() {
		if changed, err := r.WriteFile("facts/index.md", []byte("# facts\n")); err != nil || !changed {
			t.Errorf("WriteFile over a pipe: changed %v, %v", changed, err)
		}
	})
	if b, err := os.ReadFile(filepath.Join(dir, "facts", "index.md")); err != nil || string(b) != "# facts\n" {
		t.Errorf("index.md = %q, %v", b, err)
	}
}

// TestSizeCheckedBeforeReading loads a root holding a sparse file of 4 GiB:
// reading it would take seconds and gigabytes, checking its size takes
// nothing.
func TestSizeCheckedBeforeReading(t *testing.T) {
	dir := tempDir(t)
	writeFile(t, filepath.Join(dir, "facts", "good.md"), mem("facts/good"))
	for _, name := range []string{"facts/huge.md", store.RootFile, "facts/" + store.IndexFile} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		writeFile(t, p, mem("facts/huge"))
		if err := os.Truncate(p, 4<<30); err != nil {
			t.Skipf("no sparse files here: %v", err)
		}
	}
	r := store.Root{Scope: store.Project, Dir: dir}
	start := time.Now()
	files, problems, err := r.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || len(problems) != 1 || problems[0].Rel != "facts/huge.md" ||
		!strings.Contains(problems[0].Err.Error(), "file is 4294967296 bytes, over the 262144-byte limit for a memory") {
		t.Errorf("files %v, problems %v", files, problems)
	}
	if _, err := r.ReadRootMD(); err == nil || !strings.Contains(err.Error(), "over the 67108864-byte limit") {
		t.Errorf("ReadRootMD of 4 GiB: %v", err)
	}
	if _, err := r.ReadFile("facts/index.md"); err == nil {
		t.Errorf("ReadFile of 4 GiB: no error")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v: the files were read", d)
	}
}

// TestCanonicalRootGitFIFO: a directory that did not come from git can
// hold a named pipe called .git (or commondir); finding its project root
// must not wait for a writer.
func TestCanonicalRootGitFIFO(t *testing.T) {
	dir := t.TempDir()
	mkfifo(t, filepath.Join(dir, ".git"))
	within(t, 5*time.Second, "CanonicalRoot beside a .git pipe", func() {
		if got, err := store.CanonicalRoot(dir); err != nil {
			t.Errorf("CanonicalRoot: %v", err)
		} else if real, _ := filepath.EvalSymlinks(dir); got != real {
			t.Errorf("CanonicalRoot = %s, want %s", got, real)
		}
	})
	wt, gitDir := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+gitDir+"\n"), 0o644)
	mkfifo(t, filepath.Join(gitDir, "commondir"))
	within(t, 5*time.Second, "CanonicalRoot beside a commondir pipe", func() {
		if _, err := store.CanonicalRoot(wt); err != nil {
			t.Errorf("CanonicalRoot: %v", err)
		}
	})
}
