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
