package engine

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/ocmem/ocmem/internal/rank"
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
// defaults; JSON decoding (DecodeOptions) maps the spec's explicit zeros
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

func (o Options) maxInjectChars() int { return orDefault(o.MaxInjectChars, DefaultMaxInjectChars) }
func (o Options) maxInjectEntries() int {
	return orDefault(o.MaxInjectEntries, DefaultMaxInjectEntries)
}
func (o Options) maxOutlineChars() int   { return orDefault(o.MaxOutlineChars, DefaultMaxOutlineChars) }
func (o Options) MinTurnsOrDefault() int { return orDefault(o.MinTurns, DefaultMinTurns) }

// ExtractIdle is how long a session must stay idle before its remaining
// turns are extracted.
func (o Options) ExtractIdle() time.Duration {
	return time.Duration(orDefault(o.ExtractIdleSeconds, DefaultExtractIdleSeconds)) * time.Second
}
func (o Options) categories() []string {
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

// wireOptions is the plugin-options JSON (SPEC §7).
type wireOptions struct {
	MaxInjectChars   *int      `json:"maxInjectChars"`
	MaxInjectEntries *int      `json:"maxInjectEntries"`
	MaxOutlineChars  *int      `json:"maxOutlineChars"`
	HalfLifeDays     *float64  `json:"halfLifeDays"`
	AutoExtract      *bool     `json:"autoExtract"`
	MinTurns         *int      `json:"minTurns"`
	ExtractIdle      *int      `json:"extractIdleSeconds"`
	ExtractModel     *ModelRef `json:"extractModel"`
	Categories       []string  `json:"categories"`
}

// DecodeOptions reads the plugin options object. Unknown keys are ignored
// (OpenCode may pass its own), bad values are errors.
func DecodeOptions(data []byte) (Options, error) {
	var o Options
	if len(data) == 0 || string(data) == "null" {
		return o, nil
	}
	var w wireOptions
	if err := json.Unmarshal(data, &w); err != nil {
		return o, fmt.Errorf("options: %w", err)
	}
	nonNeg := func(name string, p *int, dst *int) error {
		if p == nil {
			return nil
		}
		if *p < 0 {
			return fmt.Errorf("options: %s must not be negative", name)
		}
		*dst = *p
		return nil
	}
	for _, f := range []struct {
		name string
		p    *int
		dst  *int
	}{
		{"maxInjectChars", w.MaxInjectChars, &o.MaxInjectChars},
		{"maxInjectEntries", w.MaxInjectEntries, &o.MaxInjectEntries},
		{"maxOutlineChars", w.MaxOutlineChars, &o.MaxOutlineChars},
		{"minTurns", w.MinTurns, &o.MinTurns},
		{"extractIdleSeconds", w.ExtractIdle, &o.ExtractIdleSeconds},
	} {
		if err := nonNeg(f.name, f.p, f.dst); err != nil {
			return o, err
		}
	}
	if w.HalfLifeDays != nil {
		switch {
		case *w.HalfLifeDays < 0:
			return o, fmt.Errorf("options: halfLifeDays must not be negative")
		case *w.HalfLifeDays == 0:
			o.HalfLifeDays = -1 // the spec's 0: no decay
		default:
			o.HalfLifeDays = *w.HalfLifeDays
		}
	}
	if w.AutoExtract != nil {
		o.NoAutoExtract = !*w.AutoExtract
	}
	o.ExtractModel = w.ExtractModel
	if w.Categories != nil {
		o.Categories = slices.Clone(w.Categories)
		for _, c := range o.Categories {
			if err := checkCategory(c); err != nil {
				return o, fmt.Errorf("options: categories: %w", err)
			}
		}
	}
	return o, nil
}

// pluginKeys are options of the same object that the plugin reads itself
// (plugin/ocmem.js) and the engine does not.
var pluginKeys = []string{"bin", "toasts"}

// optionKeys are the keys DecodeOptions reads, from wireOptions' tags,
// and the plugin's own.
var optionKeys = func() []string {
	t := reflect.TypeFor[wireOptions]()
	keys := make([]string, t.NumField())
	for i := range keys {
		keys[i], _, _ = strings.Cut(t.Field(i).Tag.Get("json"), ",")
	}
	return append(keys, pluginKeys...)
}()

// UnknownOption is a key of an options object that no option has: in a
// person's config, most likely a typo, which DecodeOptions ignores.
type UnknownOption struct {
	Key  string
	Near string // the option it is one edit (or case) away from, or ""
}

// UnknownOptionKeys lists, sorted, the keys of an options object that
// DecodeOptions ignores.
func UnknownOptionKeys(opts map[string]json.RawMessage) []UnknownOption {
	var out []UnknownOption
	for k := range opts {
		if slices.Contains(optionKeys, k) {
			continue
		}
		u := UnknownOption{Key: k}
		for _, o := range optionKeys {
			if oneEditApart(k, o) {
				u.Near = o
				break
			}
		}
		out = append(out, u)
	}
	slices.SortFunc(out, func(a, b UnknownOption) int { return strings.Compare(a.Key, b.Key) })
	return out
}
