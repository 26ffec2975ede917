package tui

// ocmem's toasts in OpenCode 2's TUI (e2e.TUI2): the only place OpenCode
// 2 shows a plugin's toasts (docs/OPENCODE-NOTES.md, "Toasts").

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// TestV2ToastsInTUI is TestToasts on OpenCode 2, in its TUI: ocmem's
// notices reach the TUI entry (tui.js, which `ocmem install` writes into
// the plugin folder) from the server half and show as ocmem toasts: the
// first injection of a session, with the memory's id, and a memory the
// model remembered. With "toasts": false none shows.
func TestV2ToastsInTUI(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprintf("toasts=%v", on), func(t *testing.T) {
			e := e2e.NewOcmemEnv2(t)
			deploy := e.RememberDeploy()
			if !on {
				setOcmemOptions(t, e, map[string]any{"toasts": false})
			}
			e.Fake.SetResponder(fakellm.Script(
				fakellm.Text("ok"), // turn 1
				fakellm.Call("memory_remember", map[string]any{"category": "decisions", "kind": "decision",
					"summary": "Use SQLite for the session cache", "body": "One file, no server."}),
				fakellm.Text("done"),
			))
			wait := 30 * time.Second
			if !on {
				wait = 8 * time.Second
			}
			s := e2e.StartTUI2(t, e)
			s.Send("what should I check before a deploy?")
			first := s.WaitToast("added to your message: project:"+deploy.ID, wait)
			s.WaitAgentRequests(1)
			s.Send("remember that we use SQLite for the session cache")
			remembered := s.WaitToast("remembered project:decisions/use-sqlite-session-cache", wait)
			s.WaitAgentRequests(3)
			t.Logf("toasts seen: %q", s.Seen)
			if on && (!first || !remembered) {
				t.Errorf("toasts seen: %q; want the first injection (%v) and the memory remembered (%v)", s.Seen, first, remembered)
			}
			if !on {
				for _, text := range s.Seen {
					if strings.HasPrefix(text, "ocmem") {
						t.Errorf("toasts off, and an ocmem toast showed: %q", text)
					}
				}
			}
			// The turns really ran through ocmem: the memory is on disk.
			if !e2e.FileExists(filepath.Join(e.Project, ".memory", "decisions", "use-sqlite-session-cache.md")) {
				t.Errorf("the model's memory was not written")
			}
		})
	}
}

// setOcmemOptions sets the options of the ocmem entry `ocmem install`
// wrote into the global config.
func setOcmemOptions(t *testing.T, e *e2e.Env, options map[string]any) {
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
	list, _ := cfg["plugin"].([]any)
	if len(list) != 1 {
		t.Fatalf("global config's plugin list: %v", cfg["plugin"])
	}
	entry, _ := list[0].([]any)
	if len(entry) != 2 {
		t.Fatalf("ocmem's entry: %v", list[0])
	}
	cfg["plugin"] = []any{[]any{entry[0], options}}
	e.WriteJSON(path, cfg)
}

// TestV2NpmToastsInTUI: with ocmem from npm ("ocmem@V" in the config), the
// TUI loads the package's "./tui" export and shows ocmem's toasts.
func TestV2NpmToastsInTUI(t *testing.T) {
	e, _ := e2e.NewNpmEnvWith(t, e2e.EnvOptions{V2: true})
	deploy := e.RememberDeploy()
	e.SetPlugins(e2e.PluginTuple("ocmem@"+e2e.NpmVersion, map[string]any{}))
	s := e2e.StartTUI2(t, e)
	s.Send("what should I check before a deploy?")
	if !s.WaitToast("added to your message: project:"+deploy.ID, 60*time.Second) {
		t.Errorf("no first-injection toast; toasts seen: %q", s.Seen)
	}
	s.WaitAgentRequests(1)
}
