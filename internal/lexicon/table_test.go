package lexicon

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

// roundTripKeys cover every kind of key the code handles: ASCII, two-byte CJK (both lead ranges),
// CJK beyond the coded range, other UTF-8, long shared prefixes and long suffixes (the long head).
var roundTripKeys = []string{
	"a", "again", "ability's", "café", "don't", "the", "zebra",
	"一", "丁", "继续", "继续吧", "缓存", "购物车", "鿿", "龙", "龙纹", "黄", "黄色",
	"ｏｋ", "😀", "AT&T", "c#",
	strings.Repeat("x", 40), strings.Repeat("x", 40) + "y", strings.Repeat("x", 41) + strings.Repeat("z", 30),
	strings.Repeat("继", 80),
}

func TestTableRoundTrip(t *testing.T) {
	keys := append([]string(nil), roundTripKeys...)
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var b strings.Builder
		for range 1 + r.IntN(6) {
			switch r.IntN(3) {
			case 0:
				b.WriteByte(byte('a' + r.IntN(26)))
			case 1:
				b.WriteRune(rune(0x4E00 + r.IntN(0x5200)))
			default:
				b.WriteRune(rune(0xA0 + r.IntN(0x2000)))
			}
		}
		keys = append(keys, b.String())
	}
	seen := map[string]bool{}
	var uniq []string
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			uniq = append(uniq, k)
		}
	}
	sortByCode(uniq)

	for _, width := range []int{0, 3} {
		for _, bs := range []int{1, 4, 16, 64} {
			t.Run(fmt.Sprintf("width%d/block%d", width, bs), func(t *testing.T) {
				entries := make([]entry, len(uniq))
				want := map[string]string{}
				for i, k := range uniq {
					v := fmt.Sprintf("%03d", i%1000)
					if width == 0 {
						v = strings.Repeat("v", i%7) // includes empty values
					}
					entries[i] = entry{k, v}
					want[k] = v
				}
				data, err := encodeTable(entries, bs, width)
				if err != nil {
					t.Fatal(err)
				}
				tb, err := openTable(string(data))
				if err != nil {
					t.Fatal(err)
				}
				if tb.count != len(entries) {
					t.Fatalf("count = %d, want %d", tb.count, len(entries))
				}
				for i, e := range entries {
					v, pos, ok := tb.lookup(e.key)
					if !ok || v != e.value || pos != i {
						t.Fatalf("lookup(%q) = %q, %d, %v; want %q, %d", e.key, v, pos, ok, e.value, i)
					}
					k, v, ok := tb.at(i, nil)
					if !ok || string(k) != e.key || v != e.value {
						t.Fatalf("at(%d) = %q, %q, %v; want %q, %q", i, k, v, ok, e.key, e.value)
					}
				}
				n := 0
				tb.all(func(k, v string) bool {
					if want[k] != v || k != entries[n].key {
						t.Fatalf("all: entry %d = %q, %q; want %q, %q", n, k, v, entries[n].key, entries[n].value)
					}
					n++
					return true
				})
				if n != len(entries) {
					t.Errorf("all visited %d entries, want %d", n, len(entries))
				}
				// Absent keys: before the first, after the last, between neighbours, prefixes.
				for _, k := range []string{"", "\x00", "\x7f", "zzzzzzzz", "继", "购物", "缓存器", "ab", "😀😀", "\xff", strings.Repeat("x", 600)} {
					if _, ok := want[k]; ok {
						continue
					}
					if v, _, ok := tb.lookup(k); ok {
						t.Errorf("lookup(%q) = %q, want absent", k, v)
					}
				}
				for _, pos := range []int{-1, len(entries), len(entries) + 100} {
					if _, _, ok := tb.at(pos, nil); ok {
						t.Errorf("at(%d) found an entry", pos)
					}
				}
			})
		}
	}
}

func TestEncodeTableErrors(t *testing.T) {
	for name, entries := range map[string][]entry{
		"unsorted":  {{"b", ""}, {"a", ""}},
		"duplicate": {{"a", ""}, {"a", ""}},
		"empty key": {{"", ""}},
		"long key":  {{strings.Repeat("k", maxKeyLen+1), ""}},
		"not utf-8": {{"\xff", ""}},
		"width":     {{"a", "toolong"}},
	} {
		if _, err := encodeTable(entries, 16, 1); err == nil {
			t.Errorf("%s: encodeTable accepted %q", name, entries)
		}
	}
}

