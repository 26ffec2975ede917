package engine

import (
	"encoding/json"
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
		{"null is unset", `{"maxInjectChars": null, "autoExtract": null}`, Options{}},
		// Keys match as spelled: the settings guard compares them so, and a
		// key it does not recognise must not apply either.
		{"wrong case is no option", `{"extractmodel": {"providerID": "p", "id": "m"}, "maxinjectchars": 50000, "AutoExtract": false}`, Options{}},
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

// TestReadOptions: a bad value costs only its own option, which keeps its
// default; the others apply. Each bad value and unknown key is a problem
// naming the key, the value and what is wanted, or the option meant.
func TestReadOptions(t *testing.T) {
	for _, tt := range []struct {
		name  string
		in    string
		want  Options
		probs []string // OptionProblem.String of each
	}{
		{"valid", `{"maxInjectChars": 800, "toasts": false, "bin": "/x"}`, Options{MaxInjectChars: 800}, nil},
		{"autoExtract no", `{"autoExtract": "no", "maxInjectChars": 800}`, Options{MaxInjectChars: 800},
			[]string{`autoExtract = "no": a JSON string is not valid here; want true or false`}},
		{"quoted number", `{"maxInjectChars": "800", "minTurns": 2}`, Options{MinTurns: 2},
			[]string{`maxInjectChars = "800": a JSON string is not valid here; want a whole number, at least 0`}},
		{"negative", `{"maxInjectEntries": -1, "halfLifeDays": -3, "autoExtract": false}`, Options{NoAutoExtract: true},
			[]string{"maxInjectEntries = -1: must not be negative; want a whole number, at least 0",
				"halfLifeDays = -3: must not be negative; want a number of days, at least 0 (0: no decay)"}},
		{"bad category keeps the defaults", `{"categories": ["rules", "../x"]}`, Options{},
			[]string{`categories = ["rules","../x"]: category "../x" must be one name, without /; want a list of folder names, such as ["rules", "facts"]`}},
		{"typos", `{"maxInjectChar": 10, "toast": false, "colour": "blue"}`, Options{},
			[]string{`"colour" is not an option`, `"maxInjectChar" is not an option; did you mean "maxInjectChars"?`, `"toast" is not an option; did you mean "toasts"?`}},
		{"wrong case", `{"extractmodel": {"providerID": "p", "id": "m"}, "maxinjectchars": 9}`, Options{},
			[]string{`"extractmodel" is not an option; did you mean "extractModel"?`, `"maxinjectchars" is not an option; did you mean "maxInjectChars"?`}},
		{"a secret is not quoted", `{"extractModel": "ghp_R8nT2kLq9vXw4ZbYc7HdJ3mF6pSa1uEgK0oW"}`, Options{},
			[]string{`extractModel = (a value that looks like a secret): a JSON string is not valid here; want {"providerID": "…", "id": "…"}`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, probs, err := ReadOptions([]byte(tt.in))
			if err != nil {
				t.Fatalf("ReadOptions(%s): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ReadOptions(%s) = %+v, want %+v", tt.in, got, tt.want)
			}
			var strs []string
			for _, p := range probs {
				strs = append(strs, p.String())
			}
			if !reflect.DeepEqual(strs, tt.probs) {
				t.Errorf("problems:\n got %q\nwant %q", strs, tt.probs)
			}
		})
	}
	if _, _, err := ReadOptions([]byte(`[1, 2]`)); err == nil || !strings.HasPrefix(err.Error(), "options: ") {
		t.Errorf("ReadOptions of a list: %v, want an error about the options", err)
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

// FuzzReadOptions: any input reads without panicking; a problem names a
// key the object has; DecodeOptions fails exactly when a value is bad,
// and otherwise gives what ReadOptions gives.
func FuzzReadOptions(f *testing.F) {
	for _, s := range []string{``, `null`, `{}`, `[1]`, `{"autoExtract": "no"}`, `{"maxInjectChars": -1, "minTurns": 2}`,
		`{"categories": ["a", "../b"]}`, `{"extractModel": {"providerID": "p", "id": "m"}}`, `{"maxinjectchars": 5, "toast": 1}`,
		`{"halfLifeDays": 0, "maxInjectChars": null}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		o, probs, err := ReadOptions([]byte(in))
		if err != nil {
			return
		}
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(in), &m) != nil && strings.TrimSpace(in) != "" && strings.TrimSpace(in) != "null" {
			t.Fatalf("ReadOptions(%q) read what is no JSON object", in)
		}
		bad := false
		for _, p := range probs {
			if _, ok := m[p.Key]; !ok {
				t.Errorf("problem %v names no key of %q", p, in)
			}
			bad = bad || !p.Unknown()
		}
		d, derr := DecodeOptions([]byte(in))
		if (derr != nil) != bad {
			t.Errorf("DecodeOptions(%q) error %v, problems %v", in, derr, probs)
		}
		if derr == nil && !reflect.DeepEqual(d, o) {
			t.Errorf("DecodeOptions(%q) = %+v, ReadOptions %+v", in, d, o)
		}
	})
}
