package lexicon

import "testing"

// BenchmarkFirstCall is what the first lookup of a process pays: opening the three embedded
// tables (reading their headers; nothing else is decoded) and one call of each function.
// Compare it with BenchmarkWarmCalls, the same four calls on tables already open.
func BenchmarkFirstCall(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		t, err := openTables(englishData, chineseData, bilingualData)
		if err != nil {
			b.Fatal(err)
		}
		fourCalls(b, t)
	}
}

func BenchmarkWarmCalls(b *testing.B) {
	t := load()
	b.ReportAllocs()
	for b.Loop() {
		fourCalls(b, t)
	}
}

func fourCalls(b *testing.B, t *tables) {
	if t.englishSize("again") != 10 || t.chineseFreq("继续") == 0 || len(t.glosses("缓存")) == 0 || len(t.headwords("shopping cart")) == 0 {
		b.Fatal("lookup failed")
	}
}

func BenchmarkEnglishSize(b *testing.B) {
	words := []string{"again", "kubernetes", "the", "deploy", "MessageSizeTooLarge"}
	load()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		EnglishSize(words[i%len(words)])
	}
}

func BenchmarkChineseFreq(b *testing.B) {
	words := []string{"继续", "购物车", "继续吧", "缓存", "的"}
	load()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		ChineseFreq(words[i%len(words)])
	}
}

func BenchmarkGlosses(b *testing.B) {
	load()
	b.ReportAllocs()
	for b.Loop() {
		Glosses("缓存")
	}
}

func BenchmarkHeadwords(b *testing.B) {
	load()
	b.ReportAllocs()
	for b.Loop() {
		Headwords("cache")
	}
}