func TestOpenTableRejects(t *testing.T) {
	good, err := encodeTable([]entry{{"a", "1"}, {"b", "2"}}, 16, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range []string{"", "LXT", "LXT1\x02\x10\x01\x01", string(good[:6]), "LXT2\x02\x00\x01\x01", "LXT2\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02"} {
		if _, err := openTable(data); err == nil {
			t.Errorf("openTable(%q) accepted", data)
		}
	}
	if _, err := openTable(string(good)); err != nil {
		t.Errorf("openTable(good): %v", err)
	}
}

func TestKeyCode(t *testing.T) {
	for _, s := range append(roundTripKeys, "", "\u4e00\u9cff\u9d00\u9fff\u3400", "a\u00e9\u4e2d") {
		code, ok := encodeKey(nil, s)
		if !ok {
			t.Fatalf("encodeKey(%q) failed", s)
		}
		back, ok := decodeKey(nil, code)
		if !ok || string(back) != s {
			t.Errorf("decodeKey(encodeKey(%q)) = %q, %v", s, back, ok)
		}
		coded := 0
		for _, r := range s {
			if r >= cjkFirst && r < cjkFirst+cjkCoded {
				coded++
			}
		}
		if len(code) != len(s)-coded {
			t.Errorf("code of %q has %d bytes, want %d (one less per coded CJK character)", s, len(code), len(s)-coded)
		}
	}
	if code, _ := encodeKey(nil, "继续"); len(code) != 4 {
		t.Errorf("继续 takes %d code bytes, want 4", len(code))
	}
	if _, ok := encodeKey(nil, "a\xffb"); ok {
		t.Error("encodeKey accepted invalid UTF-8")
	}
	// A CJK character in the coded range written as UTF-8 is not a canonical code.
	if _, ok := decodeKey(nil, []byte("继")); ok {
		t.Error("decodeKey accepted a non-canonical code")
	}
	if _, ok := decodeKey(nil, []byte{0x80}); ok {
		t.Error("decodeKey accepted a truncated pair")
	}
}

func FuzzKeyCode(f *testing.F) {
	for _, k := range roundTripKeys {
		f.Add([]byte(k))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s := string(b)
		code, ok := encodeKey(nil, s)
		if ok != utf8.ValidString(s) {
			t.Fatalf("encodeKey(%q) ok = %v", s, ok)
		}
		if ok {
			if back, ok := decodeKey(nil, code); !ok || string(back) != s {
				t.Fatalf("round trip of %q gave %q, %v", s, back, ok)
			}
		}
		// Decoding arbitrary bytes never panics, and what decodes encodes back to the same code.
		if text, ok := decodeKey(nil, b); ok {
			if again, _ := encodeKey(nil, string(text)); string(again) != s {
				t.Fatalf("decodeKey(%q) = %q, which encodes to %q", b, text, again)
			}
		}
	})
}

// FuzzTable feeds damaged tables to the reader: it must not panic and must not find a key that
// is not in the table it was given.
func FuzzTable(f *testing.F) {
	good, err := encodeTable([]entry{{"again", "\x0a"}, {"the", "\x0a"}, {"继续", "\x01"}}, 2, 1)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good, "again")
	f.Add(good, "继续")
	f.Add([]byte("LXT2\x03\x02\x00\x02\x00\x00\x00\x00\x09\x00\x00\x00\xff\x05\x01again\x01"), "again")
	f.Fuzz(func(t *testing.T, data []byte, key string) {
		tb, err := openTable(string(data))
		if err != nil {
			return
		}
		tb.lookup(key)
		for i := -1; i <= min(tb.count, 64); i++ {
			tb.at(i, nil)
		}
		n := 0
		tb.all(func(k, v string) bool { n++; return n < 1000 })
	})
}

// lookupSlow is the plain lookup scan builds on: bisect, then build every key of the block and
// compare it whole. Tests check scan against it.
func (t *table) lookupSlow(key string) (value string, pos int, ok bool) {
	k, valid := encodeKey(nil, key)
	if t.count == 0 || !valid || len(k) == 0 || len(k) > maxKeyLen {
		return "", 0, false
	}
	b := sort.Search(t.blocks(), func(i int) bool { return t.firstKey(i) > string(k) }) - 1
	if b < 0 {
		return "", 0, false
	}
	var c cursor
	t.seek(&c, b)
	for i := 0; c.next(); i++ {
		if string(c.key()) == string(k) {
			return c.value, b*t.blockSize + i, true
		}
	}
	return "", 0, false
}

