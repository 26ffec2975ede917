// Package options holds the options a person sets for ocmem, their
// defaults, and how the plugin's options object is read: strictly
// (Decode, for a command line that should refuse a mistake) and leniently
// (Read, for the serve process, where a bad value costs only its own
// option and is reported as a Problem).
package options

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ocmem/ocmem/internal/pathsafe"
	"github.com/ocmem/ocmem/internal/rank"
	"github.com/ocmem/ocmem/internal/secrets"
)

// Defaults of the options (SPEC §7).
const (
	DefaultMaxInjectChars   = 1200
	DefaultMaxInjectEntries = 4
	DefaultHalfLifeDays     = rank.DefaultHalfLifeDays // declared once, where decay is computed
	DefaultMinTurns         = 4
	// DefaultExtractIdleSeconds is how long a session stays idle before the
	// turns it has left (fewer than minTurns) are extracted.
	DefaultExtractIdleSeconds = 600
	// DefaultMaxOutlineChars bounds the outline tier. An outline line is
	// about 60–120 characters (id, summary, triggers), so 4000 characters
	// hold the whole outline of a store of 40–60 memories (about 1,000–1,500
	// tokens, cached with the system prompt and paid in full once per cache
	// miss); a larger store degrades to counts per category plus its pinned
	// and most recent lines, and everything stays reachable by memory_recall.
	DefaultMaxOutlineChars = 4000
)

// DefaultCategories are the categories a root starts with.
var DefaultCategories = []string{"rules", "preferences", "decisions", "pitfalls", "facts"}

// ModelRef names a model of an OpenCode provider.
type ModelRef struct {
	ProviderID string `json:"providerID"`
	ID         string `json:"id"`
}

// Options configure the engine. The zero value means the documented
// defaults; JSON decoding (Decode) maps the spec's explicit zeros
// ("halfLifeDays": 0 turns decay off, "autoExtract": false) onto fields whose
// zero value stays the default.
type Options struct {
	MaxInjectChars   int     // body characters injected per turn; 0: 1200
	MaxInjectEntries int     // bodies injected per turn; 0: 4
	MaxOutlineChars  int     // outline tier budget; 0: 4000
	HalfLifeDays     float64 // decay half-life; 0: 14; negative: no decay
	MinTurns         int     // new user turns per extraction; 0: 4
	// ExtractIdleSeconds: a session idle this long has its remaining turns
	// (fewer than MinTurns) extracted; 0: 600.
	ExtractIdleSeconds int
	NoAutoExtract      bool      // turn automatic extraction off
	ExtractModel       *ModelRef // nil: the cheapest suitable model
	Categories         []string  // nil: DefaultCategories
}

// MaxInjectCharsOrDefault is the body characters injected per turn: the
// option, or its default when it is unset (zero, or negative from Go).
func (o Options) MaxInjectCharsOrDefault() int {
	return orDefault(o.MaxInjectChars, DefaultMaxInjectChars)
}

// MaxInjectEntriesOrDefault is the bodies injected per turn, or the default.
func (o Options) MaxInjectEntriesOrDefault() int {
	return orDefault(o.MaxInjectEntries, DefaultMaxInjectEntries)
}

// MaxOutlineCharsOrDefault is the outline tier's budget, or the default.
func (o Options) MaxOutlineCharsOrDefault() int {
	return orDefault(o.MaxOutlineChars, DefaultMaxOutlineChars)
}

// MinTurnsOrDefault is the new user turns per extraction, or the default.
func (o Options) MinTurnsOrDefault() int { return orDefault(o.MinTurns, DefaultMinTurns) }

// ExtractIdle is how long a session must stay idle before its remaining
// turns are extracted. A number of seconds past what a Duration holds
// (some 292 years) means never in practice, and is held at that: times
// time.Second it would wrap negative, and extract after every turn.
func (o Options) ExtractIdle() time.Duration {
	secs := orDefault(o.ExtractIdleSeconds, DefaultExtractIdleSeconds)
	if int64(secs) > int64(maxDuration/time.Second) {
		return maxDuration
	}
	return time.Duration(secs) * time.Second
}

// maxDuration is the longest time.Duration.
const maxDuration = time.Duration(1<<63 - 1)

