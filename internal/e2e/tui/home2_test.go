package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/e2e"
)

// TestV2HomeIsNoProjectInTUI: OpenCode 2's TUI runs its background
// service (`opencode serve --service`) in $HOME, where a plugin instance
// of its own hears the events of every session. The home folder is no
// project: no ~/.memory is made or written, and a finished turn of the
// project's session (minTurns 1) is extracted once, into the project.
func TestV2HomeIsNoProjectInTUI(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	e := e2e.NewExtractEnvWith(t, e2e.EnvOptions{V2: true})
	e2e.SetPluginOptions(t, e.Env, map[string]any{"minTurns": 1})
	globalModel(t, e.Env)
	e.Reply(e2e.PnpmMarker, e2e.MemoriesReply(e2e.PnpmMemory))
	s := e2e.StartTUI2(t, e.Env)
	// A message sent before the TUI has the configured model goes to a
	// model of OpenCode's own (seen on a loaded machine).
	if !s.WaitScreen("Fake Fake", 60*time.Second) {
		t.Fatalf("the TUI shows no configured model:\n%s", s.Screen())
	}
	time.Sleep(3 * time.Second)
	s.Send("we moved to pnpm 9 last week " + e2e.PnpmMarker)
	s.WaitAgentRequests(1)
	session := e2e.V2Session(t, e)
	e2e.WaitEnd(t, e, session, 1)
	// A second instance's run starts at the same event; give it time to
	// reach the model and write.
	time.Sleep(8 * time.Second)
	if files := e2e.WaitMemory(t, e, 5*time.Second); len(files) != 1 {
		t.Errorf("project memory files %v, want the one extracted", files)
	}
	if n := len(e.Extractions()); n != 1 {
		t.Errorf("%d extraction requests reached the model for one finished turn, want 1", n)
	}
	if done := e2e.WithMsg(e.LogRecords(session), "extraction done"); len(done) != 1 {
		t.Errorf("%d extractions done for the session, want 1: %v", len(done), done)
	}
	home := filepath.Join(e.Home, ".memory")
	if e2e.FileExists(home) {
		t.Errorf("%s was made", home)
	}
	for _, r := range e.AllRecords() {
		if r.Str("msg") == "project opened" && r.Str("project") == home {
			t.Errorf("serve opened the home folder as a project: %v", r)
		}
	}
}

// globalModel puts the fake provider and model in the global config too:
// the TUI's service, started in $HOME, otherwise picks a model of its own
// for a new session (seen: "Model unavailable: opencode/…-free").
func globalModel(t *testing.T, e *e2e.Env) {
	t.Helper()
	path := filepath.Join(e.ConfigDir(), "opencode.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"provider", "enabled_providers", "model", "small_model"} {
		cfg[k] = e.Config[k]
	}
	e.WriteJSON(path, cfg)
}
