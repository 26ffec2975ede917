package index

import (
	"reflect"
	"testing"
)

func TestBuild(t *testing.T) {
	ix := Build([]Doc{
		{Fields: [NumFields]string{Summary: "部署脚本", Body: "deploy the deploy scripts"}},
		{Fields: [NumFields]string{LoadWhen: "deploy ; 部署", Highlight: "the pnpm-lock.yaml"}},
		{},
	})
	if ix.Len() != 3 {
		t.Fatalf("Len = %d", ix.Len())
	}
	want := []Posting{
		{Doc: 0, TF: [NumFields]uint8{Body: 2}},
		{Doc: 1, TF: [NumFields]uint8{LoadWhen: 1}},
	}
	if got := ix.Postings("deploy"); !reflect.DeepEqual(got, want) {
		t.Errorf("Postings(deploy) = %+v, want %+v", got, want)
	}
	if ix.DF("部署") != 2 || ix.DF("脚本") != 1 || ix.DF("absent") != 0 {
		t.Errorf("DF: 部署 %d, 脚本 %d, absent %d", ix.DF("部署"), ix.DF("脚本"), ix.DF("absent"))
	}
	if ix.DF("the") != 0 {
		t.Error("stop words must not be indexed")
	}
	for _, term := range []string{"pnpm-lock.yaml", "pnpm", "lock", "yaml"} {
		if ix.DF(term) != 1 {
			t.Errorf("identifier term %q not indexed", term)
		}
	}
	// "deploy the deploy scripts": deploy ×2, script: 3 indexed terms.
	if ix.FieldLen(0, Body) != 3 || ix.FieldLen(2, Body) != 0 {
		t.Errorf("FieldLen = %d, %d", ix.FieldLen(0, Body), ix.FieldLen(2, Body))
	}
	if got, want := ix.AvgFieldLen(Body), 3.0/3; got != want {
		t.Errorf("AvgFieldLen(body) = %v, want %v", got, want)
	}
	if ix.Vocabulary() != len(ix.Terms()) {
		t.Errorf("Vocabulary %d != len(Terms) %d", ix.Vocabulary(), len(ix.Terms()))
	}
}

// BuildAnalyzed over Analyze is exactly Build: the reload path and the cold
// path give the same index.
func TestBuildAnalyzedEqualsBuild(t *testing.T) {
	docs := []Doc{
		{Fields: [NumFields]string{Summary: "Redis KEYS 会阻塞", Body: "用 SCAN 代替 KEYS; keys blocks"}},
		{Fields: [NumFields]string{Summary: "camelCaseName and snake_case_name", LoadWhen: "redis"}},
	}
	as := make([]Analyzed, len(docs))
	for i, d := range docs {
		as[i] = Analyze(d)
	}
	a, b := Build(docs), BuildAnalyzed(as)
	if !reflect.DeepEqual(a.Terms(), b.Terms()) {
		t.Fatalf("vocabularies differ: %v vs %v", a.Terms(), b.Terms())
	}
	for _, term := range a.Terms() {
		if !reflect.DeepEqual(a.Postings(term), b.Postings(term)) {
			t.Errorf("%q: %+v vs %+v", term, a.Postings(term), b.Postings(term))
		}
	}
}
