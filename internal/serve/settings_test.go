package serve

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/trust"
)

// TestProjectSettingsGuarded: a repository's opencode.json cannot raise
// ocmem's budgets over the user's global config, and its extractModel
// (the most expensive model) is ignored until the user trusts the
// project; then it applies.
func TestProjectSettingsGuarded(t *testing.T) {
	d := t.TempDir()
	g, p := roots(t)
	cfgDir, wt := filepath.Join(d, "opencode"), filepath.Join(d, "repo")
	os.MkdirAll(cfgDir, 0o755)
	os.MkdirAll(wt, 0o755)
	os.WriteFile(filepath.Join(cfgDir, "opencode.json"), []byte(`{"plugin": [["/home/u/.config/opencode/plugin/ocmem.js", {"maxInjectChars": 300}]]}`), 0o644)
	project := `{"extractModel": {"providerID": "fake", "id": "expensive"}, "maxInjectChars": 50000, "minTurns": 1}`
	os.WriteFile(filepath.Join(wt, "opencode.json"), []byte(`{"plugin": [["/home/u/.config/opencode/plugin/ocmem.js", `+project+`]]}`), 0o644)
	list := trust.List{Path: filepath.Join(d, "trusted.json")}
	got := make(chan options.Options, 2)
	c := start(t, Config{GlobalDir: g, ProjectDir: p, TrustFile: list.Path, OpenCodeConfigDir: cfgDir,
		Extract: func(_ context.Context, _ *engine.Engine, req IdleRequest) { got <- req.Options }})
	// OpenCode passes the plugin the merged options: here the project's.
	idle := func(session string) options.Options {
		t.Helper()
		var opts map[string]any
		if err := json.Unmarshal([]byte(project), &opts); err != nil {
			t.Fatal(err)
		}
		r := c.call("idle", map[string]any{"sessionID": session, "serverUrl": "http://127.0.0.1:1", "worktree": wt, "directory": wt, "options": opts})
		if r.Error != nil {
			t.Fatalf("idle: %+v", r.Error)
		}
		select {
		case o := <-got:
			return o
		case <-time.After(10 * time.Second):
			t.Fatal("no extraction")
		}
		return options.Options{}
	}
	o := idle("ses_1")
	if o.ExtractModel != nil {
		t.Errorf("untrusted project: extractModel %+v, want none (the cheapest suitable model)", *o.ExtractModel)
	}
	if o.MaxInjectChars != 300 {
		t.Errorf("maxInjectChars %d, want the global config's 300", o.MaxInjectChars)
	}
	if o.MinTurns != 1 {
		t.Errorf("minTurns %d, want the project's 1 (the global config does not set it)", o.MinTurns)
	}
	if _, err := list.Trust(trust.ProjectKey(p), time.Now()); err != nil {
		t.Fatal(err)
	}
	if o := idle("ses_2"); o.ExtractModel == nil || o.ExtractModel.ID != "expensive" || o.MaxInjectChars != 300 {
		t.Errorf("trusted project: %+v", o)
	}
	// The config files are read for every request: an edit applies at
	// once, even one that keeps the file's size and modification time.
	global := filepath.Join(cfgDir, "opencode.json")
	info, err := os.Stat(global)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(global, []byte(`{"plugin": [["/home/u/.config/opencode/plugin/ocmem.js", {"maxInjectChars": 400}]]}`), 0o644)
	if err := os.Chtimes(global, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if o := idle("ses_3"); o.MaxInjectChars != 400 {
		t.Errorf("after the global config was edited: maxInjectChars %d, want 400", o.MaxInjectChars)
	}
	if _, err := list.Untrust(trust.ProjectKey(p)); err != nil {
		t.Fatal(err)
	}
	if o := idle("ses_4"); o.ExtractModel != nil {
		t.Errorf("untrusted again: extractModel %+v, want none", *o.ExtractModel)
	}
}

// TestProjectSettingsCaseOfKeys: a repository cannot get past the guard by
// spelling a guarded key in another case. The guard compares keys as
// spelled, and so does the options decoding, so "extractmodel" or
// "maxinjectchars" is no option and applies nowhere.
func TestProjectSettingsCaseOfKeys(t *testing.T) {
	d := t.TempDir()
	g, p := roots(t)
	cfgDir, wt := filepath.Join(d, "opencode"), filepath.Join(d, "repo")
	os.MkdirAll(cfgDir, 0o755)
	os.MkdirAll(wt, 0o755)
	os.WriteFile(filepath.Join(cfgDir, "opencode.json"), []byte(`{"plugin": [["ocmem", {"maxInjectChars": 300}]]}`), 0o644)
	project := `{"extractmodel": {"providerID": "fake", "id": "expensive"}, "maxinjectchars": 50000, "MinTurns": 1}`
	os.WriteFile(filepath.Join(wt, "opencode.json"), []byte(`{"plugin": [["ocmem", `+project+`]]}`), 0o644)
	got := make(chan options.Options, 1)
	c := start(t, Config{GlobalDir: g, ProjectDir: p, TrustFile: filepath.Join(d, "trusted.json"), OpenCodeConfigDir: cfgDir,
		Extract: func(_ context.Context, _ *engine.Engine, req IdleRequest) { got <- req.Options }})
	var opts map[string]any
	if err := json.Unmarshal([]byte(project), &opts); err != nil {
		t.Fatal(err)
	}
	opts["maxInjectChars"] = 300 // merged by OpenCode with the global config's
	if r := c.call("idle", map[string]any{"sessionID": "ses_1", "serverUrl": "http://127.0.0.1:1", "worktree": wt, "directory": wt, "options": opts}); r.Error != nil {
		t.Fatalf("idle: %+v", r.Error)
	}
	select {
	case o := <-got:
		if o.ExtractModel != nil || o.MaxInjectChars != 300 || o.MinTurns != 0 {
			t.Errorf("untrusted project with keys in another case: extractModel %+v, maxInjectChars %d, minTurns %d; want none, 300, the default",
				o.ExtractModel, o.MaxInjectChars, o.MinTurns)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no extraction")
	}
}
