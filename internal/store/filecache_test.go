package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFileCache: a file is parsed once while it stays the same, and every
// kind of change is seen by the next Get, an edit that keeps the size and
// the modification time included.
func TestFileCache(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.json")
	parses := 0
	c := FileCache[string]{Parse: func(b []byte) (string, error) { parses++; return strings.ToUpper(string(b)), nil }}
	get := func() string {
		t.Helper()
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		v, err := c.Get(p, info)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("one")
	stamp := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(p, stamp, stamp); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if v := get(); v != "ONE" || parses != 1 {
			t.Fatalf("read %d: %q after %d parses, want ONE after 1", i, v, parses)
		}
	}
	steps := []struct {
		name, content string
		keepTime      bool
	}{
		{"longer", "three", false},
		{"same size, time set back", "seven", true},
		{"same size and time", "eight", true},
		{"replaced by a new file", "nine!", true},
	}
	for _, s := range steps {
		if s.name == "replaced by a new file" {
			tmp := p + ".tmp"
			if err := os.WriteFile(tmp, []byte(s.content), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(tmp, stamp, stamp); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, p); err != nil {
				t.Fatal(err)
			}
		} else {
			write(s.content)
			if s.keepTime {
				if err := os.Chtimes(p, stamp, stamp); err != nil {
					t.Fatal(err)
				}
			}
		}
		if v := get(); v != strings.ToUpper(s.content) {
			t.Errorf("%s: %q, want %q", s.name, v, strings.ToUpper(s.content))
		}
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	write("eleven")
	if v := get(); v != "ELEVEN" {
		t.Errorf("removed and written again: %q", v)
	}
}

// TestFileCacheBoundsTheRead: the caller checks a file's status, but the
// file can grow before it is read (a repository's opencode.json rewritten
// by another process); the read stops at Max instead of taking it whole.
func TestFileCacheBoundsTheRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "opencode.json")
	if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	small, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, make([]byte, 8<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	c := FileCache[int]{Parse: func(b []byte) (int, error) { return len(b), nil }, Max: 1 << 10}
	if n, err := c.Get(p, small); err == nil {
		t.Errorf("Get read %d bytes past its 1 KiB limit", n)
	}
}
