package extract

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
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
		{name: "garbage", reply: "Sure! The conversation was about deploying the service.", wantErr: true},
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

// The prompt asks for a body of 2 to 5 sentences; a model that writes an
// essay has it cut at the end of a sentence, and the log says so.
func TestNormalizeBody(t *testing.T) {
	cats := []string{"rules", "preferences", "decisions", "pitfalls", "facts"}
	sentence := "The flaky test shares a port with the dev server, so it fails when one runs. "
	long := strings.Repeat(sentence, 40)
	got, err := normalize(Candidate{Kind: "pitfall", Summary: "A", Body: long}, cats)
	if err != nil {
		t.Fatal(err)
	}
	n := utf8.RuneCountInString(got.Body)
	if n > maxBodyRunes || n < maxBodyRunes/2 || !strings.HasSuffix(got.Body, "runs.") {
		t.Errorf("body of %d runes ending %q", n, got.Body[len(got.Body)-10:])
	}
	if len(got.notes) != 1 || !strings.Contains(got.notes[0], "cut") {
		t.Errorf("notes %q", got.notes)
	}
	zh := strings.Repeat("测试和开发服务器共用一个端口，所以两者同时运行时测试会失败。", 60)
	got, _ = normalize(Candidate{Kind: "pitfall", Summary: "A", Body: zh}, cats)
	if n := utf8.RuneCountInString(got.Body); n > maxBodyRunes || !strings.HasSuffix(got.Body, "。") {
		t.Errorf("Chinese body of %d runes", n)
	}
	short := strings.Repeat(sentence, 5)
	if got, _ := normalize(Candidate{Kind: "pitfall", Summary: "A", Body: short}, cats); got.Body != strings.TrimSpace(short) || len(got.notes) != 0 {
		t.Errorf("a five-sentence body changed: %q %q", got.Body, got.notes)
	}
}

func TestNormalizeKindAndScope(t *testing.T) {
	cats := []string{"rules", "preferences", "decisions", "pitfalls", "facts"}
	tests := []struct {
		in                    Candidate
		kind, category, scope string
	}{
		{Candidate{Kind: "Convention", Category: "conventions", Summary: "Commits follow Conventional Commits"}, "decision", "decisions", ""},
		{Candidate{Kind: "gotcha", Summary: "A"}, "pitfall", "pitfalls", ""},
		{Candidate{Kind: "fact", Category: "facts", Summary: "Never commit generated mocks"}, "rule", "rules", ""},
		{Candidate{Kind: "decision", Summary: "禁止直接推送到 main"}, "rule", "rules", ""},
		{Candidate{Kind: "preference", Summary: "Always answer in Chinese", Scope: "User"}, "preference", "preferences", "global"},
		{Candidate{Kind: "preference", Summary: "A", Scope: "global"}, "preference", "preferences", "global"},
		{Candidate{Kind: "fact", Summary: "A", Scope: "project"}, "fact", "facts", ""},
		{Candidate{Kind: "fact", Summary: "A", Scope: "team"}, "fact", "facts", ""},
	}
	for _, tt := range tests {
		got, err := normalize(tt.in, cats)
		if err != nil || got.Kind != tt.kind || got.Category != tt.category || got.Scope != tt.scope {
			t.Errorf("%+v: got kind %q category %q scope %q (%v), want %q %q %q", tt.in, got.Kind, got.Category, got.Scope, err, tt.kind, tt.category, tt.scope)
		}
	}
}

