package store

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/ocmem/ocmem/internal/lexicon"
	"github.com/ocmem/ocmem/internal/pathsafe"
	"github.com/ocmem/ocmem/internal/textseg"
)

// A slug is a few words, short enough for a model to type back when it
// forgets the memory, and ASCII whenever the summary has ASCII words: git
// prints other file names as octal escapes, and a person types them
// seldom. maxSlugWords and maxSlugRunes bound an ASCII slug; a summary
// without ASCII words keeps its own script (a readable name beats a
// transliteration), and maxNativeSlugRunes bounds it, about four CJK words.
const (
	maxSlugWords       = 5
	maxSlugRunes       = 40
	maxNativeSlugRunes = 12
)

// slugStopWords are English function words a slug leaves out when the
// summary has other words: "use-sqlite-session-cache", not
// "use-sqlite-for-the-session-cache". Negations stay: they carry the
// meaning ("never-force-push-main").
var slugStopWords = map[string]bool{
	"a": true, "an": true, "the": true, "to": true, "of": true, "for": true, "in": true, "on": true,
	"at": true, "by": true, "with": true, "and": true, "or": true, "is": true, "are": true, "be": true,
	"was": true, "were": true, "it": true, "its": true, "this": true, "that": true, "as": true,
	"from": true, "into": true, "than": true, "so": true, "s": true, "t": true,
}

// Slugify makes a file-name slug from a summary: at most maxSlugWords of
// its ASCII words (Latin letters with their accents dropped count), lower
// case, joined by "-", English function words left out; a summary without
// ASCII words gives its first words in their own script, CJK runs
// included, within maxNativeSlugRunes. The result is a pure function of
// the text, so the same summary always gives the same slug. It never
// returns "": an empty result becomes "memory".
func Slugify(s string) string {
	words := slugWords(dropTokenWords(norm.NFKC.String(s)))
	var ascii, native []string
	for _, w := range words {
		if isASCIIWord(w) {
			ascii = append(ascii, w)
		} else {
			native = append(native, w)
		}
	}
	var out string
	if len(ascii) > 0 {
		out = joinSlug(withoutStopWords(ascii), maxSlugRunes)
	} else {
		out = joinSlug(native, maxNativeSlugRunes)
	}
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

// slugWords splits s into lower-case words of letters and digits, Latin
// letters folded to ASCII where they have a plain form. A change between
// CJK and other letters ends a word ("部署脚本用pnpm" is two); an
// apostrophe inside a word is dropped ("don't" is "dont"), and a
// possessive with it ("Go's" is "go").
func slugWords(s string) []string {
	var words []string
	var w strings.Builder
	apostrophe := -1 // where in w the last apostrophe was
	flush := func() {
		word := w.String()
		if apostrophe > 0 && word[apostrophe:] == "s" {
			word = word[:apostrophe]
		}
		if word != "" {
			words = append(words, word)
		}
		w.Reset()
		apostrophe = -1
	}
	for _, r := range s {
		if r == '\'' || r == '\u2019' {
			apostrophe = w.Len()
			continue
		}
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if w.Len() > 0 && textseg.IsCJK(r) != lastWasCJK(w.String()) {
			flush()
		}
		w.WriteString(foldLatin(unicode.ToLower(r)))
	}
	flush()
	return words
}

// latinFolds are Latin letters without a decomposition to a plain one.
var latinFolds = map[rune]string{'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'ł': "l", 'đ': "d", 'þ': "th", 'ı': "i"}

// foldLatin writes a Latin letter without its accents ("é" is "e"); other
// letters stay as they are.
func foldLatin(r rune) string {
	if r < 0x80 || !unicode.Is(unicode.Latin, r) {
		return string(r)
	}
	if f, ok := latinFolds[r]; ok {
		return f
	}
	var b strings.Builder
	for _, d := range norm.NFD.String(string(r)) {
		if !unicode.Is(unicode.Mn, d) {
			b.WriteRune(d)
		}
	}
	return b.String()
}

func isASCIIWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= 0x80 {
			return false
		}
	}
	return true
}

// withoutStopWords drops slugStopWords, unless nothing else is left. The
// last word stays: there a short word is a label ("device-a").
func withoutStopWords(words []string) []string {
	var out []string
	meaningful := false
	for i, w := range words {
		if !slugStopWords[w] {
			meaningful = true
		} else if i < len(words)-1 {
			continue
		}
		out = append(out, w)
	}
	if !meaningful {
		return words
	}
	return out
}

// joinSlug joins the first words, at most maxSlugWords of them, within
// maxRunes: a word that does not fit ends the slug, and a first word
// longer than that is cut.
func joinSlug(words []string, maxRunes int) string {
	var b strings.Builder
	runes := 0
	for i, w := range words {
		if i == maxSlugWords {
			break
		}
		n := utf8.RuneCountInString(w)
		if i == 0 && n > maxRunes {
			return cutWord(w, maxRunes)
		}
		if i > 0 {
			if runes+1+n > maxRunes {
				break
			}
			b.WriteByte('-')
			runes++
		}
		b.WriteString(w)
		runes += n
	}
	return b.String()
}

// cutWord cuts a word longer than maxRunes to its first maxRunes runes,
// or, for a run of Chinese, to the last word end within them, so that a
// name reads "用户希望用中文回答问题", not "…回答问题以".
func cutWord(w string, maxRunes int) string {
	r := []rune(w)
	if !textseg.IsCJK(r[0]) {
		return string(r[:maxRunes])
	}
	end := maxRunes
	for _, e := range chineseWordEnds(r) {
		if e <= maxRunes && e > maxRunes/2 {
			end = e
		}
	}
	return string(r[:end])
}

// maxChineseWordRunes bounds the dictionary words chineseWordEnds tries;
// jieba's dictionary has few longer ones that matter in a name.
const maxChineseWordRunes = 6

// chineseWordEnds segments a run of Chinese as jieba's dictionary route
// does without its model for unknown words: the split whose words have the
// highest product of dictionary frequencies, a character the dictionary
// does not hold counting as a word of frequency 1. It returns the rune
// offsets at which the words end, in order.
func chineseWordEnds(r []rune) []int {
	const logTotal = 17.9 // ln of about 60 million, the dictionary's total count
	best := make([]float64, len(r)+1)
	from := make([]int, len(r)+1)
	for i := 1; i <= len(r); i++ {
		best[i] = math.Inf(-1)
		for j := max(0, i-maxChineseWordRunes); j < i; j++ {
			f := lexicon.ChineseFreq(string(r[j:i]))
			if f == 0 && i-j > 1 {
				continue
			}
			if s := best[j] + math.Log(float64(max(f, 1))) - logTotal; s > best[i] {
				best[i], from[i] = s, j
			}
		}
	}
	var ends []int
	for i := len(r); i > 0; i = from[i] {
		ends = append(ends, i)
	}
	slices.Reverse(ends)
	return ends
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
