package extract

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"

	"github.com/ocmem/ocmem/internal/engine"
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

// userPrompt is the message the model answers: the related memories, with
// ids it can name in "supersedes", then the conversation.
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
		fmt.Fprintf(&s, "\n  kind: %s\n  summary: %s\n", h.Kind, oneLine(h.Summary))
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

func oneLine(s string) string { return clipRunes(strings.Join(strings.Fields(s), " "), 300) }
