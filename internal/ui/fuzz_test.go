package ui

import (
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/ocmem/ocmem/internal/secrets"
)

// FuzzParseLog: any log content parses and makes a timeline without
// panicking, and every event kept names its session.
func FuzzParseLog(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "session.jsonl")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"session":"s","msg":"bodies injected","hits":"a=1,b","injected":[{"key":1},"x",null]}` + "\n"))
	f.Add([]byte(`{"session":"s","msg":"bodies injected","injected":{"key":"x"},"given":5,"time":"not a time"}`))
	f.Add([]byte("not json\n{\n{\"session\":null}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		j := &journal{byID: map[string]*sessionInfo{}}
		parseLog(data, j)
		for _, si := range j.sessions {
			if si.ID == "" || j.byID[si.ID] != si {
				t.Fatalf("session %q kept badly", si.ID)
			}
			for _, ev := range si.Events {
				if ev.Session != si.ID {
					t.Fatalf("event of %q filed under %q", ev.Session, si.ID)
				}
				turnHits(ev.Fields)
				for _, v := range ev.Fields {
					valueString(v)
				}
			}
			summarize(si)
			buildTimeline(si)
		}
	})
}

// FuzzRedact: masking never leaves a finding of the scanner behind, and
// text without findings is unchanged. Findings are those of every reading
// the mask makes (secrets.ScanAll: the text, its Markdown escapes and
// markup undone, its encodings decoded), as a write's check makes them.
func FuzzRedact(f *testing.F) {
	f.Add("token " + fakeToken + " end")
	f.Add("a\nb " + fakeToken + "\n中文 password=hunter2hunter2")
	f.Add("postgres://user:s3cr3tP4ssw0rd@db.internal/x")
	f.Add("nothing here")
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			return
		}
		got := redact(text)
		if len(secrets.ScanAll(text)) == 0 {
			if got != text {
				t.Fatalf("clean text changed: %q -> %q", text, got)
			}
			return
		}
		if len(secrets.ScanAll(got)) != 0 {
			t.Fatalf("redact(%q) = %q still holds a finding", text, got)
		}
	})
}
