package doctor

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/install"
	"github.com/ocmem/ocmem/internal/store"
)

func TestScanLog(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ocmem.log")
	os.WriteFile(p, []byte(`{"time":"t1","level":"INFO","msg":"bodies injected","session":"s1","given":"project:a/b","chars":120}
not json
{"time":"t2","level":"WARN","msg":"remember refused","err":"secret"}
{"time":"t3","level":"INFO","msg":"bodies injected","session":"s2","given":"global:c/d","chars":80}
`), 0o644)
	inj, lastErr := scanLog(p)
	if !strings.Contains(inj, "s2") || !strings.Contains(inj, "global:c/d") {
		t.Errorf("last injection = %q", inj)
	}
	if !strings.Contains(lastErr, "remember refused") || !strings.Contains(lastErr, "secret") {
		t.Errorf("last error = %q", lastErr)
	}
}

// TestRun builds the real binary, installs it into a private config dir and
// expects every check to pass; then breaks the registration and expects the
// doctor to say so.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "ocmem")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/ocmem/ocmem/cmd/ocmem").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cfg := filepath.Join(dir, "config")
	t.Setenv("OPENCODE_CONFIG_DIR", cfg)
	t.Setenv("HOME", dir)
	if _, err := install.Install(install.Options{ConfigDir: cfg, Bin: bin}); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	version := strings.TrimPrefix(strings.TrimSpace(string(out)), "ocmem ")
	c := Config{Version: version, GlobalDir: filepath.Join(cfg, "memory"), Bin: bin}
	rep := Run(c)
	if !rep.OK() {
		t.Fatalf("want all checks to pass:\n%s", rep)
	}
	if !strings.Contains(rep.String(), "git merge driver for ROOT.md: ") {
		t.Errorf("the merge driver is not reported:\n%s", rep)
	}
	if err := os.Remove(filepath.Join(cfg, "opencode.json")); err != nil {
		t.Fatal(err)
	}
	rep = Run(c)
	if rep.OK() || !strings.Contains(rep.String(), "FAIL plugin registered") {
		t.Errorf("want the missing registration reported:\n%s", rep)
	}
	c.Version = "other"
	if rep := Run(c); !strings.Contains(rep.String(), "FAIL ocmem serve") {
		t.Errorf("want a version mismatch reported:\n%s", rep)
	}
}

// TestNpmCheck: a plugin entry from npm is looked up in OpenCode's cache
// (packages/<spec>/node_modules), with its platform binary, and the
// report says how to upgrade.
func TestNpmCheck(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	put := func(spec, version string, withBinary bool) {
		nm := filepath.Join(cache, "opencode", "packages", spec, "node_modules")
		os.MkdirAll(filepath.Join(nm, "ocmem"), 0o755)
		os.WriteFile(filepath.Join(nm, "ocmem", "package.json"), []byte(`{"name":"ocmem","version":"`+version+`"}`), 0o644)
		if withBinary {
			bin := filepath.Join(nm, "ocmem-"+install.NodePlatform(), "bin")
			os.MkdirAll(bin, 0o755)
			os.WriteFile(filepath.Join(bin, "ocmem"), nil, 0o755)
			os.WriteFile(filepath.Join(bin, "ocmem.exe"), nil, 0o755)
		}
	}
	put("ocmem@0.1.0", "0.1.0", true)
	put("ocmem@0.2.0", "0.2.0", false)
	put("ocmem@latest", "0.0.9", true)
	for _, c := range []struct {
		spec, version string
		ok            bool
		detail, info  string
	}{
		{"ocmem@0.1.0", "0.1.0", true, "ocmem@0.1.0 in OpenCode's cache: " + filepath.Join(cache, "opencode", "packages", "ocmem@0.1.0", "node_modules", "ocmem") + " (ocmem 0.1.0", "to upgrade, change the pin"},
		{"ocmem@0.1.0", "0.3.0", true, "(ocmem 0.1.0", "this ocmem is 0.3.0; OpenCode runs 0.1.0"},
		{"ocmem@0.2.0", "0.2.0", false, "but not its binary package ocmem-" + install.NodePlatform(), "to upgrade"},
		{"ocmem@0.4.0", "0.4.0", false, "ocmem@0.4.0 is not in OpenCode's cache", "to upgrade"},
		{"ocmem", "0.0.9", true, "(ocmem 0.0.9", `the entry "ocmem" is not pinned`},
	} {
		ch, info := npmCheck(&install.Status{Npm: c.spec}, c.version, false)
		if ch.OK != c.ok || !strings.Contains(ch.Detail, c.detail) || !strings.Contains(strings.Join(info, "\n"), c.info) {
			t.Errorf("%s (running %s): %+v\ninfo: %q", c.spec, c.version, ch, info)
		}
		if !ch.OK && !strings.Contains(ch.Fix, "opencode plugin "+c.spec) && !strings.Contains(ch.Fix, "npx "+c.spec+" doctor --fix") {
			t.Errorf("%s: fix %q", c.spec, ch.Fix)
		}
	}
}

