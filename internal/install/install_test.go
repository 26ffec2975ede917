package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/plugin"
)

func TestInstallIsIdempotentAndKeepsComments(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "opencode.jsonc")
	orig := `{
  // my model
  "model": "anthropic/claude",
  "plugin": ["some-other-plugin"], // keep me
}
`
	if err := os.WriteFile(cfg, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	o := Options{ConfigDir: dir, Bin: "/opt/bin/ocmem"}
	res, err := Install(o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Wrote || !res.Registered || res.ConfigPath != cfg {
		t.Fatalf("first install: %+v", res)
	}
	got, _ := os.ReadFile(cfg)
	for _, want := range []string{"// my model", "// keep me", `"some-other-plugin"`, `"` + filepath.Dir(res.PluginPath) + `"`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("config lost %q:\n%s", want, got)
		}
	}
	src, _ := os.ReadFile(res.PluginPath)
	if string(src) != string(plugin.Render("/opt/bin/ocmem")) {
		t.Error("plugin file is not the rendered plugin")
	}
	if _, err := os.Stat(filepath.Join(dir, "memory", ".gitignore")); err != nil {
		t.Errorf("global root not created with its .gitignore: %v", err)
	}

	again, err := Install(o)
	if err != nil {
		t.Fatal(err)
	}
	if again.Wrote || again.Registered {
		t.Errorf("second install changed something: %+v", again)
	}
	got2, _ := os.ReadFile(cfg)
	if string(got2) != string(got) {
		t.Errorf("second install rewrote the config:\n%s", got2)
	}
	st, err := Inspect(o)
	if err != nil || !st.Registered || !st.PluginCurrent {
		t.Errorf("Inspect after install: %+v %v", st, err)
	}
	// Another binary: the plugin is rewritten, the registration kept.
	moved, err := Install(Options{ConfigDir: dir, Bin: "/usr/local/bin/ocmem"})
	if err != nil || !moved.Wrote || moved.Registered {
		t.Errorf("install from a moved binary: %+v %v", moved, err)
	}

	un, err := Uninstall(o)
	if err != nil || !un.Registered || !un.Wrote {
		t.Fatalf("uninstall: %+v %v", un, err)
	}
	after, _ := os.ReadFile(cfg)
	if strings.Contains(string(after), filepath.Dir(res.PluginPath)) || !strings.Contains(string(after), "// keep me") {
		t.Errorf("uninstall left the entry or lost comments:\n%s", after)
	}
	if _, err := os.Stat(res.PluginPath); !os.IsNotExist(err) {
		t.Errorf("plugin file still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "memory")); err != nil {
		t.Errorf("uninstall must keep memories: %v", err)
	}
}

func TestInstallCreatesConfig(t *testing.T) {
	dir := t.TempDir()
	res, err := Install(Options{ConfigDir: dir, Bin: "/x/ocmem"})
	if err != nil {
		t.Fatal(err)
	}
	if res.ConfigPath != filepath.Join(dir, "opencode.json") {
		t.Errorf("config path %s", res.ConfigPath)
	}
	st, err := Inspect(Options{ConfigDir: dir, Bin: "/x/ocmem"})
	if err != nil || !st.Registered {
		t.Errorf("not registered: %+v %v", st, err)
	}
}

func TestInstallRefusesBrokenConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "opencode.json")
	os.WriteFile(cfg, []byte(`{"plugin": [`), 0o644)
	if _, err := Install(Options{ConfigDir: dir, Bin: "/x/ocmem"}); err == nil {
		t.Fatal("a broken config must be refused, not overwritten")
	}
	if b, _ := os.ReadFile(cfg); string(b) != `{"plugin": [` {
		t.Errorf("broken config was changed: %q", b)
	}
}

