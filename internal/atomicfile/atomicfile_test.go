package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
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
	if _, err := Replace(p, []byte("a"), 0o640); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 || read(p) != "a" {
		t.Errorf("new file: mode %v, %q", fi.Mode().Perm(), read(p))
	}
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Replace(p, []byte("b"), 0o644); err != nil {
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
	if _, err := Replace(link, []byte("c"), 0o644); err != nil {
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
	if _, err := Replace(dangling, []byte("d"), 0o644); err == nil {
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

// TestReplaceReadOnlyAndHardLinks: a file its owner made read-only is
// refused and left as it is (a rename over it succeeded, and its mode said
// nothing had changed); a file with another hard link is written in place,
// so both names see the new content (a rename gave the path a new file and
// left the other name with the old one).
func TestReplaceReadOnlyAndHardLinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes and hard links differ on Windows")
	}
	dir := t.TempDir()
	read := func(p string) string { b, _ := os.ReadFile(p); return string(b) }

	ro := filepath.Join(dir, "ro.json")
	if err := os.WriteFile(ro, []byte("mine"), 0o440); err != nil {
		t.Fatal(err)
	}
	if _, err := Replace(ro, []byte("x"), 0o644); !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "0440") {
		t.Errorf("read-only file: %v, want ErrReadOnly naming its mode", err)
	}
	if fi, _ := os.Stat(ro); read(ro) != "mine" || fi.Mode().Perm() != 0o440 {
		t.Errorf("read-only file became %q, mode %v", read(ro), fi.Mode().Perm())
	}

	p, other := filepath.Join(dir, "cfg.json"), filepath.Join(dir, "dotfiles-cfg.json")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(p, other); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	inPlace, err := Replace(p, []byte("new"), 0o644)
	if err != nil || !inPlace {
		t.Fatalf("hard-linked file: in place %v, %v", inPlace, err)
	}
	a, _ := os.Stat(p)
	b, _ := os.Stat(other)
	if !os.SameFile(a, b) || read(other) != "new" || a.Mode().Perm() != 0o600 {
		t.Errorf("the link was cut or the mode changed: same file %v, other reads %q, mode %v", os.SameFile(a, b), read(other), a.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("left %d entries in the folder, want 3 (no temp file)", len(entries))
	}
}
