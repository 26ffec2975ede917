package compile_test

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/compile/compiletest"
	"github.com/ocmem/ocmem/internal/memory"
)

// Tables read back from their bytes render what the tables built from the
// memories render, and stay so through random additions, removals and
// changes: what a write starting from the load cache's tables does.
func TestTablesReadEqualFullCompile(t *testing.T) {
	ids, configured := seqIDs, seqConfigured
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 61))
		live := map[string]*memory.Memory{}
		var mems []*memory.Memory
		for _, id := range ids {
			if r.IntN(2) == 0 {
				m := randomMemory(r, id)
				live[id] = m
				mems = append(mems, m)
			}
		}
		built := compile.NewTables(configured)
		built.Build(func(add func(*memory.Memory)) {
			for _, m := range mems {
				add(m)
			}
		})
		data := []byte(built.Encode())
		tb, err := compile.ReadTables(configured, string(data))
		if err != nil {
			t.Fatalf("seed %d: ReadTables: %v", seed, err)
		}
		if again := []byte(tb.Encode()); !bytes.Equal(again, data) {
			t.Fatalf("seed %d: tables read back write other bytes", seed)
		}
		if cats, root := tb.Changed(); len(cats) != 0 || root {
			t.Fatalf("seed %d: tables read back have changes: %q %v", seed, cats, root)
		}
		tb.OneShot = seed%2 == 1
		checkTables(t, fmt.Sprintf("seed %d read", seed), tb, configured, mems, seqRoot)
		randomSteps(t, fmt.Sprintf("seed %d", seed), r, tb, live, 20)
	}
}

// FuzzReadTables: tables that read write back as the same bytes, and every
// use a write makes of them (rendering, removing what they hold, adding)
// works.
func FuzzReadTables(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 12} {
		tb := compile.NewTables([]string{"facts"})
		tb.Build(func(add func(*memory.Memory)) {
			for i := range n {
				add(randomMemory(r, fmt.Sprintf("%s/m%d", []string{"facts", "rules", "notes"}[i%3], i)))
			}
		})
		f.Add([]byte(tb.Encode()))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tb, err := compile.ReadTables([]string{"facts"}, string(data))
		if err != nil {
			return
		}
		if back := []byte(tb.Encode()); !bytes.Equal(back, data) {
			t.Fatalf("read %q, written back as %q", data, back)
		}
		stub := func(id string) *memory.Memory { return &memory.Memory{ID: id, Summary: "s"} }
		for _, c := range tb.Categories() {
			tb.Index(c, stub)
		}
		if _, err := tb.Root([]byte("# Memory\n")); err != nil {
			t.Fatal(err)
		}
		tb.Add(&memory.Memory{ID: "facts/new", Summary: "n", LoadWhen: []string{"deploy", "x"}})
		tb.Remove(&memory.Memory{ID: "facts/new", Summary: "n", LoadWhen: []string{"deploy", "x"}})
		tb.Root(nil)
	})
}

// Tables read back with their lines' sums make each index.md from the one
// on disk as Index makes it from the memories, whatever the file on disk
// holds: the file the last render wrote (no line is then made), one a
// person edited (lines changed, gone, repeated, swapped, added, CRLF
// line ends, cut short), or another category's; across changes to the
// tables since it was written.
func TestTablesIndexOverEqualsIndex(t *testing.T) {
	ids, configured := seqIDs, seqConfigured
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 71))
		live := map[string]*memory.Memory{}
		var mems []*memory.Memory
		for _, id := range ids {
			if r.IntN(3) > 0 {
				m := randomMemory(r, id)
				live[id] = m
				mems = append(mems, m)
			}
		}
		built := compile.NewTables(configured)
		built.SumLines = seed%2 == 0 // else the lines are made, then encoded
		built.Build(func(add func(*memory.Memory)) {
			for _, m := range mems {
				add(m)
			}
		})
		if !built.SumLines {
			for _, c := range built.Categories() {
				built.Index(c, func(id string) *memory.Memory { return live[id] })
			}
		}
		tb, err := compile.ReadTables(configured, built.Encode())
		if err != nil {
			t.Fatal(err)
		}
		tb.OneShot = true
		before := compile.Categories(configured, mems)
		olds := map[string][]byte{}
		for _, c := range before {
			olds[c] = compile.Index(c, mems)
		}
		changed := r.IntN(3) == 0
		if changed {
			for range 1 + r.IntN(3) {
				id := ids[r.IntN(len(ids))]
				if m := live[id]; m != nil {
					tb.Remove(m)
					delete(live, id)
				}
				if r.IntN(2) == 0 {
					m := randomMemory(r, id)
					tb.Add(m)
					live[id] = m
				}
			}
		}
		mems = mems[:0]
		for _, m := range live {
			mems = append(mems, m)
		}
		edited := false
		for _, c := range tb.Categories() {
			old := olds[c]
			if r.IntN(2) == 0 {
				old, edited = compiletest.EditIndex(r, old, othersThan(olds, c)...), true
			}
			made := 0
			lineOf := func(id string) *memory.Memory {
				made++
				if live[id] == nil {
					t.Fatalf("seed %d: lineOf(%q): no such memory", seed, id)
				}
				return live[id]
			}
			if got, want := tb.IndexOver(c, old, lineOf), compile.Index(c, mems); !bytes.Equal(got, want) {
				t.Fatalf("seed %d: %s/index.md over\n%s\ndiffers:\n%s\nwant:\n%s", seed, c, old, got, want)
			}
			if !changed && !edited && made > 0 {
				t.Fatalf("seed %d: %s/index.md: %d lines made, though the file on disk holds them", seed, c, made)
			}
		}
	}
}

// othersThan returns the files of olds other than category c's, in the
// order of their categories.
func othersThan(olds map[string][]byte, c string) [][]byte {
	var out [][]byte
	for _, k := range slices.Sorted(maps.Keys(olds)) {
		if k != c {
			out = append(out, olds[k])
		}
	}
	return out
}

// FuzzIndexOver: whatever the index.md on disk holds, tables read back
// with their lines' sums make from it what they make from the memories.
func FuzzIndexOver(f *testing.F) {
	r := rand.New(rand.NewPCG(5, 6))
	var mems []*memory.Memory
	for i := range 12 {
		mems = append(mems, randomMemory(r, fmt.Sprintf("facts/m%02d", i)))
	}
	built := compile.NewTables(nil)
	built.SumLines = true
	built.Build(func(add func(*memory.Memory)) {
		for _, m := range mems {
			add(m)
		}
	})
	data := built.Encode()
	want := compile.Index("facts", mems)
	f.Add(want)
	f.Add(bytes.ReplaceAll(want, []byte("- [m03]"), []byte("- ~~[m03]")))
	f.Add([]byte("- [m01](m01.md)\n- [m01](m01.md)\n"))
	byID := map[string]*memory.Memory{}
	for _, m := range mems {
		byID[m.ID] = m
	}
	f.Fuzz(func(t *testing.T, old []byte) {
		tb, err := compile.ReadTables(nil, data)
		if err != nil {
			t.Fatal(err)
		}
		tb.OneShot = true
		if got := tb.IndexOver("facts", old, func(id string) *memory.Memory { return byID[id] }); !bytes.Equal(got, want) {
			t.Fatalf("over %q:\n%s\nwant:\n%s", old, got, want)
		}
	})
}