// CategoriesOrDefault are the categories of a root: Categories, or
// DefaultCategories when none are set.
func (o Options) CategoriesOrDefault() []string {
	if len(o.Categories) == 0 {
		return DefaultCategories
	}
	return o.Categories
}

func orDefault(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

// optionFields are the plugin options (SPEC §7) as JSON spells them, each
// with what a valid value is and how it sets Options. Keys match exactly,
// case included: the settings guard (internal/settings) compares them
// exactly, so a key read here under another spelling would apply a value
// the guard never saw. A null value is the option left unset.
var optionFields = []struct {
	key  string
	want string // a valid value, for the message about a bad one
	set  func(raw json.RawMessage, o *Options) error
}{
	{"maxInjectChars", "a whole number, at least 0", setCount(func(o *Options) *int { return &o.MaxInjectChars })},
	{"maxInjectEntries", "a whole number, at least 0", setCount(func(o *Options) *int { return &o.MaxInjectEntries })},
	{"maxOutlineChars", "a whole number, at least 0", setCount(func(o *Options) *int { return &o.MaxOutlineChars })},
	{"halfLifeDays", "a number of days, at least 0 (0: no decay)", func(raw json.RawMessage, o *Options) error {
		var v float64
		if err := json.Unmarshal(raw, &v); err != nil {
			return err
		}
		switch {
		case v < 0:
			return errors.New("must not be negative")
		case v == 0:
			o.HalfLifeDays = -1 // the spec's 0: no decay
		default:
			o.HalfLifeDays = v
		}
		return nil
	}},
	{"autoExtract", "true or false", func(raw json.RawMessage, o *Options) error {
		var v bool
		if err := json.Unmarshal(raw, &v); err != nil {
			return err
		}
		o.NoAutoExtract = !v
		return nil
	}},
	{"minTurns", "a whole number, at least 0", setCount(func(o *Options) *int { return &o.MinTurns })},
	{"extractIdleSeconds", "a whole number of seconds, at least 0", setCount(func(o *Options) *int { return &o.ExtractIdleSeconds })},
	{"extractModel", `{"providerID": "…", "id": "…"}`, func(raw json.RawMessage, o *Options) error {
		var m ModelRef
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		o.ExtractModel = &m
		return nil
	}},
	{"categories", `a list of folder names, such as ["rules", "facts"]`, func(raw json.RawMessage, o *Options) error {
		var cs []string
		if err := json.Unmarshal(raw, &cs); err != nil {
			return err
		}
		for _, c := range cs {
			if err := CheckCategory(c); err != nil {
				return err
			}
		}
		o.Categories = cs
		return nil
	}},
}

func setCount(field func(*Options) *int) func(json.RawMessage, *Options) error {
	return func(raw json.RawMessage, o *Options) error {
		var v int
		if err := json.Unmarshal(raw, &v); err != nil {
			return err
		}
		if v < 0 {
			return errors.New("must not be negative")
		}
		*field(o) = v
		return nil
	}
}

// Problem is one option of a plugin options object that cannot be
// used: a value of the wrong type or range (the option keeps its
// default), or a key no option has (ignored).
type Problem struct {
	Key   string
	Value string // the value as JSON, compacted
	// Want is what a valid value of the option is; "" for an unknown key.
	Want string
	Err  string // why the value is refused; "" for an unknown key
	Near string // for an unknown key, the option it is one edit (or case) from
}

// Unknown reports whether the key is no option's.
func (p Problem) Unknown() bool { return p.Want == "" }

func (p Problem) String() string {
	switch {
	case p.Unknown() && p.Near != "":
		return fmt.Sprintf("%q is not an option; did you mean %q?", p.Key, p.Near)
	case p.Unknown():
		return fmt.Sprintf("%q is not an option", p.Key)
	}
	return fmt.Sprintf("%s = %s: %s; want %s", p.Key, p.Value, p.Err, p.Want)
}

// maxProblemValue bounds the value a problem quotes: enough to recognise
// it, never a whole pasted object.
const maxProblemValue = 60

// Decode reads the plugin options object. Unknown keys are ignored
// (OpenCode may pass its own), bad values are errors.
func Decode(data []byte) (Options, error) {
	o, probs, err := Read(data)
	if err != nil {
		return o, err
	}
	for _, p := range probs {
		if !p.Unknown() {
			return o, fmt.Errorf("options: %s", p)
		}
	}
	return o, nil
}

// Read reads the plugin options object as serve uses it: a bad
// value leaves its option at the default and the other options apply, so
// one mistyped value does not turn memory off. Each bad value and each
// unknown key is returned as a problem, in the order of optionFields,
// then unknown keys sorted. The error is for data that is not a JSON
// object at all (every option then keeps its default).
func Read(data []byte) (Options, []Problem, error) {
	var o Options
	if t := strings.TrimSpace(string(data)); t == "" || t == "null" {
		return o, nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return o, nil, fmt.Errorf("options: want a JSON object: %w", err)
	}
	var probs []Problem
	for _, f := range optionFields {
		raw, ok := m[f.key]
		if !ok || strings.TrimSpace(string(raw)) == "null" {
			continue
		}
		next := o
		if err := f.set(raw, &next); err != nil {
			probs = append(probs, Problem{Key: f.key, Value: quoteValue(raw), Want: f.want, Err: valueError(err)})
			continue
		}
		o = next
	}
	for _, u := range UnknownKeys(m) {
		probs = append(probs, Problem{Key: u.Key, Value: quoteValue(m[u.Key]), Near: u.Near})
	}
	return o, probs, nil
}

// valueError says why a value was refused in a person's words: Go's JSON
// errors name Go types.
func valueError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "a JSON " + te.Value + " is not valid here"
	}
	return err.Error()
}

