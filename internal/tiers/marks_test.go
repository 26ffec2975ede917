package tiers

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/snapshot"
	"github.com/ocmem/ocmem/internal/store"
)

// Without a worktree to check anchors in, the outline loses the lines of
// the memories judged no longer true and nothing else; a superseded one is
// not the outline's to drop.
func TestMarksDropOutdated(t *testing.T) {
	global := store.Root{Scope: store.Global, Dir: t.TempDir()}
	project := store.Root{Scope: store.Project, Dir: t.TempDir()}
	judged := memory.Outdated{Commit: "abc123", Time: 1, Reason: "the port moved"}
	for _, m := range []memory.Memory{
		{ID: "facts/live", Summary: "Kafka listens on 9092", Anchors: []string{"docker-compose.yml"}},
		{ID: "facts/old", Summary: "Kafka listens on 9091", Outdated: judged},
		{ID: "facts/replaced", Summary: "Kafka listens on 9090", Outdated: judged, SupersededBy: "facts/live"},
	} {
		m.Kind, m.Body, m.Created, m.Updated = memory.KindFact, "Seen in docker-compose.yml.", 1, 1
		path := filepath.Join(project.Dir, filepath.FromSlash(m.ID)+".md")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, m.Format(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := (&snapshot.Loader{Global: global, Project: project}).Load(nil, false, false)
	if err != nil {
		t.Fatal(err)
	}
	roots := []store.Root{global, project}
	const (
		live     = "- project:facts/live — Kafka listens on 9092\n"
		old      = "- project:facts/old — Kafka listens on 9091\n"
		replaced = "- project:facts/replaced — Kafka listens on 9090\n"
	)
	tests := []struct{ outline, want string }{
		{"", ""},
		{live + old, live},
		{old + live, live},
		{live + replaced, live + replaced},
		{old, ""},
		{live + old, live}, // asked again: the kept answer
	}
	var g Marks
	for _, tt := range tests {
		if got := g.Outline(nil, s, roots, tt.outline, time.Second); got != tt.want {
			t.Errorf("Outline(%q) = %q, want %q", tt.outline, got, tt.want)
		}
	}
}
