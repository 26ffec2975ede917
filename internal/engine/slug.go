package engine

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/ocmem/ocmem/internal/pathsafe"
	"github.com/ocmem/ocmem/internal/textseg"
)

// maxSlugRunes keeps file names readable in a listing and far under every
// file system's limit (CJK characters are 3 bytes in UTF-8).
const maxSlugRunes = 48

// Slugify makes a file-name slug from a summary: lower-case latin words and
// CJK characters joined by "-", everything else dropped. Chinese stays
// Chinese (a readable name beats a transliteration), and the result is a
// pure function of the text, so the same summary always gives the same slug.
// It never returns "": an empty result becomes "memory".
func Slugify(s string) string {
	s = norm.NFKC.String(s)
	var b strings.Builder
	runes := 0
	pendingDash := false
	for _, r := range s {
		ok := unicode.IsLetter(r) || unicode.IsDigit(r)
		if !ok {
			pendingDash = b.Len() > 0
			continue
		}
		cjk := textseg.IsCJK(r)
		if pendingDash || (cjk != lastWasCJK(b.String()) && b.Len() > 0) {
			if runes+1 >= maxSlugRunes {
				break
			}
			b.WriteByte('-')
			runes++
			pendingDash = false
		}
		if runes >= maxSlugRunes {
			// Cut inside a latin word: end at the last whole word, so
			// the name does not read "…-open-a-pull-reques".
			if !cjk && !lastWasCJK(b.String()) {
				if i := strings.LastIndexByte(b.String(), '-'); i > 0 {
					t := b.String()[:i]
					b.Reset()
					b.WriteString(t)
				}
			}
			break
		}
		b.WriteRune(unicode.ToLower(r))
		runes++
	}
	out := strings.Trim(b.String(), "-")
	switch {
	case out == "":
		return "memory"
	case out == "index" || pathsafe.Check(out+".md") != nil:
		// "index" is the compiled index.md; "con", "nul", "aux" … are
		// device names Windows will not create.
		return out + "-memory"
	}
	return out
}

func lastWasCJK(s string) bool {
	if s == "" {
		return false
	}
	var last rune
	for _, r := range s {
		last = r
	}
	return textseg.IsCJK(last)
}
