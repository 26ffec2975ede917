package engine

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
)

// TestCacheSeesEditsThatKeepSizeAndTime: an edit that keeps a file's size
// and modification time (cp -p, rsync -t, tar, unzip, a coarse-time
// filesystem) is seen by a new process, which reads the load cache; and by
// Compile and Inspect.
func TestCacheSeesEditsThatKeepSizeAndTime(t *testing.T) {
	t.Setenv("OCMEM_CACHE_DIR", t.TempDir())
	rs := newRoots(t)
	w := mustRemember(t, rs.engine(options.Options{}), RememberRequest{Category: "facts", Kind: memory.KindFact,
		Summary: "kafka retention is seven days", LoadWhen: []string{"kafka"}})
	summary := func(e *Engine) string {
		t.Helper()
		s, err := e.Load()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range s.Files() {
			if f.Memory.ID == w.ID {
				return f.Memory.Summary
			}
		}
		t.Fatalf("%s is not loaded", w.ID)
		return ""
	}
	if got := summary(rs.engine(options.Options{})); got != "kafka retention is seven days" {
		t.Fatalf("first load: %q", got)
	}
	edit := func(from, to string, replace bool) {
		t.Helper()
		info, err := os.Stat(w.Path)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(w.Path)
		next := strings.Replace(string(data), from, to, 1)
		if len(next) != len(data) {
			t.Fatal("the edit changes the size")
		}
		if replace {
			// as rsync -t and unzip do: a new file renamed over the old
			tmp := w.Path + ".new"
			if err := os.WriteFile(tmp, []byte(next), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(tmp, info.ModTime(), info.ModTime()); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, w.Path); err != nil {
				t.Fatal(err)
			}
		} else {
			// as cp -p onto the file does: written in place, time restored
			if err := os.WriteFile(w.Path, []byte(next), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(w.Path, info.ModTime(), info.ModTime()); err != nil {
				t.Fatal(err)
			}
		}
		if after, _ := os.Stat(w.Path); after.Size() != info.Size() || !after.ModTime().Equal(info.ModTime()) {
			t.Fatal("the edit changed the size or the time")
		}
	}
	time.Sleep(10 * time.Millisecond) // a change time the edit can differ from
	edit("seven days", "three days", false)
	if got := summary(rs.engine(options.Options{})); got != "kafka retention is three days" {
		t.Errorf("a new process after an edit in place: %q, want the edit", got)
	}
	edit("three days", "eight days", true)
	if got := summary(rs.engine(options.Options{})); got != "kafka retention is eight days" {
		t.Errorf("a new process after a replacing edit: %q, want the edit", got)
	}
	edit("eight days", "forty days", false)
	e := rs.engine(options.Options{})
	if _, err := e.Compile(); err != nil {
		t.Fatal(err)
	}
	if idx := readString(t, rs.project+"/facts/index.md"); !strings.Contains(idx, "forty days") {
		t.Errorf("compile wrote a stale index:\n%s", idx)
	}
	if got := summary(rs.engine(options.Options{})); got != "kafka retention is forty days" {
		t.Errorf("after compile: %q", got)
	}
}
