//go:build linux

package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The raw directory reading finds the same folders as os.File.ReadDir: in
// a folder of many entries (several reads of the kernel's entries), with
// files, a dot folder and a link to a folder among them.
func TestSubfoldersMatchReadDir(t *testing.T) {
	root := t.TempDir()
	for i := range 1500 {
		name := filepath.Join(root, fmt.Sprintf("memory-with-a-long-name-%04d.md", i))
		if i%500 == 0 {
			if err := os.Mkdir(filepath.Join(root, fmt.Sprintf("folder-%04d", i)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(name, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{".hidden", "é-folder", "a"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "link-to-a")); err != nil {
		t.Fatal(err)
	}
	got, want := subfolders(root), readSubfolders(root)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) || len(want) != 5 {
		t.Errorf("subfolders = %q,\nReadDir finds %q (want 5)", got, want)
	}
	if got := subfolders(filepath.Join(root, "missing")); got != nil {
		t.Errorf("a missing folder has subfolders %q", got)
	}
}

// FuzzParseDirent: whatever bytes it is given, parseDirent stays within
// them and never reports a record longer than the buffer.
func FuzzParseDirent(f *testing.F) {
	f.Add([]byte("\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x18\x00\x04abc\x00\x00\x00\x00\x00"))
	f.Add([]byte{})
	f.Add(make([]byte, 19))
	f.Fuzz(func(t *testing.T, b []byte) {
		name, _, reclen, ok := parseDirent(b)
		if ok && (reclen > len(b) || reclen < 19 || len(name) > reclen) {
			t.Errorf("record %d bytes, name %d, of %d", reclen, len(name), len(b))
		}
	})
}
