package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestReplace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes and symlinks differ on Windows")
	}
	dir := t.TempDir()
	read := func(p string) string { b, _ := os.ReadFile(p); return string(b) }

	// A new file gets perm; an existing one keeps its mode.
	p := filepath.Join(dir, "new.json")
	if err := Replace(p, []byte("a"), 0o640); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 || read(p) != "a" {
		t.Errorf("new file: mode %v, %q", fi.Mode().Perm(), read(p))
	}
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Replace(p, []byte("b"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 || read(p) != "b" {
		t.Errorf("existing file: mode %v, %q", fi.Mode().Perm(), read(p))
	}

	// Through a link: the target is written, the link kept.
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	if err := Replace(link, []byte("c"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 || read(p) != "c" {
		t.Errorf("link: %v, target %q", fi.Mode(), read(p))
	}

	// A dangling link is refused and nothing is written.
	dangling := filepath.Join(dir, "dangling.json")
	if err := os.Symlink(filepath.Join(dir, "missing", "x.json"), dangling); err != nil {
		t.Fatal(err)
	}
	if err := Replace(dangling, []byte("d"), 0o644); err == nil {
		t.Error("a dangling link was written through")
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); err == nil {
		t.Error("writing through a dangling link created its folder")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("left %d entries in the folder, want 3 (no temp file)", len(entries))
	}
}

// WriteUnsynced replaces a file whole and leaves no temp file.
func TestWriteUnsynced(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "log.json")
	for _, data := range []string{"[\"a\"]", "[\"a\",\"b\"]"} {
		if err := WriteUnsynced(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(p); err != nil || string(got) != data {
			t.Fatalf("read %q %v, want %q", got, err, data)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the folder holds %d files, want only the log", len(entries))
	}
}
