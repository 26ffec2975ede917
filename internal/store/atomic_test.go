package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteAtomicErrorsNameTheStep checks that a failed write says which
// step failed and leaves neither the file nor a temp file behind.
func TestWriteAtomicErrorsNameTheStep(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, path, want string
	}{
		{"missing directory", filepath.Join(dir, "absent", "a.md"), "create temp file: "},
		{"target is a directory", filepath.Join(dir, "sub"), "rename temp file into place: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "target is a directory" {
				if err := os.MkdirAll(filepath.Join(tc.path, "x"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			err := writeAtomic(tc.path, []byte("data"))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("writeAtomic(%s) = %v, want an error starting %q", tc.path, err, tc.want)
			}
			left, _ := filepath.Glob(filepath.Join(filepath.Dir(tc.path), ".*.tmp"))
			if len(left) != 0 {
				t.Errorf("temp files left behind: %v", left)
			}
		})
	}
}
