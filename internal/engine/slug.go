package engine

import (
	"math"
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
	s = dropTokenWords(norm.NFKC.String(s))
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

// dropTokenWords blanks the words of s that look like a credential or a
// key: a file name is listed, synced and committed without anyone reading
// it, so it must never carry one, even one the secret scanner does not
// know. Such a word is a run of at least 12 ASCII letters and digits with
// both in it and at least 3 bits of entropy per character (a 12-character
// random run averages 3.4); versions, short hashes and ordinary words stay.
func dropTokenWords(s string) string {
	var b []byte
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && isASCIIAlnum(s[j]) {
			j++
		}
		if j == i {
			i++
			continue
		}
		if tokenWord(s[i:j]) {
			if b == nil {
				b = []byte(s)
			}
			for k := i; k < j; k++ {
				b[k] = ' '
			}
		}
		i = j
	}
	if b == nil {
		return s
	}
	return string(b)
}

func isASCIIAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func tokenWord(w string) bool {
	if len(w) < 12 {
		return false
	}
	var letter, digit bool
	var counts [128]int
	for i := 0; i < len(w); i++ {
		c := w[i]
		digit = digit || '0' <= c && c <= '9'
		letter = letter || !('0' <= c && c <= '9')
		counts[c|0x20*boolByte('A' <= c && c <= 'Z')]++
	}
	if !letter || !digit {
		return false
	}
	h, n := 0.0, float64(len(w))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h >= 3.0
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
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
