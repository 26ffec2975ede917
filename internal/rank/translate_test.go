package rank

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/index"
	"github.com/ocmem/ocmem/internal/textseg"
)

func TestBaseForms(t *testing.T) {
	for _, tt := range []struct {
		word string
		want string // a base form that must be among the results; "" for none
		not  string // a form that must not be
	}{
		{"merged", "merge", ""},
		{"expires", "expire", ""},
		{"retries", "retry", ""},
		{"refunded", "refund", ""},
		{"connections", "connection", ""},
		{"uploaded", "upload", ""},
		{"stopped", "stop", ""},
		{"caching", "cache", ""},
		{"matches", "match", ""},
		{"news", "", "new"},   // new has another stem
		{"bus", "", "bu"},     // not a plural
		{"deploy", "", "dep"}, // no inflection at all
	} {
		stem := textseg.Tokenize(tt.word)[0].Text
		got := baseForms(tt.word, stem)
		if tt.want != "" && !slices.Contains(got, tt.want) {
			t.Errorf("baseForms(%q) = %q, want %q among them", tt.word, got, tt.want)
		}
		if tt.want == "" && len(got) > 0 && tt.not == "" {
			t.Errorf("baseForms(%q) = %q, want none", tt.word, got)
		}
		if tt.not != "" && slices.Contains(got, tt.not) {
			t.Errorf("baseForms(%q) = %q, must not hold %q", tt.word, got, tt.not)
		}
		for _, b := range got {
			if s := textseg.Tokenize(b)[0].Text; s != stem {
				t.Errorf("baseForms(%q): %q stems to %q, not %q", tt.word, b, s, stem)
			}
		}
	}
}

// An English question finds a Chinese memory through the base form of an
// inflected word: CC-CEDICT glosses "merge" and "refund", never "merged" or
// "refunds". The store is of another project than the benchmark's.
func TestTranslationInflected(t *testing.T) {
	c, metas := build(
		doc{summary: "支付回调失败后最多重试三次,间隔按指数退避", triggers: "回调 重试", meta: Meta{ID: "pitfalls/callback-retry", LoadWhen: []string{"回调", "重试"}}},
		doc{summary: "超过五百元的退款要财务审批", triggers: "退款", meta: Meta{ID: "rules/refund-approval", LoadWhen: []string{"退款"}}},
		doc{summary: "数据库备份每晚上传到对象存储", body: "备份文件先用 age 加密", triggers: "备份", meta: Meta{ID: "facts/backups", LoadWhen: []string{"备份"}}},
		doc{summary: "发布分支只能由负责人合并", triggers: "发布分支", meta: Meta{ID: "rules/release-merge", LoadWhen: []string{"发布分支"}}},
		doc{summary: "热修复上线后要并入开发分支", triggers: "热修复", meta: Meta{ID: "rules/hotfix-back", LoadWhen: []string{"热修复"}}},
		doc{summary: "图片缩略图由前端生成", triggers: "缩略图", meta: Meta{ID: "facts/thumbnails", LoadWhen: []string{"缩略图"}}},
	)
	for _, tt := range []struct {
		q, want, via string
	}{
		{"how often is a failed Stripe callback retried?", "pitfalls/callback-retry", `重试 ← "retry" (CC-CEDICT)`},
		{"who signs off on refunds above the Acme limit?", "rules/refund-approval", `退款 ← "refund" (CC-CEDICT)`},
		{"are the Postgres dumps encrypted before they are uploaded?", "facts/backups", `上传 ← "upload" (CC-CEDICT)`},
		{"who decides whether Gitea release branches can be merged?", "rules/release-merge", `合并 ← "merge" (CC-CEDICT)`},
		// A phrase is looked up by its base form too: "merge into" → 并入.
		{"are Gitea hotfixes merged into develop?", "rules/hotfix-back", `并入 ← "merge into" (CC-CEDICT)`},
	} {
		res := Rank(c, tt.q, Params{Mode: Inject})
		got := ids(metas, res.Hits)
		if len(got) == 0 || got[0] != tt.want {
			t.Errorf("%q: got %v, want %s first", tt.q, got, tt.want)
			continue
		}
		var via []string
		for _, tr := range res.Hits[0].Reasons.Terms {
			via = append(via, tr.Via)
		}
		if !slices.Contains(via, tt.via) {
			t.Errorf("%q: reasons %q do not name %s", tt.q, via, tt.via)
		}
		if slices.Contains(got, "facts/thumbnails") {
			t.Errorf("%q: got %v, the thumbnails memory shares nothing", tt.q, got)
		}
	}
}

