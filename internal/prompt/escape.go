package prompt

import (
	"regexp"
	"slices"
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

// Neutralize makes a memory's text safe to put inside its frame.
func Neutralize(text string) string {
	return NeutralizeHeadings(neutralizeTags(text))
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

// NeutralizeHeadings puts a backslash where a Markdown heading that
// imitates one of ocmem's starts, so it reads as text: before the # of an
// ATX heading (also inside a quote or a list item: "> # …", "- # …"),
// after the < of an HTML heading (<h1>…</h1>), and before the underline
// of a setext heading (a title line over === or ---). Other headings are
// left.
func NeutralizeHeadings(text string) string {
	if !strings.ContainsAny(text, "#＃﹟<＜=＝-－") {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	var at []int // offsets in text, in order, each gets a backslash
	off := 0
	for i, line := range lines {
		if a, ok := imitatesHeading(line); ok {
			at = append(at, off+a)
		}
		for _, a := range htmlHeadings(line, lines[i+1:]) {
			at = append(at, off+a)
		}
		if a, ok := setextUnderline(line); ok && setextTitleImitates(lines[:i]) {
			at = append(at, off+a)
		}
		off += len(line)
	}
	if len(at) == 0 {
		return text
	}
	slices.Sort(at)
	var b strings.Builder
	b.Grow(len(text) + len(at))
	last := 0
	for _, a := range at {
		b.WriteString(text[last:a])
		b.WriteByte('\\')
		last = a
	}
	b.WriteString(text[last:])
	return b.String()
}

// stripContainers removes what may open a Markdown line before a heading:
// indentation, quote marks and list markers ("> ", "- ", "* ", "+ ",
// "1. ", "1) "), nested in any order.
func stripContainers(s string) string {
	for {
		s = strings.TrimLeft(s, " \t")
		switch {
		case strings.HasPrefix(s, ">"):
			s = s[1:]
			continue
		case len(s) >= 2 && strings.ContainsRune("-*+", rune(s[0])) && (s[1] == ' ' || s[1] == '\t'):
			s = s[2:]
			continue
		}
		d := 0
		for d < len(s) && d < 9 && '0' <= s[d] && s[d] <= '9' {
			d++
		}
		if d > 0 && d+1 < len(s) && (s[d] == '.' || s[d] == ')') && (s[d+1] == ' ' || s[d+1] == '\t') {
			s = s[d+2:]
			continue
		}
		return s
	}
}

// ImitatesHeading reports whether a line reads as one of ocmem's headings,
// which NeutralizeHeadings escapes.
func ImitatesHeading(line string) bool {
	_, ok := imitatesHeading(line)
	return ok
}

// imitatesHeading reports whether line is an ATX heading that imitates
// ocmem's, and the byte offset of its first #.
func imitatesHeading(line string) (int, bool) {
	if !strings.ContainsAny(line, "#") && !strings.ContainsRune(line, '＃') && !strings.ContainsRune(line, '﹟') {
		return 0, false
	}
	f := foldText(line)
	s := stripContainers(f.s)
	if !strings.HasPrefix(s, "#") {
		return 0, false
	}
	at := f.origin[len(f.s)-len(s)]
	return at, titleImitates(strings.TrimLeft(s, "#"))
}

// titleImitates reports whether a heading's title (folded) starts like
// one of ocmem's or names ocmem.
func titleImitates(title string) bool {
	title = strings.Join(strings.Fields(title), " ")
	for _, h := range ocmemHeadings {
		if strings.HasPrefix(title, h) || h == "ocmem" && strings.Contains(title, h) {
			return true
		}
	}
	return false
}

// htmlHeadingTag is an opening <h1>…<h6> tag in folded text.
var htmlHeadingTag = regexp.MustCompile(`<[\s\p{Z}]*h[1-6](?:[\s\p{Z}/][^>]*)?>`)

// htmlTag is any tag in folded text, left out of a title.
var htmlTag = regexp.MustCompile(`<[^>]*>`)

// htmlHeadings returns the offsets in line just after the < of each HTML
// heading tag whose title imitates ocmem's; a tag that ends its line takes
// its title from the next line that is not blank.
func htmlHeadings(line string, next []string) []int {
	if !strings.ContainsAny(line, "<＜‹〈⟨〈˂ᐸ❮⧼") {
		return nil
	}
	f := foldText(line)
	var out []int
	// Every '<' that opens a heading tag, overlapping ones too: in
	// "<h1 <h1>ocmem" the first tag's text holds the second, which a
	// search for non-overlapping matches would leave unescaped.
	for start := 0; ; {
		loc := htmlHeadingTag.FindStringIndex(f.s[start:])
		if loc == nil {
			break
		}
		m := [2]int{start + loc[0], start + loc[1]}
		start = m[0] + 1
		title := strings.TrimSpace(htmlTag.ReplaceAllString(f.s[m[1]:], " "))
		for k := 0; title == "" && k < len(next); k++ {
			title = strings.TrimSpace(htmlTag.ReplaceAllString(foldText(next[k]).s, " "))
		}
		if titleImitates(title) {
			a := f.origin[m[0]]
			_, w := utf8.DecodeRuneInString(line[a:])
			out = append(out, a+w)
		}
	}
	return out
}

// setextUnderline reports whether line is a setext heading's underline
// (=== or ---, maybe quoted), and the offset of its first = or -.
func setextUnderline(line string) (int, bool) {
	if !strings.ContainsAny(line, "=＝-－") {
		return 0, false
	}
	f := foldText(line)
	s := strings.TrimLeft(f.s, " \t")
	for strings.HasPrefix(s, ">") {
		s = strings.TrimLeft(s[1:], " \t")
	}
	u := strings.TrimRight(s, " \t\r\n")
	if u == "" || strings.Trim(u, "=") != "" && strings.Trim(u, "-") != "" {
		return 0, false
	}
	return f.origin[len(f.s)-len(s)], true
}

// setextTitleImitates reports whether the paragraph that ends the lines
// before a setext underline, its title, imitates ocmem's headings.
func setextTitleImitates(before []string) bool {
	var title []string
	for k := len(before) - 1; k >= 0; k-- {
		t := strings.TrimSpace(stripContainers(foldText(before[k]).s))
		if t == "" {
			break
		}
		title = append([]string{t}, title...)
	}
	return len(title) > 0 && titleImitates(strings.Join(title, " "))
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
