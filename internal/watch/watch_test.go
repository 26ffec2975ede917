package watch

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
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
	w := New(slog.New(slog.NewTextHandler(io.Discard, nil)), func(string, string) {})
	defer w.Close()
	if w.fsw == nil {
		t.Skip("no file watching on this platform")
	}
	w.Add(root)
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
		w := New(log, func(string, string) {})
		w.Add(root)
		if len(w.dirs) != 7 {
			b.Fatalf("%d folders watched, want 7", len(w.dirs))
		}
		w.Close()
	}
}

// Polling sees an edit that keeps a file's size and modification time
// (cp -p, rsync -t), as the load cache does.
func TestPollingSeesEditsThatKeepSizeAndTime(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("files are stamped by content there, which polling does not read")
	}
	p := t.TempDir()
	file := filepath.Join(p, "facts", "a.md")
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte("---\nid: facts/a\nkind: fact\nsummary: seven days\n---\n"), 0o644)
	w := New(slog.New(slog.DiscardHandler), func(string, string) {})
	defer w.Close()
	w.PollChanged(p)
	if w.PollChanged(p) {
		t.Fatal("nothing changed, yet polling says so")
	}
	info, _ := os.Stat(file)
	time.Sleep(10 * time.Millisecond)
	os.WriteFile(file, []byte("---\nid: facts/a\nkind: fact\nsummary: three days\n---\n"), 0o644)
	os.Chtimes(file, info.ModTime(), info.ModTime())
	if !w.PollChanged(p) {
		t.Error("an edit that kept the size and the time was not seen")
	}
}