func TestFirstSenses(t *testing.T) {
	for _, tt := range []struct {
		senses [][]string
		want   []string
	}{
		{nil, nil},
		{[][]string{{"link", "join", "connect"}}, []string{"link", "join", "connect"}}, // a sense is not cut
		{[][]string{{"deploy"}, {"allocate"}, {"configuration"}}, []string{"deploy", "allocate"}},
		{[][]string{{"cipher", "secret code"}, {"password", "pin"}}, []string{"cipher", "secret code"}},
		{[][]string{{"cache"}, {"buffer memory", "buffer"}, {"store"}}, []string{"cache", "buffer memory", "buffer"}},
	} {
		if got := firstSenses(tt.senses); !slices.Equal(got, tt.want) {
			t.Errorf("firstSenses(%q) = %q, want %q", tt.senses, got, tt.want)
		}
	}
}

// A Chinese question finds an English memory through the whole first sense
// of its word: 连接 is "to link; to join; to connect", and connect is the
// one the memory uses.
func TestTranslationWholeSense(t *testing.T) {
	c, metas := build(
		doc{summary: "each worker opens at most 20 connections to Postgres", triggers: "connections", meta: Meta{ID: "pitfalls/worker-connections", LoadWhen: []string{"connections"}}},
		doc{summary: "thumbnails are rendered by the browser", triggers: "thumbnails", meta: Meta{ID: "facts/thumbnails", LoadWhen: []string{"thumbnails"}}},
	)
	res := Rank(c, "连接数一直在涨", Params{Mode: Inject})
	if got := ids(metas, res.Hits); !slices.Equal(got, []string{"pitfalls/worker-connections"}) {
		t.Fatalf("got %v, want pitfalls/worker-connections", got)
	}
	var via []string
	for _, tr := range res.Hits[0].Reasons.Terms {
		via = append(via, tr.Via)
	}
	if !slices.Contains(via, `"connect" ← 连接 (CC-CEDICT)`) {
		t.Errorf("reasons %q do not name the translation", via)
	}
}

// A word whose translation the store holds is vocabulary the store knows:
// an English question about a store written mostly in Chinese is familiar
// when its words reach the store through their translations, so that a
// memory its translations find in a headline is a hit.
func TestTranslatedWordsAreFamiliar(t *testing.T) {
	docs := []doc{
		{summary: "超过五百元的退款要财务审批", triggers: "退款", meta: Meta{ID: "rules/refund-approval", LoadWhen: []string{"退款"}}},
		{summary: "the approval flow for large purchases lives in Feishu", meta: Meta{ID: "facts/purchase-approval"}},
	}
	// Enough other memories that the store has a vocabulary to judge
	// familiarity against (minVocabulary).
	c, metas := build(append(docs, filler(minVocabulary/4+10)...)...)
	q := "do large refunds need approval from finance?"
	if f := Familiarity(c.ix, q); f > minFamiliar {
		t.Fatalf("Familiarity of the words themselves = %.2f, want at most %.2f for the test to mean anything", f, minFamiliar)
	}
	got := ids(metas, Rank(c, q, Params{Mode: Inject}).Hits)
	if !slices.Contains(got, "rules/refund-approval") {
		t.Errorf("%q: got %v, want rules/refund-approval", q, got)
	}
	// A question whose words neither the store nor their translations
	// reach stays unfamiliar: one translated word is no answer there.
	q = "do refunds of concert tickets take long?"
	if got := ids(metas, Rank(c, q, Params{Mode: Inject}).Hits); len(got) != 0 {
		t.Errorf("%q: got %v, want nothing", q, got)
	}
}

func TestFamiliarityBridged(t *testing.T) {
	ix := index.Build([]index.Doc{{Fields: [index.NumFields]string{"超过五百元的退款要财务审批", "", "", "large purchases"}}})
	q := "large refunds, 退款 and 财务"
	at := func(w string) span { i := strings.Index(q, w); return span{i, i + len(w)} }
	for _, tt := range []struct {
		bridged []span
		want    float64
	}{
		{nil, 5.0 / 6},                 // large, 退 款 财 务 known; refunds not
		{[]span{at("refunds")}, 1},     // refunds reaches the store through 退款
		{[]span{at("large")}, 5.0 / 6}, // known already; refunds still is not
	} {
		if got := familiarity(ix, q, tt.bridged); !near(got, tt.want) {
			t.Errorf("familiarity(%v) = %v, want %v", tt.bridged, got, tt.want)
		}
	}
}

