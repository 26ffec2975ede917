package plugin

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// nodePlatform is the platform package's name part, as Node spells
// process.platform and process.arch (see tools/release).
func nodePlatform() string {
	goos, arch := runtime.GOOS, runtime.GOARCH
	if goos == "windows" {
		goos = "win32"
	}
	if arch == "amd64" {
		arch = "x64"
	}
	return goos + "-" + arch
}

// TestBinaryLookup: the plugin runs the first of options.bin, $OCMEM_BIN,
// the path install filled in (if it exists), the npm platform package
// beside it (if its binary exists) and `ocmem` on PATH, and its log names
// every place it looked at. Each candidate is its own link to this test
// binary, which stands in for `ocmem serve`, so the log says which ran and
// the system step shows that it answered.
func TestBinaryLookup(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses symlinks and a binary without .exe")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	type layout struct {
		option, env, filled, pkg, pkgDirOnly, path bool
		filledMissing                              bool
	}
	pkgName := "ocmem-" + nodePlatform()
	cases := []struct {
		name    string
		l       layout
		want    string // which candidate ran: option, env, filled, pkg, path
		tried   []string
		noServe bool // no binary at all: the system step gets nothing
	}{
		{"option first", layout{option: true, env: true, filled: true, pkg: true, path: true}, "option", nil, false},
		{"then $OCMEM_BIN", layout{env: true, filled: true, pkg: true, path: true}, "env", nil, false},
		{"then the filled-in path", layout{filled: true, pkg: true, path: true}, "filled", nil, false},
		{"a filled-in path that is gone", layout{filledMissing: true, pkg: true, path: true}, "pkg", []string{"filled (missing)"}, false},
		{"the platform package", layout{pkg: true, path: true}, "pkg", nil, false},
		{"PATH without a package", layout{path: true}, "path", []string{"npm package " + pkgName + " (not installed)", "ocmem on PATH"}, false},
		{"a package without its binary", layout{pkgDirOnly: true, path: true}, "path", []string{"/bin/ocmem (missing)", "ocmem on PATH"}, false},
		{"nothing", layout{}, "path", []string{"npm package " + pkgName + " (not installed)", "ocmem on PATH"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := newDriver(t, false)
			link := func(name string) string {
				p := filepath.Join(d.dir, "cand", name, "ocmem")
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(self, p); err != nil {
					t.Fatal(err)
				}
				return p
			}
			write := func(p string, b []byte) {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			paths := map[string]string{}
			nm := filepath.Join(d.dir, "npm", "node_modules")
			src := Source
			switch {
			case c.l.filled:
				paths["filled"] = link("filled")
				src = Render(paths["filled"])
			case c.l.filledMissing:
				paths["filled"] = filepath.Join(d.dir, "gone", "ocmem")
				src = Render(paths["filled"])
			}
			d.plugin = filepath.Join(nm, "ocmem", "plugin.js")
			write(d.plugin, src)
			write(filepath.Join(nm, "ocmem", "package.json"), []byte(`{"name":"ocmem","type":"module","main":"plugin.js"}`))
			if c.l.pkg || c.l.pkgDirOnly {
				dir := filepath.Join(nm, pkgName)
				write(filepath.Join(dir, "package.json"), []byte(`{"name":"`+pkgName+`"}`))
				paths["pkg"] = filepath.Join(dir, "bin", "ocmem")
				if c.l.pkg {
					if err := os.MkdirAll(filepath.Dir(paths["pkg"]), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.Symlink(self, paths["pkg"]); err != nil {
						t.Fatal(err)
					}
				}
			}
			var opts map[string]any
			if c.l.option {
				paths["option"] = link("option")
				opts = map[string]any{"bin": paths["option"]}
			}
			if c.l.env {
				paths["env"] = link("env")
				d.env = append(d.env, "OCMEM_BIN="+paths["env"])
			}
			pathDir := filepath.Join(d.dir, "cand", "path")
			if c.l.path {
				link("path")
			}
			d.env = append(d.env, "PATH="+pathDir+string(os.PathListSeparator)+os.Getenv("PATH"))
			paths["path"] = "ocmem"

			res, logs := d.run("echo", opts, map[string]any{"do": "system", "sessionID": "ses_1"})
			var loaded string
			for _, l := range logs {
				if strings.HasPrefix(l, "info: loaded (serve: ") {
					loaded = l
				}
			}
			if !strings.HasPrefix(loaded, "info: loaded (serve: "+paths[c.want]+",") {
				t.Errorf("want %s (%s) to run; log: %q", c.want, paths[c.want], loaded)
			}
			for _, s := range c.tried {
				s = strings.Replace(s, "filled", paths["filled"], 1)
				if !strings.Contains(loaded, s) {
					t.Errorf("log does not name %q: %q", s, loaded)
				}
			}
			got := string(res[0].Result)
			if answered := strings.Contains(got, "STABLE for ses_1"); answered == c.noServe {
				t.Errorf("system step returned %s (a binary should answer: %v)", got, !c.noServe)
			}
		})
	}
}

// TestNpmBinaryMissing: the plugin of the npm package ocmem@V whose
// platform binary is missing tells the person the command that repairs
// it, `npx ocmem@V doctor --fix`; when the ocmem on PATH runs instead,
// the log says which version, and a version other than V is told to the
// person too.
func TestNpmBinaryMissing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses a symlink and a binary without .exe")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const fix = "To repair it, run `npx ocmem@9.9.9 doctor --fix`, then restart OpenCode."
	for _, c := range []struct {
		name     string
		onPath   string // the version of the ocmem on PATH; "" for none
		want     []string
		wantNone string
	}{
		{"nothing on PATH", "", []string{"error: memory is off: the ocmem binary cannot be started", "toast:error: memory is off", fix}, "ocmem doctor`"},
		{"the same version on PATH", "9.9.9", []string{"info: the ocmem on PATH runs, version 9.9.9"}, "toast:warning"},
		{"another version on PATH", "1.0.0", []string{"info: the ocmem on PATH runs, version 1.0.0",
			"toast:warning: the ocmem on PATH (version 1.0.0) runs in place of ocmem@9.9.9's missing binary. " + fix}, "toast:error"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newDriver(t, false)
			nm := filepath.Join(d.dir, "npm", "node_modules")
			d.plugin = filepath.Join(nm, "ocmem", "plugin.js")
			for name, data := range map[string][]byte{
				d.plugin: Source,
				filepath.Join(nm, "ocmem", "package.json"): []byte(`{"name":"ocmem","version":"9.9.9","type":"module","main":"plugin.js"}`),
			} {
				if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(name, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			pathDir := filepath.Join(d.dir, "path")
			os.MkdirAll(pathDir, 0o755)
			if c.onPath != "" {
				if err := os.Symlink(self, filepath.Join(pathDir, "ocmem")); err != nil {
					t.Fatal(err)
				}
				d.env = append(d.env, "OCMEM_PLUGIN_STUB_VERSION="+c.onPath)
			}
			d.env = append(d.env, "PATH="+pathDir)
			_, logs := d.run("echo", nil, map[string]any{"do": "system", "sessionID": "ses_1"}, map[string]any{"do": "sleep", "ms": 200})
			joined := strings.Join(logs, "\n")
			for _, w := range c.want {
				if !strings.Contains(joined, w) {
					t.Errorf("log lacks %q:\n%s", w, joined)
				}
			}
			if strings.Contains(joined, c.wantNone) {
				t.Errorf("log has %q:\n%s", c.wantNone, joined)
			}
		})
	}
}
