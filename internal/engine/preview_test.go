package engine

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/store"
)

// TestPreviewIsWhatIsWritten: a remember's preview is the exact file the
// write then makes (path and bytes, a model's rule as a proposal, the next
// free slug), a forget's is the file it deletes; neither changes a byte on
// disk, and a request the write would refuse is refused by its preview.
func TestPreviewIsWhatIsWritten(t *testing.T) {
	r := newRoots(t)
	e := r.engine(options.Options{})
	taken := mustRemember(t, e, RememberRequest{Category: "decisions", Kind: memory.KindDecision, Summary: "Use SQLite for the cache", Body: "first"})
	before := tree(t, filepath.Dir(r.project))

	req := RememberRequest{Category: "decisions", Kind: memory.KindRule, Summary: "Use SQLite for the cache", Body: "second", Source: FromModel}
	pv, err := e.PreviewRemember(req)
	if err != nil {
		t.Fatal(err)
	}
	fg, err := e.PreviewForget("", taken.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.PreviewRemember(RememberRequest{Category: "decisions", Kind: memory.KindFact, Summary: "token", Body: "GITHUB_TOKEN=" + fakeGitHubToken(7), Source: FromModel}); err == nil {
		t.Error("a preview of a secret is not refused")
	}
	if _, err := e.PreviewForget(store.Project, "decisions/none"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a preview of forgetting what is not there: %v", err)
	}
	if d := treeDiff(before, tree(t, filepath.Dir(r.project))); len(d) > 0 {
		t.Fatalf("previews changed files: %v", d)
	}
	if pv.Before != nil || readMemoryBytes(pv.After).Kind != memory.KindRuleProposal {
		t.Errorf("remember preview: before %q, after:\n%s", pv.Before, pv.After)
	}
	if fg.Path != taken.Path || fg.After != nil || string(fg.Before) != readString(t, taken.Path) {
		t.Errorf("forget preview %+v, want the file %s as it is", fg, taken.Path)
	}

	w, err := e.Remember(req)
	if err != nil {
		t.Fatal(err)
	}
	if w.Path != pv.Path || filepath.Base(w.Path) != "use-sqlite-cache-2.md" {
		t.Errorf("written to %s, previewed %s", w.Path, pv.Path)
	}
	if got, _ := os.ReadFile(w.Path); string(got) != string(pv.After) {
		t.Errorf("written:\n%s\npreviewed:\n%s", got, pv.After)
	}
}

func readMemoryBytes(b []byte) *memory.Memory {
	m, err := memory.Parse(b)
	if err != nil {
		return &memory.Memory{}
	}
	return m
}
