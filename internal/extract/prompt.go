package extract

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/store"
)

// instructions is the extraction model's system prompt.
//
//go:embed prompt.md
var instructions string

// ShownMemories is how many existing memories the prompt lists: those the
// new turns touch most, found by recall over the turns' text. Enough for
// the model to see what is already known about the subject and name the
// one it updates; duplicates of the others are still caught by decide,
// which compares every candidate with every memory.
const ShownMemories = 6

// systemPrompt fills in the instructions.
func systemPrompt(categories []string) string {
	quoted := make([]string, len(categories))
	for i, c := range categories {
		quoted[i] = strconv.Quote(c)
	}
	return strings.NewReplacer(
		"{{max}}", strconv.Itoa(MaxCandidates),
		"{{categories}}", strings.Join(quoted, " | "),
	).Replace(instructions)
}

// relatedMemories are the memories the turns touch, as an explicit search
// finds them (every memory holding a word of a turn is a candidate, best
// first), asked turn by turn: one search over a whole transcript weighs
// each memory against every word of every turn and keeps only the few
// closest to the best, while each turn may update another memory, which
// the model must see to supersede it. The hits of the turns are taken in
// turns, the latest turn first (it is the likeliest to change what an
// earlier one said), each turn's best before any turn's second.
func relatedMemories(e *engine.Engine, b batch) ([]engine.Hit, error) {
	var perTurn [][]engine.Hit
	for i := len(b.Turns) - 1; i >= 0; i-- {
		t := b.Turns[i]
		if strings.TrimSpace(t.text) == "" {
			continue
		}
		hits, err := e.Recall(t.text, engine.RecallOptions{Limit: ShownMemories, Mode: engine.Search})
		if err != nil {
			return nil, err
		}
		perTurn = append(perTurn, hits)
	}
	var out []engine.Hit
	seen := map[string]bool{}
	for rank := 0; len(out) < ShownMemories; rank++ {
		more := false
		for _, hits := range perTurn {
			if rank >= len(hits) || len(out) == ShownMemories {
				continue
			}
			more = true
			if h := hits[rank]; !seen[h.Key()] {
				seen[h.Key()] = true
				out = append(out, h)
			}
		}
		if !more {
			break
		}
	}
	return out, nil
}

// userPrompt is the message the model answers: the related memories, with
// ids it can name in "supersedes" and the date and scope that tell which of
// two contradicting ones is current, then the conversation.
func userPrompt(related []engine.Hit, b batch) string {
	var s strings.Builder
	s.WriteString("## Existing memories related to this conversation\n\n")
	if len(related) == 0 {
		s.WriteString("(none)\n")
	}
	for _, h := range related {
		fmt.Fprintf(&s, "- id: %s", h.ID)
		if h.Pinned {
			s.WriteString(" (pinned)")
		}
		fmt.Fprintf(&s, "\n  kind: %s\n  scope: %s\n", h.Kind, promptScope(h.Scope))
		if h.Updated > 0 {
			fmt.Fprintf(&s, "  updated: %s\n", time.UnixMilli(h.Updated).UTC().Format(time.DateOnly))
		}
		fmt.Fprintf(&s, "  summary: %s\n", oneLine(h.Summary))
		if h.Highlight != "" {
			fmt.Fprintf(&s, "  highlight: %s\n", oneLine(h.Highlight))
		}
		if len(h.LoadWhen) > 0 {
			fmt.Fprintf(&s, "  load_when: %s\n", strings.Join(h.LoadWhen, ", "))
		}
	}
	s.WriteString("\n## Conversation\n\n")
	s.WriteString(b.transcript())
	s.WriteString("\nAnswer with the JSON object only.\n")
	return s.String()
}

// promptScope names a root as the answer's "scope" does.
func promptScope(s store.Scope) string {
	if s == store.Global {
		return "user"
	}
	return "project"
}

func oneLine(s string) string { return clipRunes(strings.Join(strings.Fields(s), " "), 300) }
