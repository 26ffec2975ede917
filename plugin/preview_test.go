package plugin

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestEditPromptShowsPreview: before OpenCode 1.x asks the person to
// approve a memory write, the plugin gets serve's preview of it (the
// model's arguments travelling apart, as for the write) and passes it as
// the prompt's metadata, under the names OpenCode's own edit tool uses; a
// write serve refuses in the preview is refused without asking.
func TestEditPromptShowsPreview(t *testing.T) {
	d := newDriver(t, true)
	res, _ := d.run("echo", nil,
		map[string]any{"do": "toolask", "name": "memory_remember", "sessionID": "s", "args": map[string]any{"category": "facts", "kind": "fact", "summary": "x", "body": "y"}},
		map[string]any{"do": "toolask", "name": "memory_forget", "sessionID": "s", "args": map[string]any{"id": "facts/x"}},
		map[string]any{"do": "toolask", "name": "memory_forget", "sessionID": "s", "args": map[string]any{"id": "refused"}},
	)
	type asked struct {
		Out      string
		Asked    [][]string
		Metadata []map[string]any
	}
	for i, method := range []string{"preview.remember", "preview.forget"} {
		var got asked
		json.Unmarshal(res[i].Result, &got)
		if len(got.Metadata) != 1 || got.Metadata[0]["filepath"] != "/repo/.memory/"+method || got.Metadata[0]["diff"] != "DIFF "+method {
			t.Errorf("step %d: the prompt's metadata is %v, want serve's %s", i, got.Metadata, method)
		}
	}
	var refused asked
	json.Unmarshal(res[2].Result, &refused)
	if len(refused.Asked) != 0 || !strings.HasPrefix(refused.Out, "ocmem refused: no such memory") {
		t.Errorf("a write the preview refuses: asked %v, told the model %q", refused.Asked, refused.Out)
	}
	var previews int
	for _, r := range d.stubRequests() {
		if r["method"] != "preview.remember" {
			continue
		}
		previews++
		p := r["params"].(map[string]any)
		if args, _ := p["args"].(map[string]any); args["summary"] != "x" || p["summary"] != nil || p["sessionID"] != "s" {
			t.Errorf("preview params %v: the model's arguments go in args", p)
		}
	}
	if previews != 1 {
		t.Errorf("%d remember previews, want 1", previews)
	}
}
