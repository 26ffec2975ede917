package compile

import (
	"bytes"
	"strings"
	"testing"
)

// layoutByMarkers is how rootInPlace told the usual ROOT.md before
// LayoutOf: each check a pass of its own.
func layoutByMarkers(old []byte) (at [4]int, ok bool) {
	if old == nil || bytes.Contains(old, []byte("<<<<<<<")) || bytes.Contains(old, []byte("\r\n")) {
		return at, false
	}
	for i, m := range []string{beginRegistry, endRegistry, beginRouting, endRouting} {
		at[i] = bytes.Index(old, []byte(m))
		if at[i] < 0 || bytes.Count(old, []byte(m)) != 1 || i > 0 && at[i] < at[i-1] {
			return at, false
		}
	}
	return at, true
}

// LayoutOf finds what the passes for each marker found.
func TestLayoutOfAgreesWithMarkers(t *testing.T) {
	usual := "# Memory\n\nmy text <b>\n" + beginRegistry + "\n| a |\n" + endRegistry + "\n\n" + beginRouting + "\n| x | [a](a.md) |\n" + endRouting + "\nafter\n"
	for _, old := range []string{
		usual, "", "# Memory\n",
		strings.Replace(usual, "\n", "\r\n", 1),
		strings.Replace(usual, "my text", "<<<<<<< HEAD", 1),
		strings.Replace(usual, "my text", "<<<<<<", 1),
		strings.Replace(usual, "my text", "<<<<<<<<", 1),
		usual + beginRouting,
		strings.Replace(usual, endRouting, "", 1),
		beginRouting + "\n" + strings.Replace(usual, beginRouting, "", 1),
		strings.Replace(strings.Replace(usual, beginRegistry, "@@", 1), endRegistry, beginRegistry, 1),
		strings.Replace(usual, "<b>", "<!-- ocmem:begin registr", 1),
		strings.Replace(usual, "<b>", "<<!-- ocmem:end routing -->", 1),
		"<",
	} {
		checkLayout(t, []byte(old))
	}
	checkLayout(t, nil)
}

func checkLayout(t *testing.T, old []byte) {
	t.Helper()
	l := LayoutOf(old)
	at, ok := layoutByMarkers(old)
	if l.plain != ok || ok && l.at != at || l.size != len(old) {
		t.Errorf("%q: LayoutOf = %+v, want %v %v", old, l, at, ok)
	}
}

func FuzzLayoutOf(f *testing.F) {
	f.Add([]byte("x" + beginRegistry + endRegistry + beginRouting + endRouting))
	f.Add([]byte(beginRegistry + "<<<<<<<" + endRegistry + beginRouting + endRouting + "\r\n"))
	f.Fuzz(func(t *testing.T, old []byte) { checkLayout(t, old) })
}
