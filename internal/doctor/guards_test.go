package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/store"
)

func TestGuardsCheck(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("facts/plain.md", "---\nid: facts/plain\nkind: fact\nsummary: no guards\n---\n")
	files, _, err := store.Root{Scope: store.Global, Dir: dir}.Load()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := guardsCheck(files); ok {
		t.Error("a store without enforce blocks got a guards check")
	}
	write("rules/push.md", "---\nid: rules/push\nkind: rule\nsummary: never force-push\nenforce:\n  bash:\n    \"git push -f*\": deny\n    \"git push --force*\": forbid\n---\n")
	files, _, err = store.Root{Scope: store.Global, Dir: dir}.Load()
	if err != nil {
		t.Fatal(err)
	}
	ch, ok := guardsCheck(files)
	want := filepath.Join(dir, "rules", "push.md") + ":8: "
	if !ok || ch.OK || !strings.Contains(ch.Detail, want) || !strings.Contains(ch.Detail, "1 guard(s) read") {
		t.Errorf("a wrong guard: %+v, %v; want a failed check naming %s", ch, ok, want)
	}
}
