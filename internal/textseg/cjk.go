package textseg

import "strings"

// IsCJK reports whether r is a character the tokenizer cuts into bigrams:
// Han (with its extensions and compatibility ideographs, 々 and 〇),
// Hiragana, Katakana with the long-vowel mark ー, or a Hangul syllable, after
// width folding (half-width ｶ is Katakana).
func IsCJK(r rune) bool {
	if f := fold(r); f != 0 {
		r = f
	}
	return classify(r) == clsCJK
}

// functionChars are Chinese characters that are mostly grammar: particles,
// pronouns, measure words, copulas. A bigram holding one is nearly always a
// straddle of two words ("的时", "个字", "我要") or a filler ("这个", "那个"),
// the CJK counterpart of an English stop word. Characters that also start
// common content words (用 in 用户, 有 in 有效, 不 in 不兼容) are not listed.
const functionChars = "的了着过吗呢吧啊呀哦嘛么是在和与及或把被给让就都也还又很太这那哪我你他她它们个些"

// IsFunctionChar reports whether r is a Chinese character that is mostly
// grammar (see functionChars).
func IsFunctionChar(r rune) bool { return strings.ContainsRune(functionChars, r) }

// cjkStopWords are two-character words that carry the shape of a question,
// not its subject ("can I", "directly", "before", "problem"): the core of the
// usual Chinese stop-word lists, cut to bigrams.
var cjkStopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`可以 不能 能不 需要 需不 直接 什么 怎么 为什么 没有 有没 是不 不是 一下 一个 之前 之后 以后 以前
		时候 现在 问题 如果 因为 所以 但是 然后 还是 或者 已经 应该 不要 不用 一直 好像 感觉 觉得 知道 帮忙 麻烦 谢谢
		请问 请教 一些 有些 有点 其实 还有 比如 另外 大家 自己 今天 刚才 为啥 咋办 怎样 如何 哪里 多少 几个`) {
		m[w] = true
	}
	return m
}()

// IsCJKStopWord reports whether a CJK bigram is one of the question-shaped
// words of cjkStopWords.
func IsCJKStopWord(t string) bool { return cjkStopWords[t] }

// IsCJKStop reports whether a CJK term (a bigram or unigram) says nothing
// about a text's subject: a question-shaped word, or a term holding a
// function character.
func IsCJKStop(t string) bool {
	if cjkStopWords[t] {
		return true
	}
	for _, r := range t {
		if IsFunctionChar(r) {
			return true
		}
	}
	return false
}
