// Package settings keeps a repository from quietly changing what ocmem
// spends or injects. OpenCode hands a plugin the options of its config
// tuple after merging the user's global config with the project's own
// opencode.json, which arrives with `git clone` like any other file. For
// the options that cost money or widen what reaches the model (Guarded),
// a project's value may only narrow from the effective global value (the
// user's global config, else the default): a smaller budget, rarer
// extraction. A raise applies only once the user trusts the project
// (`ocmem trust`), and never over a value the global config sets; the
// extraction model, which has no cheaper direction, likewise. Every
// project value is reported as an Override, so `ocmem doctor` and serve's
// log can show it. Place resolves, the same way for every edge, which
// roots an engine works on and whose trust applies.
//
//	opts, overrides, err := settings.Guard(merged, settings.Global(dir), settings.Project(worktree, directory), trusted)
//	cfg, err := settings.Place{Dir: wd, TrustFile: list}.Engine(opts)
package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/tailscale/hujson"
)

// Guarded are the option keys a repository cannot raise: the extraction
// model and whether and how often it runs (cost), the injection budgets
// (what reaches the model), and the categories (compile writes an index.md
// for each into the global root too, a folder outside the repository).
// Each budget has its cheaper direction in limits; extractModel and
// categories have none, and apply from a project only once it is trusted.
var Guarded = []string{"extractModel", "categories", "autoExtract", "minTurns", "extractIdleSeconds", "maxInjectChars", "maxInjectEntries", "maxOutlineChars"}

// A limit orders the values of a guarded option by what they spend. level
// is the option's effective value, as serve would use it (its default
// when unset or unusable), scaled so that more is costlier: the minimum
// turns and idle seconds before an extraction are negated, since fewer
// mean more extractions. Values compare by level, so a 0 that takes the
// default compares as the default.
type limit struct {
	level func(options.Options) int
	// show spells a level as the option's value.
	show func(level int) string
	// narrower says how a value is narrower than the bound, and raise
	// what a repository may not do to the bound, for the person reading
	// the override.
	narrower func(bound string) string
	raise    string
}

var limits = map[string]limit{
	"autoExtract": {level: autoExtractLevel, show: func(l int) string { return strconv.FormatBool(l == 1) },
		narrower: func(string) string { return "it turns automatic extraction off" }, raise: "turn autoExtract on over"},
	"minTurns":           {level: func(o options.Options) int { return -o.MinTurnsOrDefault() }, show: negated, narrower: atLeast, raise: "lower minTurns below"},
	"extractIdleSeconds": {level: func(o options.Options) int { return -int(o.ExtractIdle() / time.Second) }, show: negated, narrower: atLeast, raise: "lower extractIdleSeconds below"},
	"maxInjectChars":     {level: options.Options.MaxInjectCharsOrDefault, show: strconv.Itoa, narrower: atMost, raise: "raise maxInjectChars above"},
	"maxInjectEntries":   {level: options.Options.MaxInjectEntriesOrDefault, show: strconv.Itoa, narrower: atMost, raise: "raise maxInjectEntries above"},
	"maxOutlineChars":    {level: options.Options.MaxOutlineCharsOrDefault, show: strconv.Itoa, narrower: atMost, raise: "raise maxOutlineChars above"},
}

func autoExtractLevel(o options.Options) int {
	if o.NoAutoExtract {
		return 0
	}
	return 1
}

func negated(l int) string { return strconv.Itoa(-l) }

func atMost(bound string) string  { return "at most " + bound }
func atLeast(bound string) string { return "at least " + bound }

// levelOf is the level of key's value v as serve would use it; ok is false
// when v is no value of the option (serve then uses the default, and says
// so).
func (l limit) levelOf(key string, v json.RawMessage) (level int, ok bool) {
	data, err := json.Marshal(map[string]json.RawMessage{key: v})
	if err != nil {
		return l.level(options.Options{}), false
	}
	o, probs, err := options.Read(data)
	return l.level(o), err == nil && len(probs) == 0
}

