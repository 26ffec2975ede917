package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
)

// TestOutlineMarksWithinBudget: the outline the model gets stays within
// its budget with its gone memories marked, at every budget from one that
// lists every line, marks included, down to one its heading barely fits;
// a gone memory's line is listed with its whole mark or not at all, and
// the outline is the same from turn to turn.
func TestOutlineMarksWithinBudget(t *testing.T) {
	x := newCodeRepo(t)
	const parts, gone = 6, 4
	for i := range parts {
		x.write(fmt.Sprintf("srv/part%d.go", i), "package srv\n")
	}
	x.commit("start")
	for i := range parts {
		x.anchored(fmt.Sprintf("facts/part-%d", i), fmt.Sprintf("part %d of the server lives in srv/part%d.go", i, i),
			"Read it first.", fmt.Sprintf("srv/part%d.go", i))
	}
	for i := range gone {
		if err := os.Remove(filepath.Join(x.dir, "srv", fmt.Sprintf("part%d.go", i))); err != nil {
			t.Fatal(err)
		}
	}
	x.commit("fold the first parts into server.go")
	outline := func(budget int) (first, again string) {
		t.Helper()
		e := New(Config{ProjectDir: x.memoryDir(), Now: func() time.Time { return testNow },
			Options: options.Options{MaxOutlineChars: budget}})
		for _, out := range []*string{&first, &again} {
			inj, err := e.Inject("", InjectOptions{})
			if err != nil {
				t.Fatal(err)
			}
			*out = inj.Outline
		}
		return first, again
	}
	whole, _ := outline(1 << 20)
	if n := strings.Count(whole, goneMark); n != gone {
		t.Fatalf("outline marks %d memories gone, want %d:\n%s", n, gone, whole)
	}
	full := utf8.RuneCountInString(whole)
	mark := utf8.RuneCountInString(goneMark)
	head, _, _ := strings.Cut(whole, "\n- ")
	heading := utf8.RuneCountInString(head) + 1
	tests := []struct {
		name   string
		budget int
		listed int // lines listed; -1: any number
	}{
		{"every line with its mark", full, parts},
		{"one short of every line", full - 1, -1},
		{"every line without marks", full - gone*mark, -1},
		{"one mark short", full - mark, -1},
		{"the heading and two lines", heading + 80 + 2*70, -1},
		{"the heading and the tail", heading + 80, 0},
		{"the heading", heading, 0},
		{"within the heading", heading - 40, 0},
		{"one character", 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, again := outline(tt.budget)
			if n := utf8.RuneCountInString(o); n > tt.budget {
				t.Errorf("outline is %d characters, over its budget of %d:\n%s", n, tt.budget, o)
			}
			if again != o {
				t.Errorf("outline differs on the next turn:\n%s", firstDiff(again, o))
			}
			if n, whole := strings.Count(o, "(gone"), strings.Count(o, goneMark); n != whole {
				t.Errorf("%d marks, %d of them whole:\n%s", n, whole, o)
			}
			listed := 0
			for _, l := range strings.Split(o, "\n") {
				var k int
				if _, err := fmt.Sscanf(l, "- project:facts/part-%d", &k); err != nil {
					continue
				}
				listed++
				if marked := strings.HasPrefix(l, fmt.Sprintf("- project:facts/part-%d%s — ", k, goneMark)); marked != (k < gone) {
					t.Errorf("line %q: marked gone %v, want %v", l, marked, k < gone)
				}
			}
			if tt.listed >= 0 && listed != tt.listed {
				t.Errorf("%d lines listed, want %d:\n%s", listed, tt.listed, o)
			}
		})
	}
}

// TestOutlineOutdatedRoom: an outdated memory's line is left out before
// the outline's lines are chosen, so the room it would have taken goes to
// the next line in the order lines are kept (pinned, then recent).
func TestOutlineOutdatedRoom(t *testing.T) {
	x := newCodeRepo(t)
	x.write("README.md", "# srv\n")
	x.commit("start")
	for i, id := range []string{"facts/older", "facts/recent", "facts/judged"} {
		ms := testNow.Add(time.Duration(i) * time.Hour).UnixMilli()
		summary := "the server port is set in " + id
		if id == "facts/older" { // too long to fit beside the other
			summary += ", which every service reads at start and which the deploy scripts override"
		}
		m := &memory.Memory{ID: id, Kind: memory.KindFact, Summary: summary,
			Body: "See the code.", Created: ms, Updated: ms}
		if id == "facts/judged" { // the most recent: kept first, were it not outdated
			m.Outdated = memory.Outdated{Commit: x.git("rev-parse", "HEAD"), Time: ms, Reason: "the port moved"}
		}
		writeMemory(t, x.memoryDir(), m)
	}
	whole := mustStable(t, x.engine()).Outline
	head, _, _ := strings.Cut(whole, "\n- ")
	// Room for the heading, the line of one memory and the tail.
	budget := utf8.RuneCountInString(head) + 1 + 80 + len("- project:facts/recent — the server port is set in facts/recent\n")
	o := mustStable(t, New(Config{ProjectDir: x.memoryDir(), Now: func() time.Time { return testNow },
		Options: options.Options{MaxOutlineChars: budget}})).Outline
	if n := utf8.RuneCountInString(o); n > budget {
		t.Errorf("outline is %d characters, over its budget of %d", n, budget)
	}
	if strings.Contains(o, "facts/judged") || !strings.Contains(o, "- project:facts/recent — ") || strings.Contains(o, "facts/older") {
		t.Errorf("outline does not list the most recent memory still true, alone:\n%s", o)
	}
}
