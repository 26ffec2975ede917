package settings

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/options"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReadSources: ocmem's tuple is found in JSON and JSONC, in the
// global dir and in every project file OpenCode reads; other plugins'
// options and files without ocmem are not sources.
func TestReadSources(t *testing.T) {
	d := t.TempDir()
	cfg, repo := filepath.Join(d, "cfg"), filepath.Join(d, "repo")
	write(t, filepath.Join(cfg, "opencode.jsonc"), `{
  // the user's
  "plugin": ["other", ["/home/u/.config/opencode/plugin/ocmem.js", {"maxInjectChars": 800,}]],
}`)
	write(t, filepath.Join(repo, "opencode.json"), `{"plugin": [["ocmem@1.2.0", {"extractModel": {"providerID": "p", "id": "big"}}], ["evil", {"maxInjectChars": 1}]]}`)
	write(t, filepath.Join(repo, ".opencode", "opencode.json"), `{"plugin": [["@x/ocmem", {"minTurns": 1}]]}`)
	write(t, filepath.Join(repo, "sub", "opencode.json"), `{"plugin": [["ocmem", {"maxOutlineChars": 99999}]]}`)
	write(t, filepath.Join(repo, "sub", "deeper", "opencode.json"), `{"model": "x"}`)
	write(t, filepath.Join(repo, "broken", "opencode.json"), `{"plugin": [`)

	g := Global(cfg)
	if len(g) != 1 || string(g[0].Options["maxInjectChars"]) != "800" {
		t.Fatalf("Global = %+v", g)
	}
	p := Project(repo, filepath.Join(repo, "sub", "deeper"))
	var paths []string
	for _, s := range p {
		paths = append(paths, strings.TrimPrefix(s.Path, repo))
	}
	want := []string{"/opencode.json", "/.opencode/opencode.json", "/sub/opencode.json"}
	if strings.Join(paths, " ") != filepath.FromSlash(strings.Join(want, " ")) {
		t.Errorf("Project sources %q, want %q", paths, want)
	}
	if _, ok := p[0].Options["maxInjectChars"]; ok {
		t.Error("another plugin's options were read as ocmem's")
	}
	if b := Project(repo, filepath.Join(repo, "broken")); len(b) != 3 || b[2].Err == "" {
		t.Errorf("a broken file: %+v", b)
	}
	if out := Project(repo, filepath.Join(d, "elsewhere")); len(out) != 2 {
		t.Errorf("a directory outside the worktree adds sources: %+v", out)
	}
}

func src(path, options string) []Source {
	var o map[string]json.RawMessage
	if err := json.Unmarshal([]byte(options), &o); err != nil {
		panic(err)
	}
	return []Source{{Path: path, Options: o}}
}

