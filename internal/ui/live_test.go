package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/live"
)

// A memory edited by hand while the viewer runs shows on its next page,
// and its open pages are told to reload, through the watch serve and the
// MCP server keep (live.Engines), with nothing telling the viewer of it
// but the watcher.
func TestHandEditSeenThroughLive(t *testing.T) {
	l := live.New(live.Config{})
	l.Watch()
	t.Cleanup(l.Close)
	f := newFixture(t, Config{Live: l})
	if _, body := f.get("/memories"); !strings.Contains(body, "Deploy with a canary at 10 percent first") {
		t.Fatalf("the memory is not listed before the edit:\n%s", body)
	}
	gen := f.s.generation()
	p := filepath.Join(f.project, "decisions", "deploy-canary.md")
	edited := strings.Replace(readFile(t, p), "summary: Deploy with a canary at 10 percent first", "summary: Deploy with a canary at 25 percent first", 1)
	if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, body := f.get("/memories")
		if strings.Contains(body, "Deploy with a canary at 25 percent first") && f.s.generation() > gen {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hand edit never showed (generation %d, was %d):\n%s", f.s.generation(), gen, body)
		}
	}
}