// Source is the ocmem options one OpenCode config file sets.
type Source struct {
	Path    string
	Options map[string]json.RawMessage // shared between reads: not to be modified
	Err     string                     // the file could not be read as a config
}

// maxConfigSize bounds a config file read; OpenCode's are a few kilobytes.
const maxConfigSize = 1 << 20

// Global reads the user's OpenCode config files: opencode.json,
// opencode.jsonc and config.json in its config dir, then $OPENCODE_CONFIG.
// Files that do not exist are left out.
func Global(configDir string) []Source {
	var paths []string
	if configDir != "" {
		for _, n := range []string{"config.json", "opencode.json", "opencode.jsonc"} {
			paths = append(paths, filepath.Join(configDir, n))
		}
	}
	if p := os.Getenv("OPENCODE_CONFIG"); p != "" {
		paths = append(paths, p)
	}
	out := read(paths)
	// The config OpenCode takes from its environment is the user's too.
	if c := os.Getenv("OPENCODE_CONFIG_CONTENT"); c != "" {
		src := Source{Path: "$OPENCODE_CONFIG_CONTENT"}
		var err error
		if src.Options, err = ocmemOptions([]byte(c)); err != nil {
			src.Err = err.Error()
		}
		if src.Options != nil || src.Err != "" {
			out = append(out, src)
		}
	}
	return out
}

// Project reads a project's OpenCode config files: opencode.json(c) and
// .opencode/opencode.json(c) in the worktree and in each folder from it
// down to directory (OpenCode reads them all; the nearest wins).
func Project(worktree, directory string) []Source {
	if worktree == "" {
		worktree = directory
	}
	if worktree == "" {
		return nil
	}
	dirs := []string{filepath.Clean(worktree)}
	if directory != "" {
		if rel, err := filepath.Rel(worktree, directory); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			cur := dirs[0]
			for _, part := range strings.Split(rel, string(filepath.Separator)) {
				cur = filepath.Join(cur, part)
				dirs = append(dirs, cur)
			}
		}
	}
	var paths []string
	for _, d := range dirs {
		for _, n := range []string{"opencode.json", "opencode.jsonc", filepath.Join(".opencode", "opencode.json"), filepath.Join(".opencode", "opencode.jsonc")} {
			paths = append(paths, filepath.Join(d, n))
		}
	}
	return read(paths)
}

// parsed keeps the ocmem options of each config file read, so that serve,
// which reads them on every request, parses a file only after it changed.
var parsed = store.FileCache[map[string]json.RawMessage]{Parse: ocmemOptions, Max: maxConfigSize}

func read(paths []string) []Source {
	var out []Source
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			continue
		}
		src := Source{Path: p}
		switch {
		case !info.Mode().IsRegular() || info.Size() > maxConfigSize:
			src.Err = "not a regular file of at most 1 MiB"
		default:
			if src.Options, err = parsed.Get(p, info); err != nil {
				src.Err = err.Error()
			}
		}
		if src.Options != nil || src.Err != "" {
			out = append(out, src)
		}
	}
	return out
}

// ocmemOptions finds the options of ocmem's plugin tuple in a config file:
// an entry ["<spec naming ocmem>", {…}] of its "plugin" list. nil when
// there is none.
func ocmemOptions(data []byte) (map[string]json.RawMessage, error) {
	v, err := hujson.Parse(substituteEnv(data))
	if err != nil {
		return nil, err
	}
	v.Standardize()
	var cfg struct {
		Plugin []json.RawMessage `json:"plugin"`
	}
	if err := json.Unmarshal(v.Pack(), &cfg); err != nil {
		return nil, err
	}
	var opts map[string]json.RawMessage
	for _, e := range cfg.Plugin {
		var tuple []json.RawMessage
		if json.Unmarshal(e, &tuple) != nil || len(tuple) < 2 {
			continue
		}
		var spec string
		if json.Unmarshal(tuple[0], &spec) != nil || !IsOcmem(spec) {
			continue
		}
		var o map[string]json.RawMessage
		if json.Unmarshal(tuple[1], &o) == nil && o != nil {
			opts = o // a later tuple wins, as in OpenCode's list
		}
	}
	return opts, nil
}

