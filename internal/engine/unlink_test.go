package engine

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/store"
)

// TestForgetRepairsSupersedeLinks: forgetting either end of a supersede
// link leaves no dangling link; forgetting the replacement makes the
// replaced memory live again. The same from the engine that wrote the
// two, and from a fresh one (a CLI command's, starting from the load
// cache: it finds the links in the cache's records).
func TestForgetRepairsSupersedeLinks(t *testing.T) {
	t.Setenv("OCMEM_CACHE_DIR", t.TempDir())
	for _, tc := range []struct{ forgetNew, fresh bool }{{true, false}, {false, false}, {true, true}, {false, true}} {
		forgetNew := tc.forgetNew
		rs := newRoots(t)
		e := rs.engine(options.Options{})
		old := mustRemember(t, e, RememberRequest{Scope: store.Project, Category: "decisions", Kind: memory.KindDecision, Summary: "Use yarn workspaces"})
		mustRemember(t, e, RememberRequest{Scope: store.Project, Category: "decisions", Kind: memory.KindDecision, Summary: "Use npm workspaces"})
		repl := mustRemember(t, e, RememberRequest{Scope: store.Project, Category: "decisions", Kind: memory.KindDecision, Summary: "Use pnpm workspaces", Supersedes: old.ID})
		gone, kept := repl, old
		if !forgetNew {
			gone, kept = old, repl
		}
		if tc.fresh {
			loadCache(t, rs)
			e = rs.engine(options.Options{})
		}
		w, err := e.Forget(store.Project, gone.ID, FromPerson)
		if err != nil {
			t.Fatal(err)
		}
		m := readMemory(t, filepath.Join(rs.project, filepath.FromSlash(kept.ID)+".md"))
		if m.SupersededBy != "" || m.Supersedes != "" {
			t.Errorf("forget %s: %s keeps a link: superseded_by %q, supersedes %q", gone.ID, kept.ID, m.SupersededBy, m.Supersedes)
		}
		if want := []string(nil); forgetNew {
			if !slices.Equal(w.Restored, []string{old.ID}) {
				t.Errorf("Restored = %v, want [%s]", w.Restored, old.ID)
			}
			hits, _ := e.Recall("yarn workspaces", RecallOptions{Now: testNow})
			if len(hits) == 0 || hits[0].ID != old.ID {
				t.Errorf("the replaced memory is not recalled again: %v", hits)
			}
		} else if !slices.Equal(w.Restored, want) {
			t.Errorf("Restored = %v, want none", w.Restored)
		}
		mustInspectClean(t, e)
	}
}