// TestNpmCheckFix: a copy of the package in OpenCode's cache without its
// binary is repaired by the command doctor names, `npx ocmem@V doctor
// --fix`: the entry goes, so OpenCode installs it again when it starts
// (`opencode plugin ocmem@V -g --force` would leave it as it is).
func TestNpmCheckFix(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	entry := filepath.Join(cache, "opencode", "packages", "ocmem@0.2.0")
	os.MkdirAll(filepath.Join(entry, "node_modules", "ocmem"), 0o755)
	os.WriteFile(filepath.Join(entry, "node_modules", "ocmem", "package.json"), []byte(`{"name":"ocmem","version":"0.2.0"}`), 0o644)
	st := &install.Status{Npm: "ocmem@0.2.0"}

	ch, _ := npmCheck(st, "0.2.0", false)
	if ch.OK || !strings.Contains(ch.Detail, "memory is off in OpenCode") || !strings.Contains(ch.Fix, "run `npx ocmem@0.2.0 doctor --fix` (or `npx ocmem@0.2.0 install`)") {
		t.Errorf("without --fix: %+v", ch)
	}
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("doctor without --fix changed the cache: %v", err)
	}
	ch, _ = npmCheck(st, "0.2.0", true)
	if !ch.OK || !strings.Contains(ch.Detail, "fixed: removed OpenCode's copy of ocmem@0.2.0, which lacked its binary ("+entry+")") || !strings.Contains(ch.Detail, "restart OpenCode") {
		t.Errorf("with --fix: %+v", ch)
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Errorf("the entry is still there: %v", err)
	}
}

// TestPluginBinaryMissing: when the binary the installed plugin starts is
// gone, memory is off in OpenCode; the doctor says so and what to do.
func TestPluginBinaryMissing(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config")
	t.Setenv("OPENCODE_CONFIG_DIR", cfg)
	t.Setenv("HOME", dir)
	t.Setenv("PATH", t.TempDir()) // no ocmem on PATH to fall back to
	gone := filepath.Join(dir, "moved", "ocmem")
	if _, err := install.Install(install.Options{ConfigDir: cfg, Bin: gone}); err != nil {
		t.Fatal(err)
	}
	rep := Run(Config{Version: "x", GlobalDir: filepath.Join(cfg, "memory"), Bin: filepath.Join(dir, "no-such-binary")})
	if !strings.Contains(rep.String(), "FAIL binary the plugin starts: "+gone+" does not exist: memory is off in OpenCode") {
		t.Errorf("the missing binary is not reported:\n%s", rep)
	}
	// Once it is back, the check passes.
	os.MkdirAll(filepath.Dir(gone), 0o755)
	os.WriteFile(gone, []byte("#!/bin/sh\n"), 0o755)
	rep = Run(Config{Version: "x", GlobalDir: filepath.Join(cfg, "memory"), Bin: filepath.Join(dir, "no-such-binary")})
	if !strings.Contains(rep.String(), "ok   binary the plugin starts: "+gone) {
		t.Errorf("the binary back in place is not reported fine:\n%s", rep)
	}
}