func TestScanAgreesWithSlowLookup(t *testing.T) {
	tb := load()
	r := rand.New(rand.NewPCG(5, 6))
	var keys []string
	tb.english.all(func(k, _ string) bool {
		if r.IntN(8) == 0 {
			keys = append(keys, k)
		}
		return true
	})
	tb.chinese.all(func(k, _ string) bool {
		if r.IntN(50) == 0 {
			keys = append(keys, k)
		}
		return true
	})
	// Present keys, their prefixes and extensions, and neighbours that differ in one byte.
	var probes []string
	for _, k := range keys {
		probes = append(probes, k, k+"s", k+"继", k[:len(k)-1])
		if r.IntN(10) == 0 {
			b := []byte(k)
			b[r.IntN(len(b))] ^= 1
			probes = append(probes, string(b))
		}
	}
	for _, tab := range []*table{&tb.english, &tb.chinese, &tb.bilingual} {
		for _, p := range probes {
			v1, p1, ok1 := tab.lookup(p)
			v2, p2, ok2 := tab.lookupSlow(p)
			if v1 != v2 || p1 != p2 || ok1 != ok2 {
				t.Fatalf("lookup(%q) = %q, %d, %v; the plain lookup gives %q, %d, %v", p, v1, p1, ok1, v2, p2, ok2)
			}
		}
	}
}

func BenchmarkLookupScan(b *testing.B) {
	tb := load()
	words := []string{"again", "kubernetes", "the", "deploy", "messagesizetoolarge", "zygote", "abacus"}
	for i := 0; b.Loop(); i++ {
		tb.english.lookup(words[i%len(words)])
	}
}

func BenchmarkLookupSlow(b *testing.B) {
	tb := load()
	words := []string{"again", "kubernetes", "the", "deploy", "messagesizetoolarge", "zygote", "abacus"}
	for i := 0; b.Loop(); i++ {
		tb.english.lookupSlow(words[i%len(words)])
	}
}

// FuzzLookup builds a table from the lines of its input and checks that every key is found at its
// position and that a probe gets the same answer from lookup and from the plain lookup.
func FuzzLookup(f *testing.F) {
	f.Add("again\nthe\n继续\n继续吧\nab\nabc\nabd", "abc", 2)
	f.Add("a\naa\naaa\naab\nab", "aa", 1)
	f.Fuzz(func(t *testing.T, lines, probe string, bs int) {
		bs = 1 + int(uint(bs)%20)
		seen := map[string]bool{}
		var keys []string
		for l := range strings.SplitSeq(lines, "\n") {
			if l != "" && len(l) <= maxKeyLen && utf8.ValidString(l) && !seen[l] {
				seen[l] = true
				keys = append(keys, l)
			}
		}
		sortByCode(keys)
		entries := make([]entry, len(keys))
		for i, k := range keys {
			entries[i] = entry{k, k}
		}
		data, err := encodeTable(entries, bs, 0)
		if err != nil {
			t.Fatal(err)
		}
		tb, err := openTable(string(data))
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range keys {
			if v, pos, ok := tb.lookup(k); !ok || v != k || pos != i {
				t.Fatalf("lookup(%q) = %q, %d, %v; want position %d", k, v, pos, ok, i)
			}
		}
		v1, p1, ok1 := tb.lookup(probe)
		v2, p2, ok2 := tb.lookupSlow(probe)
		if v1 != v2 || p1 != p2 || ok1 != ok2 || ok1 != seen[probe] {
			t.Fatalf("lookup(%q) = %q, %d, %v; plain lookup %q, %d, %v; present %v", probe, v1, p1, ok1, v2, p2, ok2, seen[probe])
		}
	})
}

// FuzzSenses feeds arbitrary values of the Chinese table to the decoder of its cross-references
// into the bilingual table (the jieba count, then gloss positions with a sense mark): it must
// not panic, every sense it returns holds a gloss, and Glosses is Senses flattened.
func FuzzSenses(f *testing.F) {
	bilingual, err := encodeTable([]entry{{"connect", "\x00"}, {"join", "\x00"}, {"link", "\x00"}}, 2, 0)
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte{0x80, 0x14, 5, 2, 0})          // count 2,560; link (starts a sense), join, connect
	f.Add([]byte{3, 1, 3, 5})                   // three senses of one gloss
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 1}) // a position far past the end
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, value []byte) {
		chinese, err := encodeTable([]entry{{"连接", string(value)}}, 2, 0)
		if err != nil {
			return
		}
		tb, err := openTables("", string(chinese), string(bilingual))
		if err != nil && tb == nil {
			return
		}
		var flat []string
		for _, s := range tb.senses("连接") {
			if len(s) == 0 {
				t.Fatalf("empty sense in %q", tb.senses("连接"))
			}
			flat = append(flat, s...)
		}
		if g := tb.glosses("连接"); !slices.Equal(g, flat) {
			t.Fatalf("glosses %q, senses flattened %q", g, flat)
		}
	})
}