// A memory that holds a word once incidentally (inside an identifier of its
// body) and its translation in its headline is matched by the better of the
// two, not by the incidental one alone: the direct match must not take the
// translation away. The same store without the identifiers is the control:
// there the translation alone makes both memories strong hits.
func TestTranslationBesideAnIncidentalMatch(t *testing.T) {
	store := func(idents bool) (*Corpus, []Meta) {
		migrate, script := "部署之前先执行 make migrate，否则表结构不匹配。", "会把 dist 同步到服务器，同步之前要清掉 CDN 缓存，否则用户看到旧文件。"
		if idents {
			migrate, script = "QA-DEPLOY: "+migrate, "deploy.sh "+script
		}
		return build(append([]doc{
			{summary: "部署前先执行数据库迁移", triggers: "部署", body: migrate, meta: Meta{ID: "pitfalls/deploy-migrate", LoadWhen: []string{"部署"}}},
			{summary: "部署脚本需要先清缓存", triggers: "部署脚本", body: script, meta: Meta{ID: "pitfalls/deploy-script-cache", LoadWhen: []string{"部署脚本"}}},
			{summary: "Redis 连接超时要设置 read_timeout", triggers: "Redis", body: "默认没有超时，线上会卡住。", meta: Meta{ID: "pitfalls/redis-timeout", LoadWhen: []string{"Redis"}}},
			// Unrelated memories of a real length, so that a term two
			// memories hold is as rare, and a summary as long, as in
			// a store of real size.
		}, wordyFiller(40)...)...)
	}
	for _, idents := range []bool{false, true} {
		c, metas := store(idents)
		res := Rank(c, "how do I deploy to production?", Params{Mode: Inject})
		if h := find(metas, res, "pitfalls/deploy-migrate"); h == nil {
			t.Errorf("identifiers %v, inject: got %v (quiet %q), want pitfalls/deploy-migrate through 部署 ← \"deploy\"", idents, ids(metas, res.Hits), res.Quiet)
		} else if v := vias(h); !slices.Contains(v, `部署 ← "deploy" (CC-CEDICT)`) {
			t.Errorf("identifiers %v, inject: reasons name %q, want 部署 ← \"deploy\" (CC-CEDICT)", idents, v)
		}
		res = Rank(c, "the deploy script publishes stale files", Params{Mode: Search})
		if h := find(metas, res, "pitfalls/deploy-script-cache"); h == nil || h.Reasons.Weak != "" {
			t.Errorf("identifiers %v, search: got %v, want pitfalls/deploy-script-cache as a strong hit (%+v)", idents, ids(metas, res.Hits), h)
		}
		for _, q := range []string{"how do I deploy to production?", "the deploy script publishes stale files"} {
			for _, mode := range []Mode{Search, Inject} {
				res := Rank(c, q, Params{Mode: mode})
				if find(metas, res, "pitfalls/redis-timeout") != nil {
					t.Errorf("identifiers %v, %q %v: got %v, the Redis memory shares nothing", idents, q, mode, ids(metas, res.Hits))
				}
				sumsToRelevance(t, q, metas, res)
			}
		}
	}
}

// A memory that holds a word strongly and its translation too is matched by
// the word once, not by the word and its translation together.
func TestTranslationNoDoubleCredit(t *testing.T) {
	c, metas := build(append([]doc{
		{summary: "deploy to production only on weekdays", triggers: "deploy", body: "周五不部署，周末也不部署。", meta: Meta{ID: "rules/deploy-window", LoadWhen: []string{"deploy"}}},
		{summary: "the deploy checklist lives in the wiki", body: "read it before a release", meta: Meta{ID: "facts/deploy-checklist"}},
		{summary: "部署前先执行数据库迁移", triggers: "部署", body: "QA-DEPLOY: 部署之前先执行 make migrate。", meta: Meta{ID: "pitfalls/deploy-migrate", LoadWhen: []string{"部署"}}},
	}, filler(40)...)...)
	for _, q := range []string{"how do I deploy to production?", "when can we deploy?"} {
		for _, mode := range []Mode{Search, Inject} {
			res := Rank(c, q, Params{Mode: mode})
			h := find(metas, res, "rules/deploy-window")
			if h == nil {
				t.Errorf("%q %v: got %v, want rules/deploy-window", q, mode, ids(metas, res.Hits))
				continue
			}
			for _, tr := range h.Reasons.Terms {
				if tr.Via != "" && (tr.Score != 0 || !tr.Aside) {
					t.Errorf("%q %v: rules/deploy-window counts %s (%v) as well as deploy itself", q, mode, tr.Via, tr.Score)
				}
			}
			// Without its 部署 the memory scores the same: the
			// translation added nothing to what deploy gave.
			if got := ids(metas, res.Hits); len(got) == 0 || got[0] != "rules/deploy-window" {
				t.Errorf("%q %v: got %v, want rules/deploy-window first", q, mode, got)
			}
			sumsToRelevance(t, q, metas, res)
		}
	}
	c2, metas2 := build(append([]doc{
		{summary: "deploy to production only on weekdays", triggers: "deploy", body: "周五不发版，周末也不发版。", meta: Meta{ID: "rules/deploy-window", LoadWhen: []string{"deploy"}}},
		{summary: "the deploy checklist lives in the wiki", body: "read it before a release", meta: Meta{ID: "facts/deploy-checklist"}},
		{summary: "部署前先执行数据库迁移", triggers: "部署", body: "QA-DEPLOY: 部署之前先执行 make migrate。", meta: Meta{ID: "pitfalls/deploy-migrate", LoadWhen: []string{"部署"}}},
	}, filler(40)...)...)
	q := "when can we deploy?"
	with, without := find(metas, Rank(c, q, Params{}), "rules/deploy-window"), find(metas2, Rank(c2, q, Params{}), "rules/deploy-window")
	if with == nil || without == nil || !near(with.Reasons.Relevance, without.Reasons.Relevance) {
		t.Errorf("%q: relevance with 部署 in the body %+v, without %+v: want the same", q, with, without)
	}
}

