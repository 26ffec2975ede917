package anchor

import (
	"bytes"
	"testing"
)

// FuzzNormalText: the text rule is a normal form (applying it twice is
// applying it once), it leaves no CRLF and no white space at a line's end,
// and it never touches anything but white space.
func FuzzNormalText(f *testing.F) {
	for _, s := range []string{"", "a\r\nb \t\n\n", "x  \n", "\r\r\n", "\r\r\nx", "a\r \nb", "a b\tc"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n := normalText(bytes.Clone(b))
		if !bytes.Equal(normalText(bytes.Clone(n)), n) {
			t.Fatalf("not idempotent: %q → %q", b, n)
		}
		if bytes.Contains(n, []byte("\r\n")) || bytes.HasSuffix(n, []byte("\r")) || bytes.Contains(n, []byte(" \n")) || bytes.Contains(n, []byte("\t\n")) {
			t.Fatalf("white space left at a line end: %q → %q", b, n)
		}
		strip := func(x []byte) []byte {
			return bytes.Map(func(r rune) rune {
				if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
					return -1
				}
				return r
			}, x)
		}
		if !bytes.Equal(strip(b), strip(n)) {
			t.Fatalf("changed more than white space: %q → %q", b, n)
		}
	})
}
