package textseg

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// class is what a rune means to the scanner.
type class uint8

const (
	clsSep    class = iota // ends any token and produces none
	clsLower               // a lower-case or caseless letter outside CJK
	clsUpper               // an upper-case or title-case letter
	clsDigit               // a decimal digit of any script
	clsJoiner              // '_', '-' or '.': joins an identifier when between two letters or digits
	clsCJK                 // Han, Hiragana, Katakana, ー, or a Hangul syllable
	clsMark                // a combining mark: belongs to the character before it
	clsVoice               // U+3099 or U+309A: voices the kana before it
)

var asciiClass = func() (t [utf8.RuneSelf]class) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = clsLower
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = clsUpper
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = clsDigit
	}
	t['_'], t['-'], t['.'] = clsJoiner, clsJoiner, clsJoiner
	return t
}()

// classify returns the class of r, a rune after width folding.
func classify(r rune) class {
	if r < utf8.RuneSelf {
		return asciiClass[r]
	}
	// The common CJK blocks first: CJK Unified Ideographs, Hiragana and
	// Katakana letters, the long-vowel mark ー (script Common, so not in
	// unicode.Katakana), Hangul syllables.
	switch {
	case r >= 0x4E00 && r <= 0x9FFF,
		r >= 0x3041 && r <= 0x3096,
		r >= 0x30A1 && r <= 0x30FA,
		r == 0x30FC,
		r >= 0xAC00 && r <= 0xD7A3:
		return clsCJK
	case r == 0x3099 || r == 0x309A:
		return clsVoice
	}
	// The rest of Han (extensions A to J, compatibility ideographs, 々, 〇),
	// Hiragana and Katakana: nothing below U+2E80 belongs to them.
	if r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r)) {
		return clsCJK
	}
	switch {
	case unicode.IsUpper(r) || unicode.IsTitle(r):
		return clsUpper
	case unicode.IsLetter(r):
		return clsLower
	case unicode.IsDigit(r):
		return clsDigit
	case unicode.In(r, unicode.Mn, unicode.Mc, unicode.Me):
		return clsMark
	}
	return clsSep
}

// fold returns the width-folded form of r (Ａ → A, ， → ',', ｶ → カ, ﾞ → U+3099,
// the ideographic space → ' '), or 0 if folding leaves r as it is.
func fold(r rune) rune {
	// Only these runes have a fold: U+3000 and the Halfwidth and
	// Fullwidth Forms block (U+20A9 ₩ is half-width but folds to itself).
	if r == 0x3000 || (r >= 0xFF00 && r <= 0xFFEF) {
		return width.LookupRune(r).Folded()
	}
	return 0
}

// composeVoiced returns the kana base voiced by mark (U+3099 dakuten or U+309A
// handakuten), as Unicode canonical composition does: か+゙ → が, ハ+゚ → パ.
// It returns 0 if the pair does not compose.
func composeVoiced(base, mark rune) rune {
	// Katakana repeat the hiragana layout 0x60 higher; ヷヸヹヺ have no
	// hiragana twin.
	var off rune
	if base >= 0x30A1 && base <= 0x30FE {
		if mark == 0x3099 && base >= 0x30EF && base <= 0x30F2 {
			return base + 8 // ワ → ヷ … ヲ → ヺ
		}
		base, off = base-0x60, 0x60
	}
	switch {
	case base >= 0x306F && base <= 0x307B && (base-0x306F)%3 == 0:
		// は ひ ふ へ ほ: +1 voiced (ば), +2 semi-voiced (ぱ)
		if mark == 0x3099 {
			return base + 1 + off
		}
		return base + 2 + off
	case mark != 0x3099:
		return 0
	case base >= 0x304B && base <= 0x3061 && base%2 == 1, // か … ち
		base >= 0x3064 && base <= 0x3068 && base%2 == 0, // つ て と
		base == 0x309D: // ゝ → ゞ
		return base + 1 + off
	case base == 0x3046: // う → ゔ
		return 0x3094 + off
	}
	return 0
}

// appendLowerRune appends the lower-case form of r to b.
func appendLowerRune(b []byte, r rune) []byte {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(b, byte(r))
	}
	return utf8.AppendRune(b, unicode.ToLower(r))
}

func isAlnum(c class) bool { return c == clsLower || c == clsUpper || c == clsDigit }

// plainASCIIWord reports whether the ASCII letters and digits starting at
// s[i] make a plain Word, one that the general path would not split or join:
// all digits, or all letters in one case or capitalized, ended by the end
// of s or by an ASCII byte that separates. It returns the end of the word.
func plainASCIIWord(s string, i int) (end int, ok bool) {
	var lower, digit, upperAfterFirst bool
	j := i
	for ; j < len(s) && s[j] < utf8.RuneSelf; j++ {
		switch asciiClass[s[j]] {
		case clsLower:
			lower = true
		case clsUpper:
			upperAfterFirst = upperAfterFirst || j > i
		case clsDigit:
			digit = true
		default:
			goto done
		}
	}
done:
	if digit && (lower || upperAfterFirst || asciiClass[s[i]] == clsUpper) {
		return j, false // utf8mb4, 10ms: letter/digit change
	}
	if lower && upperAfterFirst {
		return j, false // camelCase, HTTPServer
	}
	if j < len(s) {
		c := s[j]
		if c >= utf8.RuneSelf {
			return j, false // a mark, a letter or a full-width joiner may follow
		}
		if asciiClass[c] == clsJoiner && j+1 < len(s) && (s[j+1] >= utf8.RuneSelf || isAlnum(asciiClass[s[j+1]])) {
			return j, false // an identifier continues
		}
	}
	return j, true
}

// appendLower appends the lower-cased s to b.
func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		b = utf8.AppendRune(b, unicode.ToLower(r))
		i += size
	}
	return b
}
