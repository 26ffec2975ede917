// Package lexicon answers questions about general language from tables embedded in the binary:
// how common an English word is (SCOWL), how frequent a Chinese word is (jieba's dictionary), and
// which English glosses a Chinese word has and back (CC-CEDICT).
//
//	lexicon.EnglishSize("again") // 10: among the most common English words
//	lexicon.Headwords("shopping cart") // [购物车]
//
// The tables are built by `go generate` (gen/) from pinned sources, which
// scripts/lexicon-sources.sh fetches, and committed; the build downloads nothing. Lookups read
// the embedded bytes in place (sorted, front-coded string tables searched by bisection; table.go):
// the first call only reads three table headers, nothing is decoded into the heap, and
// EnglishSize of a lower-case word and ChineseFreq do not allocate. All functions are safe for
// concurrent use.
//
// Attribution and licences: NOTICE at the repository root. The bilingual data is derived from
// CC-CEDICT and is under CC BY-SA 4.0.
package lexicon

import (
	_ "embed"
	"errors"
	"strings"
	"sync"
)

//go:generate go run ./gen -jieba=${LEXICON_JIEBA} -scowl=${LEXICON_SCOWL} -cedict=${LEXICON_CEDICT} -out=data

var (
	//go:embed data/english.lxt
	englishData string
	//go:embed data/chinese.lxt
	chineseData string
	//go:embed data/bilingual.lxt
	bilingualData string
)

type tables struct {
	english, chinese, bilingual table
}

// load opens the embedded tables once; a damaged table (which the tests rule out for the
// committed data) reads as empty.
var load = sync.OnceValue(func() *tables {
	t, _ := openTables(englishData, chineseData, bilingualData)
	return t
})

// openTables opens the three tables; on error the damaged ones are empty.
func openTables(english, chinese, bilingual string) (*tables, error) {
	var t tables
	var errs [3]error
	t.english, errs[0] = openTable(english)
	t.chinese, errs[1] = openTable(chinese)
	t.bilingual, errs[2] = openTable(bilingual)
	return &t, errors.Join(errs[:]...)
}

// EnglishSize returns the smallest SCOWL size (10, 20, 35, 40, 50, 55 or 60) whose list holds the
// lower-cased English word as written (not stemmed: "tests" and "test" are looked up apart), or 0
// when no embedded list holds it. Smaller means more common: size 10 holds about the 4,000 most
// common word forms ("the", "again", "run"), 35 is a small everyday vocabulary, 60 is what a
// normal spell checker accepts. Words only in the larger lists (70–95, rare words) return 0, as do
// names, acronyms and product names ("kubernetes"). The lists used are SCOWL's English, American,
// British, Canadian and Australian spellings and contractions, not its proper-name,
// abbreviation or capitalised lists.
func EnglishSize(word string) int { return load().englishSize(word) }

func (t *tables) englishSize(word string) int {
	v, _, ok := t.english.lookup(normEnglish(word))
	if !ok || len(v) != 1 {
		return 0
	}
	return int(v[0])
}

// ChineseFreq returns the word's frequency count in jieba's dictionary (jieba.dict.utf8; from 2
// for rare words to 318,825 for 的; 继续 has 14,690), or 0 when absent. The word is matched
// exactly, as jieba segments it.
func ChineseFreq(word string) int { return load().chineseFreq(word) }

func (t *tables) chineseFreq(word string) int {
	v, _, ok := t.chinese.lookup(word)
	if !ok {
		return 0
	}
	f, n := uvarint(v)
	if n <= 0 {
		return 0
	}
	return int(f)
}

// Glosses returns CC-CEDICT's short English glosses for a simplified Chinese headword, lower-cased,
// most useful first (nil when none): CC-CEDICT's order, common-word senses before names. A gloss
// is kept without its parenthesised notes and without the infinitive "to " ("to continue" →
// "continue"); classifier notes, "surname …", "variant of …", references to other headwords,
// pinyin-only glosses and glosses of more than four words are left out, as are headwords that
// jieba's dictionary does not hold unless they are one or two characters long. All of a
// headword's glosses are returned (up to 29, for 行); callers take the prefix they need.
func Glosses(zh string) []string { return load().glosses(zh) }

func (t *tables) glosses(zh string) []string {
	var out []string
	for _, s := range t.senses(zh) {
		out = append(out, s...)
	}
	return out
}

// Senses returns Glosses(zh) grouped by sense, in the same order: CC-CEDICT separates a
// headword's senses with "/" and near-synonyms within one with ";", so 连接 ("to link; to join;
// to connect") has one sense of three glosses, 配置 ("to deploy/to allocate/configuration/
// allocation") four senses of one. A sense whose glosses all appeared in an earlier one is
// left out.
func Senses(zh string) [][]string { return load().senses(zh) }

func (t *tables) senses(zh string) [][]string {
	v, _, ok := t.chinese.lookup(zh)
	if !ok {
		return nil
	}
	_, n := uvarint(v) // the jieba count
	if n <= 0 {
		return nil
	}
	v = v[n:]
	var out [][]string
	var buf [maxKeyLen]byte
	for len(v) > 0 {
		x, n := uvarint(v)
		if n <= 0 {
			break
		}
		v = v[n:]
		k, _, ok := t.bilingual.at(int(x>>1), buf[:0])
		if !ok {
			continue
		}
		if x&1 != 0 || len(out) == 0 {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], string(k))
	}
	return out
}

// Headwords returns the simplified Chinese headwords that have the English word or phrase as a
// whole gloss (see Glosses; "shopping cart" → 购物车, "cache" → 缓存 first), the most frequent by
// jieba's count first, then the shorter, then in byte order; nil when none. The query is matched
// in the form glosses are kept: lower case, single spaces, a leading "to " ignored. All are
// returned: a general gloss has dozens ("order" has 35, single characters such as 叫 and 点 first,
// 订单 21st), so callers pick what fits, e.g. headwords of two or more characters.
func Headwords(en string) []string { return load().headwords(en) }

func (t *tables) headwords(en string) []string {
	v, _, ok := t.bilingual.lookup(normGloss(strings.TrimSpace(en)))
	if !ok {
		return nil
	}
	return t.chinese.keysAt(v)
}

// keysAt returns the keys of the table at the positions a value lists, as
// uvarints: a cross-reference from one table into another.
func (t *table) keysAt(v string) []string {
	var out []string
	var buf [maxKeyLen]byte
	for len(v) > 0 {
		pos, n := uvarint(v)
		if n <= 0 {
			break
		}
		v = v[n:]
		if k, _, ok := t.at(int(pos), buf[:0]); ok {
			out = append(out, string(k))
		}
	}
	return out
}
