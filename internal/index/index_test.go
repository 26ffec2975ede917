package index

import (
	"reflect"
	"slices"
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

// Replace gives exactly the index BuildAnalyzed would build, and leaves the
// index it was called on as it was.
func TestReplaceEqualsRebuild(t *testing.T) {
	texts := []string{"部署脚本用 pnpm", "redis keys blocks the server", "kafka retention 七天", "deploy window tuesday", "pnpm-lock.yaml conflicts"}
	docs := make([]Analyzed, len(texts))
	for i, s := range texts {
		docs[i] = Analyze(Doc{Fields: [NumFields]string{Summary: s, Body: s + " body"}})
	}
	base := BuildAnalyzed(docs)
	before := BuildAnalyzed(docs)
	for _, tt := range []struct {
		doc  int
		text string
	}{
		{0, "部署脚本改用 npm"},                 // some terms go, some stay, some come
		{2, "completely different words"}, // every term changes
		{4, "pnpm-lock.yaml conflicts"},   // nothing changes
		{1, ""},                           // emptied
	} {
		a := Analyze(Doc{Fields: [NumFields]string{Summary: tt.text}})
		got := base.Replace(tt.doc, docs[tt.doc], a)
		want := append([]Analyzed(nil), docs...)
		want[tt.doc] = a
		equalIndex(t, got, BuildAnalyzed(want))
		equalIndex(t, base, before)
	}
}

func equalIndex(t *testing.T, got, want *Index) {
	t.Helper()
	if !reflect.DeepEqual(got.Terms(), want.Terms()) {
		t.Fatalf("vocabulary %v, want %v", got.Terms(), want.Terms())
	}
	for _, term := range want.Terms() {
		if !reflect.DeepEqual(got.Postings(term), want.Postings(term)) {
			t.Errorf("%q: %+v, want %+v", term, got.Postings(term), want.Postings(term))
		}
	}
	for f := Field(0); f < NumFields; f++ {
		if got.AvgFieldLen(f) != want.AvgFieldLen(f) {
			t.Errorf("avg %v: %v, want %v", f, got.AvgFieldLen(f), want.AvgFieldLen(f))
		}
		for d := 0; d < want.Len(); d++ {
			if got.FieldLen(d, f) != want.FieldLen(d, f) {
				t.Errorf("len doc %d %v: %d, want %d", d, f, got.FieldLen(d, f), want.FieldLen(d, f))
			}
		}
	}
}

// Remap (files removed, renumbered and added by a reload) gives exactly the
// index BuildAnalyzed builds over the new store.
func TestRemapEqualsRebuild(t *testing.T) {
	an := func(s string) Analyzed { return Analyze(Doc{Fields: [NumFields]string{Summary: s, Body: s + " body"}}) }
	old := []Analyzed{an("部署脚本用 pnpm"), an("redis keys blocks"), an("kafka retention 七天"), an("deploy window")}
	base := BuildAnalyzed(old).Replace(1, old[1], an("redis scan instead")) // an overlay too
	old[1] = an("redis scan instead")
	// New store: old 0 kept, a new document 1, old 1 gone, old 3 kept as 2,
	// old 2 changed (new terms) as 3.
	remap := []int32{0, -1, -1, 2}
	added := map[int]Analyzed{3: an("kafka retention 三十天 zebra"), 1: an("全新的 memory about pnpm")}
	want := []Analyzed{old[0], added[1], old[3], added[3]}
	equalIndex(t, base.Remap(4, remap, added), BuildAnalyzed(want))
	equalIndex(t, base.Compact(), BuildAnalyzed(old))
	if got := base.Compact().Vocabulary(); got != len(BuildAnalyzed(old).Terms()) {
		t.Errorf("Vocabulary after Compact = %d", got)
	}
}

func TestFromParts(t *testing.T) {
	ix := Build([]Doc{
		{Fields: [NumFields]string{Summary: "部署脚本", Body: "deploy the deploy scripts"}},
		{Fields: [NumFields]string{LoadWhen: "deploy ; 部署", Highlight: "the pnpm-lock.yaml"}},
	})
	got, err := FromParts(ix.Parts())
	if err != nil {
		t.Fatal(err)
	}
	equalIndex(t, got, ix)
	if got.Vocabulary() != ix.Vocabulary() {
		t.Errorf("Vocabulary %d, want %d", got.Vocabulary(), ix.Vocabulary())
	}
	damage := []struct {
		name string
		fn   func(p *Parts)
	}{
		{"term offsets backwards", func(p *Parts) { p.TermEnd[1] = p.TermEnd[0] }},
		{"term past the data", func(p *Parts) { p.TermEnd[len(p.TermEnd)-1]++ }},
		{"posting table short", func(p *Parts) { p.PostEnd = p.PostEnd[1:] }},
		{"terms out of order", func(p *Parts) { p.Terms = "z" + p.Terms[1:] }},
		{"document out of range", func(p *Parts) { p.Post[0].Doc = 2 }},
		{"documents out of order", func(p *Parts) {
			// the first list of two postings
			for i, start := 0, uint32(0); i < len(p.PostEnd); start, i = p.PostEnd[i], i+1 {
				if p.PostEnd[i]-start >= 2 {
					p.Post[start+1].Doc = p.Post[start].Doc
					return
				}
			}
		}},
		{"postings not covered", func(p *Parts) { p.Post = append(p.Post, Posting{}) }},
	}
	for _, d := range damage {
		p := ix.Parts()
		p = Parts{p.Terms, slices.Clone(p.TermEnd), slices.Clone(p.PostEnd), slices.Clone(p.Post), p.Lengths}
		d.fn(&p)
		if _, err := FromParts(p); err == nil {
			t.Errorf("%s: no error", d.name)
		}
	}
}

// A latin word a document holds only inside flags or paths is listed under
// Inside too; one it also holds in a sentence is not, and the
// keys are no terms of the vocabulary.
func TestInside(t *testing.T) {
	ix := Build([]Doc{{Fields: [NumFields]string{
		Summary:   "undo a merge: keep the hard limit",
		Highlight: "git reset --hard origin/main; ./scripts/undo.sh; see /var/log/nginx and src/train.py; read/write",
		Body:      "max_lora_rank and pnpm-lock.yaml",
	}}})
	for term, want := range map[string]bool{
		"hard": false, "undo": false, "merg": false, // also in the summary's sentence
		"script": true, "var": true, "nginx": true, "src": true, "train": false, // path segments; train is a part of train.py
		"max": false, "lora": false, "rank": false, "pnpm": false, "lock": false, // identifier parts name what the identifier names
		"reset": false, "origin": false, "main": false, "read": false, "write": false, // words; origin/main and read/write read as words
	} {
		if got := ix.DF(Inside(term)) > 0; got != want {
			t.Errorf("%s: inside %v, want %v", term, got, want)
		}
	}
	if got := ix.Postings(Inside("nginx")); len(got) != 1 || got[0].TF[Highlight] != 1 {
		t.Errorf("Inside(nginx) postings %v, want the highlight's one", got)
	}
	for _, term := range ix.Terms() {
		if isInside(term) {
			t.Errorf("Terms lists %q", term)
		}
	}
	if plain := Build([]Doc{{Fields: [NumFields]string{Summary: "undo a merge: keep the hard limit"}}}); ix.Vocabulary() != len(ix.Terms()) || plain.Vocabulary() != len(plain.Terms()) {
		t.Errorf("vocabulary %d, terms %d", ix.Vocabulary(), len(ix.Terms()))
	}
}
