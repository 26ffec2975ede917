package extract

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
)

// FuzzParseReply feeds any text as a model's reply. The reply is written
// by a cheap model reading a conversation, so it is untrusted input; for
// every text:
//
//   - parseReply does not panic, is deterministic, and fails only with
//     errNoJSON;
//   - a complete reply's candidates, encoded again as {"memories": […]},
//     parse back to the same candidates (nothing is invented or lost);
//   - normalize either refuses a candidate or returns one within bounds:
//     a one-line summary, a valid kind, a configured category, at most
//     maxTriggers distinct non-empty triggers of at most maxTriggerRunes,
//     a body of at most maxBodyRunes (plus the ellipsis), all valid UTF-8.
//
// Crashers go to testdata/fuzz/FuzzParseReply.
func FuzzParseReply(f *testing.F) {
	for _, s := range []string{
		`{"memories": [{"category": "pitfalls", "kind": "pitfall", "summary": "Run migrations before deploying", "highlight": "make migrate", "load_when": ["deploy", "部署"], "body": "The new version fails on the old schema."}]}`,
		`{"memories": []}`,
		`{"memories": null}`,
		" [] ",
		"```json\n{\"memories\":[{\"kind\":\"fact\",\"summary\":\"A\"}]}\n```",
		"Here is what I found {as asked}:\n\n{\"memories\":[{\"kind\":\"decision\",\"summary\":\"B\",\"supersedes\":\"decisions/x\"}]}\n\nDone.",
		`[{"category":"facts","kind":"fact","summary":"A"},{"category":"facts","kind":"fact","summary":"B"}]`,
		`{"result": {"memories": [{"kind":"fact","summary":"A"}]}}`,
		`{"memories":[{"kind":"fact","summary":"A","load_when":"deploy, 部署；ci"}]}`,
		`{"memories":[{"kind":"fact","summary":"A"}, "just a string", {"kind":"fact","summary":7}]}`,
		`{"memories": [{"kind":"fact","summary":"A","load_when":["x"]}, {"kind":"fact","summary":"B"}, {"kind":"fact","summ`,
		`{"memories": [{"kind":"RULE","category":"Rules","summary":"  always\n run   tests ","load_when":["","  a  ","A"]}]}`,
		strings.Repeat("{", 100) + `"memories": [{"kind":"fact","summary":"deep"}]`,
		"I could not find anything worth remembering.",
		`{"answer": 42}`,
		`Options: ["a", "b"]`,
		"\ufeff{\"memories\":[{\"kind\":\"fact\",\"summary\":\"\xff\xfe\"}]}",
		"<think>maybe {\"memories\": []}</think>{\"memories\": [{\"kind\":\"convention\",\"summary\":\"A\",\"scope\":\"user\"}]}",
		"draft {\"memories\": [{\"kind\":\"fact\",\"summary\":\"A\",}]} final {\"memories\": [{\"kind\":\"fact\",\"summary\":\"B\"},]}",
		`{"memories": [{"kind":"fact","summary":"A","body":"POST {"id": 1} to /users"}, {"kind":"fact","summary":B}]}`,
		"{\"memories\": [{\"kind\":\"fact\",\"summary\":\"line\none\",\"body\":\"C:\\dir\"}, {\"kind\"",
		`{"memories":[{"kind":"fact","summary":"A","load_when":[["deploy","部署"],[["x"]],1]}]}`,
		"</think>{\"memories\": []}",
		"Nothing here is worth remembering.",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p, err := parseReply(text)
		again, err2 := parseReply(text)
		if !reflect.DeepEqual(p, again) || (err == nil) != (err2 == nil) {
			t.Fatalf("parseReply is not deterministic on %q", text)
		}
		if err != nil {
			if !errors.Is(err, errNoJSON) {
				t.Fatalf("parseReply(%q) failed with %v, want errNoJSON", text, err)
			}
			return
		}
		if !p.Partial && len(p.Candidates) > 0 {
			b, err := json.Marshal(map[string]any{"memories": p.Candidates})
			if err != nil {
				t.Fatalf("candidates do not encode: %v", err)
			}
			back, err := parseReply(string(b))
			if err != nil || !sameCandidates(back.Candidates, p.Candidates) {
				t.Fatalf("candidates of %q do not survive encoding:\n%+v\n%+v (%v)", text, p.Candidates, back.Candidates, err)
			}
		}
		for _, c := range p.Candidates {
			n, err := normalize(c, options.DefaultCategories)
			if err != nil {
				continue
			}
			checkNormalized(t, n)
		}
	})
}

func sameCandidates(a, b []Candidate) bool {
	return slices.EqualFunc(a, b, func(x, y Candidate) bool {
		return x.Category == y.Category && x.Kind == y.Kind && x.Summary == y.Summary && x.Highlight == y.Highlight &&
			x.Body == y.Body && x.Supersedes == y.Supersedes && slices.Equal(x.LoadWhen, y.LoadWhen)
	})
}

func checkNormalized(t *testing.T, c Candidate) {
	t.Helper()
	switch {
	case c.Summary == "" || c.Summary != strings.Join(strings.Fields(c.Summary), " "):
		t.Fatalf("summary %q is empty or not one line", c.Summary)
	case !memory.Kind(c.Kind).Valid():
		t.Fatalf("kind %q", c.Kind)
	case !slices.Contains(options.DefaultCategories, c.Category):
		t.Fatalf("category %q", c.Category)
	case len(c.LoadWhen) > maxTriggers:
		t.Fatalf("%d triggers", len(c.LoadWhen))
	case utf8.RuneCountInString(c.Body) > maxBodyRunes+1:
		t.Fatalf("body of %d runes", utf8.RuneCountInString(c.Body))
	}
	for i, tr := range c.LoadWhen {
		if tr == "" || utf8.RuneCountInString(tr) > maxTriggerRunes {
			t.Fatalf("trigger %q", tr)
		}
		for _, other := range c.LoadWhen[:i] {
			if strings.EqualFold(other, tr) {
				t.Fatalf("triggers %q and %q repeat", other, tr)
			}
		}
	}
	for _, s := range append([]string{c.Summary, c.Highlight, c.Body, c.Category, c.Kind, c.Supersedes}, c.LoadWhen...) {
		if !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8 in %q", s)
		}
	}
}
