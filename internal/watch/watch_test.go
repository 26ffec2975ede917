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

	"github.com/ocmem/ocmem/internal/store"
)

// A root's every folder is watched, however deep, once a load listed it,
// and no folder the loader skips: one whose name starts with a dot, with
// what it holds, or a link to a folder. The folders of a root that is not
// watched are not.
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
	scan := func() {
		t.Helper()
		if _, _, err := (store.Root{Scope: store.Project, Dir: root}).ScanWatching(func(d string) { w.Folder(root, d) }); err != nil {
			t.Fatal(err)
		}
	}
	scan()
	if len(w.dirs) != 0 {
		t.Errorf("watching %d folders of a root not added", len(w.dirs))
	}
	w.Add(root)
	scan()
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

// A file written in a folder made after the root was listed is seen: the
// new folder is watched at once and the root reported changed, so that
// its next load lists it and tells of its folders.
func TestWatcherSeesNewFolders(t *testing.T) {
	root := t.TempDir()
	changed := make(chan [2]string, 100)
	w := New(slog.New(slog.DiscardHandler), func(root, path string) { changed <- [2]string{root, path} })
	defer w.Close()
	if w.fsw == nil {
		t.Skip("no file watching on this platform")
	}
	w.Add(root)
	next := func(what string) [2]string {
		t.Helper()
		select {
		case c := <-changed:
			return c
		case <-time.After(10 * time.Second):
			t.Fatalf("no event for %s", what)
		}
		return [2]string{}
	}
	dir := filepath.Join(root, "facts")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if c := next("the new folder"); c != [2]string{root, ""} {
		t.Errorf("a new folder reported as %q, want the whole root", c)
	}
	file := filepath.Join(dir, "a.md")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := next("a file in the new folder"); c != [2]string{root, file} {
		t.Errorf("a file in the new folder reported as %q, want %q", c, file)
	}
}

// BenchmarkWatchRoot is what watching a root costs serve's first request
// besides the load that lists it: a root of 20,000 memories in five
// folders, one nested, watched as a load tells of them.
func BenchmarkWatchRoot(b *testing.B) {
	root := b.TempDir()
	var dirs []string
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
		dirs = append(dirs, dir)
	}
	dirs = append(dirs, filepath.Join(root, "guides"))
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b.ReportAllocs()
	for b.Loop() {
		w := New(log, func(string, string) {})
		w.Add(root)
		for _, d := range dirs {
			w.Folder(root, d)
		}
		if len(w.dirs) != 7 {
			b.Fatalf("%d folders watched, want 7", len(w.dirs))
		}
		b.StopTimer() // closing waits for the kernel to drop the watches: not serve's first request
		w.Close()
		b.StartTimer()
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
