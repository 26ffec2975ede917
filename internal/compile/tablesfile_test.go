package compile_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ocmem/ocmem/internal/compile"
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
