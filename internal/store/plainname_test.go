package store

import (
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/pathsafe"
)

// plainNameSeeds are folder and name pairs: names plainName takes and
// names pathsafe.Check refuses or may refuse.
var plainNameSeeds = [][2]string{
	{"facts", "m000123.md"}, {"pitfalls", "sqlite-cjk_tokenizer.md"}, {"a/b/c", "X-1.md"},
	{"facts", "con.md"}, {"facts", "CON.md"}, {"facts", "com1.md"}, {"facts", "Lpt9.md"}, {"facts", "nul.md"},
	{"facts", "aux.x.md"}, {"facts", "abc.md"}, {"facts", "abcd.md"}, {"facts", "a.md"}, {"facts", ".md"},
	{"facts", "a..md"}, {"facts", "a .md"}, {"facts", "a:b.md"}, {"facts", "a\\b.md"}, {"facts", "a\x00b.md"},
	{"facts", "部署.md"}, {"facts", "x.MD"}, {"facts", "x.md.md"}, {"facts", strings.Repeat("x", 600) + ".md"},
	{strings.Repeat("d", 505), "abcde.md"}, {strings.Repeat("d", 506), "abcde.md"}, {"C:", "abcde.md"},
	{"a", "abcde.md"}, {"//server", "abcde.md"}, {"con", "abcde.md"}, {".git", "abcde.md"}, {"a.", "abcde.md"},
}

// TestPlainName: a name plainName takes, in a folder Check accepts, makes a
// path Check accepts; and the names of a generated corpus are all plain.
func TestPlainName(t *testing.T) {
	for _, s := range plainNameSeeds {
		checkPlainName(t, s[0], s[1])
	}
	for _, name := range []string{"m000123.md", "needle-12.md", "sqlite-cjk_tokenizer.md", "Use_pnpm.md", "ab.md", "abcde.md"} {
		if !plainName(name, len("facts/"+name)) {
			t.Errorf("plainName(%q) = false, want true", name)
		}
	}
}

func FuzzPlainName(f *testing.F) {
	for _, s := range plainNameSeeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(checkPlainName)
}

func checkPlainName(t *testing.T, dir, name string) {
	rel := dir + "/" + name
	if pathsafe.Check(dir) != nil || !plainName(name, len(rel)) {
		return
	}
	if err := pathsafe.Check(rel); err != nil {
		t.Errorf("plainName(%q) in %q = true, but Check(%q) = %v", name, dir, rel, err)
	}
}