func TestProjectInstall(t *testing.T) {
	repo := t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	sub := filepath.Join(repo, "a", "b")
	os.MkdirAll(sub, 0o755)
	res, err := Install(Options{Project: true, Dir: sub, Bin: "/x/ocmem"})
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(repo)
	if res.PluginPath != filepath.Join(real, ".opencode", "ocmem", "plugin.js") || res.ConfigPath != filepath.Join(real, "opencode.json") {
		t.Errorf("project install went to %s / %s", res.PluginPath, res.ConfigPath)
	}
	if res.GlobalRoot != "" {
		t.Errorf("a project install must not create the global root: %s", res.GlobalRoot)
	}
	// Uninstalled, it leaves no folder it made behind; a file OpenCode or
	// the person keeps in .opencode/ stays, and so does the folder.
	if _, err := Uninstall(Options{Project: true, Dir: sub}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(real, ".opencode")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf(".opencode/ left after uninstall: %v", err)
	}
	if _, err := Install(Options{Project: true, Dir: sub, Bin: "/x/ocmem"}); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(real, ".opencode", "package.json")
	if err := os.WriteFile(keep, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall(Options{Project: true, Dir: sub}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("a file of .opencode/ that ocmem did not write: %v", err)
	}
}

// A second install that changes nothing says so, and does not ask for a
// restart; the first does.
func TestInstallTwiceSaysNothingChanged(t *testing.T) {
	dir := t.TempDir()
	first, err := Install(Options{ConfigDir: dir, Bin: "/x/ocmem"})
	if err != nil {
		t.Fatal(err)
	}
	if l := strings.Join(first.Lines(), "\n"); !strings.Contains(l, "restart OpenCode to load it") {
		t.Errorf("first install:\n%s", l)
	}
	second, err := Install(Options{ConfigDir: dir, Bin: "/x/ocmem"})
	if err != nil {
		t.Fatal(err)
	}
	l := strings.Join(second.Lines(), "\n")
	if strings.Contains(l, "restart") || !strings.Contains(l, "nothing changed: OpenCode already loads ocmem") {
		t.Errorf("second install:\n%s", l)
	}
	// A run that only creates the global memory root (deleted since, or
	// never there when OpenCode already had ocmem) says it did.
	if err := os.RemoveAll(filepath.Join(dir, "memory")); err != nil {
		t.Fatal(err)
	}
	third, err := Install(Options{ConfigDir: dir, Bin: "/x/ocmem"})
	if err != nil {
		t.Fatal(err)
	}
	l = strings.Join(third.Lines(), "\n")
	if strings.Contains(l, "nothing changed") || !strings.Contains(l, "created the global memory root "+filepath.Join(dir, "memory")) {
		t.Errorf("install that created the global root:\n%s", l)
	}
	if _, err := os.Stat(filepath.Join(dir, "memory")); err != nil {
		t.Errorf("global root: %v", err)
	}
}

// Uninstall leaves the config as it found it: a config install created is
// removed again, an empty plugin list is not left behind in a person's
// config, and the entry install writes is spaced the same every time.
func TestUninstallRestoresConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "opencode.json")
	if _, err := Install(Options{ConfigDir: dir, Bin: "/x/ocmem"}); err != nil {
		t.Fatal(err)
	}
	created, _ := os.ReadFile(cfg)
	if !strings.Contains(string(created), `"plugin": [["`) || strings.Contains(string(created), ":  ") {
		t.Errorf("created config:\n%s", created)
	}
	res, err := Uninstall(Options{ConfigDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cfg); !os.IsNotExist(err) {
		b, _ := os.ReadFile(cfg)
		t.Errorf("the config install created is still there:\n%s", b)
	}
	if l := strings.Join(res.Lines(), "\n"); !strings.Contains(l, "removed "+cfg) {
		t.Errorf("uninstall does not say it removed the config:\n%s", l)
	}

	// A person's config: their keys stay, and no empty plugin list.
	mine := "{\n  // my settings\n  \"theme\": \"dark\"\n}\n"
	os.WriteFile(cfg, []byte(mine), 0o644)
	if _, err := Install(Options{ConfigDir: dir, Bin: "/x/ocmem"}); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(cfg)
	if _, err := Uninstall(Options{ConfigDir: dir}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(cfg); string(got) != mine {
		t.Errorf("after install and uninstall:\n%s\nwant:\n%s", got, mine)
	}
	if _, err := Install(Options{ConfigDir: dir, Bin: "/x/ocmem"}); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(cfg); string(again) != string(first) {
		t.Errorf("a reinstall writes another layout:\n%s\nfirst:\n%s", again, first)
	}
}

// TestInstallKeepsModeAndLink: a config holding an API key, mode 0600 and
// symlinked from a dotfiles repository, stays 0600 and stays a link, and
// the file it leads to is the one edited. Earlier versions replaced the
// link with a regular 0644 file.
func TestInstallKeepsModeAndLink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes and symlinks differ on Windows")
	}
	dir, dotfiles := t.TempDir(), t.TempDir()
	real := filepath.Join(dotfiles, "opencode.jsonc")
	if err := os.WriteFile(real, []byte("{\n  \"provider\": {\"x\": {\"options\": {\"apiKey\": \"k\"}}}\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(real, 0o600); err != nil { // past the umask
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "opencode.jsonc")
	if err := os.Symlink(real, cfg); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		name string
		run  func(Options) (*Result, error)
	}{{"install", Install}, {"uninstall", Uninstall}} {
		if _, err := step.run(Options{ConfigDir: dir, Bin: "/opt/bin/ocmem"}); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if fi, err := os.Lstat(cfg); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("after %s the config is no longer a link: %v %v", step.name, fi.Mode(), err)
		}
		fi, err := os.Stat(real)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("after %s the linked config has mode %v (%v), want 0600", step.name, fi.Mode().Perm(), err)
		}
		data, _ := os.ReadFile(real)
		if registered := strings.Contains(string(data), filepath.Join(dir, "ocmem")); registered != (step.name == "install") || !strings.Contains(string(data), "apiKey") {
			t.Errorf("after %s the linked config reads:\n%s", step.name, data)
		}
	}
}

