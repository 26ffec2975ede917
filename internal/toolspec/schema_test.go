package toolspec

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/schemas.json")

// The input schemas every MCP client is told, pinned: the JSON each
// marshals to, keys sorted (their order carries no meaning).
func TestInputSchemasGolden(t *testing.T) {
	all := map[string]any{}
	for _, tool := range Tools {
		b, err := json.Marshal(tool.InputSchema())
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		all[tool.Name] = v
	}
	got, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "schemas.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test ./internal/toolspec -run %s -update rewrites it):\n%s", path, t.Name(), got)
	}
}
