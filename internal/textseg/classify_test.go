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

func TestIsCJK(t *testing.T) {
	for _, tt := range []struct {
		r    rune
		want bool
	}{
		{'部', true}, {'か', true}, {'カ', true}, {'ー', true}, {'한', true}, {'ｶ', true}, {'〇', true},
		{'a', false}, {'Ａ', false}, {'1', false}, {'，', false}, {'é', false}, {' ', false},
	} {
		if got := IsCJK(tt.r); got != tt.want {
			t.Errorf("IsCJK(%q) = %v, want %v", tt.r, got, tt.want)
		}
	}
}

func TestIsCJKStop(t *testing.T) {
	for _, tt := range []struct {
		term string
		want bool
	}{
		{"什么", true}, {"的时", true}, {"这个", true}, {"不能", true},
		{"部署", false}, {"用户", false}, {"不兼", false}, {"缓", false},
	} {
		if got := IsCJKStop(tt.term); got != tt.want {
			t.Errorf("IsCJKStop(%q) = %v, want %v", tt.term, got, tt.want)
		}
	}
}
