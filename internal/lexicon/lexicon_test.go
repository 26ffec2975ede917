package lexicon

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
)

// These tests read the embedded tables built from the real sources.

func TestEmbeddedTablesOpen(t *testing.T) {
	tb, err := openTables(englishData, chineseData, bilingualData)
	if err != nil {
		t.Fatal(err)
	}
	// Floors well under what the pinned sources give (gen/SOURCES.txt), so a generator that loses
	// most of a source fails here.
	for _, c := range []struct {
		name string
		n    int
		min  int
	}{
		{"english", tb.english.count, 100_000},
		{"chinese", tb.chinese.count, 340_000},
		{"bilingual", tb.bilingual.count, 70_000},
	} {
		if c.n < c.min {
			t.Errorf("%s table has %d entries, want at least %d", c.name, c.n, c.min)
		}
	}
}

func TestEnglishSize(t *testing.T) {
	for _, tc := range []struct {
		word string
		want int
	}{
		{"the", 10},
		{"again", 10},
		{"The", 10}, // lower-cased
		{"AGAIN", 10},
		{"run", 10},
		{"next", 10},
		{"please", 10},
		{"tests", 10}, // listed as written, not stemmed
		{"don't", 10},
		{"don\u2019t", 10}, // typographic apostrophe
		{"okay", 35},
		{"cache", 35},
		{"deploy", 40},
		{"login", 50},
		{"java", 60},
		{"kubernetes", 0},
		{"redis", 0},
		{"grpc", 0},
		{"", 0},
		{"the ", 0}, // as written: no trimming
		{"\xff", 0},
	} {
		if got := EnglishSize(tc.word); got != tc.want {
			t.Errorf("EnglishSize(%q) = %d, want %d", tc.word, got, tc.want)
		}
	}
}

func TestChineseFreq(t *testing.T) {
	for _, tc := range []struct {
		word string
		want int
	}{
		{"继续", 14690},
		{"的", 318825},
		{"测试", 2444},
		{"缓存", 245},
		{"购物车", 3},
		{"龙", 9197}, // outside the two-byte key code: stored as UTF-8
		{"AT&T", 3},
		{"继续吧", 0},
		{"kubernetes", 0},
		{"", 0},
		{"继\xff", 0},
	} {
		if got := ChineseFreq(tc.word); got != tc.want {
			t.Errorf("ChineseFreq(%q) = %d, want %d", tc.word, got, tc.want)
		}
	}
	if ChineseFreq("继续") <= 100*ChineseFreq("购物车") {
		t.Errorf("继续 (%d) should be far more frequent than 购物车 (%d)", ChineseFreq("继续"), ChineseFreq("购物车"))
	}
}

func TestGlosses(t *testing.T) {
	for _, tc := range []struct {
		zh   string
		want []string // a prefix of the result
	}{
		{"购物车", []string{"shopping cart"}},
		{"缓存", []string{"cache", "buffer memory"}},
		{"继续", []string{"continue", "proceed with", "go on with"}},
		{"商品", []string{"commodity", "goods", "merchandise"}},
		{"张", []string{"open up", "spread"}}, // the common word before the surname, which is dropped
		{"个", []string{"individual"}},        // classifier note and "variant of" dropped
		{"库伯内特斯", nil},
		{"", nil},
	} {
		got := Glosses(tc.zh)
		if tc.want == nil {
			if got != nil {
				t.Errorf("Glosses(%q) = %q, want nil", tc.zh, got)
			}
			continue
		}
		if len(got) < len(tc.want) || !slices.Equal(got[:len(tc.want)], tc.want) {
			t.Errorf("Glosses(%q) = %q, want it to start with %q", tc.zh, got, tc.want)
		}
	}
	for _, zh := range []string{"张", "个", "的", "继续", "行"} {
		for _, g := range Glosses(zh) {
			if g == "" || len(g) > 60 || slices.Contains([]string{"surname", "cl:", "variant of"}, g) {
				t.Errorf("Glosses(%q) holds %q", zh, g)
			}
		}
	}
}

func TestSenses(t *testing.T) {
	for _, tc := range []struct {
		zh   string
		want [][]string // a prefix of the result
	}{
		{"连接", [][]string{{"link", "join", "connect"}}},                 // one sense of three near-synonyms
		{"配置", [][]string{{"deploy"}, {"allocate"}, {"configuration"}}}, // senses of one gloss each
		{"密码", [][]string{{"cipher", "secret code"}, {"password", "pin"}}},
		{"库伯内特斯", nil},
	} {
		got := Senses(tc.zh)
		if tc.want == nil {
			if got != nil {
				t.Errorf("Senses(%q) = %q, want nil", tc.zh, got)
			}
			continue
		}
		if len(got) < len(tc.want) || !slices.EqualFunc(got[:len(tc.want)], tc.want, slices.Equal) {
			t.Errorf("Senses(%q) = %q, want it to start with %q", tc.zh, got, tc.want)
		}
	}
	// Senses groups Glosses, nothing more.
	for _, zh := range []string{"连接", "配置", "行", "张", "缓存", "打包"} {
		var flat []string
		for _, s := range Senses(zh) {
			if len(s) == 0 {
				t.Errorf("Senses(%q) holds an empty sense", zh)
			}
			flat = append(flat, s...)
		}
		if !slices.Equal(flat, Glosses(zh)) {
			t.Errorf("Senses(%q) = %q, not Glosses %q grouped", zh, Senses(zh), Glosses(zh))
		}
	}
}