// wordyFiller makes n unrelated memories with a summary of 8 words and a
// body of 24, the lengths of real memories (filler's are 2 and 2), drawn
// from 400 words: the vocabulary of a small store, as a person's first
// project is, under minVocabulary.
func wordyFiller(n int) []doc {
	var out []doc
	for i := range n {
		var sum, body []string
		for j := range 32 {
			k := (i*37 + j*11) % 400
			w := fmt.Sprintf("w%c%c", 'a'+k%26, 'a'+k/26)
			if j < 8 {
				sum = append(sum, w)
			} else {
				body = append(body, w)
			}
		}
		out = append(out, doc{summary: strings.Join(sum, " "), body: strings.Join(body, " "), meta: Meta{ID: fmt.Sprintf("wordy/%d", i)}})
	}
	return out
}

func find(metas []Meta, res Result, id string) *Hit {
	for i := range res.Hits {
		if metas[res.Hits[i].Doc].ID == id {
			return &res.Hits[i]
		}
	}
	return nil
}

func vias(h *Hit) []string {
	var out []string
	for _, tr := range h.Reasons.Terms {
		if tr.Via != "" {
			out = append(out, tr.Via)
		}
	}
	return out
}

// sumsToRelevance checks that every hit's relevance is what its reasons'
// terms add up to: a word counted twice, or a term counted and not shown,
// would break it.
func sumsToRelevance(t *testing.T, q string, metas []Meta, res Result) {
	t.Helper()
	for _, h := range res.Hits {
		sum := 0.0
		for _, tr := range h.Reasons.Terms {
			sum += tr.Score
			if tr.Aside != (tr.Score == 0) {
				t.Errorf("%q, %s: term %q has score %v, aside %v", q, metas[h.Doc].ID, tr.Term, tr.Score, tr.Aside)
			}
		}
		if !near(sum, h.Reasons.Relevance) {
			t.Errorf("%q, %s: terms add up to %v, relevance %v", q, metas[h.Doc].ID, sum, h.Reasons.Relevance)
		}
	}
}

// A translation that a memory holds only inside a flag or a path names the
// flag or the file, not the word's meaning: no match. "辛苦了" (hard
// work) must not reach the memory whose highlight is `git reset --hard`,
// and still reaches one that says hard in a sentence.
func TestTranslationNotInsideAFlag(t *testing.T) {
	c, metas := build(append([]doc{
		{summary: "undo a bad local merge without touching the remote", highlight: "git reset --hard origin/main", body: "then rebuild: make clean drops /tmp/hard/cache", meta: Meta{ID: "facts/undo-local-merge"}},
		{summary: "the upload limit is a hard limit of 20 MB", body: "nginx rejects larger bodies with 413.", meta: Meta{ID: "facts/upload-limit"}},
	}, wordyFiller(40)...)...)
	for _, mode := range []Mode{Search, Inject} {
		res := Rank(c, "辛苦了,谢谢", Params{Mode: mode})
		if find(metas, res, "facts/undo-local-merge") != nil {
			t.Errorf("%v: got %v, want no facts/undo-local-merge: it holds hard only in a flag and a path", mode, ids(metas, res.Hits))
		}
	}
	res := Rank(c, "辛苦了,谢谢", Params{Mode: Search})
	if find(metas, res, "facts/upload-limit") == nil {
		t.Errorf("search: got %v, want facts/upload-limit through hard ← 辛苦 (a word of its summary)", ids(metas, res.Hits))
	}
}
