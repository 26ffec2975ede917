package plugin

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of the tools' schemas")

// golden compares got, as indented JSON, with testdata/name; -update
// rewrites it.
func golden(t *testing.T, name string, got json.RawMessage) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, got, "", "  "); err != nil {
		t.Fatal(err)
	}
	buf.WriteByte('\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s differs (go test ./plugin -run %s -update rewrites it):\n%s", path, t.Name(), buf.Bytes())
	}
}

// The tools OpenCode 1.x is given, as zod schemas built from the contract:
// their types, which are optional, their descriptions.
func TestToolArgsV1(t *testing.T) {
	d := newDriver(t, true)
	res, _ := d.run("echo", nil, map[string]any{"do": "toolargs"})
	golden(t, "tools-v1.json", res[0].Result)
}

// The tools OpenCode 2.x is given, with their input as JSON Schema.
func TestToolInputsV2(t *testing.T) {
	d := newDriver2(t)
	res, _ := d.run("echo", nil, map[string]any{"do": "setup"}, map[string]any{"do": "tools"})
	golden(t, "tools-v2.json", res[1].Result)
}