// envRef is OpenCode's {env:NAME} substitution, which it applies to a
// config file's text before parsing it.
var envRef = regexp.MustCompile(`\{env:([^}]+)\}`)

// substituteEnv spells a config file as OpenCode reads it: each
// {env:NAME} replaced by the variable's value, or by nothing when it is
// unset (serve runs with OpenCode's environment). A key such as
// "{env:NOPE}extractModel" is extractModel to OpenCode, so it is to the
// guard too.
func substituteEnv(data []byte) []byte {
	if !bytes.Contains(data, []byte("{env:")) {
		return data
	}
	return envRef.ReplaceAllFunc(data, func(m []byte) []byte {
		return []byte(os.Getenv(string(envRef.FindSubmatch(m)[1])))
	})
}

// IsOcmem reports whether a plugin spec names ocmem: its npm package
// ("ocmem", "ocmem@1.2.0", "@scope/ocmem") or a file path holding "ocmem".
func IsOcmem(spec string) bool {
	return strings.Contains(strings.ToLower(spec), "ocmem")
}

// Override is a guarded option a project's config file sets.
type Override struct {
	Key   string `json:"key"`
	Value string `json:"value"` // as JSON
	Path  string `json:"path"`  // the project file that sets it
	// Applied: the project's value is used (it narrows from the global
	// config's value or the default, or the project is trusted and the
	// global config does not set the key).
	Applied bool   `json:"applied"`
	Why     string `json:"why"`
}

func (o Override) String() string {
	state := "ignored"
	if o.Applied {
		state = "applies"
	}
	return fmt.Sprintf("%s = %s from %s: %s (%s)", o.Key, o.Value, o.Path, state, o.Why)
}

// last returns the value of key in the last source that sets it.
func last(srcs []Source, key string) (json.RawMessage, string, bool) {
	for i := len(srcs) - 1; i >= 0; i-- {
		if v, ok := srcs[i].Options[key]; ok {
			return v, srcs[i].Path, true
		}
	}
	return nil, "", false
}

// mergedPath is the Path of an Override found only in the merged options.
const mergedPath = "the options OpenCode passed"

// Guard returns the options to use, from the merged options OpenCode
// passed the plugin. A guarded key the project sets may narrow what ocmem
// spends from the effective global value (the global config's, else the
// default); a raise applies only when the project is trusted and the
// global config does not set the key, and is otherwise replaced by that
// value. extractModel, which has no cheaper direction, applies from the
// project only when it is trusted and the global config does not set it.
// Other keys are left as merged. It also returns the project's overrides
// of guarded keys, sorted by key.
func Guard(merged json.RawMessage, global, project []Source, trusted bool) (json.RawMessage, []Override, error) {
	out := map[string]json.RawMessage{}
	if t := bytes.TrimSpace(merged); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		if err := json.Unmarshal(t, &out); err != nil {
			return nil, nil, fmt.Errorf("options: %w", err)
		}
		if out == nil {
			out = map[string]json.RawMessage{}
		}
	}
	var ovs []Override
	for _, k := range Guarded {
		if o, ok := guardKey(out, k, global, project, trusted); ok {
			ovs = append(ovs, o)
		}
	}
	sort.SliceStable(ovs, func(i, j int) bool {
		return slices.Index(Guarded, ovs[i].Key) < slices.Index(Guarded, ovs[j].Key)
	})
	b, err := json.Marshal(out)
	return b, ovs, err
}

