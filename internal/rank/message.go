package rank

// This file: how a message is read. A message that pastes a log or code and
// asks one line about it is about the error in it, not about every service
// name, file name and timestamp around the error. So the words a person
// wrote and the pasted lines that report an error weigh fully; the other
// pasted lines weigh weightPasted, and their common words (line, file, text,
// call: the log's or the code's own vocabulary) are no evidence at all, only
// their anchors are. Translations (translate.go) come from the written lines
// only. On turns-dev the evidence rule took negative quiet from 0.875 to 1.0
// (a Python traceback matched a memory on "line" and "text"); the weight
// changed nothing there anywhere in 0.5–1.0 (docs/RETRIEVAL.md).

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ocmem/ocmem/internal/textseg"
)

// Weights of a message's lines.
const (
	weightProse  = 1.0 // a line a person wrote
	weightError  = 1.0 // a pasted line that reports an error
	weightPasted = 0.5 // any other pasted line: context, not the question
)

// lineWeights maps byte offsets of a message to the weight of their line.
type lineWeights []lineWeight

type lineWeight struct {
	end    int // the line's end offset (exclusive)
	weight float64
	pasted bool
}

// pasted reports whether byte offset i is in a pasted line (log or code).
func (w lineWeights) pasted(i int) bool {
	for _, l := range w {
		if i < l.end {
			return l.pasted
		}
	}
	return false
}

// context reports whether byte offset i is in a pasted line that reports no
// error: the context of a question, not its subject.
func (w lineWeights) context(i int) bool {
	for _, l := range w {
		if i < l.end {
			return l.pasted && l.weight == weightPasted
		}
	}
	return false
}

// at returns the weight of the line holding byte offset i.
func (w lineWeights) at(i int) float64 {
	for _, l := range w {
		if i < l.end {
			return l.weight
		}
	}
	return weightProse
}

// readMessage weighs the lines of a message. A message of one line is all
// prose. Otherwise a line is pasted when it is inside a fenced code block
// (```), or reads as code or log output rather than a sentence (looksPasted);
// a pasted line that reports an error (reportsError) keeps full weight.
func readMessage(text string) lineWeights {
	if !strings.Contains(text, "\n") {
		return nil
	}
	var out lineWeights
	fenced := false
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += off + 1
		}
		line := text[off:end]
		w, pasted := weightProse, false
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			fenced = !fenced
			w, pasted = weightPasted, true
		case fenced || looksPasted(line):
			w, pasted = weightPasted, true
			if reportsError(trimmed) {
				w = weightError
			}
		}
		out = append(out, lineWeight{end, w, pasted})
		off = end
	}
	return out
}

// looksPasted reports whether a line reads as code or log output: indented,
// starting with a digit, a bracket or a markup sign (a timestamp, a stack
// frame, a tag), or made of signs more than letters: more than one sign
// (other than a sentence's punctuation) for four letters.
func looksPasted(line string) bool {
	if strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "\t") {
		return true
	}
	trimmed := strings.TrimSpace(line)
	if trimmed == "" {
		return false
	}
	first, _ := utf8.DecodeRuneInString(trimmed)
	if unicode.IsDigit(first) || strings.ContainsRune("[{(<#$>|/\\", first) {
		return true
	}
	letters, others := 0, 0
	for _, r := range trimmed {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsSpace(r), strings.ContainsRune(sentencePunct, r):
		default:
			others++
		}
	}
	return others*4 > letters // more than one sign for four letters
}

// sentencePunct is the punctuation of sentences, which says nothing about
// whether a line is prose.
const sentencePunct = ".,;:!?'\"，。；：！？、“”‘’"

// errorWords are the words with which programs report failure, in log
// lines, exceptions and error messages across languages and tools.
var errorWords = []string{"error", "exception", "fatal", "panic", "fail", "denied", "refused",
	"timeout", "timed out", "deadlock", "invalid", "cannot", "unable", "not found",
	"killed", "abort", "traceback", "错误", "异常", "失败", "超时"}

// reportsError reports whether a line reports an error.
func reportsError(line string) bool {
	l := strings.ToLower(line)
	for _, w := range errorWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// Whether a message asks. "打日志有没有什么格式要求?" names one word many
// memories hold (日志) and asks about it: the memories on that topic are
// what the asker wants. "日志我看过了,没问题" names the same word in a
// report: it asks nothing of the store, and a word many memories share
// does not single one out (the lone-evidence test, evidence.go).

// askingSentences returns the byte ranges of the sentences of text that ask
// something (asks), in order. A sentence ends at ? ! 。？！; and a line
// break, and at a full stop before a space or the end (time.Parse and
// pnpm-lock.yaml are words, not two sentences).
func askingSentences(text string) []span {
	var out []span
	start := 0
	end := func(stop, next int) {
		if asks(text[start:stop]) {
			out = append(out, span{start, stop})
		}
		start = next
	}
	for i, r := range text {
		switch r {
		case '?', '？':
			n := i + utf8.RuneLen(r)
			end(n, n)
		case '!', '！', '。', ';', '；', '\n':
			end(i, i+utf8.RuneLen(r))
		case '.':
			if i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n' {
				end(i, i+1)
			}
		}
	}
	if start < len(text) {
		end(len(text), len(text))
	}
	return out
}

