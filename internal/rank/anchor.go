package rank

// This file: anchors, the words that say what a message is about.
//
// "继续吧", "ok, next one", "run the tests again please": every word of these
// messages may be in the store (run, test, 继续 are in many memories), yet they
// name nothing a memory could be about. An anchor is a word that does: an
// identifier (max_conns, pnpm-lock.yaml, MessageSizeTooLarge), a name
// capitalised inside a sentence (Redis, Go, Jenkins), an acronym (TTL, SQL),
// a number of three digits or more (an error code, a port, a status), or a
// word that is not common in everyday language (for Chinese, a word of the
// dictionary: a bigram that straddles two words names nothing). The injector gives a message
// without one nothing (gate in evidence.go); the single-headline-term path
// asks for one too.

import (
	"unicode"
	"unicode/utf8"

	"github.com/ocmem/ocmem/internal/lexicon"
	"github.com/ocmem/ocmem/internal/textseg"
)

// isAnchor reports whether token t of text is an anchor.
func isAnchor(text string, t textseg.Token) bool {
	switch t.Type {
	case textseg.Ident:
		return true
	case textseg.CJK:
		if commonChinese(t.Text) {
			return false
		}
		return lexicon.ChineseFreq(t.Text) > 0 || !allHan(t.Text) || !straddlesWord(text, t)
	}
	surface := text[t.Start:t.End]
	digits, upperAfterFirst := true, false
	for i, r := range surface {
		digits = digits && unicode.IsDigit(r)
		upperAfterFirst = upperAfterFirst || i > 0 && unicode.IsUpper(r)
	}
	switch {
	case digits:
		return utf8.RuneCountInString(surface) >= 3
	case upperAfterFirst:
		return true // TTL, iOS
	case inPath(text, t):
		return true // internal/payment, ./scripts/deploy
	}
	// A part's capital is the identifier's case (JavaScript), not a name.
	if first, _ := utf8.DecodeRuneInString(surface); t.Type == textseg.Word && unicode.IsUpper(first) && !sentenceStart(text, t.Start) {
		return true // a name: Redis, Jenkins, Go
	}
	return !commonEnglish(surface)
}

// allHan reports whether s is written in Chinese characters only. Half the
// bigrams of a Chinese sentence straddle two words (再跑一次 → 跑一), and a
// straddle names nothing: a Han bigram that jieba's dictionary
// (lexicon.ChineseFreq) lacks is an anchor only when it straddles no word
// of the sentence (straddlesWord), for the words of a trade are often
// missing from a dictionary of news text (超发, "over-issued"). Kana and
// Hangul have no such list here, and keep the everyday-language test alone.
func allHan(s string) bool {
	for _, r := range s {
		if !unicode.Is(unicode.Han, r) {
			return false
		}
	}
	return true
}

// straddlesWord reports whether the CJK bigram t of text overlaps a word
// of the dictionary: the bigram its first character makes with the one
// before it, or its last with the one after, is a word (跑一 beside 一次).
func straddlesWord(text string, t textseg.Token) bool {
	before, _ := utf8.DecodeLastRuneInString(text[:t.Start])
	first, _ := utf8.DecodeRuneInString(text[t.Start:])
	last, _ := utf8.DecodeLastRuneInString(text[t.Start:t.End])
	after, _ := utf8.DecodeRuneInString(text[t.End:])
	return unicode.Is(unicode.Han, before) && lexicon.ChineseFreq(string([]rune{before, first})) > 0 ||
		unicode.Is(unicode.Han, after) && lexicon.ChineseFreq(string([]rune{last, after})) > 0
}

// inPath reports whether t is a segment of a slash-separated path.
func inPath(text string, t textseg.Token) bool {
	return t.Start > 0 && text[t.Start-1] == '/' || t.End < len(text) && text[t.End] == '/'
}

// sentenceStart reports whether the word at byte offset i of text starts a
// sentence, where a capital says nothing: the start of the text or of a
// line, or after a sentence's end, skipping spaces, quotes, brackets and
// list marks.
func sentenceStart(text string, i int) bool {
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		switch r {
		case ' ', '\t', '"', '\'', '(', '[', '“', '‘', '「', '*', '_', '`', '-', '>', '#':
			i -= size
			continue
		case '\n', '\r', '.', '!', '?', ':', '。', '！', '？', '：':
			return true
		}
		return false
	}
	return true
}

// Common language, from the general word lists of package lexicon.
// English: SCOWL's size-10 list, its smallest, about the 4,000 most common
// word forms (again, run, test, next, server). Chinese: a count of 5,000 or
// more in jieba's dictionary, its 1,000 most frequent words of two
// characters or more (继续 14,690, 明白 10,875, 看看 6,297), about a
// beginner's vocabulary. Jieba counts words of news text, so a lower cut
// takes in the words of software work (测试 2,444, 部署 3,333, 依赖 1,660,
// 配置 1,590): at 1,300, the size of SCOWL's list, dev ALL hit fell from
// 0.928 to 0.892, at 5,000 it lost nothing (docs/RETRIEVAL.md).
const (
	commonEnglishSize  = 10
	commonChineseCount = 5000
)

// commonEnglish reports whether an English word (any case, unstemmed) is
// common in everyday language.
func commonEnglish(word string) bool {
	size := lexicon.EnglishSize(word)
	return size > 0 && size <= commonEnglishSize
}

// commonChinese reports whether a Chinese word is common in everyday
// language.
func commonChinese(word string) bool { return lexicon.ChineseFreq(word) >= commonChineseCount }
