package engine

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/compile/compiletest"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/store"
)

// A fresh process's write that starts from the tables the load cache kept
// writes the bytes of one that built them from every memory: two copies of
// the same roots, each with its cache, take the same hand edits (made
// after their cache was written, several between writes; of memories, and
// of the index.md the write then makes, whose lines the kept tables take
// when they are as they would make them) and the same writes, the first
// with the kept tables, the second building them; their trees stay equal,
// and a full compile of the first changes nothing.
func TestKeptTablesWriteAsBuilt(t *testing.T) {
	t.Setenv("OCMEM_CACHE_DIR", t.TempDir())
	words := strings.Fields("deploy Deploy redis 部署 缓存 kafka retention nginx 超时 SQLite migration 回滚 pnpm")
	cats := []string{"facts", "pitfalls", "rules", "notes"}
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 62))
		text := func(n int) string {
			var ws []string
			for range n {
				ws = append(ws, words[r.IntN(len(words))])
			}
			return strings.Join(ws, " ")
		}
		kept, built := newRoots(t), newRoots(t)
		both := func(fn func(rs roots)) { fn(kept); fn(built) }
		var ids []string // of the project's memories
		for i := range 30 {
			m := &memory.Memory{ID: fmt.Sprintf("%s/m%02d", cats[r.IntN(len(cats))], i), Kind: memory.KindFact,
				Summary: text(3), LoadWhen: strings.Fields(text(r.IntN(3))), Created: 1, Updated: 1}
			if r.IntN(5) == 0 {
				m.SupersededBy = "facts/m00"
			}
			ids = append(ids, m.ID)
			both(func(rs roots) { writeMemory(t, rs.project, m) })
		}
		both(func(rs roots) {
			if _, err := rs.engine(options.Options{}).Compile(); err != nil {
				t.Fatal(err)
			}
			loadCache(t, rs)
		})
		for step := range 24 {
			what := ""
			remember := r.IntN(2) == 0 || len(ids) == 0
			req := RememberRequest{Scope: store.Project, Category: cats[r.IntN(len(cats))], Kind: memory.KindFact,
				Summary: text(4), Body: text(5), LoadWhen: strings.Fields(text(r.IntN(3)))}
			forget := ids[r.IntN(len(ids))]
			target, _, _ := strings.Cut(forget, "/")
			if remember {
				target = req.Category
			}
			indexEdited := false
			if r.IntN(3) == 0 {
				// The index.md the write makes, edited by hand.
				rel := filepath.Join(target, store.IndexFile)
				if old, err := os.ReadFile(filepath.Join(kept.project, rel)); err == nil {
					edited := compiletest.EditIndex(r, old)
					both(func(rs roots) {
						if err := os.WriteFile(filepath.Join(rs.project, rel), edited, 0o644); err != nil {
							t.Fatal(err)
						}
					})
					indexEdited = true
					what += " edit " + rel
				}
			}
			// A hand edit, now and then two, made after the cache was
			// written: the kept tables must be patched for it.
			for range r.IntN(3) {
				id := ids[r.IntN(len(ids))]
				switch op := r.IntN(4); op {
				case 0:
					both(func(rs roots) { os.Remove(filepath.Join(rs.project, filepath.FromSlash(id)+".md")) })
					what += " remove " + id
				case 1:
					m := &memory.Memory{ID: "hand/" + fmt.Sprint(r.IntN(4)), Kind: memory.KindPitfall, Summary: text(2), LoadWhen: []string{text(1)}, Created: 1, Updated: 1}
					both(func(rs roots) { writeMemory(t, rs.project, m) })
					ids = append(ids, m.ID)
					what += " add " + m.ID
				default:
					loadWhen, summary := strings.Fields(text(r.IntN(3))), text(2)
					both(func(rs roots) {
						p := filepath.Join(rs.project, filepath.FromSlash(id)+".md")
						if _, err := os.Stat(p); err != nil {
							return
						}
						m := readMemory(t, p)
						m.LoadWhen = loadWhen
						if op == 2 {
							m.Summary = summary
						}
						writeMemory(t, rs.project, m)
					})
					what += " edit " + id
				}
			}
			var errs [2]string
			for k, rs := range []roots{kept, built} {
				e := rs.engine(options.Options{})
				if err := e.loadForWrite(); err != nil {
					t.Fatal(err)
				}
				if got := e.keptTables(e.Root(store.Project), e.writeView()) != nil; k == 0 && !got {
					t.Fatalf("seed %d step %d (%s): the write does not start from the kept tables", seed, step, what)
				}
				e.seams.tablesNotFromCache = k != 0
				var err error
				if remember {
					_, err = e.Remember(req)
				} else {
					_, err = e.Forget(store.Project, forget, FromPerson)
				}
				errs[k] = fmt.Sprint(err)
			}
			if remember {
				what += fmt.Sprintf(" remember %q", req.Summary)
			} else {
				what += " forget " + forget
			}
			if indexEdited && errs[0] != "<nil>" {
				// No write made the edited index.md again.
				both(func(rs roots) {
					if _, err := rs.engine(options.Options{}).Compile(); err != nil {
						t.Fatal(err)
					}
				})
			}
			a, b := tree(t, kept.project), tree(t, built.project)
			if errs[0] != errs[1] || len(a) != len(b) {
				t.Fatalf("seed %d step %d (%s): errors %q, %d and %d files", seed, step, what, errs, len(a), len(b))
			}
			for rel, want := range b {
				if got, ok := a[rel]; !ok || got != want {
					t.Fatalf("seed %d step %d (%s): %s with kept tables:\n%s\nbuilt:\n%s", seed, step, what, rel, got, want)
				}
			}
			if step%8 == 7 {
				// A full compile changes nothing; a load writes the cache
				// anew.
				if changed, err := kept.engine(options.Options{}).Compile(); err != nil || len(changed) > 0 {
					t.Fatalf("seed %d step %d (%s): a full compile changed %q (%v)", seed, step, what, changed, err)
				}
				both(func(rs roots) { loadCache(t, rs) })
			}
			ids = slices.DeleteFunc(ids, func(id string) bool {
				_, err := os.Stat(filepath.Join(kept.project, filepath.FromSlash(id)+".md"))
				return err != nil
			})
		}
	}
}

// loadCache loads the roots as a read does, which writes their load cache.
func loadCache(t *testing.T, rs roots) {
	t.Helper()
	if _, err := rs.engine(options.Options{}).Load(); err != nil {
		t.Fatal(err)
	}
}