// The log summary: an empty turn does not hide the last injection, and a
// refusal the user wants (a secret, a duplicate) is not reported as an error.
func TestScanLogRefusalsAndEmptyTurns(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ocmem.log")
	os.WriteFile(p, []byte(`{"time":"t1","level":"INFO","msg":"bodies injected","session":"s1","given":"project:a/b","chars":120}
{"time":"t2","level":"WARN","msg":"extraction failed","err":"read messages: timeout"}
{"time":"t3","level":"WARN","msg":"remember refused","err":"refusing to write: possible secret found: body: GitHub token"}
{"time":"t3","level":"WARN","msg":"request failed","method":"remember","err":"refusing to write: possible secret found: body: GitHub token"}
{"time":"t4","level":"WARN","msg":"remember refused","err":"duplicate memory: project:facts/x has this summary and body already"}
{"time":"t5","level":"INFO","msg":"bodies injected","session":"s2","given":"","chars":0}
`), 0o644)
	inj, lastErr := scanLog(p)
	if !strings.Contains(inj, "t1 session s1: given project:a/b (120 characters)") || !strings.Contains(inj, "the turn after it had nothing relevant") {
		t.Errorf("last injection = %q", inj)
	}
	if !strings.Contains(lastErr, "t2 extraction failed: read messages: timeout") {
		t.Errorf("last error = %q", lastErr)
	}
}

// TestScanLogLastError: the last error says which file (and line) it is
// about when the record does, and never prints a Go value for a field the
// record lacks.
func TestScanLogLastError(t *testing.T) {
	for _, tt := range []struct {
		record, want string
	}{
		{`{"time":"t1","level":"WARN","msg":"memory file skipped: it does not load","path":"/p/facts/bad.md","line":4,"err":"invalid YAML"}`,
			"t1 memory file skipped: it does not load (/p/facts/bad.md:4): invalid YAML"},
		{`{"time":"t2","level":"WARN","msg":"project rule not in force: new or changed since accepted","rule":"ROOT.md","change":"new","path":"/p/ROOT.md","line":6}`,
			"t2 project rule not in force: new or changed since accepted (/p/ROOT.md:6, rule ROOT.md, change new)"},
		{`{"time":"t3","level":"ERROR","msg":"extraction failed","stage":"read session","err":"connection refused"}`,
			"t3 extraction failed (stage read session): connection refused"},
		{`{"time":"t4","level":"WARN","msg":"ocmem serve hung"}`, "t4 ocmem serve hung"},
	} {
		p := filepath.Join(t.TempDir(), "ocmem.log")
		os.WriteFile(p, []byte(tt.record+"\n"), 0o644)
		if _, lastErr := scanLog(p); lastErr != tt.want || strings.Contains(lastErr, "<nil>") {
			t.Errorf("last error = %q, want %q", lastErr, tt.want)
		}
	}
}

func TestRootState(t *testing.T) {
	d := t.TempDir()
	for _, c := range []struct {
		dir  string
		n    int
		want string
	}{{d, 1, "1 memory"}, {d, 2, "2 memories"}, {filepath.Join(d, "x"), 0, "not created yet"}} {
		if got := rootState(c.dir, c.n); got != c.want {
			t.Errorf("rootState(%q, %d) = %q, want %q", c.dir, c.n, got, c.want)
		}
	}
}

