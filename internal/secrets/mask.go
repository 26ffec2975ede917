package secrets

import (
	"strings"
	"unicode/utf8"
)

// ScanAll is Scan with every reading Check makes of a field: its lines
// joined, its Markdown taken out and its encodings and escapes decoded
// (ghp\_…, ghp&#95;…). It is what text shown to a person or a model is
// masked with, so that what a renderer or a model reads as a token is
// masked too.
func ScanAll(text string) []Finding {
	return scan(text, true)
}

// WithheldLine stands for a line whose secret Mask cannot cover in place
// (a token broken over lines, a line too dense to scan): what ocmem shows
// or compiles of such a line is this instead.
const WithheldLine = "[withheld: this line holds a suspected secret]"

// MaskLine is Mask for a text of one line, as it is shown or compiled:
// masked, or WithheldLine when it cannot be.
func MaskLine(line string) string {
	if out, ok := Mask(line); ok {
		return out
	}
	return WithheldLine
}

// Mask returns text with every secret ScanAll finds replaced by its
// redaction, and whether the text may be shown so: false when the scan ran
// out of budget or the masked text still holds a suspected secret (one
// the redaction could not cover in place), and then the caller must show
// none of it.
func Mask(text string) (string, bool) {
	fs := ScanAll(text)
	if len(fs) == 0 {
		return text, true
	}
	if fs[len(fs)-1].Rule == RuleTooDense {
		return "", false
	}
	lineStart := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			lineStart = append(lineStart, i+1)
		}
	}
	var b strings.Builder
	pos := 0
	for _, f := range fs { // in order of position, not overlapping
		if f.Line < 1 || f.Line > len(lineStart) || f.Column < 1 {
			return "", false
		}
		start := lineStart[f.Line-1] + f.Column - 1
		if start < pos || start > len(text) {
			return "", false
		}
		// Redacted holds one character per character of the secret.
		end := start
		for n := utf8.RuneCountInString(f.Redacted); n > 0 && end < len(text); n-- {
			_, size := utf8.DecodeRuneInString(text[end:])
			end += size
		}
		b.WriteString(text[pos:start])
		b.WriteString(f.Redacted)
		pos = end
	}
	b.WriteString(text[pos:])
	out := b.String()
	if len(ScanAll(out)) > 0 {
		return "", false
	}
	return out, true
}
