package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckoutInstallCleansTUIConfig: `opencode plugin ocmem@V -g` lists
// the package in tui.json too; an install from a checkout over it takes
// ocmem's entries out of tui.json (the plugin folder's tui.js is the TUI
// entry now), keeping the person's other entries and comments, and says
// so. A tui.json without ocmem is left byte for byte, and none is created.
func TestCheckoutInstallCleansTUIConfig(t *testing.T) {
	for _, tt := range []struct {
		name, tui, want string
		removed         []string
	}{
		{"npm entry beside another plugin",
			"{\n  // mine\n  \"$schema\": \"https://opencode.ai/tui.json\",\n  \"plugin\": [\"ocmem@0.3.0\", \"other-tui\"]\n}\n",
			"{\n  // mine\n  \"$schema\": \"https://opencode.ai/tui.json\",\n  \"plugin\": [ \"other-tui\"]\n}\n",
			[]string{"ocmem@0.3.0"}},
		{"only ocmem, as a tuple",
			"{\n  \"$schema\": \"https://opencode.ai/tui.json\",\n  \"plugin\": [[\"ocmem@0.3.0\", {}]]\n}\n",
			"{\n  \"$schema\": \"https://opencode.ai/tui.json\"\n}\n",
			[]string{"ocmem@0.3.0"}},
		{"no ocmem", "{\"theme\": \"x\", \"plugin\": [\"other-tui\"]}\n", "{\"theme\": \"x\", \"plugin\": [\"other-tui\"]}\n", nil},
		{"no tui.json", "", "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tui := filepath.Join(dir, "tui.json")
			if tt.tui != "" {
				os.WriteFile(tui, []byte(tt.tui), 0o644)
			}
			res, err := Install(Options{ConfigDir: dir, Bin: "/x/ocmem"})
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(tui)
			if tt.tui == "" {
				if err == nil {
					t.Errorf("tui.json created:\n%s", b)
				}
				return
			}
			if string(b) != tt.want {
				t.Errorf("tui.json:\n%s\nwant:\n%s", b, tt.want)
			}
			if strings.Join(res.TUIReplaced, ",") != strings.Join(tt.removed, ",") {
				t.Errorf("TUIReplaced = %v, want %v", res.TUIReplaced, tt.removed)
			}
			lines := strings.Join(res.Lines(), "\n")
			if len(tt.removed) > 0 && !strings.Contains(lines, "removed the entry ocmem@0.3.0 from "+tui) {
				t.Errorf("install output does not say tui.json changed:\n%s", lines)
			}
		})
	}
}
