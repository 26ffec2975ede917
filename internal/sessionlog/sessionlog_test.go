package sessionlog

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// A log is kept on disk under the cache directory, one file per session
// whatever its id, and survives reopening until Reset.
func TestLog(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("OCMEM_CACHE_DIR", cache)
	if d, err := Dir(); err != nil || d != filepath.Join(cache, "sessions") {
		t.Fatalf("Dir = %q, %v", d, err)
	}
	l, err := Open("ses_1/../../x")
	if err != nil {
		t.Fatal(err)
	}
	if l.Seen("global:a@1") || l.Len() != 0 {
		t.Fatalf("a new log has seen something: %d", l.Len())
	}
	if err := l.Add(); err != nil {
		t.Fatal(err)
	}
	if err := l.Add("global:a@1", "project:b@2", "global:a@1"); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(cache, "sessions", "*.json"))
	if len(files) != 1 {
		t.Fatalf("want one log file in the sessions folder, got %v", files)
	}
	again, err := Open("ses_1/../../x")
	if err != nil {
		t.Fatal(err)
	}
	if !again.Seen("global:a@1") || !again.Seen("project:b@2") || again.Seen("global:a@2") || again.Len() != 2 {
		t.Errorf("reopened log: %d entries", again.Len())
	}
	if err := again.Add("global:a@3", "project:c/d@x@4"); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(again.Given()); got != "[global:a project:b project:c/d@x]" {
		t.Errorf("Given = %s: each memory once, without its digest", got)
	}
	if other, _ := Open("ses_2"); other.Seen("global:a@1") {
		t.Error("another session sees the first one's memories")
	}
	if err := again.Reset(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(files[0]); !os.IsNotExist(err) {
		t.Errorf("Reset left the file: %v", err)
	}
	if err := again.Reset(); err != nil {
		t.Errorf("Reset of a log with no file: %v", err)
	}
	if third, _ := Open("ses_1/../../x"); third.Len() != 0 {
		t.Errorf("after Reset, reopened log has %d entries", third.Len())
	}
}
