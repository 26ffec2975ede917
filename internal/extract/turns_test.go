package extract

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/opencode"
)

// conversation builds n exchanges: user message msg_NNNa, assistant answer
// msg_NNNb (completed), with the given texts.
func conversation(n int, text func(i int) (user, assistant string)) []opencode.Message {
	var out []opencode.Message
	for i := range n {
		u, a := text(i)
		out = append(out,
			opencode.Message{
				Info:  opencode.MessageInfo{ID: fmt.Sprintf("msg_%03da", i), Role: "user", Model: &opencode.ModelRef{ProviderID: "fake", ModelID: "big"}},
				Parts: []opencode.Part{{Type: "text", Text: u}},
			},
			opencode.Message{
				Info:  opencode.MessageInfo{ID: fmt.Sprintf("msg_%03db", i), Role: "assistant", Time: opencode.MessageTime{Created: 1, Completed: 2}},
				Parts: []opencode.Part{{Type: "step-start"}, {Type: "text", Text: a}, {Type: "tool", Tool: "bash"}},
			})
	}
	return out
}

func short(i int) (string, string) { return fmt.Sprintf("question %d", i), fmt.Sprintf("answer %d", i) }

func ids(ts []turn) string {
	var s []string
	for _, t := range ts {
		s = append(s, t.id)
	}
	return strings.Join(s, ",")
}

func TestSelectTurns(t *testing.T) {
	four := conversation(4, short)
	unfinished := append(conversation(2, short), opencode.Message{
		Info: opencode.MessageInfo{ID: "msg_002a", Role: "user"}, Parts: []opencode.Part{{Type: "text", Text: "next question"}},
	})
	streaming := append(conversation(2, short),
		opencode.Message{Info: opencode.MessageInfo{ID: "msg_002a", Role: "user"}, Parts: []opencode.Part{{Type: "text", Text: "q"}}},
		opencode.Message{Info: opencode.MessageInfo{ID: "msg_002b", Role: "assistant"}, Parts: []opencode.Part{{Type: "text", Text: "half an ans"}}},
	)
	injected := conversation(1, short)
	injected[0].Parts = append(injected[0].Parts, opencode.Part{Type: "text", Text: "MEMORY BODY", Synthetic: true})
	onlyInjected := append(conversation(1, short), opencode.Message{
		Info: opencode.MessageInfo{ID: "msg_001a", Role: "user"}, Parts: []opencode.Part{{Type: "text", Text: "x", Synthetic: true}},
	}, opencode.Message{Info: opencode.MessageInfo{ID: "msg_001b", Role: "assistant", Time: opencode.MessageTime{Completed: 1}}})

	tests := []struct {
		name         string
		msgs         []opencode.Message
		cursor       string
		turns        string // ids of the new turns
		earlier      string
		last         string
		userTurns    int
		sessionTurns int
		deferred     int
	}{
		{name: "no cursor", msgs: four, turns: "msg_000a,msg_000b,msg_001a,msg_001b,msg_002a,msg_002b,msg_003a,msg_003b", last: "msg_003b", userTurns: 4, sessionTurns: 4},
		{name: "after the cursor", msgs: four, cursor: "msg_001b", turns: "msg_002a,msg_002b,msg_003a,msg_003b", earlier: "msg_001a,msg_001b", last: "msg_003b", userTurns: 2, sessionTurns: 4},
		{name: "cursor at the end", msgs: four, cursor: "msg_003b", earlier: "msg_003a,msg_003b", userTurns: 0, sessionTurns: 4},
		{name: "cursor message gone", msgs: four, cursor: "msg_001c", turns: "msg_002a,msg_002b,msg_003a,msg_003b", earlier: "msg_001a,msg_001b", last: "msg_003b", userTurns: 2, sessionTurns: 4},
		{name: "cursor older than what was read", msgs: four[4:], cursor: "msg_000b", turns: "msg_002a,msg_002b,msg_003a,msg_003b", last: "msg_003b", userTurns: 2, sessionTurns: 2},
		{name: "unanswered question waits", msgs: unfinished, turns: "msg_000a,msg_000b,msg_001a,msg_001b", last: "msg_001b", userTurns: 2, sessionTurns: 3, deferred: 1},
		{name: "answer being written waits", msgs: streaming, turns: "msg_000a,msg_000b,msg_001a,msg_001b", last: "msg_001b", userTurns: 2, sessionTurns: 3, deferred: 2},
		{name: "injected parts are not turns", msgs: onlyInjected, cursor: "msg_000b", earlier: "msg_000a,msg_000b", last: "msg_001b", userTurns: 0, sessionTurns: 1},
		{name: "empty session", msgs: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := selectTurns(tt.msgs, tt.cursor)
			if got := ids(b.Turns); got != tt.turns {
				t.Errorf("turns %q, want %q", got, tt.turns)
			}
			if got := ids(b.Earlier); got != tt.earlier {
				t.Errorf("earlier %q, want %q", got, tt.earlier)
			}
			if b.Last != tt.last || b.UserTurns != tt.userTurns || b.SessionTurns != tt.sessionTurns || b.Deferred != tt.deferred {
				t.Errorf("last %q user %d session %d deferred %d; want %q %d %d %d",
					b.Last, b.UserTurns, b.SessionTurns, b.Deferred, tt.last, tt.userTurns, tt.sessionTurns, tt.deferred)
			}
		})
	}
	if b := selectTurns(injected, ""); strings.Contains(b.transcript(), "MEMORY BODY") || b.Provider != "fake" {
		t.Errorf("transcript shows injected memory, or provider %q:\n%s", b.Provider, b.transcript())
	}
}

