package prompt

import (
	"unicode/utf8"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/secrets"
)

// MaxExcerptRunes bounds LogExcerpt: enough to recognise a message in a
// log, never a whole paste.
const MaxExcerptRunes = 200

// excerptWindow is how much of a text is read for its excerpt: the whole
// of any secret that starts within the excerpt, so that it is recognised
// and masked before the excerpt cuts it.
const excerptWindow = 8 << 10

// LogExcerpt is the start of a text on one line, for a log (a person's
// message, a recall query, a prompt's message): every suspected secret
// masked as secrets.Mask masks it, then cut to MaxExcerptRunes; a text
// whose secret the mask cannot cover is not logged at all.
func LogExcerpt(text string) string {
	if len(text) > excerptWindow {
		cut := excerptWindow
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	s, ok := secrets.Mask(compile.OneLine(text))
	if !ok {
		return withheld
	}
	if r := []rune(s); len(r) > MaxExcerptRunes {
		s = string(r[:MaxExcerptRunes]) + "…"
	}
	if len(secrets.ScanAll(s)) > 0 {
		return withheld
	}
	return s
}

const withheld = "[withheld: the text holds a suspected secret]"
