package serve

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadOptionKeepsMemory: one option with a value of the wrong type or
// range, or a key that is a typo, costs that option alone: the hard rules,
// the outline, the bodies and the tools keep working, and the system
// reply warns once per session, naming the key, the value and the fix.
func TestBadOptionKeepsMemory(t *testing.T) {
	for _, tt := range []struct {
		name    string
		options string
		want    []string // in the warning
	}{
		{"autoExtract no", `{"autoExtract": "no"}`, []string{`autoExtract = "no"`, "want true or false", "its default is used"}},
		{"quoted budget", `{"maxInjectChars": "800"}`, []string{`maxInjectChars = "800"`, "want a whole number"}},
		{"negative entries", `{"maxInjectEntries": -1}`, []string{"maxInjectEntries = -1: must not be negative"}},
		{"typo", `{"maxInjectChar": 800, "toast": false}`, []string{`"maxInjectChar" is not an option; did you mean "maxInjectChars"? (ignored)`, `did you mean "toasts"?`}},
		{"wrong case", `{"MaxInjectChars": 800}`, []string{`did you mean "maxInjectChars"?`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, p := roots(t)
			cfg := filepath.Join(t.TempDir(), "opencode")
			os.MkdirAll(cfg, 0o755)
			os.WriteFile(filepath.Join(cfg, "opencode.json"), []byte(`{"plugin": [["ocmem@1.0.0", `+tt.options+`]]}`), 0o644)
			os.MkdirAll(filepath.Join(g, "rules"), 0o755)
			os.WriteFile(filepath.Join(g, "rules", "use-make.md"), []byte("---\nid: rules/use-make\nkind: rule\nsummary: Build with make, never go build\n---\nRULE-BODY\n"), 0o644)
			os.MkdirAll(filepath.Join(p, "facts"), 0o755)
			os.WriteFile(filepath.Join(p, "facts", "kafka.md"), []byte("---\nid: facts/kafka\nkind: fact\nsummary: kafka retention is per partition\nload_when: [kafka]\n---\nKAFKA-BODY\n"), 0o644)
			c := start(t, Config{GlobalDir: g, ProjectDir: p, OpenCodeConfigDir: cfg, Command: "npx ocmem@1.0.0"})
			var opts map[string]any
			if err := json.Unmarshal([]byte(tt.options), &opts); err != nil {
				t.Fatal(err)
			}
			ctx := func(session string, m map[string]any) map[string]any {
				m["sessionID"], m["options"] = session, opts
				return m
			}
			r := c.call("system", ctx("ses_1", map[string]any{}))
			if r.Error != nil {
				t.Fatalf("system: %+v", r.Error)
			}
			if !strings.Contains(r.Result.Text, "Build with make") || !strings.Contains(r.Result.Text, "facts/kafka") {
				t.Errorf("system text lacks the rule or the outline:\n%s", r.Result.Text)
			}
			for _, w := range append(tt.want, "Memory works with the rest", "`npx ocmem@1.0.0 doctor` names the file") {
				if !strings.Contains(r.Result.Warning, w) {
					t.Errorf("warning %q lacks %q", r.Result.Warning, w)
				}
			}
			if r := c.call("system", ctx("ses_1", map[string]any{})); r.Error != nil || r.Result.Warning != "" {
				t.Errorf("second turn of the session: warning %q, error %+v; want it told once", r.Result.Warning, r.Error)
			}
			if r := c.call("message", ctx("ses_1", map[string]any{"messageID": "msg_1", "text": "how long is kafka retention?"})); r.Error != nil || !strings.Contains(r.Result.Text, "KAFKA-BODY") {
				t.Errorf("message: bodies %q, error %+v", r.Result.Text, r.Error)
			}
			if r := c.call("recall", ctx("ses_1", map[string]any{"query": "kafka"})); r.Error != nil || !strings.Contains(r.Result.Text, "facts/kafka") {
				t.Errorf("recall: %q, error %+v", r.Result.Text, r.Error)
			}
			if r := c.call("system", ctx("ses_2", map[string]any{})); r.Error != nil || !strings.Contains(r.Result.Warning, tt.want[0]) {
				t.Errorf("a new session: warning %q, error %+v; want it told again", r.Result.Warning, r.Error)
			}
		})
	}
}

// TestOptionKeysOpenCodeAdds: a key in the options serve receives that no
// config file sets is not the person's typo and is not warned about.
func TestOptionKeysOpenCodeAdds(t *testing.T) {
	g, p := roots(t)
	c := start(t, Config{GlobalDir: g, ProjectDir: p, OpenCodeConfigDir: t.TempDir()})
	r := c.call("system", map[string]any{"sessionID": "ses_1", "options": map[string]any{"somethingOpenCodeAdds": 1, "maxInjectChars": 900}})
	if r.Error != nil || r.Result.Warning != "" {
		t.Errorf("system: warning %q, error %+v", r.Result.Warning, r.Error)
	}
}

// TestOptionsNotAnObject: options that are no JSON object leave every
// option at its default, and memory on, with a warning.
func TestOptionsNotAnObject(t *testing.T) {
	g, p := roots(t)
	os.MkdirAll(filepath.Join(g, "rules"), 0o755)
	os.WriteFile(filepath.Join(g, "rules", "use-make.md"), []byte("---\nid: rules/use-make\nkind: rule\nsummary: Build with make\n---\nx\n"), 0o644)
	c := start(t, Config{GlobalDir: g, ProjectDir: p, OpenCodeConfigDir: t.TempDir()})
	r := c.call("system", map[string]any{"sessionID": "ses_1", "options": "maxInjectChars=800"})
	if r.Error != nil || !strings.Contains(r.Result.Text, "Build with make") || !strings.Contains(r.Result.Warning, "options = (not a JSON object)") {
		t.Errorf("system: text %q, warning %q, error %+v", r.Result.Text, r.Result.Warning, r.Error)
	}
}
