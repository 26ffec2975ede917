package serve

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A root's every folder is watched, however deep, and no folder the loader
// skips: one whose name starts with a dot, with what it holds, or a link to
// a folder.
func TestWatcherAddsEveryFolder(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"facts", "guides/deploy/staging/eu", "guides/ops", ".git/objects", "guides/.drafts/x"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 600 { // more than one batch of directory entries
		if err := os.WriteFile(filepath.Join(root, "facts", fmt.Sprintf("m%03d.md", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "guides"), filepath.Join(root, "facts", "link")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	w := newWatcher(slog.New(slog.NewTextHandler(io.Discard, nil)), func(string, string) {})
	defer w.close()
	if w.fsw == nil {
		t.Skip("no file watching on this platform")
	}
	w.add(root)
	var got []string
	for d := range w.dirs {
		rel, err := filepath.Rel(root, d)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, filepath.ToSlash(rel))
	}
	slices.Sort(got)
	want := []string{".", "facts", "guides", "guides/deploy", "guides/deploy/staging", "guides/deploy/staging/eu", "guides/ops"}
	if !slices.Equal(got, want) {
		t.Errorf("watched %q, want %q", got, want)
	}
}

// BenchmarkWatchRoot is what watching a root costs serve's first request: a
// root of 20,000 memories in five folders, one nested.
func BenchmarkWatchRoot(b *testing.B) {
	root := b.TempDir()
	for c, d := range []string{"facts", "decisions", "pitfalls", "rules", "guides/deploy"} {
		dir := filepath.Join(root, filepath.FromSlash(d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for i := range 4000 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("m%d%05d.md", c, i)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b.ReportAllocs()
	for b.Loop() {
		w := newWatcher(log, func(string, string) {})
		w.add(root)
		if len(w.dirs) != 7 {
			b.Fatalf("%d folders watched, want 7", len(w.dirs))
		}
		w.close()
	}
}