// TestProjectRootCheck: a repository's .memory that is a link is reported
// as a failed check, unless the user named it.
func TestProjectRootCheck(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	d := t.TempDir()
	if err := os.MkdirAll(filepath.Join(d, "repo", "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(d, "repo", ".memory")
	if err := os.Symlink("..", link); err != nil {
		t.Fatal(err)
	}
	ch, ok := projectRootCheck(Config{ProjectDir: link})
	if !ok || ch.OK || !strings.Contains(ch.Detail, link+" is a link to") {
		t.Errorf("linked root: %+v, %v", ch, ok)
	}
	if ch, ok := projectRootCheck(Config{ProjectDir: link, ProjectChosen: true}); ok {
		t.Errorf("a chosen linked root is reported: %+v", ch)
	}
	if ch, ok := projectRootCheck(Config{ProjectDir: filepath.Join(d, "repo", "real")}); ok {
		t.Errorf("a real folder is reported: %+v", ch)
	}
}

func TestParseOpenCodeVersion(t *testing.T) {
	for out, want := range map[string]string{"1.18.33\n": "1.18.33", "opencode v2.0.15\n": "2.0.15", "nonsense": ""} {
		if v, _, _, _, _ := ParseOpenCodeVersion(out); v != want {
			t.Errorf("%q: %q, want %q", out, v, want)
		}
	}
}

// TestOpenCodeLine: the doctor says which OpenCode line it found and
// whether ocmem's entry loads there: the old plugin.js entry not on 2.x,
// an entry only in "plugins" not on 1.x, the folder in "plugin" on both.
func TestOpenCodeLine(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake opencode is a shell script")
	}
	dir := t.TempDir()
	fake := func(version string) string {
		p := filepath.Join(dir, "opencode-"+strings.ReplaceAll(version, " ", "_"))
		os.WriteFile(p, []byte("#!/bin/sh\necho '"+version+"'\n"), 0o755)
		return p
	}
	v1, v2, old := fake("1.18.33"), fake("opencode v2.0.15"), fake("1.17.2")
	folder := &install.Status{Registered: true, PluginSpec: "/c/ocmem", Key: "plugin"}
	file := &install.Status{Registered: true, PluginSpec: "/c/ocmem/plugin.js", Key: "plugin"}
	onlyV2 := &install.Status{Registered: true, PluginSpec: "/c/ocmem", Key: "plugins"}
	npm := &install.Status{Npm: "ocmem@1.0.0", Key: "plugins"}
	for _, c := range []struct {
		bin  string
		st   *install.Status
		ok   bool
		want string
	}{
		{v1, folder, true, "OpenCode 1.18.33 (the 1.x line) at " + v1 + ": ocmem loads there"},
		{v2, folder, true, "OpenCode 2.0.15 (the 2.x line) at " + v2 + ": ocmem loads there"},
		{v2, folder, true, "2.x: toasts show in the TUI only"},
		{v2, file, false, "which OpenCode 2 refuses"},
		{v1, file, true, "ocmem loads there"},
		{v1, onlyV2, false, "which 1.x does not read"},
		{v2, onlyV2, true, "ocmem loads there"},
		{v2, npm, true, "ocmem loads there"},
		{old, folder, false, "needs 1.18.29 or later"},
		{v1, &install.Status{}, true, "not registered"},
	} {
		ch, found := openCodeCheck(c.bin, c.st)
		if !found || ch.OK != c.ok || !strings.Contains(ch.Detail, c.want) {
			t.Errorf("%s with %+v: found %v, %+v; want ok %v and %q", filepath.Base(c.bin), c.st, found, ch, c.ok, c.want)
		}
	}
	if _, found := openCodeCheck(filepath.Join(dir, "missing"), folder); found {
		t.Errorf("a missing binary was reported as found")
	}
}

func TestFenceChecks(t *testing.T) {
	c := Config{GlobalDir: "/g", ProjectDir: "/p"}
	got := fenceChecks(c, map[store.Scope][]byte{
		store.Global:  []byte("# Memory\n\n## Hard rules\n\n```\nclosed\n```\n"),
		store.Project: []byte("# Memory\n\n## Hard rules\n\n- a\n~~~sh\nmake\n<!-- ocmem:begin registry -->\n"),
	})
	if len(got) != 1 || got[0].OK || got[0].Name != "project ROOT.md" || got[0].Detail != filepath.Join("/p", "ROOT.md")+":6 opens a code fence that is never closed" {
		t.Errorf("fenceChecks = %+v, want the project's fence at line 6", got)
	}
	if got := fenceChecks(c, map[store.Scope][]byte{}); len(got) != 0 {
		t.Errorf("no ROOT.md: %+v", got)
	}
}
