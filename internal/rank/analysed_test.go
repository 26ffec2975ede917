package rank

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAnalysed(t *testing.T) {
	short := "how do I deploy?"
	if Analysed(short) != short {
		t.Error("a short message is not analysed whole")
	}
	for _, filler := range []string{"日志行", "log line ", "é", "x\n"} {
		msg := "QUESTION-AT-START " + strings.Repeat(filler, 3*MaxAnalysedBytes/len(filler)) + " QUESTION-AT-END"
		a := Analysed(msg)
		if len(a) > MaxAnalysedBytes+1 || !utf8.ValidString(a) ||
			!strings.HasPrefix(a, "QUESTION-AT-START") || !strings.HasSuffix(a, "QUESTION-AT-END") {
			t.Errorf("filler %q: analysed part of %d bytes, valid UTF-8 %v, starts %q, ends %q",
				filler, len(a), utf8.ValidString(a), a[:20], a[len(a)-20:])
		}
	}
}
