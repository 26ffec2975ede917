package engine

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/testenv"
)

// TestStalenessDevSet holds the lint to the development set: real memories
// written to sync, which name ~/ paths, main and feature branches as
// conventions, and "正在做什么" as an example. It warns on none of them.
func TestStalenessDevSet(t *testing.T) {
	dir := *devSet
	e := New(Config{GlobalDir: filepath.Join(dir, "global"), ProjectDir: filepath.Join(dir, "project")})
	s, err := e.Load()
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() == 0 {
		testenv.Missing(t, "development set not found in %s", dir)
	}
	const maxWarnings = 0 // measured: 0 of the set's memories
	var warned []string
	for _, f := range s.Files() {
		for _, st := range memory.SyncHazards(f.Memory) {
			warned = append(warned, f.Memory.ID+": "+st.What+" "+st.Text)
		}
	}
	t.Logf("%d memories, %d sync-staleness warnings", s.Len(), len(warned))
	if len(warned) > maxWarnings {
		t.Errorf("%d warnings on the development set, want at most %d:\n%s", len(warned), maxWarnings, strings.Join(warned, "\n"))
	}
}

// TestStalenessLinesFromCache: a fresh process could load unchanged
// memories from the load cache, which keeps no frontmatter lines; Inspect
// loads fresh, so the warnings of a second engine still name the line.
func TestStalenessLinesFromCache(t *testing.T) {
	rs := newRoots(t)
	writeString(t, filepath.Join(rs.project, "facts", "x.md"), "---\nid: facts/x\nkind: fact\ncreated: 1\nsummary: The rewrite is on branch feature/login\n---\nBody.\n")
	for i := range 2 {
		rep, err := rs.engine(options.Options{}).Inspect()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, is := range rep.Issues {
			if is.Check == "sync-staleness" {
				got = append(got, filepath.Base(is.Path)+":"+strconv.Itoa(is.Line))
			}
		}
		if strings.Join(got, " ") != "x.md:5" {
			t.Errorf("load %d: sync-staleness at %v, want x.md:5", i+1, got)
		}
	}
}
