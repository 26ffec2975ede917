package textseg

import (
	"github.com/rogpeppe/go-internal/txtar"

	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the expected outputs (tokens, terms) of testdata/*.txt")

// Each testdata/*.txt archive holds one input and its expected outputs:
//
//	input         the text to tokenize; its final newline is not part of it
//	input.quoted  instead of input: one Go string literal, for bytes a text
//	              file cannot show (invalid UTF-8, combining marks)
//	tokens        Tokenize(input), one token per line: text type start end [stop]
//	terms         Terms(input), space-separated
//
// With -update, tokens and terms are rewritten (added if missing) from the
// current output; review the diff before committing it.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/*.txt")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			a, err := parseArchiveFile(file)
			if err != nil {
				t.Fatal(err)
			}
			input, err := archiveInput(a)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{
				"tokens": formatTokens(Tokenize(input)),
				"terms":  formatTerms(Terms(input)),
			}
			if *update {
				for _, name := range []string{"tokens", "terms"} {
					if f := a.file(name); f != nil {
						f.Data = []byte(got[name])
					} else {
						a.Files = append(a.Files, txtar.File{Name: name, Data: []byte(got[name])})
					}
				}
				if err := os.WriteFile(file, a.format(), 0o666); err != nil {
					t.Fatal(err)
				}
				return
			}
			if a.file("tokens") == nil {
				t.Fatal("no tokens section (run with -update to add it)")
			}
			for _, name := range []string{"tokens", "terms"} {
				if f := a.file(name); f != nil {
					if want := string(f.Data); got[name] != want {
						t.Errorf("%s differ for input %q:\n%s", name, input, lineDiff(want, got[name]))
					}
				}
			}
		})
	}
}

func archiveInput(a *archive) (string, error) {
	if f := a.file("input"); f != nil {
		return strings.TrimSuffix(string(f.Data), "\n"), nil
	}
	if f := a.file("input.quoted"); f != nil {
		return strconv.Unquote(strings.TrimSpace(string(f.Data)))
	}
	return "", fmt.Errorf("no input or input.quoted section")
}

func formatTokens(toks []Token) string {
	var b strings.Builder
	for _, tok := range toks {
		text := tok.Text
		// Quote what a reader could not see: spaces, controls, combining
		// marks (an NFD "café" must not look like an NFC one).
		if strings.IndexFunc(text, func(r rune) bool { return r <= ' ' || !strconv.IsGraphic(r) || unicode.Is(unicode.M, r) }) >= 0 || !utf8.ValidString(text) {
			text = strconv.QuoteToASCII(text)
		}
		fmt.Fprintf(&b, "%s %s %d %d", text, tok.Type, tok.Start, tok.End)
		if tok.Stop {
			b.WriteString(" stop")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func formatTerms(terms []string) string {
	if len(terms) == 0 {
		return ""
	}
	return strings.Join(terms, " ") + "\n"
}

// lineDiff shows want and got line by line, marking the lines that differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl == gl {
			fmt.Fprintf(&b, "    %s\n", wl)
		} else {
			fmt.Fprintf(&b, "  - %s\n  + %s\n", wl, gl)
		}
	}
	return b.String()
}

func TestTerms(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", []string{}},
		{"   ,。「」", []string{}},
		{"the to you again what", []string{}},
		{"Deploying deployed deploys", []string{"deploy", "deploy", "deploy"}},
		{"部署", []string{"部署"}},
		{"用", []string{"用"}},
		{"部署脚本用", []string{"部署", "署脚", "脚本", "本用"}},
		{"How do I deploy the HTTPServer?", []string{"deploy", "httpserver", "http", "server"}},
		{"pnpm-lock.yaml", []string{"pnpm-lock.yaml", "pnpm", "lock", "yaml"}},
		{"state-of-the-art", []string{"state-of-the-art", "state", "art"}},
		{"npm npm", []string{"npm", "npm"}},
		{"Ａ１ ｐｎｐｍ", []string{"a1", "1", "pnpm"}},
		{"用pnpm部署", []string{"用", "pnpm", "部署"}},
	}
	for _, tt := range tests {
		if got := Terms(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Terms(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A query and a memory that say the same thing in different forms share
// their terms: this is what the tokenizer is for.
func TestTermsMatchAcrossForms(t *testing.T) {
	pairs := [][2]string{
		{"部署", "部署脚本用 pnpm"},
		{"deploy", "Deploying the service"},
		{"pnpm lock", "pnpm-lock.yaml"},
		{"http server", "HTTPServer"},
		{"Ａ１", "a1"},
		{"ガイド", "ｶﾞｲﾄﾞ"},
		{"GOPROXY", "goproxy"},
		{"api", "APIs"},
	}
	for _, p := range pairs {
		doc := map[string]bool{}
		for _, term := range Terms(p[1]) {
			doc[term] = true
		}
		for _, term := range Terms(p[0]) {
			if !doc[term] {
				t.Errorf("query %q: term %q not among the terms of %q (%q)", p[0], term, p[1], Terms(p[1]))
			}
		}
	}
}

func TestAppendTokensKeepsDst(t *testing.T) {
	prefix := []Token{{Text: "keep", Start: 0, End: 4, Type: Word}}
	got := AppendTokens(prefix, "deploy 部署")
	want := append([]Token{prefix[0]}, Tokenize("deploy 部署")...)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("AppendTokens = %v, want %v", got, want)
	}
}

func TestTypeString(t *testing.T) {
	for typ, want := range map[Type]string{Word: "word", Ident: "ident", Part: "part", CJK: "cjk", 9: "Type(9)"} {
		if got := typ.String(); got != want {
			t.Errorf("Type(%d).String() = %q, want %q", typ, got, want)
		}
	}
}

func TestClassifyCJK(t *testing.T) {
	tests := []struct {
		r    rune
		want bool
	}{
		{'部', true},
		{'ー', true},          // U+30FC, script Common
		{'々', true},          // U+3005
		{'〇', true},          // U+3007
		{'\u3400', true},     // extension A
		{'\uF900', true},     // compatibility ideograph
		{'\U00020000', true}, // extension B
		{'ゝ', true},          // U+309D hiragana iteration mark
		{'ヽ', true},          // U+30FD katakana iteration mark
		{'가', true},
		{'힣', true},
		{'ㄱ', false}, // Hangul compatibility jamo, not a syllable
		{'・', false}, // U+30FB katakana middle dot: punctuation
		{'「', false},
		{'。', false},
		{'、', false},
		{'a', false},
		{'é', false},
	}
	for _, tt := range tests {
		if got := classify(tt.r) == clsCJK; got != tt.want {
			t.Errorf("classify(%U %c) is CJK = %v, want %v", tt.r, tt.r, got, tt.want)
		}
	}
}

func TestConcurrentTokenize(t *testing.T) {
	inputs := []string{benchMixed, benchEnglish, "Ａ１ ｐｎｐｍ－ｌｏｃｋ．ｙａｍｌ ｶﾞｲﾄﾞ", ""}
	want := make([][]Token, len(inputs))
	for i, in := range inputs {
		want[i] = Tokenize(in)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Go(func() {
			for n := 0; n < 50; n++ {
				i := (g + n) % len(inputs)
				if got := Tokenize(inputs[i]); !reflect.DeepEqual(got, want[i]) {
					t.Errorf("concurrent Tokenize(%q) differs from sequential", inputs[i])
					return
				}
			}
		})
	}
	wg.Wait()
}

// Stem cache and buffer reuse are what make the tokenizer fast: once the
// vocabulary is known, tokenizing lower-case English into a reused slice
// allocates nothing.
func TestAppendTokensAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	const in = "the deploy script uses pnpm because the lockfile of npm is not compatible with pnpm-lock.yaml"
	dst := AppendTokens(nil, in)
	allocs := testing.AllocsPerRun(100, func() {
		dst = AppendTokens(dst[:0], in)
	})
	if allocs != 0 {
		t.Errorf("AppendTokens allocates %v times per call, want 0", allocs)
	}
}

func TestTermCacheBounded(t *testing.T) {
	c := termCache{m: make(map[string]termInfo)}
	var w []byte
	for i := 0; i <= maxTermCache+10; i++ {
		w = append(w[:0], "word"...)
		for n := i; n > 0; n /= 26 {
			w = append(w, byte('a'+n%26))
		}
		c.lookup(w)
	}
	if n := len(c.m); n > maxTermCache {
		t.Errorf("term cache holds %d words, want at most %d", n, maxTermCache)
	}
	want := []termInfo{{"deploy", false}, {"the", true}, {"deploy", false}, {"the", true}}
	for i, w := range []string{"deploying", "the", "deploying", "the"} { // miss, then hit
		if got := c.lookup([]byte(w)); got != want[i] {
			t.Errorf("lookup(%q) = %+v, want %+v", w, got, want[i])
		}
	}
}

func TestGoldenInputsAreCovered(t *testing.T) {
	// The spec names these cases; each must have an archive.
	for _, name := range []string{"chinese", "japanese", "korean", "mixed", "identifiers", "fullwidth", "stemming", "stopwords", "invalid", "empty"} {
		if _, err := os.Stat(filepath.Join("testdata", name+".txt")); err != nil {
			t.Error(err)
		}
	}
}

// readInputs returns the inputs of all testdata archives, for the fuzz seeds
// and the benchmarks.
func readInputs(tb testing.TB) []string {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil {
		tb.Fatal(err)
	}
	var inputs []string
	for _, file := range files {
		a, err := parseArchiveFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		in, err := archiveInput(a)
		if err != nil {
			tb.Fatalf("%s: %v", file, err)
		}
		inputs = append(inputs, in)
	}
	return inputs
}
