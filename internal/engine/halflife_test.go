package engine

import (
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
)

// TestHalfLifeOption checks what the decoded halfLifeDays does to a recall:
// the default halves the freshness part of an old memory's score every 14
// days, 0 turns decay off.
func TestHalfLifeOption(t *testing.T) {
	rs := newRoots(t)
	m := &memory.Memory{ID: "facts/old-fact", Kind: memory.KindFact, Summary: "Zookeeper quorum needs an odd count",
		Created: testNow.UnixMilli() - 14*86_400_000, Updated: testNow.UnixMilli() - 14*86_400_000, LoadWhen: []string{"zookeeper"}}
	writeMemory(t, rs.project, m)
	for _, tt := range []struct {
		json      string
		wantDecay float64
	}{
		{`{}`, 0.975},                   // one default half-life: floor 0.95 + 0.05/2
		{`{"halfLifeDays": 7}`, 0.9625}, // two half-lives: 0.95 + 0.05/4
		{`{"halfLifeDays": 0}`, 1},      // no decay
	} {
		o, err := options.Decode([]byte(tt.json))
		if err != nil {
			t.Fatal(err)
		}
		hits, err := rs.engine(o).Recall("zookeeper quorum", RecallOptions{})
		if err != nil || len(hits) != 1 {
			t.Fatalf("%s: Recall = %v, %v", tt.json, hits, err)
		}
		if d := hits[0].Reasons.Decay; d < tt.wantDecay-1e-9 || d > tt.wantDecay+1e-9 {
			t.Errorf("%s: decay %v, want %v", tt.json, d, tt.wantDecay)
		}
	}
}