func TestHeadwords(t *testing.T) {
	for _, tc := range []struct {
		en   string
		want []string // a prefix of the result
	}{
		{"shopping cart", []string{"购物车"}},
		{"Shopping  Cart", []string{"购物车"}},
		{"cache", []string{"缓存"}},
		{"continue", []string{"继续"}},
		{"to continue", []string{"继续"}},
		{"database", []string{"数据库"}},
		{"log in", []string{"登陆", "登录"}},
		{"kubernetes", nil},
		{"", nil},
	} {
		got := Headwords(tc.en)
		if tc.want == nil {
			if got != nil {
				t.Errorf("Headwords(%q) = %q, want nil", tc.en, got)
			}
			continue
		}
		if len(got) < len(tc.want) || !slices.Equal(got[:len(tc.want)], tc.want) {
			t.Errorf("Headwords(%q) = %q, want it to start with %q", tc.en, got, tc.want)
		}
	}
	// Most frequent first, and every headword lists the gloss back.
	for _, en := range []string{"cache", "test", "run", "again", "merge"} {
		hs := Headwords(en)
		for i, h := range hs {
			if i > 0 && ChineseFreq(hs[i-1]) < ChineseFreq(h) {
				t.Errorf("Headwords(%q) = %q: %s before the more frequent %s", en, hs, hs[i-1], h)
			}
			if !slices.Contains(Glosses(h), en) {
				t.Errorf("Headwords(%q) holds %s, whose glosses %q do not hold it", en, h, Glosses(h))
			}
		}
	}
}

// TestLookupsDoNotAllocate checks the claim of the package documentation.
func TestLookupsDoNotAllocate(t *testing.T) {
	load()
	n := testing.AllocsPerRun(100, func() {
		EnglishSize("again")
		EnglishSize("kubernetes")
		ChineseFreq("继续")
		ChineseFreq("继续吧")
	})
	if n != 0 {
		t.Errorf("lookups allocate %v times", n)
	}
}

// TestEmbeddedGlossesAreClean checks every gloss of the embedded bilingual table against the
// rules the generator applies.
func TestEmbeddedGlossesAreClean(t *testing.T) {
	bad := 0
	load().bilingual.all(func(g, _ string) bool {
		problem := ""
		switch {
		case g != normGloss(g):
			problem = "not normalised"
		case len(strings.Fields(g)) > maxGlossWords:
			problem = "too long"
		case strings.ContainsAny(g, "()[]|"):
			problem = "brackets or a reference"
		case g == "taiwan pr" || g == "also pr" || strings.HasPrefix(g, "lit. "):
			problem = "a pronunciation or literal-meaning note"
		}
		for _, p := range droppedGlossPrefixes {
			// "see …" is kept when it was "to see …".
			if strings.HasPrefix(g, p) && p != "see " && p != "see also" {
				problem = "a note: " + p
			}
		}
		for _, r := range g {
			if unicode.Is(unicode.Han, r) {
				problem = "Chinese characters"
			}
		}
		if problem != "" {
			bad++
			if bad <= 20 {
				t.Errorf("gloss %q: %s", g, problem)
			}
		}
		return true
	})
	if bad > 0 {
		t.Errorf("%d bad glosses", bad)
	}
	if hs := Headwords("order"); !slices.Contains(hs, "订单") {
		t.Errorf("Headwords(order) = %q, want it to hold 订单", hs)
	}
}

// TestSourcesMatchTables checks that the committed tables are the ones data/SOURCES.txt
// describes, so that a table and its provenance are regenerated and committed together.
func TestSourcesMatchTables(t *testing.T) {
	prov, err := os.ReadFile("data/SOURCES.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("english.lxt %d bytes, chinese.lxt %d bytes, bilingual.lxt %d bytes",
		len(englishData), len(chineseData), len(bilingualData))
	if !strings.Contains(string(prov), want) {
		t.Errorf("data/SOURCES.txt does not describe the embedded tables (%s):\n%s", want, prov)
	}
}

func TestConcurrentLookups(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				if EnglishSize("again") != 10 || ChineseFreq("继续") != 14690 ||
					!slices.Contains(Headwords("shopping cart"), "购物车") || len(Glosses("缓存")) == 0 {
					t.Error("a concurrent lookup went wrong")
					return
				}
			}
		})
	}
	wg.Wait()
}
