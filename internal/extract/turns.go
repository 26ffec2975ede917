package extract

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ocmem/ocmem/internal/opencode"
)

// Budgets of the prompt, in estimated tokens. The smallest model extraction
// will use has MinContextTokens; it must hold the instructions (about 700
// tokens), the existing memories shown (ShownMemories, about 100 each),
// the transcript, and an answer of MaxCandidates memories (about 200
// each). Half the window for the transcript leaves room for all of it.
const (
	TranscriptTokens = MinContextTokens / 2
	// MessageTokens caps one message, so a pasted log or a long answer
	// does not take the whole transcript: its head and tail are kept.
	MessageTokens = TranscriptTokens / 4
	// ContextMessages are shown before the new turns, already extracted
	// from, so that a short new turn ("yes, do that") has its meaning; each
	// is capped at ContextTokens.
	ContextMessages = 2
	ContextTokens   = MessageTokens / 2
)

// estimateTokens approximates how many tokens s costs: about four bytes of
// ASCII per token, and about one token per other character (CJK text
// tokenizes near one token per character in the common tokenizers).
func estimateTokens(s string) int {
	ascii, other := 0, 0
	for _, r := range s {
		if r < utf8.RuneSelf {
			ascii++
		} else {
			other++
		}
	}
	return (ascii+3)/4 + other
}

// clipTokens keeps the head and the tail of s within about max tokens,
// marking the cut.
func clipTokens(s string, max int) string {
	if estimateTokens(s) <= max {
		return s
	}
	r := []rune(s)
	// Shrink the kept share until it fits; each step is one estimate.
	keep := len(r)
	for keep > 0 {
		keep = keep * 3 / 4
		head, tail := string(r[:keep/2]), string(r[len(r)-keep/2:])
		if estimateTokens(head)+estimateTokens(tail)+8 <= max {
			return head + "\n[… cut …]\n" + tail
		}
	}
	return "[… cut …]"
}

// turn is one message as the model is shown it.
type turn struct {
	id   string
	role string
	text string
}

// batch is what one extraction run covers.
type batch struct {
	Earlier      []turn // context before the cursor, already extracted from
	Turns        []turn // the new messages, oldest first
	Last         string // id of the last message of Turns: the next cursor
	UserTurns    int    // user turns in Turns
	SessionTurns int    // user turns among all messages read (the whole session when there was no cursor)
	NewTurns     int    // user turns after the cursor, sent or not (what minTurns counts)
	Deferred     int    // new messages left for the next run (over budget, or not finished)
	Provider     string // provider of the session's latest user message
}

// isTurn reports whether a message counts as a user turn: a user message
// with text the person typed (not only parts a plugin added, not a
// compaction marker).
func isTurn(m opencode.Message) bool {
	return m.Info.Role == "user" && m.Text() != ""
}

// toTurn renders a message for the model: its own text and, for the
// agent, which tools it used. Secrets are redacted before anything is sent.
func toTurn(m opencode.Message, maxTokens int) (turn, bool) {
	text := m.Text()
	if m.Info.Role == "assistant" {
		var tools []string
		for _, p := range m.Parts {
			if p.Type == "tool" && p.Tool != "" && !slices.Contains(tools, p.Tool) {
				tools = append(tools, p.Tool)
			}
		}
		if len(tools) > 0 {
			text = strings.TrimSpace(text + "\n(used tools: " + strings.Join(tools, ", ") + ")")
		}
	}
	if text == "" {
		return turn{}, false
	}
	return turn{id: m.Info.ID, role: m.Info.Role, text: redact(clipTokens(text, maxTokens))}, true
}

// selectTurns picks the messages after the cursor (every message when it is
// empty), oldest first, within TranscriptTokens. A run ends on a finished
// exchange: a trailing user message without its answer, or an answer
// still being written, waits for the next idle. When the budget runs out
// the batch ends early and the cursor stops there, so the rest is read
// next time rather than skipped.
func selectTurns(msgs []opencode.Message, cursor string) batch {
	var b batch
	start := 0
	if cursor != "" {
		start = len(msgs)
		for i, m := range msgs {
			if m.Info.ID == cursor {
				start = i + 1
				break
			}
			// The cursor's message is gone (reverted): ids sort by time.
			if m.Info.ID > cursor {
				start = i
				break
			}
		}
	}
	for i, m := range msgs {
		if isTurn(m) {
			b.SessionTurns++
			if i >= start {
				b.NewTurns++
			}
		}
		if m.Info.Role == "user" && m.Info.Model != nil {
			b.Provider = m.Info.Model.ProviderID
		}
	}
	for i := max(0, start-ContextMessages); i < start; i++ {
		if t, ok := toTurn(msgs[i], ContextTokens); ok {
			b.Earlier = append(b.Earlier, t)
		}
	}
	end := len(msgs)
	for end > start && !finished(msgs[end-1]) {
		end--
	}
	b.Deferred = len(msgs) - end
	used := 0
	for i := start; i < end; i++ {
		m := msgs[i]
		t, ok := toTurn(m, MessageTokens)
		if ok {
			cost := estimateTokens(t.text)
			if used+cost > TranscriptTokens && len(b.Turns) > 0 {
				b.Deferred += end - i
				break
			}
			used += cost
			b.Turns = append(b.Turns, t)
			if t.role == "user" {
				b.UserTurns++
			}
		}
		b.Last = m.Info.ID
	}
	return b
}

// finished reports whether a message can end a batch: an assistant message
// that completed. OpenCode sets time.completed when the answer is done.
func finished(m opencode.Message) bool {
	return m.Info.Role == "assistant" && m.Info.Time.Completed > 0
}

// transcript renders the turns for the prompt.
func (b batch) transcript() string {
	var s strings.Builder
	if len(b.Earlier) > 0 {
		s.WriteString("### Earlier (already processed: context only, extract nothing from it)\n\n")
		for _, t := range b.Earlier {
			fmt.Fprintf(&s, "[%s]\n%s\n\n", t.role, t.text)
		}
		s.WriteString("### New turns\n\n")
	}
	for _, t := range b.Turns {
		fmt.Fprintf(&s, "[%s]\n%s\n\n", t.role, t.text)
	}
	return strings.TrimRight(s.String(), "\n") + "\n"
}
