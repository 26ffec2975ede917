package compile_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/memory"
)

// checkTables compares every file the tables render with what Index and
// Root render from the memories themselves.
func checkTables(t *testing.T, what string, tb *compile.Tables, configured []string, mems []*memory.Memory, old []byte) {
	t.Helper()
	byID := map[string]*memory.Memory{}
	for _, m := range mems {
		byID[m.ID] = m
	}
	lineOf := func(id string) *memory.Memory {
		m := byID[id]
		if m == nil {
			t.Fatalf("%s: lineOf(%q): no such memory", what, id)
		}
		return m
	}
	cats := compile.Categories(configured, mems)
	if got := tb.Categories(); !slices.Equal(got, cats) {
		t.Fatalf("%s: categories %q, want %q", what, got, cats)
	}
	for _, c := range cats {
		if got, want := tb.Index(c, lineOf), compile.Index(c, mems); !bytes.Equal(got, want) {
			t.Fatalf("%s: %s/index.md differs:\n%s\nwant:\n%s", what, c, got, want)
		}
	}
	got, gerr := tb.Root(old)
	want, werr := compile.Root(old, cats, mems)
	if fmt.Sprint(gerr) != fmt.Sprint(werr) || !bytes.Equal(got, want) {
		t.Fatalf("%s: ROOT.md differs (err %v, want %v):\n%s\nwant:\n%s", what, gerr, werr, got, want)
	}
	if werr != nil {
		return
	}
	// Again over a ROOT.md compiled before, with other tables in it: what
	// every write but a root's first starts from.
	stale := bytes.Replace(want, []byte("| "), []byte("| stale "), 3)
	got, gerr = tb.Root(stale)
	want, werr = compile.Root(stale, cats, mems)
	if fmt.Sprint(gerr) != fmt.Sprint(werr) || !bytes.Equal(got, want) {
		t.Fatalf("%s: ROOT.md over a compiled one differs (err %v, want %v):\n%s\nwant:\n%s", what, gerr, werr, got, want)
	}
}

// The tables built from a golden case's memories render its files.
func TestTablesGolden(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatal("no golden files", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			c := loadCase(t, path)
			tb := compile.NewTables(c.categories)
			tb.Build(func(add func(*memory.Memory)) {
				for _, m := range c.mems {
					add(m)
				}
			})
			checkTables(t, "built", tb, c.categories, c.mems, c.old)
			// Taken apart one by one and put back, in another order.
			for _, m := range c.mems {
				tb.Remove(m)
			}
			checkTables(t, "emptied", tb, c.categories, nil, c.old)
			for _, m := range slices.Backward(c.mems) {
				tb.Add(m)
			}
			checkTables(t, "refilled", tb, c.categories, c.mems, c.old)
		})
	}
}

// randomMemory makes a memory whose fields exercise what the compiled files
// show: kinds that are and are not their category's default, pinned,
// superseded, triggers differing only in case or white space, repeated,
// empty, with | and <, and ids whose order differs from their files'
// (a/b before a/b-c, but a/b-c.md before a/b.md).
func randomMemory(r *rand.Rand, id string) *memory.Memory {
	kinds := []memory.Kind{memory.KindFact, memory.KindRule, memory.KindPitfall, memory.KindDecision, memory.KindPreference, memory.KindRuleProposal}
	triggers := []string{"deploy", "Deploy", " deploy  ", "部署", "SQLite", "sqlite", "a|b", "<!-- x", "two  words", "two words", "", "redis", "缓存"}
	m := &memory.Memory{ID: id, Kind: kinds[r.IntN(len(kinds))], Summary: fmt.Sprintf("summary %d of %s", r.IntN(1000), id),
		Pinned: r.IntN(5) == 0, Created: 1, Updated: 1}
	for range r.IntN(4) {
		m.LoadWhen = append(m.LoadWhen, triggers[r.IntN(len(triggers))])
	}
	if r.IntN(6) == 0 {
		m.SupersededBy = "facts/x" + fmt.Sprint(r.IntN(9))
	}
	return m
}

// The ids, configured categories and ROOT.md of the random sequences below.
var (
	seqIDs        = []string{"facts/a", "facts/a-b", "facts/b", "rules/r", "rules/r-1", "pitfalls/p", "notes/n", "notes/n-2", "zz/z", "guides/deploy", "facts/中文"}
	seqConfigured = []string{"rules", "facts", "preferences"}
	seqRoot       = []byte("# Memory\n\nmy goals\n")
)