// A small model's answer: reasoning before it, drafts, and the faults of
// JSON written by hand.
func TestParseReplyFindsTheAnswer(t *testing.T) {
	const real = `{"memories": [{"kind":"decision","summary":"Use pnpm workspaces"}]}`
	tests := []struct {
		name      string
		reply     string
		summaries []string
		invalid   int
		partial   bool
		nothing   bool
	}{
		{name: "think block quotes an empty answer", reply: "<think>If nothing is worth it I answer {\"memories\": []}. But the pnpm switch is.</think>\n" + real, summaries: []string{"Use pnpm workspaces"}},
		{name: "thinking block", reply: "<thinking>\n{\"memories\": [{\"kind\":\"fact\",\"summary\":\"draft\"}]}\n</thinking>" + real, summaries: []string{"Use pnpm workspaces"}},
		{name: "only the closing tag", reply: "{\"memories\": []} hmm, no.</think>" + real, summaries: []string{"Use pnpm workspaces"}},
		{name: "preamble quotes an empty answer", reply: "The format is {\"memories\": []} when nothing is worth keeping. Here:\n" + real, summaries: []string{"Use pnpm workspaces"}},
		{name: "draft then correction", reply: `{"memories": [{"kind":"decision","summary":"Use npm"}]}` + "\nCorrection:\n" + real, summaries: []string{"Use pnpm workspaces"}},
		{name: "trailing commas", reply: `{"memories": [{"kind":"fact","summary":"A",}, {"kind":"fact","summary":"B"},],}`, summaries: []string{"A", "B"}},
		{name: "raw newline in a string", reply: "{\"memories\": [{\"kind\":\"fact\",\"summary\":\"A\",\"body\":\"line one\nline two\"}]}", summaries: []string{"A"}},
		{name: "unescaped quotes in a body", reply: `{"memories": [{"kind":"fact","summary":"A","body":"POST {"id": 1, "name": "x"} to /users"}, {"kind":"fact","summary":"B"}]}`, summaries: []string{"A", "B"}},
		{name: "one malformed element loses only itself", reply: `{"memories": [{"kind":"fact","summary":"A"}, {"kind":"fact","summary":B}, {"kind":"fact","summary":"C"}]}`, summaries: []string{"A", "C"}, invalid: 1},
		{name: "malformed element, then cut off", reply: `{"memories": [{"kind":"fact","summary":"A"}, {"kind" "fact"}, {"kind":"fact","summary":"C"}, {"kind":"fa`, summaries: []string{"A", "C"}, invalid: 1, partial: true},
		{name: "an ambiguous quote loses only its element", reply: `{"memories": [{"kind":"fact","summary":"A"}, {"kind":"fact","summary":"Quote "a", "b" here", "load_when": ["q"]}, {"kind":"fact","summary":"C"}]}`, summaries: []string{"A", "C"}, invalid: 1},
		{name: "nothing to remember, in prose", reply: "Nothing in this conversation is worth remembering.", summaries: []string{}, nothing: true},
		{name: "nothing to remember, in Chinese", reply: "这段对话没有值得记住的内容。", summaries: []string{}, nothing: true},
		{name: "empty answer", reply: `{"memories": []}`, summaries: []string{}, nothing: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := parseReply(tt.reply)
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, c := range p.Candidates {
				got = append(got, c.Summary)
			}
			if !slices.Equal(got, tt.summaries) || len(p.Invalid) != tt.invalid || p.Partial != tt.partial || p.Nothing != tt.nothing {
				t.Errorf("got %q invalid %q partial %v nothing %v; want %q, %d invalid, partial %v, nothing %v",
					got, p.Invalid, p.Partial, p.Nothing, tt.summaries, tt.invalid, tt.partial, tt.nothing)
			}
		})
	}
}

func TestParseUnescapedQuoteKeepsTheBody(t *testing.T) {
	p, err := parseReply(`{"memories": [{"kind":"fact","summary":"A","body":"POST {"id": 1} to /users"}]}`)
	if err != nil || len(p.Candidates) != 1 {
		t.Fatalf("got %+v, %v", p, err)
	}
	if want := `POST {"id": 1} to /users`; p.Candidates[0].Body != want {
		t.Errorf("body = %q, want %q", p.Candidates[0].Body, want)
	}
}

func TestParseTriggerPairs(t *testing.T) {
	p, err := parseReply(`{"memories":[{"kind":"fact","summary":"A","load_when":[["deploy","部署"],["rollback","回滚"],"ci"]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := []string(p.Candidates[0].LoadWhen); !slices.Equal(got, []string{"deploy", "部署", "rollback", "回滚", "ci"}) {
		t.Errorf("load_when = %q", got)
	}
}
