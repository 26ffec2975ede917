package memory

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Visible returns s as a person must see it to decide on it: every
// character that a terminal or a browser shows differently from what it is
// — or not at all — is written as ⟨U+XXXX⟩, and every byte that is not
// UTF-8 as ⟨0xXX⟩. Line feeds, tabs and the carriage return of a CRLF line
// ending are kept.
//
// A model reads a rule's bytes; a person reads what the terminal draws. A
// lone carriage return sends the cursor back to the start of the line, so
// whatever follows it overwrites what came before ("curl … | sh\r    | npm
// lockfiles are not committed" shows only the second half); a backspace or
// an escape sequence does the same in other ways; a zero-width space, a
// bidirectional mark, a variation selector or a Hangul filler draws nothing.
// CheckText keeps the worst of these out of every memory, but text reaches a
// display from elsewhere too (a pin in the trust list, a file name on disk),
// and some of these characters are left in memories because people's own
// scripts need them (the zero-width non-joiner of Persian, the joiner of an
// emoji sequence): what a decision is taken on is shown through Visible.
//
// The escaped characters are the C0 and C1 controls and DEL, the format
// characters (Unicode category Cf: zero-width, bidirectional and tag
// characters, the soft hyphen, the byte order mark …), the line and
// paragraph separators U+2028 and U+2029, the variation selectors and the
// other default-ignorable code points (Hangul fillers, the combining
// grapheme joiner).
func Visible(s string) string {
	i := firstHidden(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w <= 1:
			fmt.Fprintf(&b, "⟨0x%02X⟩", s[i])
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			b.WriteString("\r\n")
			w = 2
		case Hidden(r):
			fmt.Fprintf(&b, "⟨U+%04X⟩", r)
		default:
			b.WriteString(s[i : i+w])
		}
		i += w
	}
	return b.String()
}

// firstHidden is the offset of the first byte Visible must rewrite, or -1.
// Nearly every text it sees has none: printable ASCII is passed over a byte
// at a time.
func firstHidden(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			i++
			continue
		}
		if c == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i += 2
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w <= 1 || Hidden(r) {
			return i
		}
		i += w
	}
	return -1
}

// Hidden reports whether a display shows r differently from what it is: a
// control character other than line feed and tab (a carriage return
// included: Visible keeps it only before a line feed), a format character, a
// line or paragraph separator, or a default-ignorable code point.
func Hidden(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r < 0x80:
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp,
		unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}