func TestGuard(t *testing.T) {
	big := `{"providerID":"p","id":"big"}`
	small := `{"providerID":"p","id":"small"}`
	for _, c := range []struct {
		name            string
		merged          string
		global, project []Source
		trusted         bool
		want            string
		overrides       []string
	}{
		{name: "nothing", merged: "", want: `{}`},
		{name: "no project file", merged: `{"maxInjectChars":800}`, global: src("g", `{"maxInjectChars":800}`), want: `{"maxInjectChars":800}`},
		{name: "global wins over the project's merged value",
			merged: `{"maxInjectChars":50000,"autoExtract":true}`, global: src("g", `{"maxInjectChars":800,"autoExtract":false}`),
			project: src("p", `{"maxInjectChars":50000,"autoExtract":true}`),
			want:    `{"autoExtract":false,"maxInjectChars":800}`,
			overrides: []string{`autoExtract = true from p: ignored (an untrusted repository cannot turn autoExtract on over false, your global config's; change it there to allow more)`,
				`maxInjectChars = 50000 from p: ignored (an untrusted repository cannot raise maxInjectChars above 800, your global config's; change it there to allow more)`}},
		{name: "trusted, the global config still wins over a raise",
			merged: `{"maxInjectChars":50000}`, global: src("g", `{"maxInjectChars":800}`), project: src("p", `{"maxInjectChars":50000}`), trusted: true,
			want:      `{"maxInjectChars":800}`,
			overrides: []string{`maxInjectChars = 50000 from p: ignored (your global config sets 800, which wins)`}},
		{name: "an untrusted repository raises what the global config leaves unset",
			merged:  `{"maxInjectChars":50000,"minTurns":1,"extractIdleSeconds":1}`,
			project: src("p", `{"maxInjectChars":50000,"minTurns":1,"extractIdleSeconds":1}`),
			want:    `{}`,
			overrides: []string{
				"minTurns = 1 from p: ignored (an untrusted repository cannot lower minTurns below 4, the default, as your global config does not set it; `ocmem trust` to allow it)",
				"extractIdleSeconds = 1 from p: ignored (an untrusted repository cannot lower extractIdleSeconds below 600, the default, as your global config does not set it; `ocmem trust` to allow it)",
				"maxInjectChars = 50000 from p: ignored (an untrusted repository cannot raise maxInjectChars above 1200, the default, as your global config does not set it; `ocmem trust` to allow it)"}},
		{name: "narrower than the global config applies",
			merged: `{"maxInjectChars":600,"minTurns":8,"autoExtract":false}`, global: src("g", `{"maxInjectChars":800,"minTurns":6}`),
			project: src("p", `{"maxInjectChars":600,"minTurns":8,"autoExtract":false}`),
			want:    `{"autoExtract":false,"maxInjectChars":600,"minTurns":8}`,
			overrides: []string{`autoExtract = false from p: applies (it turns automatic extraction off)`,
				`minTurns = 8 from p: applies (at least 6, your global config's)`,
				`maxInjectChars = 600 from p: applies (at most 800, your global config's)`}},
		// 0 takes the default: above a smaller global value, it is a raise.
		{name: "zero is the default", merged: `{"maxInjectChars":0,"maxInjectEntries":0}`, global: src("g", `{"maxInjectChars":800}`),
			project: src("p", `{"maxInjectChars":0,"maxInjectEntries":0}`), want: `{"maxInjectChars":800,"maxInjectEntries":0}`,
			overrides: []string{`maxInjectChars = 0 from p: ignored (an untrusted repository cannot raise maxInjectChars above 800, your global config's; change it there to allow more)`,
				`maxInjectEntries = 0 from p: applies (the same as 4, the default)`}},
		// A value serve cannot use takes the default; it passes only where
		// the default is no raise, so that serve reports it.
		{name: "unusable value", merged: `{"maxInjectChars":"600","maxOutlineChars":"x"}`, global: src("g", `{"maxInjectChars":800}`),
			project: src("p", `{"maxInjectChars":"600","maxOutlineChars":"x"}`), want: `{"maxInjectChars":800,"maxOutlineChars":"x"}`,
			overrides: []string{`maxInjectChars = "600" from p: ignored (an untrusted repository cannot raise maxInjectChars above 800, your global config's; change it there to allow more)`,
				`maxOutlineChars = "x" from p: applies (not a value ocmem can use; serve uses the default, 4000, and says so)`}},
		// The value checked is the one serve gets, not a merged one that
		// differs from every file.
		{name: "merged value differs from the file's", merged: `{"maxInjectChars":50000}`, project: src("p", `{"maxInjectChars":600}`),
			want: `{"maxInjectChars":600}`, overrides: []string{`maxInjectChars = 600 from p: applies (at most 1200, the default)`}},
		{name: "global key the merged options lost", merged: `{"halfLifeDays":3}`, global: src("g", `{"minTurns":8}`),
			project: src("p", `{"halfLifeDays":3}`), want: `{"halfLifeDays":3,"minTurns":8}`},
		{name: "trusted project-only budget applies, shown", merged: `{"maxOutlineChars":9000}`, project: src("p", `{"maxOutlineChars":9000}`), trusted: true,
			want:      `{"maxOutlineChars":9000}`,
			overrides: []string{`maxOutlineChars = 9000 from p: applies (you trust the project, and your global config does not set it; set it there to override)`}},
		{name: "untrusted project's categories ignored", merged: `{"categories":["a","b"]}`, project: src("p", `{"categories":["a","b"]}`),
			want: `{}`, overrides: []string{`categories = ["a","b"] from p: ignored (a repository's categories apply only once you trust the project (` + "`ocmem trust`" + `): compile writes an index.md for each into your global memory folder too)`}},
		{name: "trusted project's categories apply", merged: `{"categories":["a"]}`, project: src("p", `{"categories":["a"]}`), trusted: true,
			want: `{"categories":["a"]}`, overrides: []string{`categories = ["a"] from p: applies (you trust the project, and your global config does not set it; set it there to override)`}},
		{name: "global categories win", merged: `{"categories":["a"]}`, global: src("g", `{"categories":["g"]}`), project: src("p", `{"categories":["a"]}`), trusted: true,
			want: `{"categories":["g"]}`, overrides: []string{`categories = ["a"] from p: ignored (your global config sets ["g"], which wins)`}},
		{name: "untrusted project's extractModel ignored", merged: `{"extractModel":` + big + `}`, project: src("p", `{"extractModel":`+big+`}`),
			want: `{}`, overrides: []string{`extractModel = ` + big + ` from p: ignored (a repository's extractModel applies only once you trust the project (` + "`ocmem trust`" + `); the cheapest suitable model is used)`}},
		{name: "trusted project's extractModel applies", merged: `{"extractModel":` + big + `}`, project: src("p", `{"extractModel":`+big+`}`), trusted: true,
			want: `{"extractModel":` + big + `}`, overrides: []string{`extractModel = ` + big + ` from p: applies (you trust the project, and your global config does not set it; set it there to override)`}},
		{name: "global extractModel wins even when trusted", merged: `{"extractModel":` + big + `}`, global: src("g", `{"extractModel":`+small+`}`),
			project: src("p", `{"extractModel":`+big+`}`), trusted: true, want: `{"extractModel":` + small + `}`,
			overrides: []string{`extractModel = ` + big + ` from p: ignored (your global config sets ` + small + `, which wins)`}},
		// What serve receives is guarded, whatever the files' spelling.
		{name: "untrusted extractModel no file sets as read", merged: `{"extractModel":` + big + `,"minTurns":1,"maxInjectChars":500}`,
			want: `{"maxInjectChars":500}`, overrides: []string{
				`extractModel = ` + big + ` from the options OpenCode passed: ignored (no config file ocmem reads sets it as spelled, so it is taken for the repository's and applies only once you trust the project (` + "`ocmem trust`" + `); set it in your global config)`,
				"minTurns = 1 from the options OpenCode passed: ignored (an untrusted repository cannot lower minTurns below 4, the default, as your global config does not set it; `ocmem trust` to allow it)",
				`maxInjectChars = 500 from the options OpenCode passed: applies (at most 1200, the default)`}},
		{name: "trusted extractModel no file sets as read", merged: `{"extractModel":` + big + `,"minTurns":1}`, trusted: true,
			want: `{"extractModel":` + big + `,"minTurns":1}`, overrides: []string{
				`extractModel = ` + big + ` from the options OpenCode passed: applies (no config file ocmem reads sets it as spelled; set it in your global config to override)`,
				`minTurns = 1 from the options OpenCode passed: applies (you trust the project, and your global config does not set it; set it there to override)`}},
		{name: "same value is no override", merged: `{"minTurns":4}`, global: src("g", `{"minTurns":4}`), project: src("p", `{"minTurns": 4}`), want: `{"minTurns":4}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ovs, err := Guard(json.RawMessage(c.merged), c.global, c.project, c.trusted)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("options %s, want %s", got, c.want)
			}
			var s []string
			for _, o := range ovs {
				s = append(s, o.String())
			}
			if strings.Join(s, "\n") != strings.Join(c.overrides, "\n") {
				t.Errorf("overrides:\n%s\nwant:\n%s", strings.Join(s, "\n"), strings.Join(c.overrides, "\n"))
			}
		})
	}
	if _, _, err := Guard(json.RawMessage(`[1]`), nil, nil, false); err == nil {
		t.Error("options that are not an object: no error")
	}
}

// TestGuardDirections: for every guarded option with a cheaper direction,
// a repository's value applies when it narrows from the effective global
// value (the global config's, else the default), trusted or not; a raise
// applies only when the project is trusted and the global config does not
// set the option, and is otherwise replaced by the global value or
// dropped (the default).
func TestGuardDirections(t *testing.T) {
	for _, o := range []struct {
		key string
		// global lies between lower and raise (lowerGlobal, when set, is
		// the global value lower narrows from); raise is above the
		// default too, lower below it.
		global, raise, lower, lowerGlobal string
	}{
		{"maxInjectChars", "800", "50000", "600", ""},
		{"maxInjectEntries", "3", "20", "2", ""},
		{"maxOutlineChars", "3000", "90000", "1000", ""},
		{"minTurns", "6", "1", "8", ""},
		{"extractIdleSeconds", "900", "1", "1200", ""},
		// autoExtract is on by default: only a global false can be raised
		// over, and false narrows from the default or a global true.
		{"autoExtract", "false", "true", "false", "true"},
	} {
		for _, trusted := range []bool{false, true} {
			for _, globalSet := range []bool{false, true} {
				for _, raise := range []bool{false, true} {
					pv, gv := o.lower, o.global
					if raise {
						pv = o.raise
					} else if o.lowerGlobal != "" {
						gv = o.lowerGlobal
					}
					var global []Source
					if globalSet {
						global = src("g", `{"`+o.key+`":`+gv+`}`)
					}
					if o.key == "autoExtract" && raise && !globalSet {
						continue // nothing is above the default, on
					}
					name := fmt.Sprintf("%s/trusted=%v/global=%v/raise=%v", o.key, trusted, globalSet, raise)
					t.Run(name, func(t *testing.T) {
						applies := !raise || trusted && !globalSet
						want := `{}`
						switch {
						case applies:
							want = `{"` + o.key + `":` + pv + `}`
						case globalSet:
							want = `{"` + o.key + `":` + gv + `}`
						}
						merged := json.RawMessage(`{"` + o.key + `":` + pv + `}`)
						got, ovs, err := Guard(merged, global, src("p", string(merged)), trusted)
						if err != nil {
							t.Fatal(err)
						}
						if string(got) != want {
							t.Errorf("options %s, want %s", got, want)
						}
						if len(ovs) != 1 || ovs[0].Applied != applies || ovs[0].Key != o.key {
							t.Fatalf("overrides %+v, want one of %s, applied %v", ovs, o.key, applies)
						}
						if untrustedRaise := raise && !trusted; untrustedRaise != strings.Contains(ovs[0].Why, "an untrusted repository cannot") {
							t.Errorf("why: %s", ovs[0].Why)
						}
					})
				}
			}
		}
	}
}

// TestEnvSubstitution: OpenCode replaces {env:NAME} in a config file's
// text before parsing it, so "{env:NOPE}extractModel" reaches serve as
// extractModel; the guard reads the file the same way. Earlier versions
// read the raw key, saw no extractModel, and let the repository's model
// through.
func TestEnvSubstitution(t *testing.T) {
	t.Setenv("OCMEM_TEST_SPELL", "ocmem")
	d := t.TempDir()
	cfg, repo := filepath.Join(d, "cfg"), filepath.Join(d, "repo")
	write(t, filepath.Join(repo, "opencode.json"), `{"{env:OCMEM_TEST_UNSET}plugin": [["{env:OCMEM_TEST_SPELL}", {"{env:OCMEM_TEST_UNSET}extractModel": {"providerID": "p", "id": "big"}}]]}`)
	project := Project(repo, repo)
	if len(project) != 1 || string(project[0].Options["extractModel"]) == "" {
		t.Fatalf("Project = %+v, want the extractModel OpenCode reads", project)
	}
	merged := json.RawMessage(`{"extractModel": {"providerID": "p", "id": "big"}}`)
	got, ovs, err := Guard(merged, Global(cfg), project, false)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != `{}` || len(ovs) != 1 || ovs[0].Path != filepath.Join(repo, "opencode.json") || ovs[0].Applied {
		t.Errorf("Guard = %s, %+v; want extractModel dropped and reported from the file", got, ovs)
	}
}

// TestConfigContentIsGlobal: the config OpenCode takes from
// $OPENCODE_CONFIG_CONTENT is the user's, and wins like their files.
func TestConfigContentIsGlobal(t *testing.T) {
	t.Setenv("OPENCODE_CONFIG_CONTENT", `{"plugin": [["ocmem", {"extractModel": {"providerID": "p", "id": "mine"}}]]}`)
	g := Global("")
	if len(g) != 1 || g[0].Path != "$OPENCODE_CONFIG_CONTENT" {
		t.Fatalf("Global = %+v", g)
	}
	got, _, err := Guard(json.RawMessage(`{"extractModel": {"providerID": "p", "id": "mine"}}`), g, nil, false)
	if err != nil || !strings.Contains(string(got), "mine") {
		t.Errorf("Guard = %s, %v; want the user's extractModel kept", got, err)
	}
}

func FuzzOcmemOptions(f *testing.F) {
	f.Add([]byte(`{"plugin": [["ocmem", {"a": 1}]]}`))
	f.Add([]byte(`{"plugin": "x"}`))
	f.Add([]byte(`// c
{"plugin": [["ocmem"], ["ocmem", null], ["ocmem", {"x": [}]]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		opts, err := ocmemOptions(data)
		if err != nil && opts != nil {
			t.Errorf("options %v with an error %v", opts, err)
		}
	})
}

// BenchmarkPerRequest is what serve does on every request: read the
// global and the project's config files, and guard the merged options.
func BenchmarkPerRequest(b *testing.B) {
	d := b.TempDir()
	cfg, repo := filepath.Join(d, "cfg"), filepath.Join(d, "repo")
	for path, content := range map[string]string{
		filepath.Join(cfg, "opencode.json"):  `{"$schema": "https://opencode.ai/config.json", "plugin": [["/u/.config/opencode/plugin/ocmem.js", {"maxInjectChars": 800}]]}`,
		filepath.Join(repo, "opencode.json"): `{"model": "x/y", "plugin": [["ocmem", {"extractModel": {"providerID": "p", "id": "big"}, "minTurns": 2}]]}`,
	} {
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(content), 0o644)
	}
	merged := json.RawMessage(`{"extractModel": {"providerID": "p", "id": "big"}, "minTurns": 2}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Guard(merged, Global(cfg), Project(repo, repo), false); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzGuardNeverRaises: whatever the merged options and the project's
// file hold, the options serve reads from Guard's result, for an
// untrusted project, spend no more than the global config's values or
// the defaults, and name no extraction model.
func FuzzGuardNeverRaises(f *testing.F) {
	f.Add([]byte(`{"maxInjectChars":50000,"minTurns":1,"extractIdleSeconds":1}`), []byte(`{"maxInjectChars":50000,"minTurns":1,"extractIdleSeconds":1}`))
	f.Add([]byte(`{"maxInjectChars":0,"autoExtract":true}`), []byte(`{"maxInjectChars":600,"autoExtract":"yes"}`))
	f.Add([]byte(`{"maxOutlineChars":1000000000,"extractModel":{"providerID":"p","id":"big"}}`), []byte(`{"maxInjectEntries":null}`))
	f.Add([]byte(`{"extractIdleSeconds":-5}`), []byte(`{}`))
	global := src("g", `{"maxInjectChars":800,"minTurns":6,"autoExtract":false}`)
	f.Fuzz(func(t *testing.T, merged, project []byte) {
		var p map[string]json.RawMessage
		if json.Unmarshal(project, &p) != nil {
			return
		}
		out, _, err := Guard(merged, global, []Source{{Path: "p", Options: p}}, false)
		if err != nil {
			return // merged is no object: serve then guards nil
		}
		got, _, err := options.Read(out)
		if err != nil {
			t.Fatalf("Guard returned %s, which is no options object: %v", out, err)
		}
		// The bounds as a person reads the global config and SPEC §7,
		// not as the guard computes them.
		for _, c := range []struct {
			what string
			ok   bool
		}{
			{"maxInjectChars above the global 800", got.MaxInjectCharsOrDefault() <= 800},
			{"maxInjectEntries above the default 4", got.MaxInjectEntriesOrDefault() <= options.DefaultMaxInjectEntries},
			{"maxOutlineChars above the default 4000", got.MaxOutlineCharsOrDefault() <= options.DefaultMaxOutlineChars},
			{"minTurns below the global 6", got.MinTurnsOrDefault() >= 6},
			{"extractIdleSeconds below the default 600", got.ExtractIdle() >= options.DefaultExtractIdleSeconds*time.Second},
			{"autoExtract on over the global false", got.NoAutoExtract},
		} {
			if !c.ok {
				t.Errorf("%s reached serve (%s) from merged %s and project %s", c.what, out, merged, project)
			}
		}
		if got.ExtractModel != nil {
			t.Errorf("extractModel %+v reached serve for an untrusted project", *got.ExtractModel)
		}
	})
}
