package install

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/plugin"
)

// TestProjectInstallPortable: a project's opencode.json and .opencode/ are
// committed, so `install --project` writes no path of this machine into
// them: the entry is the folder relative to opencode.json, and plugin.js
// names no binary (it finds ocmem on PATH). An entry an earlier install
// wrote with the absolute path is replaced, keeping its options; doctor's
// Inspect takes the result as current; a second install changes nothing;
// the output says what a teammate needs.
func TestProjectInstallPortable(t *testing.T) {
	for _, tt := range []struct {
		name, config string
	}{
		{"new config", ""},
		{"absolute entry of an earlier install", `{"plugin": [["ABS", {"maxInjectChars": 800}]]}`},
		{"OpenCode 2 shape", `{"plugins": [{"package": "ABS", "options": {"maxInjectChars": 800}}]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			repo := t.TempDir()
			if r, err := filepath.EvalSymlinks(repo); err == nil {
				repo = r
			}
			os.Mkdir(filepath.Join(repo, ".git"), 0o755)
			bin := filepath.Join(t.TempDir(), "bin", "ocmem")
			cfg := filepath.Join(repo, "opencode.json")
			if tt.config != "" {
				abs := filepath.ToSlash(filepath.Join(repo, ".opencode", "ocmem"))
				os.WriteFile(cfg, []byte(strings.ReplaceAll(tt.config, "ABS", abs)), 0o644)
			}
			res, err := Install(Options{Project: true, Dir: repo, Bin: bin})
			if err != nil {
				t.Fatal(err)
			}
			files := []string{cfg}
			for _, f := range pluginFiles {
				files = append(files, filepath.Join(repo, ".opencode", "ocmem", f.name))
			}
			files = append(files, res.PluginPath)
			for _, p := range files {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				for _, machine := range []string{repo, filepath.ToSlash(repo), bin} {
					if bytes.Contains(b, []byte(machine)) {
						t.Errorf("%s names %s:\n%s", p, machine, b)
					}
				}
			}
			if b, _ := os.ReadFile(res.PluginPath); !bytes.Equal(b, plugin.Source) {
				t.Errorf("plugin.js is not the plugin as shipped (it must find ocmem itself)")
			}
			b, _ := os.ReadFile(cfg)
			if !strings.Contains(string(b), `"./.opencode/ocmem"`) {
				t.Errorf("opencode.json does not register ./.opencode/ocmem:\n%s", b)
			}
			if tt.config != "" && !strings.Contains(strings.ReplaceAll(string(b), " ", ""), `"maxInjectChars":800`) {
				t.Errorf("the replaced entry's options are lost:\n%s", b)
			}
			lines := strings.Join(res.Lines(), "\n")
			if !strings.Contains(lines, "needs ocmem on PATH") || strings.Contains(lines, bin) {
				t.Errorf("install output:\n%s", lines)
			}
			st, err := Inspect(Options{Project: true, Dir: repo, Bin: bin})
			if err != nil || !st.Registered || !st.PluginCurrent {
				t.Errorf("Inspect after install: %+v %v", st, err)
			}
			again, err := Install(Options{Project: true, Dir: repo, Bin: bin})
			if err != nil || again.Wrote || again.Registered || len(again.Replaced) > 0 {
				t.Errorf("second install changed something: %+v %v", again, err)
			}
			if un, err := Uninstall(Options{Project: true, Dir: repo}); err != nil || !un.Registered {
				t.Errorf("uninstall: %+v %v", un, err)
			}
			if b, _ := os.ReadFile(cfg); strings.Contains(string(b), "ocmem") {
				t.Errorf("uninstall left an entry:\n%s", b)
			}
		})
	}
}
