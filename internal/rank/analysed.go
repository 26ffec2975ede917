package rank

import (
	"strings"
	"unicode/utf8"
)

// MaxAnalysedBytes bounds how much of a user message injection analyses.
// A message is usually a question, sometimes with a log, a diff or a file
// pasted before or after it; the question is at one end, and a memory the
// paste should call up is named in its first or last lines as often as
// anywhere. So a longer message is analysed as its first and last
// MaxAnalysedBytes/2 bytes (cut at line ends where there is one near,
// never inside a character). This bounds the work and the memory of one
// injection whatever the message: before, a 4 MB message of CJK text made
// serve's resident memory peak at 257 MB (see docs/PERFORMANCE.md).
// Recall's query is bounded the same way: memory_recall takes what a model
// writes, and no search needs more.
const MaxAnalysedBytes = 32 << 10

// Analysed returns the part of a message (or a query) that is analysed.
func Analysed(message string) string {
	if len(message) <= MaxAnalysedBytes {
		return message
	}
	half := MaxAnalysedBytes / 2
	i := half
	for i > 0 && !utf8.RuneStart(message[i]) {
		i--
	}
	head := message[:i]
	if k := strings.LastIndexByte(head, '\n'); k >= half/2 {
		head = head[:k]
	}
	j := len(message) - half
	for j < len(message) && !utf8.RuneStart(message[j]) {
		j++
	}
	tail := message[j:]
	if k := strings.IndexByte(tail, '\n'); k >= 0 && k < half/2 {
		tail = tail[k+1:]
	}
	return head + "\n" + tail
}