// TestInstallOpenCode2Shape: a config in OpenCode 2's shape ("plugins":
// [{"package", "options"}]) gets ocmem's entry in that shape and list; an
// ocmem entry in either list is replaced where it stands, keeping its
// options, and the other list loses its own, so ocmem loads once.
func TestInstallOpenCode2Shape(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "opencode.json")
	os.WriteFile(cfg, []byte(`{"plugins": [{"package": "other", "options": {"a": 1}}]}`), 0o644)
	o := Options{ConfigDir: dir, Bin: "/x/ocmem"}
	res, err := Install(o)
	if err != nil {
		t.Fatal(err)
	}
	pluginDir := filepath.Dir(res.PluginPath)
	lists := func() string {
		t.Helper()
		b, _ := os.ReadFile(cfg)
		var c map[string]any
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatalf("%v\n%s", err, b)
		}
		out, _ := json.Marshal([]any{c["plugin"], c["plugins"]})
		return string(out)
	}
	dirLit, _ := json.Marshal(pluginDir)
	if got, want := lists(), `[null,[{"options":{"a":1},"package":"other"},{"options":{},"package":`+string(dirLit)+`}]]`; got != want {
		t.Errorf("after install:\n%s\nwant\n%s", got, want)
	}
	for _, name := range []string{"plugin.js", "index.js", "package.json", "tui.js"} {
		if _, err := os.Stat(filepath.Join(pluginDir, name)); err != nil {
			t.Errorf("plugin folder lacks %s: %v", name, err)
		}
	}
	if st, err := Inspect(o); err != nil || !st.Registered || !st.PluginCurrent || st.Key != keyV2 {
		t.Errorf("Inspect: %+v %v", st, err)
	}

	// The old plugin.js entry in "plugin" (OpenCode 2 refuses a file) and an
	// npm entry in "plugins": the folder takes the first one's place, the
	// other goes, and with it the list it was alone in.
	os.WriteFile(cfg, []byte(`{"plugin": ["x", "`+res.PluginPath+`"], "plugins": [{"package": "ocmem@0.1.0", "options": {"maxInjectChars": 800}}]}`), 0o644)
	res, err = Install(o)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := lists(), `[["x",[`+string(dirLit)+`,{}]],null]`; got != want {
		t.Errorf("after reinstall:\n%s\nwant\n%s (replaced %v)", got, want, res.Replaced)
	}

	// Uninstall takes ocmem out of both lists and keeps the rest.
	os.WriteFile(cfg, []byte(`{"plugin": ["x"], "plugins": [{"package": "./ocmem", "options": {}}, {"package": "y"}]}`), 0o644)
	if res, err = Uninstall(o); err != nil || !res.Registered {
		t.Fatalf("uninstall: %+v %v", res, err)
	}
	if got, want := lists(), `[["x"],[{"package":"y"}]]`; got != want {
		t.Errorf("after uninstall: %s, want %s", got, want)
	}
	if _, err := os.Stat(pluginDir); !os.IsNotExist(err) {
		t.Errorf("uninstall left the plugin folder: %v", err)
	}
}

