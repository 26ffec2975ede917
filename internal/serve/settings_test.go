package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/trust"
)

// TestProjectSettingsGuarded: a repository's opencode.json cannot raise
// ocmem's budgets over the user's global config, nor, until the user
// trusts the project, over the defaults; its extractModel (the most
// expensive model) is ignored until the user trusts the project; then
// it applies.
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
	if o.MinTurns != 0 {
		t.Errorf("untrusted project: minTurns %d, want the default (the project's 1 would extract after every turn)", o.MinTurns)
	}
	if _, err := list.Trust(trust.ProjectKey(p), time.Now()); err != nil {
		t.Fatal(err)
	}
	if o := idle("ses_2"); o.ExtractModel == nil || o.ExtractModel.ID != "expensive" || o.MaxInjectChars != 300 || o.MinTurns != 1 {
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

// TestUntrustedProjectBudgets: what serve injects and when it extracts
// follow the guarded options, not the repository's. A repository that
// sets maxInjectChars 50000, minTurns 1 and extractIdleSeconds 1, where
// the global config sets none of them, gets the defaults until the user
// trusts it; serve's log says so once, however many requests follow.
func TestUntrustedProjectBudgets(t *testing.T) {
	d := t.TempDir()
	g, p := roots(t)
	cfgDir, wt := filepath.Join(d, "opencode"), filepath.Join(d, "repo")
	os.MkdirAll(cfgDir, 0o755)
	os.MkdirAll(wt, 0o755)
	project := `{"maxInjectChars": 50000, "minTurns": 1, "extractIdleSeconds": 1}`
	os.WriteFile(filepath.Join(wt, "opencode.json"), []byte(`{"plugin": [["ocmem@1.0.0", `+project+`]]}`), 0o644)
	body := strings.Repeat("ingress detail. ", 400)
	os.MkdirAll(filepath.Join(p, "facts"), 0o755)
	os.WriteFile(filepath.Join(p, "facts", "big.md"), []byte("---\nid: facts/big\nkind: fact\nsummary: kubernetes ingress annotations\nload_when: [ingress]\n---\n"+body+"\n"), 0o644)
	list := trust.List{Path: filepath.Join(d, "trusted.json")}
	var buf lockedBuffer
	got := make(chan options.Options, 4)
	c := start(t, Config{GlobalDir: g, ProjectDir: p, TrustFile: list.Path, OpenCodeConfigDir: cfgDir,
		Log:     slog.New(slog.NewJSONHandler(&buf, nil)),
		Extract: func(_ context.Context, _ *engine.Engine, req IdleRequest) { got <- req.Options }})
	var opts map[string]any
	if err := json.Unmarshal([]byte(project), &opts); err != nil {
		t.Fatal(err)
	}
	// given is how much of the body the message injects.
	given := func(session string) int {
		t.Helper()
		r := c.call("message", map[string]any{"sessionID": session, "messageID": "msg_1", "text": "which ingress annotations do we use?",
			"worktree": wt, "directory": wt, "options": opts})
		if r.Error != nil {
			t.Fatalf("message: %+v", r.Error)
		}
		return strings.Count(r.Result.Text, "ingress detail.")
	}
	idle := func(session string) options.Options {
		t.Helper()
		if r := c.call("idle", map[string]any{"sessionID": session, "serverUrl": "http://127.0.0.1:1", "worktree": wt, "directory": wt, "options": opts}); r.Error != nil {
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

	if n := given("ses_1"); n == 0 || n*len("ingress detail. ") > options.DefaultMaxInjectChars {
		t.Errorf("untrusted: %d repetitions of the body injected, want some, within the default %d characters", n, options.DefaultMaxInjectChars)
	}
	if o := idle("ses_1"); o.MinTurns != 0 || o.ExtractIdleSeconds != 0 || o.MaxInjectChars != 0 {
		t.Errorf("untrusted: extraction options %+v, want the defaults", o)
	}
	given("ses_2")
	var notes []string
	for _, r := range buf.records(t) {
		if r["msg"] == "project setting" {
			notes = append(notes, fmt.Sprint(r["override"]))
		}
	}
	want := []string{
		"minTurns = 1 from " + filepath.Join(wt, "opencode.json") + ": ignored (an untrusted repository cannot lower minTurns below 4, the default, as your global config does not set it; `ocmem trust` to allow it)",
		"extractIdleSeconds = 1 from " + filepath.Join(wt, "opencode.json") + ": ignored (an untrusted repository cannot lower extractIdleSeconds below 600, the default, as your global config does not set it; `ocmem trust` to allow it)",
		"maxInjectChars = 50000 from " + filepath.Join(wt, "opencode.json") + ": ignored (an untrusted repository cannot raise maxInjectChars above 1200, the default, as your global config does not set it; `ocmem trust` to allow it)",
	}
	if strings.Join(notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("serve's log of the project's settings, after three requests:\n%s\nwant once:\n%s", strings.Join(notes, "\n"), strings.Join(want, "\n"))
	}

	if _, err := list.Trust(trust.ProjectKey(p), time.Now()); err != nil {
		t.Fatal(err)
	}
	if n := given("ses_3"); n != 400 {
		t.Errorf("trusted: %d repetitions of the body injected, want all 400 (maxInjectChars 50000)", n)
	}
	if o := idle("ses_3"); o.MinTurns != 1 || o.ExtractIdleSeconds != 1 {
		t.Errorf("trusted: extraction options %+v, want the project's", o)
	}
}
