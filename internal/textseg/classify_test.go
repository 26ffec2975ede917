package textseg

import (
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm" // test only: the reference for composeVoiced
	"golang.org/x/text/width"
)

// composeVoiced must agree with Unicode canonical composition for every kana
// and both voicing marks.
func TestComposeVoicedMatchesNFC(t *testing.T) {
	n := 0
	for base := rune(0x3041); base <= 0x30FF; base++ {
		for _, mark := range []rune{0x3099, 0x309A} {
			want := rune(0)
			if c := []rune(norm.NFC.String(string([]rune{base, mark}))); len(c) == 1 {
				want = c[0]
				n++
			}
			if got := composeVoiced(base, mark); got != want {
				t.Errorf("composeVoiced(%c %U, %U) = %U, want %U", base, base, mark, got, want)
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d compositions checked; the reference is broken", n)
	}
}

// fold looks up width folding only for U+3000 and U+FF00–U+FFEF; no other
// rune may have a fold.
func TestFoldRangeIsComplete(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := width.LookupRune(r).Folded()
		if want == r {
			want = 0
		}
		if got := fold(r); got != want {
			t.Fatalf("fold(%U) = %U, want %U", r, got, want)
		}
	}
}