func quoteValue(raw json.RawMessage) string {
	var b bytes.Buffer
	s := string(raw)
	if json.Compact(&b, raw) == nil {
		s = b.String()
	}
	if len(secrets.Scan(s)) > 0 {
		// Problems reach toasts and logs; a secret pasted into the wrong
		// option must not.
		return "(a value that looks like a secret)"
	}
	if r := []rune(s); len(r) > maxProblemValue {
		s = string(r[:maxProblemValue]) + "…"
	}
	return s
}

// pluginKeys are options of the same object that the plugin reads itself
// (plugin/ocmem.js) and the engine does not.
var pluginKeys = []string{"bin", "toasts"}

// optionKeys are the keys Read reads, and the plugin's own.
var optionKeys = func() []string {
	keys := make([]string, 0, len(optionFields)+len(pluginKeys))
	for _, f := range optionFields {
		keys = append(keys, f.key)
	}
	return append(keys, pluginKeys...)
}()

// UnknownKey is a key of an options object that no option has: in a
// person's config, most likely a typo, which Decode ignores.
type UnknownKey struct {
	Key  string
	Near string // the option it is one edit (or case) away from, or ""
}

// UnknownKeys lists, sorted, the keys of an options object that Decode
// ignores.
func UnknownKeys(opts map[string]json.RawMessage) []UnknownKey {
	var out []UnknownKey
	for k := range opts {
		if slices.Contains(optionKeys, k) {
			continue
		}
		u := UnknownKey{Key: k}
		for _, o := range optionKeys {
			if OneEditApart(k, o) {
				u.Near = o
				break
			}
		}
		out = append(out, u)
	}
	slices.SortFunc(out, func(a, b UnknownKey) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// CheckCategory accepts a single safe path element: a category is one
// folder of a root.
func CheckCategory(c string) error {
	if strings.Contains(c, "/") {
		return fmt.Errorf("category %q must be one name, without /", c)
	}
	if err := pathsafe.Check(c); err != nil {
		return fmt.Errorf("category: %v", err)
	}
	return nil
}

// OneEditApart reports whether a becomes b by inserting, removing or
// changing one character (rune), or only by case.
func OneEditApart(a, b string) bool {
	x, y := []rune(strings.ToLower(a)), []rune(strings.ToLower(b))
	if len(x) > len(y) {
		x, y = y, x
	}
	if len(y)-len(x) > 1 {
		return false
	}
	if string(x) == string(y) {
		return true
	}
	i := 0
	for i < len(x) && x[i] == y[i] {
		i++
	}
	if len(x) == len(y) {
		return string(x[i+1:]) == string(y[i+1:])
	}
	return string(x[i:]) == string(y[i+1:])
}
