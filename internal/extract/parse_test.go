package extract

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

const oneMemory = `{"memories": [{"category": "pitfalls", "kind": "pitfall", "summary": "Run migrations before deploying", "highlight": "make migrate", "load_when": ["deploy", "部署"], "body": "The new version fails on the old schema."}]}`

func TestParseReply(t *testing.T) {
	tests := []struct {
		name      string
		reply     string
		summaries []string // nil with wantErr
		invalid   int
		partial   bool
		wantErr   bool
	}{
		{name: "plain", reply: oneMemory, summaries: []string{"Run migrations before deploying"}},
		{name: "empty list", reply: `{"memories": []}`, summaries: []string{}},
		{name: "null list", reply: `{"memories": null}`, summaries: []string{}},
		{name: "bare empty list", reply: " [] ", summaries: []string{}},
		{name: "json fence", reply: "```json\n" + oneMemory + "\n```", summaries: []string{"Run migrations before deploying"}},
		{name: "bare fence", reply: "```\n" + oneMemory + "\n```\n", summaries: []string{"Run migrations before deploying"}},
		{name: "prose around", reply: "Here is what I found {as asked}:\n\n" + oneMemory + "\n\nLet me know if you need more.", summaries: []string{"Run migrations before deploying"}},
		{name: "bare list", reply: `[{"category":"facts","kind":"fact","summary":"A"},{"category":"facts","kind":"fact","summary":"B"}]`, summaries: []string{"A", "B"}},
		{name: "nested", reply: `{"result": {"memories": [{"kind":"fact","summary":"A"}]}}`, summaries: []string{"A"}},
		{name: "load_when as a string", reply: `{"memories":[{"kind":"fact","summary":"A","load_when":"deploy, 部署；ci"}]}`, summaries: []string{"A"}},
		{name: "bad element kept apart", reply: `{"memories":[{"kind":"fact","summary":"A"}, "just a string", {"kind":"fact","summary":7}]}`, summaries: []string{"A"}, invalid: 2},
		{
			name:      "cut off mid-list",
			reply:     `{"memories": [{"kind":"fact","summary":"A","load_when":["x"]}, {"kind":"fact","summary":"B"}, {"kind":"fact","summ`,
			summaries: []string{"A", "B"}, partial: true,
		},
		{name: "cut off before any element", reply: `{"memories": [{"kind":"fa`, wantErr: true},
		{name: "garbage", reply: "I could not find anything worth remembering.", wantErr: true},
		{name: "empty", reply: "", wantErr: true},
		{name: "other json", reply: `{"answer": 42}`, wantErr: true},
		{name: "list of strings", reply: `Options: ["a", "b"]`, wantErr: true},
		{name: "memories not a list", reply: `{"memories": "none"}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := parseReply(tt.reply)
			if tt.wantErr {
				if !errors.Is(err, errNoJSON) {
					t.Fatalf("err = %v, want errNoJSON (got %+v)", err, p)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, c := range p.Candidates {
				got = append(got, c.Summary)
			}
			if !slices.Equal(got, tt.summaries) || len(p.Invalid) != tt.invalid || p.Partial != tt.partial {
				t.Errorf("got %q invalid %q partial %v; want %q, %d invalid, partial %v", got, p.Invalid, p.Partial, tt.summaries, tt.invalid, tt.partial)
			}
		})
	}
}

func TestParseLoadWhenString(t *testing.T) {
	p, err := parseReply(`{"memories":[{"kind":"fact","summary":"A","load_when":"deploy, 部署；ci"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := []string(p.Candidates[0].LoadWhen); !slices.Equal(got, []string{"deploy", " 部署", "ci"}) {
		t.Errorf("load_when = %q", got)
	}
}

// Past maxStarts braces of prose, the object is still found by its key.
func TestParseManyBraces(t *testing.T) {
	reply := strings.Repeat("{ not json ", 10000) + oneMemory + " {"
	p, err := parseReply(reply)
	if err != nil || len(p.Candidates) != 1 || p.Partial {
		t.Errorf("got %+v, %v", p, err)
	}
}

func TestNormalize(t *testing.T) {
	cats := []string{"rules", "preferences", "decisions", "pitfalls", "facts"}
	tests := []struct {
		name    string
		in      Candidate
		want    Candidate
		wantErr string
	}{
		{
			name: "clean",
			in:   Candidate{Category: "Pitfalls ", Kind: "PITFALL", Summary: " Run  migrations\nfirst ", LoadWhen: triggers{" deploy ", "Deploy", "", "部署"}},
			want: Candidate{Category: "pitfalls", Kind: "pitfall", Summary: "Run migrations first", LoadWhen: triggers{"deploy", "部署"}},
		},
		{name: "category from kind", in: Candidate{Category: "gotchas", Kind: "pitfall", Summary: "A"}, want: Candidate{Category: "pitfalls", Kind: "pitfall", Summary: "A"}},
		{name: "no category", in: Candidate{Kind: "rule", Summary: "A"}, want: Candidate{Category: "rules", Kind: "rule", Summary: "A"}},
		{name: "rule-proposal", in: Candidate{Kind: "rule-proposal", Summary: "A"}, want: Candidate{Category: "rules", Kind: "rule-proposal", Summary: "A"}},
		{name: "no summary", in: Candidate{Kind: "fact", Summary: "  "}, wantErr: "no summary"},
		{name: "bad kind", in: Candidate{Kind: "todo", Summary: "A"}, wantErr: `kind "todo"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := normalize(tt.in, cats)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Category != tt.want.Category || got.Kind != tt.want.Kind || got.Summary != tt.want.Summary || !slices.Equal(got.LoadWhen, tt.want.LoadWhen) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	// A category outside custom categories, with no default for the kind.
	if _, err := normalize(Candidate{Kind: "fact", Category: "misc", Summary: "A"}, []string{"notes"}); err == nil {
		t.Errorf("a category outside the configured ones was accepted")
	}
	many := Candidate{Kind: "fact", Summary: "A"}
	for i := range 20 {
		many.LoadWhen = append(many.LoadWhen, strings.Repeat("x", i+1))
	}
	many.LoadWhen = append(many.LoadWhen, strings.Repeat("y", maxTriggerRunes+1))
	got, _ := normalize(many, cats)
	if len(got.LoadWhen) != maxTriggers {
		t.Errorf("%d triggers kept, want %d", len(got.LoadWhen), maxTriggers)
	}
}
