package anchor_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/anchor"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/rogpeppe/go-internal/txtar"
)

// The real history: twenty memories about fzf's code, written as of C0,
// checked by the real checker against fzf as it was a year later, at C1.
// The repository is not part of this one; the test runs where
// OCMEM_REAL_HISTORY names a clone of https://github.com/junegunn/fzf that
// holds both commits, and skips elsewhere.
const (
	realC0 = "577024f1e9bfc98f48e7c5bead445bc9d7dfc3c5"
	realC1 = "fd8858f8c93e38d50f00cd21430e21d89e2f9399"
)

// judged is what a person reading git diff C0 C1 and git log made of each
// memory: whether its text is still true at C1, and the state the checker
// gave it when the study was made, so that docs/STALENESS.md does not
// silently drift from what the checker does.
// stillTrue is "yes", "partly" (a detail is now false: counted as stale)
// or "no".
var judged = map[string]struct {
	state     anchor.State
	stillTrue string
}{
	"release/version-string":       {anchor.Gone, "no"},
	"release/upload-assets":        {anchor.Gone, "no"},
	"build/revision":               {anchor.Changed, "partly"},
	"facts/default-command":        {anchor.Changed, "no"},
	"facts/scoring":                {anchor.Changed, "yes"},
	"facts/exit-codes":             {anchor.Changed, "yes"},
	"facts/history-file":           {anchor.Changed, "yes"},
	"conventions/tests":            {anchor.Changed, "yes"},
	"facts/ci":                     {anchor.Changed, "no"},
	"facts/renderers":              {anchor.Changed, "no"},
	"facts/shell-exec":             {anchor.Fresh, "yes"},
	"facts/placeholders":           {anchor.Changed, "yes"},
	"facts/preview-window-default": {anchor.Changed, "partly"},
	"facts/tiebreak":               {anchor.Changed, "yes"},
	"facts/extended-search":        {anchor.Changed, "yes"},
	"facts/key-binding-env":        {anchor.Changed, "yes"},
	"facts/completion-trigger":     {anchor.Changed, "yes"},
	"facts/vim-default-layout":     {anchor.Changed, "no"},
	"facts/go-deps":                {anchor.Changed, "no"},
	"facts/eventbox":               {anchor.Fresh, "yes"},
}

func TestRealHistory(t *testing.T) {
	clone := os.Getenv("OCMEM_REAL_HISTORY")
	if clone == "" {
		t.Skip("set OCMEM_REAL_HISTORY to a clone of https://github.com/junegunn/fzf")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ar, err := txtar.ParseFile(filepath.Join("testdata", "realhistory", "fzf.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	var mems []anchor.Anchored
	for _, f := range ar.Files {
		m, err := memory.Parse(f.Data)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if m.Verified.Commit != realC0 {
			t.Fatalf("%s: verified at %s, want C0", f.Name, m.Verified.Commit)
		}
		mems = append(mems, anchor.Anchored{ID: m.ID, Anchors: m.Anchors, Verified: anchor.Ref{Commit: m.Verified.Commit}})
	}
	if len(mems) != 20 {
		t.Fatalf("%d memories, want 20", len(mems))
	}

	// A clone sharing the given one's objects, checked out at C1: the
	// given clone is left as it is.
	dir := filepath.Join(t.TempDir(), "fzf")
	for _, args := range [][]string{
		{"clone", "-q", "--shared", "--no-checkout", clone, dir},
		{"-C", dir, "cat-file", "-e", realC0 + "^{commit}"},
		{"-C", dir, "checkout", "-q", "--detach", realC1},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Skipf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}

	results, err := anchor.Check(context.Background(), dir, mems)
	if err != nil {
		t.Fatal(err)
	}
	var right, wrong, missed, flagged, stale, changedTrue int
	for _, r := range results {
		j, ok := judged[r.ID]
		var why []string
		for _, e := range r.Evidence {
			why = append(why, e.Why)
		}
		t.Logf("%-32s %-7s %s", r.ID, r.State, strings.Join(why, "; "))
		if !ok {
			t.Errorf("%s: not judged", r.ID)
			continue
		}
		if r.State != j.state {
			t.Errorf("%s: %s, the study recorded %s", r.ID, r.State, j.state)
		}
		isTrue := j.stillTrue == "yes"
		if !isTrue {
			stale++
		}
		switch {
		case r.State == anchor.Fresh && !isTrue:
			missed++
		case r.State == anchor.Gone && isTrue:
			wrong++
		case r.State == anchor.Changed && isTrue:
			changedTrue++
		case r.State != anchor.Fresh:
			right++
		}
		if r.State != anchor.Fresh {
			flagged++
		}
	}
	t.Logf("flagged %d of %d: on a stale memory %d, gone on a true one %d, changed on a true one %d; stale %d, of them unflagged %d",
		flagged, len(results), right, wrong, changedTrue, stale, missed)
}
