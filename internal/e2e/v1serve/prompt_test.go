package v1serve

// What a person approving a memory write sees: OpenCode 1.18's permission
// prompt, with "edit": "ask".

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// TestEditPromptShowsMemoryWrite: with "edit": "ask", memory_remember asks
// OpenCode 1.18.33 for the edit permission with the metadata its own edit
// tool gives the prompt: the memory file's path (filepath) and the text to
// be written (diff), so the prompt shows them instead of "No diff
// provided". Nothing is written until the person answers; once allowed,
// the file lands where the prompt said.
func TestEditPromptShowsMemoryWrite(t *testing.T) {
	e := e2e.NewOcmemEnv(t)
	e.Config["permission"] = map[string]any{"edit": "ask"}
	e.WriteConfig()
	e.Fake.SetResponder(fakellm.Script(
		fakellm.Call("memory_remember", map[string]any{
			"category": "decisions", "kind": "decision",
			"summary": "Use SQLite for the session cache", "body": "PROMPT-BODY: one file, no server.",
		}),
		fakellm.Text("done"),
	))
	written := filepath.Join(e.Project, ".memory", "decisions", "use-sqlite-session-cache.md")

	s := e.Serve()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	events, err := s.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sid, err := s.NewSession(ctx, "prompt")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.Prompt(ctx, sid, "remember that we use SQLite")
		done <- err
	}()

	var asked map[string]any
	for asked == nil {
		for _, p := range events.Of("permission.asked") {
			if p["permission"] == "edit" {
				asked = p
			}
		}
		select {
		case err := <-done:
			t.Fatalf("the turn ended without asking for the edit permission: %v", err)
		case <-ctx.Done():
			t.Fatal("no permission.asked event")
		case <-time.After(200 * time.Millisecond):
		}
	}
	meta, _ := asked["metadata"].(map[string]any)
	if meta["filepath"] != written {
		t.Errorf("the prompt's filepath is %v, want %s (asked: %v)", meta["filepath"], written, asked)
	}
	diff, _ := meta["diff"].(string)
	for _, want := range []string{"+summary: Use SQLite for the session cache\n", "+PROMPT-BODY: one file, no server.\n"} {
		if !strings.Contains(diff, want) {
			t.Errorf("the prompt's diff lacks %q:\n%s", want, diff)
		}
	}
	if _, err := os.Stat(written); !os.IsNotExist(err) {
		t.Errorf("the memory was written before the person answered: %v", err)
	}

	id, _ := asked["id"].(string)
	if err := s.Do(ctx, "POST", "/permission/"+id+"/reply", map[string]any{"reply": "once"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(written)
	if err != nil {
		t.Fatalf("allowed, the memory was not written: %v", err)
	}
	if !strings.Contains(string(b), "PROMPT-BODY") {
		t.Errorf("%s:\n%s", written, b)
	}
}
