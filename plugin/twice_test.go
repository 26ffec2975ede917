package plugin

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLoadedOnce: two copies of the plugin in one process (ocmem
// registered globally and in a project) act once per directory: the first
// loaded registers its hooks, the second registers nothing there and logs
// why, on both OpenCode lines; a copy loaded again for its own directory
// acts, and the second copy acts for a directory the first does not serve.
// The TUI entry subscribes to the notices once.
func TestLoadedOnce(t *testing.T) {
	node := needNode(t)
	dir := t.TempDir()
	first := filepath.Join(dir, "global", "ocmem", "plugin.js")
	second := filepath.Join(dir, "project", ".opencode", "ocmem", "plugin.js")
	for _, p := range []string{first, second} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, Source, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(filepath.Dir(p), "package.json"), []byte(`{"type":"module"}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(node, filepath.Join("testdata", "twice.mjs"), first, second)
	// A binary that does not exist: nothing here starts serve.
	cmd.Env = append(os.Environ(), "OCMEM_BIN="+filepath.Join(dir, "no-ocmem"), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "OPENCODE_CONFIG_DIR=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("twice.mjs: %v\n%s", err, out)
	}
	var got struct {
		V1   map[string][]string
		V2   map[string][]string
		TUI  []int
		Logs []string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, line := range []string{"V1", "V2"} {
		hooks := got.V1
		if line == "V2" {
			hooks = got.V2
		}
		if len(hooks["first"]) == 0 {
			t.Errorf("%s: the first copy registered nothing", line)
		}
		if len(hooks["second"]) != 0 {
			t.Errorf("%s: the second copy registered %v for the same directory", line, hooks["second"])
		}
		if !slices.Equal(hooks["firstAgain"], hooks["first"]) {
			t.Errorf("%s: the first copy loaded again registered %v, want %v", line, hooks["firstAgain"], hooks["first"])
		}
	}
	if !slices.Equal(got.V1["secondElsewhere"], got.V1["first"]) {
		t.Errorf("the second copy in another directory registered %v, want %v", got.V1["secondElsewhere"], got.V1["first"])
	}
	if !slices.Equal(got.TUI, []int{1, 0, 1}) {
		t.Errorf("TUI entries subscribed %v times, want [1 0 1]", got.TUI)
	}
	said := false
	for _, l := range got.Logs {
		if strings.Contains(l, "registered more than once") && strings.Contains(l, filepath.ToSlash(first)) && strings.Contains(l, filepath.ToSlash(second)) {
			said = true
		}
	}
	if !said {
		t.Errorf("no log line names both copies: %q", got.Logs)
	}
}
