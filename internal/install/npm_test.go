package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

// npmBinary lays out an installed platform package under dir (as npm
// does: node_modules/ocmem-<platform>/bin/ocmem) and returns its binary.
func npmBinary(t *testing.T, dir, version string) string {
	t.Helper()
	pkg := filepath.Join(dir, "node_modules", "ocmem-"+NodePlatform())
	if err := os.MkdirAll(filepath.Join(pkg, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	pj := `{"name":"ocmem-` + NodePlatform() + `","version":"` + version + `"}`
	if err := os.WriteFile(filepath.Join(pkg, "package.json"), []byte(pj), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(pkg, "bin", exeName())
	if err := os.WriteFile(bin, []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestDetectNpm(t *testing.T) {
	dir := t.TempDir()
	global := npmBinary(t, filepath.Join(dir, "lib", "node_modules", "ocmem"), "0.1.0")
	npx := npmBinary(t, filepath.Join(dir, "npm-cache", "_npx", "5f2c"), "0.2.0-rc.1")
	if n := DetectNpm(global); n == nil || n.Version != "0.1.0" || n.Npx || n.Spec() != "ocmem@0.1.0" || n.Package != "ocmem-"+NodePlatform() {
		t.Errorf("global npm install: %+v", n)
	}
	if n := DetectNpm(npx); n == nil || n.Version != "0.2.0-rc.1" || !n.Npx {
		t.Errorf("npx: %+v", n)
	}

	// Not from npm: a checkout's binary, a look-alike folder.
	other := filepath.Join(dir, "elsewhere", "ocmem-"+NodePlatform())
	os.MkdirAll(filepath.Join(other, "bin"), 0o755)
	os.WriteFile(filepath.Join(other, "package.json"), []byte(`{"name":"ocmem-`+NodePlatform()+`","version":"1.0.0"}`), 0o644)
	renamed := filepath.Join(dir, "node_modules", "ocmem-x")
	os.MkdirAll(filepath.Join(renamed, "bin"), 0o755)
	os.WriteFile(filepath.Join(renamed, "package.json"), []byte(`{"name":"ocmem-`+NodePlatform()+`","version":"1.0.0"}`), 0o644)
	broken := filepath.Join(dir, "b", "node_modules", "ocmem-"+NodePlatform())
	os.MkdirAll(filepath.Join(broken, "bin"), 0o755)
	os.WriteFile(filepath.Join(broken, "package.json"), []byte(`{"name":`), 0o644)
	for _, bin := range []string{
		filepath.Join(dir, "go", "bin", "ocmem"),
		filepath.Join(other, "bin", "ocmem"),
		filepath.Join(renamed, "bin", "ocmem"),
		filepath.Join(broken, "bin", "ocmem"),
		filepath.Join(dir, "node_modules", "ocmem-"+NodePlatform(), "ocmem"),
	} {
		if n := DetectNpm(bin); n != nil {
			t.Errorf("%s detected as npm: %+v", bin, n)
		}
	}
}

// pluginEntries reads the config's plugin list.
func pluginEntries(t *testing.T, path string) []any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := hujson.Standardize(data)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct{ Plugin []any }
	if err := json.Unmarshal(v, &cfg); err != nil {
		t.Fatal(err)
	}
	return cfg.Plugin
}

func entriesString(entries []any) string {
	b, _ := json.Marshal(entries)
	return string(b)
}

// TestInstallSwitchesBetweenNpmAndCheckout: an install from npm replaces
// the plugin file's entry with the pinned package, in its place and with its
// options, and removes the file; an install from a checkout does the
// reverse; a newer npm version replaces an older pin. ocmem is registered
// once at every step.
func TestInstallSwitchesBetweenNpmAndCheckout(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // OpenCode's cache, which install repairs
	dir := t.TempDir()
	cfg := filepath.Join(dir, "opencode.jsonc")
	orig := `{
  // mine
  "plugin": ["before", "after"],
}
`
	if err := os.WriteFile(cfg, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	checkout := Options{ConfigDir: dir, Bin: "/src/ocmem/ocmem"}
	res, err := Install(checkout)
	if err != nil {
		t.Fatal(err)
	}
	pluginPath := res.PluginPath
	pluginDir := filepath.Dir(pluginPath)
	// A person set options on the entry, and moved it to the middle (the
	// entry as installs before OpenCode 2 support wrote it: plugin.js).
	os.WriteFile(cfg, []byte("{\n  // mine\n  \"plugin\": [\"before\", [\""+pluginPath+"\", {\"maxInjectChars\": 800}], \"after\"],\n}\n"), 0o644)

	npm := Options{ConfigDir: dir, Bin: npmBinary(t, filepath.Join(dir, "g", "lib", "node_modules", "ocmem"), "0.1.0")}
	res, err = Install(npm)
	if err != nil {
		t.Fatal(err)
	}
	if res.Spec != "ocmem@0.1.0" || res.Npm == nil || !res.Registered || !res.Wrote || !slices.Equal(res.Replaced, []string{pluginPath}) {
		t.Errorf("npm install: %+v", res)
	}
	if got := entriesString(pluginEntries(t, cfg)); got != `["before",["ocmem@0.1.0",{"maxInjectChars":800}],"after"]` {
		t.Errorf("after the npm install: %s", got)
	}
	if _, err := os.Stat(pluginPath); err == nil {
		t.Error("the plugin file is still there")
	}
	if data, _ := os.ReadFile(cfg); !strings.Contains(string(data), "// mine") {
		t.Errorf("comment lost:\n%s", data)
	}
	lines := strings.Join(res.Lines(), "\n")
	for _, want := range []string{"registered ocmem@0.1.0 in " + cfg, "removed the plugin file " + pluginPath, "removed the entry " + pluginPath} {
		if !strings.Contains(lines, want) {
			t.Errorf("lines lack %q:\n%s", want, lines)
		}
	}
	st, err := Inspect(npm)
	if err != nil || st.Npm != "ocmem@0.1.0" || st.Registered || st.PluginPresent {
		t.Errorf("Inspect: %+v %v", st, err)
	}

	// Again: nothing changes. OpenCode's `opencode plugin` writes a bare
	// string, which counts as registered too.
	before, _ := os.ReadFile(cfg)
	if res, err = Install(npm); err != nil || res.Registered || res.Wrote || len(res.Replaced) != 0 {
		t.Errorf("second npm install: %+v %v", res, err)
	}
	if after, _ := os.ReadFile(cfg); string(after) != string(before) {
		t.Errorf("second npm install rewrote the config:\n%s", after)
	}

	// A newer version replaces the pin, a duplicate bare entry goes too.
	os.WriteFile(cfg, []byte(`{"plugin": [["ocmem@0.1.0", {"halfLifeDays": 7}], "ocmem"]}`), 0o644)
	newer := Options{ConfigDir: dir, Bin: npmBinary(t, filepath.Join(dir, "n"), "0.2.0")}
	if res, err = Install(newer); err != nil || !slices.Equal(res.Replaced, []string{"ocmem@0.1.0", "ocmem"}) {
		t.Errorf("upgrade: %+v %v", res, err)
	}
	if got := entriesString(pluginEntries(t, cfg)); got != `[["ocmem@0.2.0",{"halfLifeDays":7}]]` {
		t.Errorf("after the upgrade: %s", got)
	}

	// Back to the checkout: the file entry replaces the package.
	if res, err = Install(checkout); err != nil || !res.Wrote || !slices.Equal(res.Replaced, []string{"ocmem@0.2.0"}) {
		t.Errorf("checkout install: %+v %v", res, err)
	}
	if got := entriesString(pluginEntries(t, cfg)); got != `[["`+pluginDir+`",{"halfLifeDays":7}]]` {
		t.Errorf("after the checkout install: %s", got)
	}

	// Uninstall takes out both kinds.
	os.WriteFile(cfg, []byte(`{"plugin": ["x", "ocmem@0.2.0", ["`+pluginDir+`", {}], "ocmemx", "@ocmem/ocmem"]}`), 0o644)
	if res, err = Uninstall(checkout); err != nil || !res.Registered {
		t.Fatalf("uninstall: %+v %v", res, err)
	}
	if got := entriesString(pluginEntries(t, cfg)); got != `["x","ocmemx","@ocmem/ocmem"]` {
		t.Errorf("after uninstall: %s", got)
	}
}

// TestNpxInstallLeavesMergeDriver: under npx the binary's path does not
// last, so install registers no merge driver and says why; a global npm
// install registers its binary.
func TestNpxInstallLeavesMergeDriver(t *testing.T) {
	isolatedGit(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	npx := npmBinary(t, filepath.Join(dir, "cache", "_npx", "ab12"), "0.1.0")
	res, err := Install(Options{ConfigDir: dir, Bin: npx, GitMergeDriver: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.MergeDriver; d == nil || d.Changed || !strings.Contains(d.Skipped, "npx") {
		t.Errorf("merge driver under npx: %+v", d)
	}
	if cmd, _, _ := MergeDriver(npx); cmd != "" {
		t.Errorf("a merge driver was registered: %s", cmd)
	}
	if lines := strings.Join(res.Lines(), "\n"); !strings.Contains(lines, "git merge driver not registered: this ocmem runs from npx's cache") {
		t.Errorf("lines:\n%s", lines)
	}

	global := npmBinary(t, filepath.Join(dir, "lib", "node_modules", "ocmem"), "0.1.0")
	if res, err = Install(Options{ConfigDir: dir, Bin: global, GitMergeDriver: true}); err != nil {
		t.Fatal(err)
	}
	if cmd, current, _ := MergeDriver(global); !current || !strings.Contains(cmd, global) {
		t.Errorf("global npm install: driver %q, current %v (%+v)", cmd, current, res.MergeDriver)
	}
}

// openCodeCacheEntry lays out OpenCode's cache entry for ocmem@version:
// the main package, and the platform package with its binary unless
// withBinary is false (npm skipped it, or it was removed).
func openCodeCacheEntry(t *testing.T, cache, version string, withBinary bool) string {
	t.Helper()
	entry := filepath.Join(cache, "opencode", "packages", "ocmem@"+version)
	main := filepath.Join(entry, "node_modules", "ocmem")
	if err := os.MkdirAll(main, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(main, "package.json"), []byte(`{"name":"ocmem","version":"`+version+`"}`), 0o644)
	if withBinary {
		npmBinary(t, entry, version)
	} else {
		os.MkdirAll(filepath.Join(entry, "node_modules", "ocmem-"+NodePlatform()), 0o755)
	}
	return entry
}

// TestRepairNpmCache: an entry of OpenCode's cache without its binary is
// removed, so OpenCode installs it again; a sound entry, or none, is left.
func TestRepairNpmCache(t *testing.T) {
	for _, tt := range []struct {
		name               string
		present, withBin   bool
		removed, leftThere bool
	}{
		{"no binary", true, false, true, false},
		{"sound", true, true, false, true},
		{"not installed", false, false, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cache := t.TempDir()
			t.Setenv("XDG_CACHE_HOME", cache)
			entry := filepath.Join(cache, "opencode", "packages", "ocmem@0.1.0")
			if tt.present {
				openCodeCacheEntry(t, cache, "0.1.0", tt.withBin)
			}
			got, err := RepairNpmCache("ocmem@0.1.0")
			if err != nil {
				t.Fatal(err)
			}
			if (got == entry) != tt.removed || (got != "") != tt.removed {
				t.Errorf("RepairNpmCache = %q, want removed %v (%s)", got, tt.removed, entry)
			}
			if _, err := os.Stat(entry); (err == nil) != tt.leftThere {
				t.Errorf("entry there: %v, want %v", err == nil, tt.leftThere)
			}
		})
	}
}

// TestNpmInstallRepairsOpenCodesCopy: `npx ocmem@V install` (a binary from
// npm) removes OpenCode's copy of ocmem@V that lacks its binary, and says
// so: `opencode plugin ocmem@V -g --force` leaves it as it is.
func TestNpmInstallRepairsOpenCodesCopy(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	entry := openCodeCacheEntry(t, cache, "0.1.0", false)
	dir := t.TempDir()
	npx := npmBinary(t, filepath.Join(dir, "cache", "_npx", "ab12"), "0.1.0")
	res, err := Install(Options{ConfigDir: dir, Bin: npx})
	if err != nil {
		t.Fatal(err)
	}
	if res.Repaired != entry {
		t.Errorf("Repaired = %q, want %s", res.Repaired, entry)
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Errorf("the broken entry is still there: %v", err)
	}
	lines := strings.Join(res.Lines(), "\n")
	if !strings.Contains(lines, "removed OpenCode's copy of ocmem@0.1.0, which lacked its binary ("+entry+"); OpenCode installs it again when it starts") ||
		!strings.Contains(lines, "restart OpenCode") {
		t.Errorf("lines:\n%s", lines)
	}
	// Again: nothing left to repair.
	if res, err = Install(Options{ConfigDir: dir, Bin: npx}); err != nil || res.Repaired != "" {
		t.Errorf("second install: %+v, %v", res, err)
	}
}

// TestInspectNpmCacheBothLines: the package is found where OpenCode 1.x
// installs it (packages/<spec>/node_modules) and where 2.0.15 does
// (npm/<spec>/<time>/node_modules, the newest install).
func TestInspectNpmCacheBothLines(t *testing.T) {
	for _, layout := range []struct{ name, nm string }{
		{"1.x", filepath.Join("packages", "ocmem@0.1.0", "node_modules")},
		{"2.x", filepath.Join("npm", "ocmem@0.1.0", "1796162937470", "node_modules")},
	} {
		cache := t.TempDir()
		t.Setenv("XDG_CACHE_HOME", cache)
		nm := filepath.Join(cache, "opencode", layout.nm)
		if layout.name == "2.x" { // an older install beside it
			older := filepath.Join(cache, "opencode", "npm", "ocmem@0.1.0", "1796000000000", "node_modules", "ocmem")
			os.MkdirAll(older, 0o755)
			os.WriteFile(filepath.Join(older, "package.json"), []byte(`{"version":"0.0.9"}`), 0o644)
		}
		os.MkdirAll(filepath.Join(nm, "ocmem"), 0o755)
		os.WriteFile(filepath.Join(nm, "ocmem", "package.json"), []byte(`{"version":"0.1.0"}`), 0o644)
		bin := filepath.Join(nm, "ocmem-"+NodePlatform(), "bin", exeName())
		os.MkdirAll(filepath.Dir(bin), 0o755)
		os.WriteFile(bin, nil, 0o755)
		c, err := InspectNpmCache("ocmem@0.1.0")
		if err != nil || c.Version != "0.1.0" || c.Binary != bin {
			t.Errorf("%s: %+v %v", layout.name, c, err)
		}
	}
}
