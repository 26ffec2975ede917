package engine

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
)

func TestDecodeOptions(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Options
	}{
		{"absent", ``, Options{}},
		{"null", `null`, Options{}},
		{"empty", `{}`, Options{}},
		{"every option", `{"maxInjectChars": 800, "maxInjectEntries": 2, "maxOutlineChars": 3000, "halfLifeDays": 30.5,
			"autoExtract": true, "minTurns": 6, "extractIdleSeconds": 120, "extractModel": {"providerID": "anthropic", "id": "claude-haiku-4-5"},
			"categories": ["rules", "conventions"]}`,
			Options{MaxInjectChars: 800, MaxInjectEntries: 2, MaxOutlineChars: 3000, HalfLifeDays: 30.5, MinTurns: 6, ExtractIdleSeconds: 120,
				ExtractModel: &ModelRef{ProviderID: "anthropic", ID: "claude-haiku-4-5"}, Categories: []string{"rules", "conventions"}}},
		{"halfLifeDays 0 turns decay off", `{"halfLifeDays": 0}`, Options{HalfLifeDays: -1}},
		{"autoExtract false", `{"autoExtract": false}`, Options{NoAutoExtract: true}},
		{"unknown keys ignored", `{"maxInjectEntries": 3, "somethingOpenCodeAdds": {"x": [1, 2]}, "enabled": true}`, Options{MaxInjectEntries: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeOptions([]byte(tt.in))
			if err != nil {
				t.Fatalf("DecodeOptions(%s): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DecodeOptions(%s) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestDecodeOptionsRefusesBadValues(t *testing.T) {
	for _, in := range []string{
		`{"maxInjectChars": -1}`,
		`{"maxInjectEntries": -4}`,
		`{"maxOutlineChars": -1}`,
		`{"minTurns": -1}`,
		`{"extractIdleSeconds": -1}`,
		`{"halfLifeDays": -14}`,
		`{"maxInjectChars": "1200"}`,
		`{"autoExtract": "no"}`,
		`{"categories": ["../x"]}`,
		`{"categories": ["a/b"]}`,
		`{"categories": [""]}`,
		`{"categories": [".hidden"]}`,
		`{"categories": ["rules", "con"]}`,
		`{"categories": "rules"}`,
		`[1, 2]`,
		`{`,
	} {
		if o, err := DecodeOptions([]byte(in)); err == nil {
			t.Errorf("DecodeOptions(%s) = %+v, want an error", in, o)
		} else if !strings.HasPrefix(err.Error(), "options: ") {
			t.Errorf("DecodeOptions(%s): error %q does not say it is about the options", in, err)
		}
	}
}

// TestOptionsDefaults holds the zero Options to the documented defaults.
func TestOptionsDefaults(t *testing.T) {
	var o Options
	if o.maxInjectChars() != 1200 || o.maxInjectEntries() != 4 || o.MinTurnsOrDefault() != 4 || o.maxOutlineChars() != DefaultMaxOutlineChars {
		t.Errorf("zero Options: chars %d, entries %d, minTurns %d, outline %d", o.maxInjectChars(), o.maxInjectEntries(), o.MinTurnsOrDefault(), o.maxOutlineChars())
	}
	if !reflect.DeepEqual(o.categories(), []string{"rules", "preferences", "decisions", "pitfalls", "facts"}) {
		t.Errorf("default categories = %v", o.categories())
	}
}

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
		o, err := DecodeOptions([]byte(tt.json))
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
