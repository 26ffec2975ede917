package engine

import "unicode/utf8"

// MaxExcerptRunes bounds the excerpt of a person's message that the log
// keeps: enough to recognise the turn in the viewer, never a whole paste.
const MaxExcerptRunes = 200

// excerptWindow is how much of a message is read for its excerpt: the
// whole of any secret that starts within the excerpt, so that it is
// recognised and masked before the excerpt cuts it.
const excerptWindow = 8 << 10

// LogExcerpt is the start of a text a person or a model wrote (a message,
// a recall query, an MCP prompt's message) on one line, for a log, with
// every suspected secret masked; a text whose secret the mask cannot
// cover is not logged at all. Every edge logs such text through it, as
// the viewer shows what the log holds.
func LogExcerpt(text string) string {
	if len(text) > excerptWindow {
		cut := excerptWindow
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	s := mask(OneLine(text))
	if r := []rune(s); len(r) > MaxExcerptRunes {
		s = string(r[:MaxExcerptRunes]) + "…"
	}
	if len(ScanSecrets(s)) > 0 {
		return "[withheld: the message holds a suspected secret]"
	}
	return s
}

// mask replaces each suspected secret of a one-line text by its redacted
// form.
func mask(s string) string {
	fs := ScanSecrets(s)
	for i := len(fs) - 1; i >= 0; i-- { // from the last, so earlier columns stay valid
		f := fs[i]
		start := f.Column - 1
		if f.Line != 1 || start < 0 || start > len(s) {
			continue
		}
		end := start
		for n := utf8.RuneCountInString(f.Redacted); n > 0 && end < len(s); n-- {
			_, size := utf8.DecodeRuneInString(s[end:])
			end += size
		}
		s = s[:start] + f.Redacted + s[end:]
	}
	return s
}
