package reliability_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestDiskFullAfterTheMemoryIsWritten fills a small tmpfs (mounting needs
// root; skipped otherwise) so that the memory file fits and the compiled
// files do not: remember exits 0 and says "written; index not updated";
// a retry writes no second copy; once space is back, compile catches up
// and inspect is clean.
func TestDiskFullAfterTheMemoryIsWritten(t *testing.T) {
	w := newWorld(t)
	mnt := filepath.Join(w.dir, "small")
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=256k"); err != nil {
		t.Skipf("cannot mount a tmpfs (needs root): %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })
	w.project = filepath.Join(mnt, ".memory")
	for i, kv := range w.env {
		if strings.HasPrefix(kv, "OCMEM_PROJECT=") {
			w.env[i] = "OCMEM_PROJECT=" + w.project
		}
	}
	if r := w.ocmem(t, "", "remember", "--category", "facts", "--kind", "fact", "--summary", "an existing memory", "--body", "Seed."); r.code != 0 {
		t.Fatal(r.stderr)
	}
	// Fill the disk, then free one page: room for the memory file, none
	// for the index.md and ROOT.md that compile writes next.
	filler := filepath.Join(mnt, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	st, _ := f.Stat()
	if err := f.Truncate(st.Size() - 4096); err != nil {
		t.Fatal(err)
	}
	f.Close()

	args := []string{"remember", "--category", "facts", "--kind", "fact", "--summary", "kafka retention is per partition", "--body", "Segments go per partition."}
	r := w.ocmem(t, "", args...)
	if r.code != 0 || !strings.Contains(r.stderr, "warning: written; index not updated (") || !strings.Contains(r.stderr, "no space left on device") {
		t.Fatalf("remember on a full disk: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	mem := filepath.Join(w.project, "facts", "kafka-retention-per-partition.md")
	if _, err := os.Stat(mem); err != nil {
		t.Fatalf("the memory is not on disk: %v", err)
	}
	if r := w.ocmem(t, "", args...); r.code == 0 || !strings.Contains(r.stderr, "has this summary and body already") {
		t.Errorf("a retry: exit %d, %s; want it refused as a duplicate", r.code, r.stderr)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if r := w.ocmem(t, "", "compile"); r.code != 0 {
		t.Fatalf("compile: %s", r.stderr)
	}
	if r := w.ocmem(t, "", "inspect"); r.code != 0 || !strings.Contains(r.stdout, "OK") {
		t.Errorf("inspect after compile: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	idx, _ := os.ReadFile(filepath.Join(w.project, "facts", "index.md"))
	if !strings.Contains(string(idx), "kafka-retention-per-partition") {
		t.Errorf("index.md after compile:\n%s", idx)
	}
}
