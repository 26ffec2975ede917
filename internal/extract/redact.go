package extract

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ocmem/ocmem/internal/secrets"
)

// redact replaces every suspected secret in s by its redacted form (the
// first few characters, then one '*' per character). The conversation is
// redacted before the extraction model sees it, so the model cannot copy a
// secret into a memory, and everything extraction logs is redacted, so the
// log never holds one either. The engine still scans every write.
func redact(s string) string {
	fs := secrets.Scan(s)
	if len(fs) == 0 {
		return s
	}
	if fs[len(fs)-1].Rule == secrets.RuleTooDense {
		return "[hidden: too dense with secret-shaped keywords to scan]"
	}
	lineStart := []int{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			lineStart = append(lineStart, i+1)
		}
	}
	type span struct {
		start, end int
		repl       string
	}
	var spans []span
	for _, f := range fs {
		if f.Line < 1 || f.Line > len(lineStart) || f.Column < 1 {
			continue
		}
		start := lineStart[f.Line-1] + f.Column - 1
		if start >= len(s) {
			continue
		}
		// Redacted holds one character per character of the secret.
		end := start
		for n := utf8.RuneCountInString(f.Redacted); n > 0 && end < len(s); n-- {
			_, size := utf8.DecodeRuneInString(s[end:])
			end += size
		}
		spans = append(spans, span{start, end, f.Redacted})
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	var b strings.Builder
	pos := 0
	for _, sp := range spans {
		if sp.start < pos { // overlaps the previous one
			continue
		}
		b.WriteString(s[pos:sp.start])
		b.WriteString(sp.repl)
		pos = sp.end
	}
	b.WriteString(s[pos:])
	return b.String()
}