// The words that make a sentence ask. Chinese: the interrogative words and
// the question particles, anywhere. English: the interrogative pronouns and
// adverbs anywhere, and the auxiliary verbs when they open a clause (the
// inverted order of "can we…", "ok, should I…"). In both, the verbs that
// ask to be told (tell me about, explain, 说说, 介绍): a request for
// knowledge asks as a question does. A request to act ("提交吧") does not.
var (
	questionWordsZH = []string{"吗", "呢", "什么", "怎么", "怎样", "为什么", "为啥", "如何", "哪", "谁", "多少",
		"是否", "有没有", "能不能", "可不可以", "要不要", "是不是", "会不会", "咋",
		"说说", "讲讲", "说一下", "讲一下", "介绍", "解释", "告诉", "提醒"}
	questionWordsEN = map[string]bool{"how": true, "what": true, "why": true, "where": true, "which": true,
		"who": true, "whom": true, "whose": true, "whether": true,
		"tell": true, "explain": true, "describe": true, "remind": true}
	auxiliariesEN = map[string]bool{"can": true, "could": true, "should": true, "would": true, "will": true,
		"do": true, "does": true, "did": true, "is": true, "are": true, "was": true, "were": true,
		"may": true, "shall": true, "has": true, "have": true}
)

// asks reports whether a sentence asks something: it ends in a question
// mark or holds a question word or a verb that asks to be told.
func asks(s string) bool {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？") {
		return true
	}
	for _, w := range questionWordsZH {
		if strings.Contains(s, w) {
			return true
		}
	}
	clauseStart := true
	for _, f := range strings.FieldsFunc(strings.ToLower(s), unicode.IsSpace) {
		w := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) })
		w, _, _ = strings.Cut(w, "'") // what's, how's
		if questionWordsEN[w] || clauseStart && auxiliariesEN[w] {
			return true
		}
		last, _ := utf8.DecodeLastRuneInString(f)
		clauseStart = strings.ContainsRune(",，、:：", last)
	}
	return false
}

// Follow-ups. "can you paste the full diff again?", "ok 再跑一次", "继续",
// "嗯，下一步呢？": a short message that repeats or continues what the
// conversation was doing asks the store nothing, whatever words of it some
// memory holds (diff, 跑一次). A message is a follow-up when it is short
// (at most maxFollowUpWords words outside the stop list, a Chinese word
// taken as two characters), names no identifier, name (继续用 Gin 吗) or
// number of three digits or more, and holds a word that refers back to the
// conversation (followUpWords). On the four development sets it takes in eight messages, every
// one a follow-up that must get nothing, and no message that wants a
// memory; the only one it quiets that was not quiet before is "can you
// paste the full diff again?" (docs/RETRIEVAL.md).
const maxFollowUpWords = 4

var (
	followUpWordsEN = map[string]bool{"again": true}
	followUpWordsZH = []string{"再", "继续", "接着", "下一步"}
)

// followsUp reports whether a message is a follow-up (see above).
func followsUp(text string) bool {
	words, refers := 0, false
	for _, t := range textseg.Tokenize(text) {
		switch {
		case t.Type == textseg.Ident, t.Type == textseg.Part:
			return false
		case t.Type == textseg.CJK:
			continue // counted by characters below
		}
		surface := text[t.Start:t.End]
		first, _ := utf8.DecodeRuneInString(surface)
		if isDigit(surface[0]) && len(surface) >= 3 || unicode.IsUpper(first) && !sentenceStart(text, t.Start) {
			return false
		}
		refers = refers || followUpWordsEN[strings.ToLower(surface)]
		if !t.Stop {
			words++
		}
	}
	han := 0
	for _, r := range text {
		if textseg.IsCJK(r) {
			han++
		}
	}
	for _, w := range followUpWordsZH {
		refers = refers || strings.Contains(text, w)
	}
	return refers && words+(han+1)/2 <= maxFollowUpWords
}

// Acknowledgements. "ok the docker one works now, thanks", "thanks, the
// snapshot thing is fixed", "好的，显存那个问题解决了": a short message that
// says something is done, or thanks for it, asks the store nothing, though
// it names what was done (docker, 显存) and some memory holds that word. A
// message acknowledges when it is one line, does not ask (asks), reports no
// error, no "but" or "still" and no negation (the thing may not be done:
// "thanks, but the build still fails", "it doesn't work", "还没解决"), holds a word that says done or thanks
// (ackWordsEN, ackWordsZH), ends with such a word (what follows it is at most
// stop words and particles: "thanks! now add retries to the client" goes on
// with a request and is no acknowledgement), and has at most maxAckWords
// other words outside the stop list (a Chinese word taken as two
// characters).
const maxAckWords = 6

