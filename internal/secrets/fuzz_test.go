package secrets

import (
	"encoding/base64"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzScan checks what must hold for any input: no panic, every finding
// positioned inside the text, a redaction that agrees with the text there
// and is never longer than what is left of it, and the same answer twice.
func FuzzScan(f *testing.F) {
	for _, tc := range secretCases {
		f.Add(tc.Text(newGen(tc.Name)))
	}
	for _, tc := range benignCases {
		f.Add(tc.Text(newGen(tc.Name)))
	}
	// The forms a plain pass misses: invisible characters, base64, a PEM
	// body without its lines.
	g := newGen("fuzz seeds")
	pat := "ghp_" + g.S(alnum, 36)
	f.Add("use " + pat[:9] + "\u200b" + pat[9:] + " in CI")
	f.Add("stored as " + base64.StdEncoding.EncodeToString([]byte("token="+pat)))
	f.Add("MIIEvAIBADANBgkqhkiG9w0BAQEFAASC" + g.S(b64, 32) + "\n" + g.S(b64, 64) + "\n> " + g.S(b64, 20))
	// Pasted shapes: a DSN, a .pgpass line, a .netrc entry.
	f.Add("app:" + g.Password(12) + "@tcp(db:3306)/shop and root:x@/db")
	f.Add("db:5432:shop:app:" + g.Password(12) + "\n*:*:*:a\\:b:c\\\\:d\n1:2:3:4:5:6")
	f.Add("machine h login u password hunter2\n  password x")
	f.Fuzz(func(t *testing.T, text string) {
		got := Scan(text)
		if again := Scan(text); !reflect.DeepEqual(got, again) {
			t.Fatalf("Scan is not deterministic: %v then %v", got, again)
		}
		lines := strings.Count(text, "\n") + 1
		prevLine, prevCol := 0, 0
		for _, f := range got {
			if f.Line < 1 || f.Line > lines {
				t.Fatalf("%+v: line outside 1..%d", f, lines)
			}
			off, ok := offset(text, f.Line, f.Column)
			if !ok {
				t.Fatalf("%+v: column outside its line", f)
			}
			if f.Line < prevLine || f.Line == prevLine && f.Column <= prevCol {
				t.Fatalf("findings out of order or overlapping at %d:%d: %v", f.Line, f.Column, got)
			}
			prevLine, prevCol = f.Line, f.Column
			rest := text[off:]
			if utf8.RuneCountInString(f.Redacted) > utf8.RuneCountInString(rest) || len(f.Redacted) > len(rest) {
				t.Fatalf("%+v: redaction longer than the text left", f)
			}
			for _, r := range f.Redacted {
				tr, size := utf8.DecodeRuneInString(rest)
				rest = rest[size:]
				if r != '*' && r != tr {
					t.Fatalf("%+v: redaction does not match the text", f)
				}
			}
			if !strings.ContainsRune(f.Redacted, '*') {
				t.Fatalf("%+v: nothing redacted", f)
			}
		}
	})
}

// FuzzCheck runs the passes only Check makes (lines joined, Markdown taken
// out, %XX and fullwidth decoded, hex runs, the fields joined): no panic,
// every finding inside its field, the same answer twice.
func FuzzCheck(f *testing.F) {
	g := newGen("fuzz check seeds")
	pat := "ghp_" + g.S(alnum, 36)
	f.Add("token "+pat[:16]+"**"+pat[16:], "")
	f.Add("token "+pat[:16]+"<!-- -->"+pat[16:], "x")
	f.Add("the CI token is "+pat[:20]+"-\n"+pat[20:], "")
	f.Add("token %67%68%70%5F"+pat[4:], "ｇｈｐ＿"+pat[4:])
	f.Add("deploy with "+pat[:20], pat[20:]+" from the vault")
	// Markdown source: escapes, character references, code and emphasis
	// inside a token.
	f.Add("ghp\\_"+pat[4:], "ghp&#95;"+pat[4:]+" &#x5F; &lowbar; &#;&#x;&amp")
	f.Add("ghp_`"+pat[4:]+"`", pat[:10]+"*"+pat[10:20]+"*"+pat[20:]+` \`)
	f.Fuzz(func(t *testing.T, summary, body string) {
		err := CheckFields(Field{"summary", summary}, Field{"body", body})
		again := CheckFields(Field{"summary", summary}, Field{"body", body})
		if (err == nil) != (again == nil) || err != nil && err.Error() != again.Error() {
			t.Fatalf("CheckFields is not deterministic: %v then %v", err, again)
		}
		se, ok := err.(*Error)
		if err != nil && !ok {
			t.Fatalf("CheckFields returned %T", err)
		}
		if se == nil {
			return
		}
		for _, f := range se.Findings {
			text := body
			if strings.HasPrefix(f.Field, "summary") {
				text = summary
			}
			if f.Line < 1 || f.Line > strings.Count(text, "\n")+1 {
				t.Fatalf("%+v: line outside its field", f)
			}
		}
	})
}
