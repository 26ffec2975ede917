package compile

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
)

// Each ROOT.md the tables render from the one they rendered before, as a
// serve process's writes do, is what Root renders from the memories; and
// most of them are spliced from the one before, not assembled again.
func TestTablesSpliceEqualsFull(t *testing.T) {
	configured := []string{"rules", "facts"}
	triggers := []string{"deploy", "Deploy", "部署", "sqlite", "a|b", "<!-- x", "redis", "缓存", "", "two  words"}
	ids := []string{"facts/a<b"} // an id with a '<' makes its rows unspliceable
	for i := range 60 {
		ids = append(ids, fmt.Sprintf("%s/m%02d", []string{"facts", "rules", "notes"}[i%3], i))
	}
	random := func(r *rand.Rand, id string) *memory.Memory {
		m := &memory.Memory{ID: id, Kind: memory.KindFact, Summary: "s " + id, Created: 1, Updated: 1}
		for range r.IntN(4) {
			m.LoadWhen = append(m.LoadWhen, triggers[r.IntN(len(triggers))])
		}
		if r.IntN(8) == 0 {
			m.SupersededBy = "facts/m00"
		}
		return m
	}
	spliced, steps := 0, 0
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 2026))
		live := map[string]*memory.Memory{}
		tb := NewTables(configured)
		tb.Build(func(add func(*memory.Memory)) {
			for _, id := range ids[1:] {
				if r.IntN(2) == 0 {
					live[id] = random(r, id)
					add(live[id])
				}
			}
		})
		prev := []byte("# Memory\n\nmy goals\n\n" + beginRegistry + "\nold\n" + endRegistry + "\n\nbetween\n\n" + beginRouting + "\nold\n" + endRouting + "\n\nafter\n")
		for step := range 40 {
			for range 1 + r.IntN(3) {
				id := ids[r.IntN(len(ids))]
				if m := live[id]; m != nil {
					tb.Remove(m)
					delete(live, id)
				}
				if r.IntN(3) > 0 {
					live[id] = random(r, id)
					tb.Add(live[id])
				}
			}
			var mems []*memory.Memory
			for _, m := range live {
				mems = append(mems, m)
			}
			want, werr := Root(bytes.Clone(prev), Categories(configured, mems), mems)
			sp, ok := tb.Splice(prev)
			var got []byte
			if ok {
				spliced++
				var w bytes.Buffer
				if _, err := sp.WriteTo(&w); err != nil || !bytes.Equal(w.Bytes(), want) || sp.Len() != len(want) || !sp.Equal(want) || sp.Equal(prev) != bytes.Equal(prev, want) {
					t.Fatalf("seed %d step %d: the pieces are not the file:\n%s\nwant:\n%s", seed, step, w.Bytes(), want)
				}
				got = sp.Join()
			} else {
				var err error
				if got, err = tb.Root(prev); fmt.Sprint(err) != fmt.Sprint(werr) {
					t.Fatalf("seed %d step %d: error %v, want %v", seed, step, err, werr)
				}
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("seed %d step %d (spliced %v): ROOT.md differs:\n%s\nwant:\n%s", seed, step, ok, got, want)
			}
			steps++
			// Sometimes the next write starts from a copy (a ROOT.md read
			// from disk), which must not be taken for the one rendered.
			if r.IntN(10) == 0 {
				got = bytes.Clone(got)
			}
			prev = got
		}
	}
	if spliced < steps/2 {
		t.Errorf("%d of %d renders spliced, want most", spliced, steps)
	}
	t.Logf("%d of %d renders spliced", spliced, steps)
}
