package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// `ocmem check` agrees with the matcher on every line of its table: the
// same rule, the same answer, whatever edge asks.
func TestCheckAgreesWithTable(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "internal", "guard", "testdata", "shell-cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Line    string `json:"line"`
		Stopped bool   `json:"stopped"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	w := t.TempDir()
	for k, v := range map[string]string{
		"HOME": w, "USERPROFILE": w, "XDG_CONFIG_HOME": w, "OPENCODE_CONFIG_DIR": filepath.Join(w, "oc"),
		"OCMEM_GLOBAL": filepath.Join(w, "global"), "OCMEM_PROJECT": filepath.Join(w, "project"),
		"OCMEM_CACHE_DIR": filepath.Join(w, "cache"), "OCMEM_LOG": filepath.Join(w, "ocmem.log"),
	} {
		t.Setenv(k, v)
	}
	rule := "---\nid: rules/push\nkind: rule\nsummary: never force-push\nenforce:\n  bash:\n    \"git push --force*\": deny\n    \"git push -f*\": deny\n---\n"
	if err := os.MkdirAll(filepath.Join(w, "global", "rules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w, "global", "rules", "push.md"), []byte(rule), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		cl := &cli{stdout: &out, stderr: &errb}
		code := exitCode(cl.stderr, "check", cl.dispatch(context.Background(), []string{"check", "--", c.Line}))
		if want := map[bool]int{true: exitFail, false: exitOK}[c.Stopped]; code != want {
			t.Errorf("ocmem check -- %q: exit %d, want %d\n%s%s", c.Line, code, want, out.String(), errb.String())
		}
	}
}
