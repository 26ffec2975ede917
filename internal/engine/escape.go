package engine

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A memory's body is framed as <memory …>…</memory> when it is injected, under
// ocmem's own headings. A body must not be able to end its frame, open a
// frame that looks like another memory's, or start a section that looks
// like one of ocmem's (a fake "# Hard rules (ocmem)"). A model reads
// through what a regular expression does not: a fullwidth ＜, a space or a
// zero-width character inside the tag, a Cyrillic о in "memоry". So the
// text is matched on a folded view: NFKC (fullwidth forms, ideographic
// space), invisible characters removed (format characters such as
// zero-width spaces and joiners, bidirectional controls and tag
// characters, combining marks, variation selectors, fillers), lower case,
// and look-alike letters of other scripts mapped to the Latin ones they
// imitate. What the folded view finds is neutralised in the text itself:
// a backslash after the character that reads as "<", or before a heading's
// first character; nothing else in the body changes.

// neutralize makes a memory's text safe to put inside its frame.
func neutralize(text string) string {
	return neutralizeHeadings(neutralizeTags(text))
}

// tagInFold finds "<memory" and "</memory" in folded text, with any
// spacing.
var tagInFold = regexp.MustCompile(`<[\s\p{Z}]*/?[\s\p{Z}]*memory`)

// neutralizeTags puts a backslash after every character that opens what
// could read as a <memory> or </memory> tag.
func neutralizeTags(text string) string {
	f := foldText(text)
	ms := tagInFold.FindAllStringIndex(f.s, -1)
	if len(ms) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + len(ms))
	last := 0
	for _, m := range ms {
		// The '<' of the fold comes from one rune of the text; the
		// backslash goes right after it.
		at := f.origin[m[0]]
		_, w := utf8.DecodeRuneInString(text[at:])
		b.WriteString(text[last : at+w])
		b.WriteByte('\\')
		last = at + w
	}
	b.WriteString(text[last:])
	return b.String()
}

// ocmemHeadings are the titles of the sections ocmem writes into a prompt,
// folded; a heading in a body that starts with one of them, or names ocmem,
// imitates them.
var ocmemHeadings = []string{
	"hard rules", "memory outline", "proposed by this repository", "memories relevant",
	"from the user's global memory", "from this repository's", "ocmem",
}

// neutralizeHeadings puts a backslash before a Markdown heading (# …) that
// imitates one of ocmem's, so it reads as text. Other headings are left.
func neutralizeHeadings(text string) string {
	var b strings.Builder
	changed := false
	for rest := text; rest != ""; {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		rest = rest[len(line):]
		if at, ok := imitatesHeading(line); ok {
			if !changed {
				b.Grow(len(text) + 8)
				b.WriteString(text[:len(text)-len(rest)-len(line)])
				changed = true
			}
			b.WriteString(line[:at])
			b.WriteByte('\\')
			b.WriteString(line[at:])
			continue
		}
		if changed {
			b.WriteString(line)
		}
	}
	if !changed {
		return text
	}
	return b.String()
}

// imitatesHeading reports whether line is a heading that imitates ocmem's,
// and the byte offset of its first character.
func imitatesHeading(line string) (int, bool) {
	if !strings.ContainsAny(line, "#") && !strings.ContainsRune(line, '＃') && !strings.ContainsRune(line, '﹟') {
		return 0, false
	}
	f := foldText(line)
	s := strings.TrimLeft(f.s, " \t")
	if !strings.HasPrefix(s, "#") {
		return 0, false
	}
	at := f.origin[len(f.s)-len(s)]
	title := strings.TrimSpace(strings.TrimLeft(s, "#"))
	title = strings.Join(strings.Fields(title), " ")
	for _, h := range ocmemHeadings {
		if strings.HasPrefix(title, h) || h == "ocmem" && strings.Contains(title, h) {
			return at, true
		}
	}
	return 0, false
}

// folded is text in the folded view, with, for each of its bytes, the
// offset in the text of the rune it comes from.
type folded struct {
	s      string
	origin []int
}

// foldText builds the folded view of text.
func foldText(text string) folded {
	var b strings.Builder
	origin := make([]int, 0, len(text))
	emit := func(s string, at int) {
		b.WriteString(s)
		for range len(s) {
			origin = append(origin, at)
		}
	}
	for at, r := range text {
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			b.WriteByte(byte(r))
			origin = append(origin, at)
			continue
		}
		if invisible(r) {
			continue
		}
		for _, c := range norm.NFKC.String(string(r)) {
			if invisible(c) {
				continue
			}
			c = unicode.ToLower(c)
			if l, ok := lookAlike[c]; ok {
				c = l
			}
			emit(string(c), at)
		}
	}
	return folded{b.String(), origin}
}

// invisible reports characters that show nothing, or nothing of their own:
// format characters (zero-width space, joiners, word joiner, soft hyphen,
// bidirectional controls, tag characters), combining marks, variation
// selectors and the Hangul fillers.
func invisible(r rune) bool {
	switch r {
	case 0x115f, 0x1160, 0x3164, 0xffa0:
		return true
	}
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || unicode.Is(unicode.Variation_Selector, r)
}

// lookAlike maps letters and signs of other scripts that NFKC leaves alone
// to the ASCII characters of "</memory" they imitate (lower case).
var lookAlike = map[rune]rune{
	// <
	'‹': '<', '\u3008': '<', '⟨': '<', '\u2329': '<', '˂': '<', 'ᐸ': '<', '❮': '<', '⧼': '<',
	// /
	'∕': '/', '⁄': '/', '⧸': '/', '╱': '/',
	// m
	'м': 'm', 'μ': 'm', 'ṃ': 'm',
	// e
	'е': 'e', 'ё': 'e', 'ε': 'e', 'ҽ': 'e', 'ẹ': 'e',
	// o
	'о': 'o', 'ο': 'o', 'օ': 'o', 'ᴏ': 'o', 'σ': 'o', 'ọ': 'o', '০': 'o', '୦': 'o',
	// r
	'г': 'r', 'ʀ': 'r', 'ᴦ': 'r', 'ṛ': 'r',
	// y
	'у': 'y', 'ү': 'y', 'υ': 'y', 'γ': 'y', 'ỵ': 'y', 'ӯ': 'y',
}