// randomSteps makes n random changes to tb and live (a memory removed,
// added or both), comparing tb with a compile of the memories then live
// after each.
func randomSteps(t *testing.T, label string, r *rand.Rand, tb *compile.Tables, live map[string]*memory.Memory, n int) {
	t.Helper()
	for step := range n {
		id := seqIDs[r.IntN(len(seqIDs))]
		if m := live[id]; m != nil {
			tb.Remove(m)
			delete(live, id)
		}
		if r.IntN(3) > 0 {
			m := randomMemory(r, id)
			tb.Add(m)
			live[id] = m
		}
		var mems []*memory.Memory
		for _, m := range live {
			mems = append(mems, m)
		}
		checkTables(t, fmt.Sprintf("%s step %d", label, step), tb, seqConfigured, mems, seqRoot)
	}
}

// Random sequences of additions, removals and changes, each followed by a
// comparison with a compile of the memories then in the tables.
func TestTablesEqualFullCompile(t *testing.T) {
	ids, configured := seqIDs, seqConfigured
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 26))
		live := map[string]*memory.Memory{}
		var initial []*memory.Memory
		for _, id := range ids {
			if r.IntN(2) == 0 {
				m := randomMemory(r, id)
				live[id] = m
				initial = append(initial, m)
			}
		}
		r.Shuffle(len(initial), func(i, j int) { initial[i], initial[j] = initial[j], initial[i] })
		tb := compile.NewTables(configured)
		tb.OneShot = seed%2 == 1 // rows rendered into ROOT.md each time, not kept
		tb.Build(func(add func(*memory.Memory)) {
			for _, m := range initial {
				add(m)
			}
		})
		randomSteps(t, fmt.Sprintf("seed %d", seed), r, tb, live, 30)
	}
}

// Changed names what a change touched, and Clean forgets it.
func TestTablesChanged(t *testing.T) {
	tb := compile.NewTables([]string{"facts"})
	a := &memory.Memory{ID: "facts/a", Kind: memory.KindFact, Summary: "a"}
	tb.Build(func(add func(*memory.Memory)) { add(a) })
	if cats, root := tb.Changed(); len(cats) != 0 || root {
		t.Fatalf("after Build: %q %v, want nothing", cats, root)
	}
	tb.Add(&memory.Memory{ID: "notes/n", Kind: memory.KindFact, Summary: "n"})
	tb.Remove(a)
	if cats, root := tb.Changed(); !slices.Equal(cats, []string{"facts", "notes"}) || !root {
		t.Fatalf("after a change: %q %v, want [facts notes] true", cats, root)
	}
	tb.Clean()
	if cats, root := tb.Changed(); len(cats) != 0 || root {
		t.Fatalf("after Clean: %q %v, want nothing", cats, root)
	}
}

// OneLine's shortcut for text already on one line agrees with folding it.
func FuzzOneLine(f *testing.F) {
	for _, s := range []string{"", " ", "a b", "a  b", " a", "a ", "部署 脚本", "部署\u3000脚本", "a\tb", "x\u00a0y", "\xff \xfe", "a\u0085b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := compile.OneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", s, got, want)
		}
	})
}

// Tables built in parts render what tables built in one pass render.
func TestTablesBuildParallel(t *testing.T) {
	configured := []string{"rules", "facts"}
	for seed := range uint64(10) {
		r := rand.New(rand.NewPCG(seed, 7))
		var mems []*memory.Memory
		for i := range 40 + r.IntN(40) {
			mems = append(mems, randomMemory(r, fmt.Sprintf("%s/m%03d", []string{"facts", "rules", "notes", "zz"}[r.IntN(4)], i)))
		}
		whole := compile.NewTables(configured)
		whole.Build(func(add func(*memory.Memory)) {
			for _, m := range mems {
				add(m)
			}
		})
		cut := r.IntN(len(mems))
		parts := compile.NewTables(configured)
		parts.BuildParallel(func(add func(*memory.Memory)) {
			for _, m := range mems[:cut] {
				add(m)
			}
		}, func(add func(*memory.Memory)) {
			for _, m := range mems[cut:] {
				add(m)
			}
		})
		checkTables(t, fmt.Sprintf("seed %d, cut at %d", seed, cut), parts, configured, mems, nil)
		a, _ := whole.Root(nil)
		b, _ := parts.Root(nil)
		if !bytes.Equal(a, b) {
			t.Fatalf("seed %d: ROOT.md differs between the whole build and the parts", seed)
		}
	}
}
