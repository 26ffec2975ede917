package store

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ocmem/ocmem/internal/pathsafe"
)

func TestSlugify(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Never force-push to main", "never-force-push-main"},
		// ASCII words make the slug when the summary has some: git shows
		// other names as octal escapes, and a model types the id back.
		{"部署脚本用 pnpm 而不是 npm", "pnpm-npm"},
		{"部署脚本用pnpm", "pnpm"},
		{"SQLite 的 CJK 分词", "sqlite-cjk"},
		{"CI 缓存 key 必须包含 pnpm-lock.yaml 的哈希", "ci-key-pnpm-lock-yaml"},
		{"unicode61 把整段中文当一个 token，trigram 漏掉两字词。", "unicode61-token-trigram"},
		// A few words, English function words left out, negations kept.
		{"Use SQLite for the session cache", "use-sqlite-session-cache"},
		{"Tabs, not spaces", "tabs-not-spaces"},
		{"SQLite unicode61 cannot split CJK text", "sqlite-unicode61-cannot-split-cjk"},
		{"Don't use `rm -rf /`!", "dont-use-rm-rf"},
		{"Go's module proxy is fast", "go-module-proxy-fast"},
		{"the a of", "the-a-of"},
		{"Alpha from device A", "alpha-device-a"},
		{"Ａ１ full-width", "a1-full-width"},
		{"Über café naïve façade", "uber-cafe-naive-facade"},
		{"snake_case and camelCase", "snake-case-camelcase"},
		{"  spaces   everywhere  ", "spaces-everywhere"},
		// Without ASCII words the summary's own script stays, briefly.
		{"数据库 迁移", "数据库-迁移"},
		{"カタカナー と ひらがな", "カタカナー-と-ひらがな"},
		{"한국어 메모", "한국어-메모"},
		{"Привет мир как дела", "привет-мир"},
		// A long run of Chinese is cut where a word ends, not inside one.
		{"部署前一定要先跑完全部集成测试再合并到主分支", "部署前一定要先跑完全部"},
		{"用户希望用中文回答问题以及其他说明", "用户希望用中文回答问题"},
		{"!!! ??? ...", "memory"},
		{"", "memory"},
		{"😀🎉", "memory"},
		// A word that does not fit ends the slug; it is not cut.
		{"internationalization localization accessibility", "internationalization-localization"},
	}
	for _, tt := range tests {
		if got := Slugify(tt.in); got != tt.want {
			t.Errorf("Slugify(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSlugifyLongSummaries(t *testing.T) {
	for _, in := range []string{
		strings.Repeat("word ", 40),
		strings.Repeat("长", 100),
		strings.Repeat("ab 中文 ", 30),
		strings.Repeat("x", 47) + " y",
		strings.Repeat("x", 46) + " yz",
		strings.Repeat("x", 200),
	} {
		got := Slugify(in)
		if n := utf8.RuneCountInString(got); n == 0 || n > maxSlugRunes {
			t.Errorf("Slugify(%q) = %q: %d runes, want 1..%d", in, got, n, maxSlugRunes)
		}
		if n := strings.Count(got, "-") + 1; n > maxSlugWords {
			t.Errorf("Slugify(%q) = %q: %d words, want at most %d", in, got, n, maxSlugWords)
		}
		if strings.HasPrefix(got, "-") || strings.HasSuffix(got, "-") || strings.Contains(got, "--") {
			t.Errorf("Slugify(%q) = %q: stray dash", in, got)
		}
		if again := Slugify(in); again != got {
			t.Errorf("Slugify(%q) is not deterministic: %q then %q", in, got, again)
		}
	}
}

// TestSlugifyAvoidsReservedNames: a slug becomes <category>/<slug>.md, so
// it must never be "index" (the compiled index.md would overwrite the
// memory) nor a device name Windows refuses to create.
func TestSlugifyAvoidsReservedNames(t *testing.T) {
	for _, in := range []string{"index", "Index", "INDEX!", "con", "CON", "Nul", "aux.", "prn", "COM1", "lpt9"} {
		got := Slugify(in)
		if got == "index" || pathsafe.Check("facts/"+got+".md") != nil {
			t.Errorf("Slugify(%q) = %q: not a usable memory file name", in, got)
		}
		if got == "memory" {
			t.Errorf("Slugify(%q) = %q: the summary's word is lost", in, got)
		}
	}
}

func FuzzSlugify(f *testing.F) {
	for _, s := range []string{"Never force-push", "部署脚本用pnpm", "!!!", "Ａ１", strings.Repeat("长", 60)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Slugify(s)
		if got == "" || utf8.RuneCountInString(got) > maxSlugRunes+len("-memory") || !utf8.ValidString(got) {
			t.Fatalf("Slugify(%q) = %q", s, got)
		}
		if strings.HasPrefix(got, "-") || strings.HasSuffix(got, "-") || strings.Contains(got, "--") {
			t.Fatalf("Slugify(%q) = %q: stray dash", s, got)
		}
		// Lower case keeps ids from colliding on case-insensitive file
		// systems.
		if strings.ToLower(got) != got {
			t.Fatalf("Slugify(%q) = %q: not lower case", s, got)
		}
		// Every slug must make a path the store accepts, and not the
		// compiled index.md.
		if err := pathsafe.Check("facts/" + got + ".md"); err != nil || got == "index" {
			t.Fatalf("Slugify(%q) = %q: %v", s, got, err)
		}
	})
}

// TestSlugNeverCarriesATokenShapedWord: a long random-looking word of a
// summary (a token the scanner does not know, a key a model pasted) is
// left out of the file name, which is not scanned by anyone who later
// lists or commits the folder.
func TestSlugNeverCarriesATokenShapedWord(t *testing.T) {
	tok := fakeGitHubToken(7)
	hexKey := "9f3a" + fakeHex(28)
	for _, in := range []string{
		"deploy with " + tok,
		"deploy with " + strings.ToLower(tok),
		"the signing key is " + hexKey + " for staging",
		"key " + tok[4:20] + " " + tok[20:],
	} {
		got := Slugify(in)
		for _, w := range []string{strings.ToLower(tok[4:]), hexKey} {
			for i := 0; i+12 <= len(w); i++ {
				if strings.Contains(got, w[i:i+12]) {
					t.Errorf("Slugify(%q) = %q carries %q", in, got, w[i:i+12])
					break
				}
			}
		}
	}
	// Ordinary long words, versions and short hashes stay.
	for in, want := range map[string]string{
		"internationalization of v1.26.0 builds": "internationalization-v1-26-0-builds",
		"reverted 3f9a1c0 and unicode61":         "reverted-3f9a1c0-unicode61",
	} {
		if got := Slugify(in); got != want {
			t.Errorf("Slugify(%q) = %q, want %q", in, got, want)
		}
	}
}

func fakeHex(n int) string {
	var b strings.Builder
	x := uint32(2463534242)
	for range n {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b.WriteByte("0123456789abcdef"[x%16])
	}
	return b.String()
}

// fakeGitHubToken builds a value shaped like a GitHub personal access token
// at run time, so no token-looking literal sits in the repository for
// scanners to flag.
func fakeGitHubToken(seed uint64) string {
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var b strings.Builder
	b.WriteString("gh" + "p_")
	for range 36 {
		b.WriteByte(alnum[r.IntN(len(alnum))])
	}
	return b.String()
}
