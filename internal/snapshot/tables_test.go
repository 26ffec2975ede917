package snapshot

import (
	"hash/maphash"
	"slices"
	"testing"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/memory"
)

// The summaries and links a serve process's tables keep follow each
// memory put in and taken out, so the duplicate check and forget never
// miss one nor keep one that is gone.
func TestTablesKeepSummariesAndLinks(t *testing.T) {
	rt := &Tables{T: compile.NewTables(nil), seed: maphash.MakeSeed(),
		summaries: map[uint64]int32{}, links: map[string][]string{}}
	a := &memory.Memory{ID: "facts/a", Kind: memory.KindFact, Summary: "Kafka  runs on\tport 9092", Supersedes: "facts/old"}
	b := &memory.Memory{ID: "facts/b", Kind: memory.KindFact, Summary: "Kafka runs on port 9092", SupersededBy: "facts/old"}
	steps := []struct {
		rel      string
		held, m  *memory.Memory
		mayHave  bool
		linksOld []string
	}{
		{"facts/a.md", nil, a, true, []string{"facts/a.md"}},
		{"facts/b.md", nil, b, true, []string{"facts/a.md", "facts/b.md"}},
		{"facts/a.md", a, nil, true, []string{"facts/b.md"}},
		{"facts/b.md", b, nil, false, nil},
	}
	for i, st := range steps {
		rt.set(st.rel, st.held, st.m)
		if got := rt.MayHaveSummary("Kafka runs on port 9092"); got != st.mayHave {
			t.Errorf("step %d: MayHaveSummary = %v, want %v", i, got, st.mayHave)
		}
		if got, ok := rt.LinksTo("facts/old"); !ok || !slices.Equal(got, st.linksOld) {
			t.Errorf("step %d: LinksTo = %q, %v, want %q", i, got, ok, st.linksOld)
		}
	}
	if rt.MayHaveSummary("Something else") {
		t.Error("MayHaveSummary of a summary never held = true")
	}
	if _, ok := (&Tables{}).LinksTo("facts/old"); ok {
		t.Error("tables used once report links they do not keep")
	}
}

func TestSameCompiled(t *testing.T) {
	base := memory.Memory{ID: "facts/a", Kind: memory.KindFact, Summary: "s", LoadWhen: []string{"kafka"}}
	tests := []struct {
		name   string
		change func(m *memory.Memory)
		same   bool
	}{
		{"body", func(m *memory.Memory) { m.Body = "other" }, true},
		{"anchors", func(m *memory.Memory) { m.Anchors = []string{"go.mod"} }, true},
		{"summary", func(m *memory.Memory) { m.Summary = "t" }, false},
		{"pinned", func(m *memory.Memory) { m.Pinned = true }, false},
		{"superseded", func(m *memory.Memory) { m.SupersededBy = "facts/b" }, false},
		{"load_when", func(m *memory.Memory) { m.LoadWhen = []string{"zk"} }, false},
		{"kind", func(m *memory.Memory) { m.Kind = memory.KindRule }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := base, base
			tt.change(&b)
			if got := sameCompiled(&a, &b); got != tt.same {
				t.Errorf("sameCompiled = %v, want %v", got, tt.same)
			}
		})
	}
	if !sameCompiled(nil, nil) || sameCompiled(&base, nil) || sameCompiled(nil, &base) {
		t.Error("sameCompiled with nil is wrong")
	}
}
