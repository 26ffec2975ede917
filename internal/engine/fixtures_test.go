package engine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/testenv"
)

// sharedFixtures are the two real memory files of the design notes
// (../shared/fixtures beside the repository).
const sharedFixtures = "../../../shared/fixtures"

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSharedFixtures(t *testing.T) {
	if _, err := os.Stat(sharedFixtures); errors.Is(err, fs.ErrNotExist) {
		testenv.Missing(t, "%s is not there", sharedFixtures)
	}
	rs := newRoots(t)
	copyTree(t, sharedFixtures, rs.project)
	before := memoryFiles(t, rs)
	e := rs.engine(options.Options{})
	changed, err := e.Compile()
	if err != nil {
		t.Fatal(err)
	}
	if len(changed) == 0 {
		t.Errorf("Compile wrote nothing for a root without compiled files")
	}
	if got := memoryFiles(t, rs); !equalMaps(got, before) {
		t.Errorf("Compile changed the memory files: %v", treeDiff(before, got))
	}
	rep := mustInspectClean(t, e)
	if len(rep.Memories) != 2 {
		t.Errorf("Inspect lists %d memories, want the 2 fixtures", len(rep.Memories))
	}
	hits, err := e.Recall("SQLite 分词", RecallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].ID != "pitfalls/sqlite-cjk-tokenizer" {
		t.Fatalf("Recall(\"SQLite 分词\") = %v, want pitfalls/sqlite-cjk-tokenizer first", hitIDs(hits))
	}
	if len(hits[0].Reasons.Terms) == 0 {
		t.Errorf("the hit carries no reasons")
	}
}

func hitIDs(hits []Hit) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.Key()
	}
	return ids
}