// maxAckBytes bounds what acknowledges reads: every message passes it, and
// one longer than this holds more than maxAckWords words beside its
// acknowledgement (the longest of TestAcknowledges' is 41 bytes).
const maxAckBytes = 256

var (
	ackWordsEN = map[string]bool{"thanks": true, "thank": true, "thx": true, "ty": true, "cheers": true,
		"works": true, "worked": true, "working": true, "fixed": true, "solved": true, "resolved": true,
		"lgtm": true, "good": true, "great": true, "perfect": true, "done": true, "awesome": true, "nice": true}
	ackWordsZH = []string{"谢谢", "多谢", "感谢", "辛苦", "搞定", "解决了", "好了", "可以了", "没问题了", "成功了", "正常了", "修好了", "行了", "不错"}
	// ackButWords say the thing is not done after all, or not done.
	ackButWords = map[string]bool{"but": true, "still": true, "however": true, "though": true, "except": true, "yet": true,
		"not": true, "no": true, "never": true, "nothing": true}
	ackButWordsZH = []string{"但", "不过", "还是", "仍然", "依然", "可是", "就是",
		"不行", "还没", "没好", "没解决", "没成功", "没搞定", "没修好", "未解决", "不了", "不能"}
	// ackTailEN are the words an acknowledgement may end on after its
	// word besides stop words: "thanks a lot", "cheers mate".
	ackTailEN = map[string]bool{"lot": true, "much": true, "mate": true, "man": true, "again": true, "everyone": true}
	// ackTailZH are the characters a Chinese acknowledgement may end on
	// after its word: particles and the aspect marker.
	ackTailZH = "了啦吧哈呀啊哦嘛呢的～~"
)

// acknowledges reports whether a message is an acknowledgement (see above).
func acknowledges(text string) bool {
	text = strings.TrimSpace(text)
	if text == "" || len(text) > maxAckBytes || strings.ContainsAny(text, "\n`") || asks(text) || reportsError(text) {
		return false
	}
	for _, w := range ackButWordsZH {
		if strings.Contains(text, w) {
			return false
		}
	}
	// Indices are into lower, which may be longer than text.
	lower := strings.ToLower(text)
	sep := func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(sentencePunct+"—–-", r) }
	// The end of the last word that acknowledges, in bytes; -1: none.
	last, words := -1, 0
	for _, f := range strings.FieldsFunc(lower, sep) {
		if strings.ContainsFunc(f, textseg.IsCJK) {
			continue // Chinese is read below
		}
		if ackButWords[f] || strings.Contains(f, "n't") || strings.Contains(f, "n’t") {
			return false
		}
		if !ackWordsEN[f] {
			if !isStopWord(f) {
				words++
			}
			continue
		}
		last = max(last, lastIndexWord(lower, f))
	}
	for _, w := range ackWordsZH {
		if i := strings.LastIndex(lower, w); i >= 0 {
			last = max(last, i+len(w))
		}
	}
	if last < 0 {
		return false
	}
	han := 0
	for _, r := range text {
		if textseg.IsCJK(r) {
			han++
		}
	}
	for _, w := range ackWordsZH {
		han -= utf8.RuneCountInString(w) * strings.Count(text, w)
	}
	if words+(max(han, 0)+1)/2 > maxAckWords {
		return false
	}
	// Nothing but stop words, particles and punctuation after it.
	for _, f := range strings.FieldsFunc(lower[last:], sep) {
		f = strings.TrimFunc(f, func(r rune) bool { return strings.ContainsRune(ackTailZH, r) || unicode.IsSymbol(r) })
		if f != "" && !ackWordsEN[f] && !ackTailEN[f] && !isStopWord(f) {
			return false
		}
	}
	return true
}

// lastIndexWord returns the end of the last occurrence of word w in s as a
// whole word, or -1.
func lastIndexWord(s, w string) int {
	for end := len(s); end > 0; {
		i := strings.LastIndex(s[:end], w)
		if i < 0 {
			return -1
		}
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(w):])
		if (i == 0 || !unicode.IsLetter(before)) && (i+len(w) == len(s) || !unicode.IsLetter(after)) {
			return i + len(w)
		}
		end = i
	}
	return -1
}

// isStopWord reports whether an English word is a stop word of the
// tokenizer.
func isStopWord(w string) bool {
	toks := textseg.Tokenize(w)
	return len(toks) == 0 || len(toks) == 1 && toks[0].Stop
}
