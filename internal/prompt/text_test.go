package prompt

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/store"
)

// TestInjectCutNeverSplitsACharacter drives the cut through every budget
// over a text with no boundary at all (no space, newline or punctuation)
// and with multi-byte characters of several widths.
func TestInjectCutNeverSplitsACharacter(t *testing.T) {
	text := strings.Repeat("保留😀é", 60)
	for budget := 1; budget <= 200; budget++ {
		got := Cut(text, budget)
		if !utf8.ValidString(got) || !strings.HasPrefix(text, got) {
			t.Fatalf("Cut(…, %d) = %q: not a clean prefix", budget, got)
		}
		if n := utf8.RuneCountInString(got); n != budget {
			t.Fatalf("Cut(…, %d) kept %d characters; with no boundary it should keep exactly the budget", budget, n)
		}
	}
	body := "first line\nsecond line. third sentence; fourth part"
	for budget, want := range map[int]string{
		len("first line\nsecond line. th"):                 "first line\nsecond line.",
		len("first line\nsecond line. third sentence; fo"): "first line\nsecond line. third sentence;",
		len("first line\nsec"):                             "first line",
		len(body):                                          body,
	} {
		if got := Cut(body, budget); got != want {
			t.Errorf("Cut(%q, %d) = %q, want %q", body, budget, got, want)
		}
	}
}

// The outline counts each line's length without writing it; the count must
// be the written line's, whatever the text's spaces and characters.
func TestOutlineLineLen(t *testing.T) {
	pieces := []string{"", " ", "  ", "\t", "\n", "\u00a0", "\u3000", "\u0085", "部署", "a", "b c", "é", "\xff", " x ", "—", ",", "\u2028"}
	rng := rand.New(rand.NewPCG(7, 8))
	text := func() string {
		var b strings.Builder
		for range rng.IntN(6) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	for i := range 5000 {
		m := &memory.Memory{ID: "facts/" + text(), Summary: text(), Kind: memory.KindFact}
		for range rng.IntN(3) {
			m.LoadWhen = append(m.LoadWhen, text())
		}
		if i%3 == 0 {
			m.Kind = memory.KindRuleProposal
		}
		scope := store.Scope([]string{"global", "project"}[i%2])
		if got, want := OutlineLineLen(scope, m), utf8.RuneCountInString(OutlineLine(scope, m)); got != want {
			t.Fatalf("%q %q %q: counted %d, written %d", m.ID, m.Summary, m.LoadWhen, got, want)
		}
	}
}