func TestSelectTurnsBudget(t *testing.T) {
	// Each exchange costs about a quarter of the budget: the batch stops
	// within it and the cursor stops where the batch does.
	long := strings.Repeat("word ", TranscriptTokens/2) // ≈ TranscriptTokens/2 tokens, clipped to MessageTokens
	msgs := conversation(8, func(i int) (string, string) { return long, "ok" })
	b := selectTurns(msgs, "")
	used := 0
	for _, tr := range b.Turns {
		used += estimateTokens(tr.text)
		if estimateTokens(tr.text) > MessageTokens {
			t.Errorf("message %s has %d tokens, over MessageTokens %d", tr.id, estimateTokens(tr.text), MessageTokens)
		}
	}
	if used > TranscriptTokens {
		t.Errorf("batch uses %d tokens, over %d", used, TranscriptTokens)
	}
	if b.Deferred == 0 || b.Last != b.Turns[len(b.Turns)-1].id {
		t.Errorf("deferred %d, last %q, turns %s", b.Deferred, b.Last, ids(b.Turns))
	}
	if got := len(b.Turns) + b.Deferred; got != len(msgs) {
		t.Errorf("%d messages in the batch + deferred, want %d", got, len(msgs))
	}
	// The next run starts where this one stopped.
	next := selectTurns(msgs, b.Last)
	if len(next.Turns) == 0 || next.Turns[0].id <= b.Last {
		t.Errorf("next batch starts at %s after cursor %s", ids(next.Turns), b.Last)
	}
}

func TestTranscriptRedacts(t *testing.T) {
	token := "ghp_" + strings.Repeat("aB3xK9mQ", 4) + "Zt7w"
	msgs := conversation(1, func(int) (string, string) { return "my token is " + token, "noted" })
	tr := selectTurns(msgs, "").transcript()
	if strings.Contains(tr, token) || !strings.Contains(tr, "ghp_") {
		t.Errorf("transcript:\n%s", tr)
	}
	if !strings.Contains(tr, "(used tools: bash)") {
		t.Errorf("transcript lacks the tools used:\n%s", tr)
	}
}

func TestEstimateAndClip(t *testing.T) {
	tests := []struct {
		s    string
		want int
	}{
		{"", 0}, {"abcd", 1}, {"abcde", 2}, {"部署", 2}, {"部署 pnpm", 2 + 2},
	}
	for _, tt := range tests {
		if got := estimateTokens(tt.s); got != tt.want {
			t.Errorf("estimateTokens(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
	s := strings.Repeat("部", 500) + strings.Repeat("x", 4000)
	c := clipTokens(s, 300)
	if estimateTokens(c) > 300 || !strings.HasPrefix(c, "部") || !strings.HasSuffix(c, "x") || !strings.Contains(c, "[… cut …]") {
		t.Errorf("clipTokens kept %d tokens: %.40q…", estimateTokens(c), c)
	}
	if clipTokens("short", 300) != "short" {
		t.Errorf("a short text was clipped")
	}
}
