package engine

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// benchmarkDir is the retrieval benchmark beside the checkout, whose dev
// and turns-dev sets testdata/eval copies.
const benchmarkDir = "../../../shared/eval"

// TestDevSetsInStep fails while the repository's copies of the dev and
// turns-dev sets differ from the benchmark beside the checkout: a set
// changed there is copied here with scripts/sync-devsets.sh, so the gates
// of every clone measure what the benchmark measures.
func TestDevSetsInStep(t *testing.T) {
	for _, set := range []string{"dev", "turns-dev"} {
		src := filepath.Join(benchmarkDir, set)
		if _, err := os.Stat(src); err != nil {
			t.Skipf("the benchmark is not beside the checkout (%v); nothing to compare the copy with", err)
		}
		want, got := readTree(t, src), readTree(t, filepath.Join("testdata", "eval", set))
		for name, b := range want {
			if g, ok := got[name]; !ok {
				t.Errorf("%s/%s is not in testdata/eval; run scripts/sync-devsets.sh", set, name)
			} else if !bytes.Equal(g, b) {
				t.Errorf("%s/%s differs from the benchmark's; run scripts/sync-devsets.sh", set, name)
			}
		}
		for name := range got {
			if _, ok := want[name]; !ok {
				t.Errorf("%s/%s is no longer in the benchmark; run scripts/sync-devsets.sh", set, name)
			}
		}
	}
}

// readTree reads every regular file under dir, by slash path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
