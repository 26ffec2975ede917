package textseg

import (
	"reflect"
	"testing"
	"unicode/utf8"
)

// FuzzTokenize checks the invariants every input must keep. Seeds are the
// inputs of testdata/*.txt; crashers live in testdata/fuzz/FuzzTokenize.
func FuzzTokenize(f *testing.F) {
	for _, in := range readInputs(f) {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks := Tokenize(s)
		checkTokens(t, s, toks)
		if again := Tokenize(s); !reflect.DeepEqual(toks, again) {
			t.Fatalf("Tokenize(%q) is not deterministic:\n%v\n%v", s, toks, again)
		}
		slow := &scanner{src: s, slowOnly: true}
		slow.scan()
		if !(len(toks) == 0 && len(slow.toks) == 0) && !reflect.DeepEqual(toks, slow.toks) {
			t.Fatalf("Tokenize(%q): the plain-word fast path changes the output:\n fast %v\n slow %v", s, toks, slow.toks)
		}
		var terms []string
		for _, tok := range toks {
			if !tok.Stop {
				terms = append(terms, tok.Text)
			}
		}
		if got := Terms(s); !(len(got) == 0 && len(terms) == 0) && !reflect.DeepEqual(got, terms) {
			t.Fatalf("Terms(%q) = %q, want the non-stop token texts %q", s, got, terms)
		}
	})
}

func checkTokens(t *testing.T, s string, toks []Token) {
	t.Helper()
	prevStart := 0
	var ident *Token
	for i := range toks {
		tok := &toks[i]
		switch {
		case tok.Start < 0 || tok.Start >= tok.End || tok.End > len(s):
			t.Fatalf("Tokenize(%q): token %d %+v: span out of [0, %d]", s, i, *tok, len(s))
		case tok.Start < prevStart:
			t.Fatalf("Tokenize(%q): token %d %+v starts before token %d", s, i, *tok, i-1)
		case tok.Text == "":
			t.Fatalf("Tokenize(%q): token %d %+v: empty text", s, i, *tok)
		case !utf8.ValidString(tok.Text):
			t.Fatalf("Tokenize(%q): token %d %+v: text is not UTF-8", s, i, *tok)
		}
		prevStart = tok.Start
		switch tok.Type {
		case Ident:
			ident = tok
		case Part:
			if ident == nil || tok.Start < ident.Start || tok.End > ident.End {
				t.Fatalf("Tokenize(%q): part %d %+v is not inside the ident before it (%+v)", s, i, *tok, ident)
			}
		case CJK:
			if n := utf8.RuneCountInString(tok.Text); n < 1 || n > 2 {
				t.Fatalf("Tokenize(%q): cjk token %d %+v has %d characters", s, i, *tok, n)
			}
		}
		if tok.Type != Part {
			ident = nil
			if tok.Type == Ident {
				ident = tok
			}
		}
		for _, c := range []byte(tok.Text) {
			if 'A' <= c && c <= 'Z' {
				t.Fatalf("Tokenize(%q): token %d %+v is not lower-case", s, i, *tok)
			}
		}
	}
}
