package tiers

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/snapshot"
	"github.com/ocmem/ocmem/internal/stale"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/trust"
)

// loadMemories writes ms into a project root and loads it with an empty
// global root.
func loadMemories(t *testing.T, ms []memory.Memory) (*snapshot.Snapshot, []store.Root) {
	t.Helper()
	global := store.Root{Scope: store.Global, Dir: t.TempDir()}
	project := store.Root{Scope: store.Project, Dir: t.TempDir()}
	for _, m := range ms {
		m.Kind, m.Body, m.Created = memory.KindFact, "Seen in docker-compose.yml.", 1
		if m.Updated == 0 {
			m.Updated = 1
		}
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
	return s, []store.Root{global, project}
}

// The outline leaves out the lines of the memories judged no longer true,
// before it chooses the lines that fit: the room goes to the next line.
// A superseded memory is in no outline.
func TestOutlineLeavesOutOutdated(t *testing.T) {
	judged := memory.Outdated{Commit: "abc123", Time: 1, Reason: "the port moved"}
	s, roots := loadMemories(t, []memory.Memory{
		{ID: "facts/live", Summary: "Kafka listens on 9092", Updated: 2},
		{ID: "facts/old", Summary: "Kafka listens on 9091", Updated: 3, Outdated: judged},
		{ID: "facts/replaced", Summary: "Kafka listens on 9090", Updated: 4, Outdated: judged, SupersededBy: "facts/live"},
		{ID: "facts/older", Summary: "Zookeeper listens on 2181 in every environment the team deploys to, from dev to production", Updated: 1},
	})
	const (
		live  = "- project:facts/live — Kafka listens on 9092\n"
		older = "- project:facts/older — Zookeeper listens on 2181 in every environment the team deploys to, from dev to production\n"
	)
	whole := Outline(s, roots, 1<<20, nil)
	head, _, _ := strings.Cut(whole, "- project:")
	if !strings.Contains(head, "project (3): facts 3\n") {
		t.Errorf("the outdated memory is not counted:\n%s", head)
	}
	tail := "… 1 more not listed (pinned and recent shown); memory_recall finds them.\n"
	tests := []struct {
		name   string
		budget int
		want   string
	}{
		{"every line", 1 << 20, head + live + older},
		{"the most recent line still true", utf8.RuneCountInString(head) + 80 + utf8.RuneCountInString(live), head + live + tail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Outline(s, roots, tt.budget, nil); got != tt.want {
				t.Errorf("Outline =\n%s\nwant\n%s", got, tt.want)
			}
			if _, got, _, _ := Render(s, roots, store.Root{}, trust.AllInForce(), tt.budget); got != tt.want {
				t.Errorf("Render's outline =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
	var g Marks
	if got := g.Outline(nil, s, roots, whole, 1<<20, time.Second); got != whole {
		t.Errorf("Marks without a worktree changed the outline:\n%s", got)
	}
}

// At every budget, an outline with gone memories is within it, each gone
// memory's line listed with its whole mark or not at all; without gone
// memories it is Render's.
func TestOutlineGoneWithinBudget(t *testing.T) {
	var ms []memory.Memory
	for i := range 6 {
		ms = append(ms, memory.Memory{ID: fmt.Sprintf("facts/part-%d", i), Summary: fmt.Sprintf("part %d of the server lives in srv/part%d.go", i, i),
			LoadWhen: []string{"server"}, Updated: int64(1 + i%3), Pinned: i == 5})
	}
	s, roots := loadMemories(t, ms)
	gone := map[int]bool{}
	goneIDs := map[string]bool{"facts/part-0": true, "facts/part-2": true, "facts/part-5": true}
	s.Each(store.Project, func(i int, m *memory.Memory) {
		if goneIDs[m.ID] {
			gone[i] = true
		}
	})
	if len(gone) != len(goneIDs) {
		t.Fatalf("found %d of the gone memories", len(gone))
	}
	whole := Outline(s, roots, 1<<20, gone)
	if n := strings.Count(whole, stale.GoneMark); n != len(goneIDs) {
		t.Fatalf("%d marks in the whole outline, want %d:\n%s", n, len(goneIDs), whole)
	}
	for budget := range utf8.RuneCountInString(whole) + 2 {
		o := Outline(s, roots, budget, gone)
		if n := utf8.RuneCountInString(o); n > budget {
			t.Errorf("budget %d: outline is %d characters:\n%s", budget, n, o)
		}
		if n, whole := strings.Count(o, "(gone"), strings.Count(o, stale.GoneMark); n != whole {
			t.Errorf("budget %d: %d marks, %d of them whole:\n%s", budget, n, whole, o)
		}
		for _, l := range strings.Split(o, "\n") {
			id, rest, ok := strings.Cut(strings.TrimPrefix(l, "- project:"), " ")
			if !ok || !strings.HasPrefix(l, "- project:") {
				continue
			}
			if marked := strings.HasPrefix(" "+rest, stale.GoneMark+" — "); marked != goneIDs[id] {
				t.Errorf("budget %d: line %q marked gone %v, want %v", budget, l, marked, goneIDs[id])
			}
		}
		if _, want, _, _ := Render(s, roots, store.Root{}, trust.AllInForce(), budget); Outline(s, roots, budget, nil) != want {
			t.Errorf("budget %d: Outline without gone memories is not Render's:\n%s\nwant\n%s", budget, Outline(s, roots, budget, nil), want)
		}
	}
}
