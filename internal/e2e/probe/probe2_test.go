package probe

// Probes of OpenCode 2's plugin API, run against the pinned 2.x binary with
// testdata/probe2/index.js. Like the 1.18 probes (probe_test.go) they
// document OpenCode, not ocmem (docs/OPENCODE-NOTES.md, "OpenCode 2.0.15"),
// and run only with OCMEM_E2E_PROBES=1: run them when changing
// OpenCode2Version.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// probe2Env is an OpenCode 2 Env whose config registers the probe as entry.
func probe2Env(t *testing.T, entry func(e *e2e.Env, dir string) any) (*e2e.Env, string) {
	t.Helper()
	skipUnlessProbes(t)
	e := e2e.NewEnvWith(t, e2e.EnvOptions{V2: true})
	src, err := os.ReadFile(filepath.Join("testdata", "probe2", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(e.Home, "probe2")
	e.WriteFile(filepath.Join(dir, "index.js"), string(src))
	e.SetPlugins(entry(e, dir))
	return e, filepath.Join(e.Home, "probe2.jsonl")
}

// TestProbe2Edits: what a plugin does to the prompt in the prompt hook is
// saved into the person's message; a message it adds in the context hook
// reaches that request only.
func TestProbe2Edits(t *testing.T) {
	e, out := probe2Env(t, func(e *e2e.Env, dir string) any { return e2e.PluginTuple(dir, map[string]any{}) })
	e.Vars = append(e.Vars, "PROBE2_MODE=edits")
	e.Ask("first")
	e.Continue("second")
	if len(readProbe(t, out)) == 0 {
		t.Fatal("the probe did not load from its folder")
	}
	reqs := fakellm.Agent(e.Fake.Requests())
	if len(reqs) != 2 {
		t.Fatalf("%d agent requests", len(reqs))
	}
	var texts []string
	for _, u := range reqs[1].UserMessages() {
		texts = append(texts, u.Text())
	}
	got := strings.Join(texts, " | ")
	if got != "first PROMPT-EDIT | second PROMPT-EDIT | CONTEXT-ADDED" {
		t.Errorf("turn 2's user messages: %s", got)
	}
}

// TestProbe2Entries: an entry that is a file is refused (a WARN line, the
// plugin not loaded); a folder loads its index.js, but not a folder whose
// only module is named by its package.json.
func TestProbe2Entries(t *testing.T) {
	e, out := probe2Env(t, func(e *e2e.Env, dir string) any {
		return e2e.PluginTuple(filepath.Join(dir, "index.js"), map[string]any{})
	})
	e.Ask("hello")
	if recs := readProbe(t, out); len(recs) != 0 {
		t.Errorf("a file entry loaded: %v", recs)
	}
	if logs := e.Logs(); !strings.Contains(logs, "configured plugin path must be a directory") {
		t.Errorf("no warning about the file entry in OpenCode's log")
	}

	e2, out2 := probe2Env(t, func(e *e2e.Env, dir string) any {
		pkg := filepath.Join(filepath.Dir(dir), "probe2pkg")
		src, _ := os.ReadFile(filepath.Join(dir, "index.js"))
		e.WriteFile(filepath.Join(pkg, "plugin.js"), string(src))
		e.WriteFile(filepath.Join(pkg, "package.json"), `{"name":"p","type":"module","main":"./plugin.js","exports":{"./server":"./plugin.js"}}`)
		return e2e.PluginTuple(pkg, map[string]any{})
	})
	e2.Ask("hello")
	if recs := readProbe(t, out2); len(recs) != 0 {
		t.Errorf("a folder without index.js loaded through its package.json: %v", recs)
	}
}