// TestInstallTUIEntry: the plugin folder holds OpenCode 2's TUI entry,
// tui.js, which re-exports plugin.js's TUI half (toasts); a folder an
// earlier install wrote without it is not current, and installing again
// adds it; uninstall removes it with the rest.
func TestInstallTUIEntry(t *testing.T) {
	dir := t.TempDir()
	o := Options{ConfigDir: dir, Bin: "/x/ocmem"}
	res, err := Install(o)
	if err != nil {
		t.Fatal(err)
	}
	tui := filepath.Join(filepath.Dir(res.PluginPath), "tui.js")
	b, err := os.ReadFile(tui)
	if err != nil || !bytes.Equal(b, plugin.TUISource) || !strings.Contains(string(b), `export { tui as default } from "./plugin.js"`) {
		t.Fatalf("tui.js: %q %v", b, err)
	}
	os.Remove(tui)
	if st, err := Inspect(o); err != nil || st.PluginCurrent {
		t.Errorf("a folder without tui.js is current: %+v %v", st, err)
	}
	if res, err = Install(o); err != nil || !res.Wrote {
		t.Fatalf("install over a folder without tui.js: wrote %v, %v", res.Wrote, err)
	}
	if _, err := os.Stat(tui); err != nil {
		t.Errorf("tui.js not written again: %v", err)
	}
	if _, err := Uninstall(o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(tui)); !os.IsNotExist(err) {
		t.Errorf("uninstall left the plugin folder: %v", err)
	}
}

// TestInstallReadOnlyOrHardLinkedConfig: a config its owner made
// read-only (0440) is refused with a sentence saying so, and left as it
// is; a config with another hard link (a dotfiles folder's) is edited
// through the link, and install says it wrote it in place. Earlier
// versions replaced both silently: the read-only file got the entry, the
// hard link was cut.
func TestInstallReadOnlyOrHardLinkedConfig(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes and hard links differ on Windows")
	}
	mine := "{\n  \"model\": \"x\"\n}\n"
	t.Run("read-only", func(t *testing.T) {
		dir := t.TempDir()
		cfg := filepath.Join(dir, "opencode.json")
		if err := os.WriteFile(cfg, []byte(mine), 0o440); err != nil {
			t.Fatal(err)
		}
		_, err := Install(Options{ConfigDir: dir, Bin: "/opt/bin/ocmem"})
		if err == nil || !strings.Contains(err.Error(), "read-only") || !strings.Contains(err.Error(), cfg) {
			t.Errorf("install: %v, want a refusal naming the read-only file", err)
		}
		if got, _ := os.ReadFile(cfg); string(got) != mine {
			t.Errorf("the read-only config became:\n%s", got)
		}
	})
	t.Run("hard link", func(t *testing.T) {
		dir, dotfiles := t.TempDir(), t.TempDir()
		cfg, kept := filepath.Join(dir, "opencode.json"), filepath.Join(dotfiles, "opencode.json")
		if err := os.WriteFile(kept, []byte(mine), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(kept, cfg); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
		res, err := Install(Options{ConfigDir: dir, Bin: "/opt/bin/ocmem"})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := os.Stat(cfg)
		b, _ := os.Stat(kept)
		if !os.SameFile(a, b) {
			t.Errorf("install cut the hard link between %s and %s", cfg, kept)
		}
		if data, _ := os.ReadFile(kept); !strings.Contains(string(data), filepath.Join(dir, "ocmem")) {
			t.Errorf("the other name does not see the entry:\n%s", data)
		}
		if lines := strings.Join(res.Lines(), "\n"); !strings.Contains(lines, "wrote "+cfg+" in place") {
			t.Errorf("install did not say it wrote in place:\n%s", lines)
		}
	})
}
