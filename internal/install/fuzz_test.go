package install

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tailscale/hujson"
)

// FuzzEditConfig: whatever the config holds, an edit either fails and
// leaves the file as it was, or leaves a file that parses, with spec as its
// one ocmem entry across both plugin lists (none when removing) and every
// other entry kept, in order.
func FuzzEditConfig(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"plugin": null}`,
		`{"plugin": ["a", "ocmem", ["ocmem@0.1.0", {"x": 1}], "b"]}`,
		"{\n  // c\n  \"plugin\": [[\"/cfg/ocmem/plugin.js\", {}], \"ocmem@0.2.0\",],\n}\n",
		`{"plugin": ["file:///cfg/ocmem/plugin.js", "ocmemx", "@x/ocmem", 3, [], [7]]}`,
		`{"plugin": "ocmem"}`,
		`{"plugins": [{"package": "ocmem@0.1.0", "options": {"x": 1}}, {"package": "b"}]}`,
		`{"plugins": [{"package": "/cfg/ocmem"}], "plugin": ["ocmem@0.2.0"]}`,
		`{"plugins": [{"package": "./ocmem"}, {"package": 3}, "x", null]}`,
		`{"plugins": null, "plugin": []}`,
		`[1]`,
		`{"plugin": [`,
	} {
		for spec := range 3 {
			f.Add(seed, uint8(spec))
		}
	}
	const pluginPath = "/cfg/ocmem/plugin.js"
	f.Fuzz(func(t *testing.T, config string, which uint8) {
		spec := []string{"", filepath.Dir(pluginPath), "ocmem@0.3.0"}[which%3]
		path := filepath.Join(t.TempDir(), "opencode.jsonc")
		configDir := filepath.Dir(path)
		if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
		// The entries that are not ocmem's, before.
		others := func(data []byte) ([]string, bool) {
			std, err := hujson.Standardize(data)
			if err != nil {
				return nil, false
			}
			var cfg pluginLists
			if json.Unmarshal(std, &cfg) != nil {
				return nil, false
			}
			var out []string
			for _, key := range []string{keyV1, keyV2} {
				for _, e := range cfg.list(key) {
					if !isOcmem(e, pluginPath, configDir) {
						b, _ := json.Marshal(e)
						out = append(out, key+":"+string(b))
					}
				}
			}
			return out, true
		}
		ocmemEntries := func(data []byte) []string {
			std, _ := hujson.Standardize(data)
			var cfg pluginLists
			json.Unmarshal(std, &cfg)
			var out []string
			for _, key := range []string{keyV1, keyV2} {
				for _, e := range cfg.list(key) {
					if isOcmem(e, pluginPath, configDir) {
						out = append(out, entrySpec(e))
					}
				}
			}
			return out
		}
		before, parsed := others([]byte(config))
		_, _, _, err := editConfig(path, pluginPath, spec)
		after, _ := os.ReadFile(path)
		if err != nil {
			if !bytes.Equal(after, []byte(config)) {
				t.Fatalf("a failed edit changed the file: %v\n%s", err, after)
			}
			return
		}
		if !parsed {
			t.Fatalf("an edit of a config that does not parse succeeded:\n%s", config)
		}
		got, ok := others(after)
		if !ok {
			t.Fatalf("the edit left a file that does not parse:\n%s", after)
		}
		if !slices.Equal(got, before) {
			t.Fatalf("other entries changed: %v → %v\n%s", before, got, after)
		}
		want := []string{spec}
		if spec == "" {
			want = nil
		}
		if o := ocmemEntries(after); !slices.Equal(o, want) && !(spec == filepath.Dir(pluginPath) && len(o) == 1 && isOurs(o[0], pluginPath, configDir)) {
			t.Fatalf("ocmem entries %q, want %q\n%s", o, want, after)
		}
	})
}
