package snapshot

import "testing"

// sameTextAs agrees with comparing sameText's results.
func TestSameTextAs(t *testing.T) {
	texts := []string{"", " ", "a", "a b", " a  b ", "a\tb\n", "ab", "a bc", "a b c", "部署\u3000脚本", "部署 脚本", "x\u00a0y", "x y", "b a", "ba", "\x7fa", "\u0085a b", "\u00a0a b", "Ab"}
	for _, s := range texts {
		for _, c := range texts {
			canon := sameText(c)
			if got, want := sameTextAs(s, canon), sameText(s) == canon; got != want {
				t.Errorf("sameTextAs(%q, %q) = %v, want %v", s, canon, got, want)
			}
		}
	}
}

func FuzzSameTextAs(f *testing.F) {
	f.Add(" a  b ", "a b")
	f.Add("部署\u3000脚本", "部署 脚本")
	f.Fuzz(func(t *testing.T, s, c string) {
		canon := sameText(c)
		if got, want := sameTextAs(s, canon), sameText(s) == canon; got != want {
			t.Errorf("sameTextAs(%q, %q) = %v, want %v", s, canon, got, want)
		}
	})
}
