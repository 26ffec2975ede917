package mergedriver

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/store"
)

func writeString(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMergeFile runs the merge driver on files, as git runs it.
func TestMergeFile(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		writeString(t, p, content)
		return p
	}
	// Any file but ROOT.md and index.md merges as plain text.
	o, a, b := file("o", "a\nb\nc\n"), file("a", "a\nB1\nc\n"), file("b", "a\nB2\nc\n")
	conflict, err := MergeFile(o, a, b, ".memory/facts/x.md")
	if err != nil || !conflict {
		t.Fatalf("text merge: conflict %v, error %v", conflict, err)
	}
	if got := readString(t, a); got != "a\n<<<<<<< ours\nB1\n=======\nB2\n>>>>>>> theirs\nc\n" {
		t.Errorf("text merge result:\n%s", got)
	}
	// index.md: a union merge.
	o, a, b = file("o", "x\n"), file("a", "x\n- [a](a.md)\n"), file("b", "x\n- [b](b.md)\n")
	if conflict, err := MergeFile(o, a, b, "facts/index.md"); err != nil || conflict {
		t.Fatalf("index merge: conflict %v, error %v", conflict, err)
	}
	if got := readString(t, a); got != "x\n- [a](a.md)\n- [b](b.md)\n" {
		t.Errorf("index merge result:\n%s", got)
	}
	// A git failure is an error, not a conflict.
	if _, err := MergeFile(filepath.Join(dir, "missing"), a, b, "ROOT.md"); err == nil {
		t.Error("a missing base: no error")
	}
	if _, err := os.Stat(a); err != nil {
		t.Fatal(err)
	}
}

func TestCommand(t *testing.T) {
	for bin, want := range map[string]string{
		"/usr/local/bin/ocmem":           "/usr/local/bin/ocmem merge-driver %O %A %B %P",
		"/Users/a b/bin/ocmem":           "'/Users/a b/bin/ocmem' merge-driver %O %A %B %P",
		`C:\Program Files\ocmem.exe`:     `'C:\Program Files\ocmem.exe' merge-driver %O %A %B %P`,
		"/opt/it's/ocmem":                `'/opt/it'\''s/ocmem' merge-driver %O %A %B %P`,
		"C:/Users/bob/go/bin/ocmem.exe":  "C:/Users/bob/go/bin/ocmem.exe merge-driver %O %A %B %P",
		"/home/x/.local/bin/ocmem$HOME`": "'/home/x/.local/bin/ocmem$HOME`' merge-driver %O %A %B %P",
	} {
		if got := Command(bin); got != want {
			t.Errorf("Command(%q) = %q, want %q", bin, got, want)
		}
	}
}

// TestMergeFileBoundsItsInput: the versions git hands the driver are a
// repository's files from any branch; one over store.MaxReadSize is
// refused before it is read (git then leaves the file conflicted), and
// ours is left as it was. Earlier the driver read each version whole.
func TestMergeFileBoundsItsInput(t *testing.T) {
	dir := t.TempDir()
	o, a := filepath.Join(dir, "o"), filepath.Join(dir, "a")
	writeString(t, o, "# Memory\n")
	writeString(t, a, "# Memory\nours\n")
	b := filepath.Join(dir, "b")
	f, err := os.Create(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(store.MaxReadSize + 1); err != nil { // sparse
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = MergeFile(o, a, b, ".memory/ROOT.md")
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("MergeFile: %v, want a refusal naming the limit", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("MergeFile allocated %d bytes before refusing", alloc)
	}
	if got := readString(t, a); got != "# Memory\nours\n" {
		t.Errorf("ours became %q", got)
	}
}
