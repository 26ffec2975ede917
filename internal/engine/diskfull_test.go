package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/store"
)

// TestWrittenButIndexNotUpdated: when the memory is on disk but the
// compiled files cannot be written (a full disk; here facts/index.md is a
// folder, which fails the same step on every OS), Remember and Forget
// succeed with a warning instead of failing, so a caller does not write
// the memory again; the next compile catches up.
func TestWrittenButIndexNotUpdated(t *testing.T) {
	rs := newRoots(t)
	e := rs.engine(options.Options{})
	mustRemember(t, e, RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "an existing memory"})
	index := filepath.Join(rs.project, "facts", store.IndexFile)
	if err := os.Remove(index); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(index, "blocker"), 0o755); err != nil {
		t.Fatal(err)
	}
	req := RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "kafka retention is per partition", Body: "Segments go per partition."}
	w, err := e.Remember(req)
	if err != nil {
		t.Fatalf("Remember: %v, want success with a warning", err)
	}
	if !strings.HasPrefix(w.Warning, "written; index not updated (") || !strings.Contains(w.Warning, "ocmem compile") {
		t.Errorf("Warning = %q", w.Warning)
	}
	if _, err := os.Stat(w.Path); err != nil {
		t.Errorf("the memory is not on disk: %v", err)
	}
	// A caller that retries anyway writes no second copy.
	if _, err := e.Remember(req); !errors.Is(err, ErrDuplicate) {
		t.Errorf("retry: %v, want ErrDuplicate", err)
	}
	f, err := e.Forget(store.Project, w.ID, FromPerson)
	if err != nil || !strings.HasPrefix(f.Warning, "deleted; index not updated") {
		t.Errorf("Forget: %+v, %v; want success with a warning", f, err)
	}
	// Space is back: compile catches up.
	if err := os.RemoveAll(index); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Compile(); err != nil {
		t.Fatal(err)
	}
	rep, err := e.Inspect()
	if err != nil || !rep.OK() {
		t.Errorf("after compile: %v\n%s", err, strings.Join(issueStrings(t, rep), "\n"))
	}
}
