package options

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDecode(t *testing.T) {
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
			got, err := Decode([]byte(tt.in))
			if err != nil {
				t.Fatalf("Decode(%s): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Decode(%s) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestDecodeRefusesBadValues(t *testing.T) {
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
		if o, err := Decode([]byte(in)); err == nil {
			t.Errorf("Decode(%s) = %+v, want an error", in, o)
		} else if !strings.HasPrefix(err.Error(), "options: ") {
			t.Errorf("Decode(%s): error %q does not say it is about the options", in, err)
		}
	}
}

// TestRead: a bad value costs only its own option, which keeps its
// default; the others apply. Each bad value and unknown key is a problem
// naming the key, the value and what is wanted, or the option meant.
func TestRead(t *testing.T) {
	for _, tt := range []struct {
		name  string
		in    string
		want  Options
		probs []string // Problem.String of each
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
			got, probs, err := Read([]byte(tt.in))
			if err != nil {
				t.Fatalf("Read(%s): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Read(%s) = %+v, want %+v", tt.in, got, tt.want)
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
	if _, _, err := Read([]byte(`[1, 2]`)); err == nil || !strings.HasPrefix(err.Error(), "options: ") {
		t.Errorf("Read of a list: %v, want an error about the options", err)
	}
}

// TestOptionsDefaults holds the zero Options to the documented defaults.
func TestOptionsDefaults(t *testing.T) {
	var o Options
	if o.MaxInjectCharsOrDefault() != 1200 || o.MaxInjectEntriesOrDefault() != 4 || o.MinTurnsOrDefault() != 4 ||
		o.MaxOutlineCharsOrDefault() != 4000 || o.ExtractIdle() != 600*time.Second {
		t.Errorf("zero Options: chars %d, entries %d, minTurns %d, outline %d, idle %v", o.MaxInjectCharsOrDefault(),
			o.MaxInjectEntriesOrDefault(), o.MinTurnsOrDefault(), o.MaxOutlineCharsOrDefault(), o.ExtractIdle())
	}
	if !reflect.DeepEqual(o.CategoriesOrDefault(), []string{"rules", "preferences", "decisions", "pitfalls", "facts"}) {
		t.Errorf("default categories = %v", o.CategoriesOrDefault())
	}
	set := Options{MaxInjectChars: 7, MaxInjectEntries: 2, MaxOutlineChars: 9, MinTurns: 3, ExtractIdleSeconds: 5, Categories: []string{"x"}}
	if set.MaxInjectCharsOrDefault() != 7 || set.MaxInjectEntriesOrDefault() != 2 || set.MaxOutlineCharsOrDefault() != 9 ||
		set.MinTurnsOrDefault() != 3 || set.ExtractIdle() != 5*time.Second || !reflect.DeepEqual(set.CategoriesOrDefault(), []string{"x"}) {
		t.Errorf("set Options read as %+v", set)
	}
}

func TestCheckCategory(t *testing.T) {
	for _, tt := range []struct{ in, err string }{
		{"rules", ""},
		{"决定", ""},
		{"a/b", `category "a/b" must be one name, without /`},
		{"../x", `category "../x" must be one name, without /`},
		{"", "category: "},
		{".hidden", "category: "},
		{"con", "category: "},
	} {
		err := CheckCategory(tt.in)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("CheckCategory(%q) = %v, want nil", tt.in, err)
		case tt.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.err)):
			t.Errorf("CheckCategory(%q) = %v, want an error starting %q", tt.in, err, tt.err)
		}
	}
}

func TestOneEditApart(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"toasts", "toasts", true},
		{"maxInjectChar", "maxInjectChars", true}, // one removed
		{"maxInjectCharss", "maxInjectChars", true},
		{"minTurms", "minTurns", true},             // one changed
		{"MAXINJECTCHARS", "maxInjectChars", true}, // case only
		{"minTrns", "minTurns", true},
		{"mnTrns", "minTurns", false}, // two edits
		{"bin", "toasts", false},
		{"décisions", "decisions", true}, // runes, not bytes
		{"", "b", true},
		{"", "bi", false},
	} {
		if got := OneEditApart(tt.a, tt.b); got != tt.want {
			t.Errorf("OneEditApart(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := OneEditApart(tt.b, tt.a); got != tt.want {
			t.Errorf("OneEditApart(%q, %q) = %v, want %v", tt.b, tt.a, got, tt.want)
		}
	}
}

// FuzzRead: any input reads without panicking; a problem names a
// key the object has; Decode fails exactly when a value is bad,
// and otherwise gives what Read gives.
func FuzzRead(f *testing.F) {
	for _, s := range []string{``, `null`, `{}`, `[1]`, `{"autoExtract": "no"}`, `{"maxInjectChars": -1, "minTurns": 2}`,
		`{"categories": ["a", "../b"]}`, `{"extractModel": {"providerID": "p", "id": "m"}}`, `{"maxinjectchars": 5, "toast": 1}`,
		`{"halfLifeDays": 0, "maxInjectChars": null}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		o, probs, err := Read([]byte(in))
		if err != nil {
			return
		}
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(in), &m) != nil && strings.TrimSpace(in) != "" && strings.TrimSpace(in) != "null" {
			t.Fatalf("Read(%q) read what is no JSON object", in)
		}
		bad := false
		for _, p := range probs {
			if _, ok := m[p.Key]; !ok {
				t.Errorf("problem %v names no key of %q", p, in)
			}
			bad = bad || !p.Unknown()
		}
		d, derr := Decode([]byte(in))
		if (derr != nil) != bad {
			t.Errorf("Decode(%q) error %v, problems %v", in, derr, probs)
		}
		if derr == nil && !reflect.DeepEqual(d, o) {
			t.Errorf("Decode(%q) = %+v, Read %+v", in, d, o)
		}
	})
}

func TestExtractIdleNeverWraps(t *testing.T) {
	for _, secs := range []int{1, 600, 9_223_372_036, 9_223_372_037, 10_000_000_000, math.MaxInt} {
		got := Options{ExtractIdleSeconds: secs}.ExtractIdle()
		if got <= 0 {
			t.Errorf("extractIdleSeconds %d: ExtractIdle() = %v, want a positive duration", secs, got)
		}
		if secs <= 9_223_372_036 && got != time.Duration(secs)*time.Second {
			t.Errorf("extractIdleSeconds %d: ExtractIdle() = %v, want %v", secs, got, time.Duration(secs)*time.Second)
		}
	}
}