// guardKey sets key k of out to the value serve may use, and returns the
// project's override of it, if it has one.
func guardKey(out map[string]json.RawMessage, k string, global, project []Source, trusted bool) (Override, bool) {
	gv, _, gset := last(global, k)
	pv, path, pset := last(project, k)
	if !pset {
		v, ok := out[k]
		switch {
		case gset:
			out[k] = gv
			return Override{}, false
		case !ok:
			return Override{}, false
		}
		// The guard is on what serve receives: a value no file read
		// above sets (spelled so this reading misses it, as with
		// {file:…} in a key) counts as the project's.
		pv, path = v, mergedPath
	}
	if gset && sameJSON(pv, gv) {
		out[k] = gv
		return Override{}, false
	}
	o := Override{Key: k, Value: compact(pv), Path: path}
	if l, ok := limits[k]; ok {
		o.Applied, o.Why = l.decide(k, pv, gv, gset, trusted)
	} else {
		o.Applied, o.Why = decideTrusted(k, gv, gset, trusted, path == mergedPath)
	}
	switch {
	case o.Applied:
		// The value checked, not the merged one: the two differ only when
		// OpenCode read a spelling this package does not.
		out[k] = pv
	case gset:
		out[k] = gv
	default:
		delete(out, k)
	}
	return o, true
}

// decide says whether the project's value pv of key applies over the
// global config's gv (gset: the global config sets it), and why.
func (l limit) decide(key string, pv, gv json.RawMessage, gset, trusted bool) (bool, string) {
	bound := l.level(options.Options{})
	if gset {
		bound, _ = l.levelOf(key, gv) // a value serve cannot use leaves the default
	}
	whose := "the default"
	if gset {
		whose = "your global config's"
	}
	bounds := l.show(bound) + ", " + whose
	level, ok := l.levelOf(key, pv)
	switch {
	case level <= bound && !ok:
		return true, "not a value ocmem can use; serve uses the default, " + l.show(level) + ", and says so"
	case level == bound:
		return true, "the same as " + bounds
	case level < bound:
		return true, l.narrower(bounds)
	case trusted && !gset:
		return true, "you trust the project, and your global config does not set it; set it there to override"
	case trusted:
		return false, "your global config sets " + compact(gv) + ", which wins"
	case gset:
		return false, "an untrusted repository cannot " + l.raise + " " + bounds + "; change it there to allow more"
	}
	return false, "an untrusted repository cannot " + l.raise + " " + l.show(bound) +
		", the default, as your global config does not set it; `ocmem trust` to allow it"
}

// decideTrusted says whether the project's value of an option without a
// cheaper direction applies: only from a trusted project, and never over
// the global config. Models have no order of cost ocmem could check
// offline (the default is the cheapest suitable one), so any the project
// names is a raise; a project's categories would name folders compile
// writes into the global root.
func decideTrusted(key string, gv json.RawMessage, gset, trusted, merged bool) (bool, string) {
	if key == "categories" {
		switch {
		case gset:
			return false, "your global config sets " + compact(gv) + ", which wins"
		case trusted:
			return true, "you trust the project, and your global config does not set it; set it there to override"
		}
		return false, "a repository's categories apply only once you trust the project (`ocmem trust`): compile writes an index.md for each into your global memory folder too"
	}
	return decideModel(gv, gset, trusted, merged)
}

// decideModel says whether the project's extractModel applies.
func decideModel(gv json.RawMessage, gset, trusted, merged bool) (bool, string) {
	switch {
	case gset:
		return false, "your global config sets " + compact(gv) + ", which wins"
	case trusted && merged:
		return true, "no config file ocmem reads sets it as spelled; set it in your global config to override"
	case trusted:
		return true, "you trust the project, and your global config does not set it; set it there to override"
	case merged:
		return false, "no config file ocmem reads sets it as spelled, so it is taken for the repository's and applies only once you trust the project (`ocmem trust`); set it in your global config"
	}
	return false, "a repository's extractModel applies only once you trust the project (`ocmem trust`); the cheapest suitable model is used"
}

func compact(v json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
