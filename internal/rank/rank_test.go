package rank

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/index"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/textseg"
)

// Score tests are formulas over the named constants, so retuning a constant
// breaks only the tests whose order really changes.

const day = msPerDay

type doc struct {
	summary, highlight, triggers, body string
	meta                               Meta
}

// filler makes n unrelated memories whose summary and body are two words,
// so a test's terms are rare (informative) and field lengths average 2.
func filler(n int) []doc {
	var out []doc
	for i := range n {
		w := func(s string) string { return fmt.Sprintf("%s%c%c", s, 'a'+i%26, 'a'+i/26) }
		out = append(out, doc{summary: w("lorem") + " " + w("ipsum"), body: w("dolor") + " " + w("amet"), meta: Meta{ID: fmt.Sprintf("filler/%d", i)}})
	}
	return out
}

// build indexes docs followed by 8 filler memories.
func build(docs ...doc) (*Corpus, []Meta) {
	docs = append(docs, filler(8)...)
	ds := make([]index.Doc, len(docs))
	ms := make([]Meta, len(docs))
	for i, d := range docs {
		ds[i].Fields = [index.NumFields]string{d.summary, d.highlight, d.triggers, d.body}
		ms[i] = d.meta
	}
	return NewCorpus(index.Build(ds), ms), ms
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestIDF(t *testing.T) {
	if got, want := IDF(10, 1), math.Log(1+9.5/1.5); !near(got, want) {
		t.Errorf("IDF(10,1) = %v, want %v", got, want)
	}
	if IDF(10, 10) <= 0 {
		t.Error("IDF of a term in every document must stay positive")
	}
	if IDF(10, 0) <= IDF(10, 1) {
		t.Error("a rarer term must weigh more")
	}
}

func TestDecay(t *testing.T) {
	now := int64(1000 * day)
	tests := []struct {
		name     string
		updated  int64
		halfLife float64
		pinned   bool
		want     float64
	}{
		{"fresh", now, 0, false, 1},
		{"future", now + day, 0, false, 1},
		{"one default half-life", now - DefaultHalfLifeDays*day, 0, false, decayFloor + (1-decayFloor)/2},
		{"two half-lives of 7", now - 14*day, 7, false, decayFloor + (1-decayFloor)/4},
		{"ancient tends to the floor", now - 900*day, 0, false, decayFloor},
		{"pinned never decays", now - 900*day, 0, true, 1},
		{"decay off", now - 900*day, -1, false, 1},
	}
	for _, tt := range tests {
		if got := Decay(now, tt.updated, tt.halfLife, tt.pinned); !near(got, tt.want) && !(tt.want == decayFloor && got-decayFloor < 1e-6) {
			t.Errorf("%s: Decay = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestBoost(t *testing.T) {
	if Boost(0) != 1 {
		t.Errorf("Boost(0) = %v, want 1", Boost(0))
	}
	if got, want := Boost(1), 1+boostPerDoubling; !near(got, want) {
		t.Errorf("Boost(1) = %v, want %v", got, want)
	}
	if got, want := Boost(3), 1+2*boostPerDoubling; !near(got, want) {
		t.Errorf("Boost(3) = %v, want %v", got, want)
	}
	if Boost(1<<30) != maxBoost {
		t.Errorf("Boost is not capped at %v: %v", maxBoost, Boost(1<<30))
	}
}

func TestScoreIsTheProductOfItsFactors(t *testing.T) {
	now := int64(1000 * day)
	ix, _ := build(
		doc{summary: "deploy checklist", body: "run tests", meta: Meta{ID: "rules/a", Scope: memory.Global, Updated: now - 14*day, Hits: 3}},
		doc{summary: "unrelated words", body: "more filler", meta: Meta{ID: "facts/b", Updated: now}},
	)
	res := Rank(ix, "deploy checklist", Params{Now: now})
	if len(res.Hits) != 1 {
		t.Fatalf("hits = %d, want 1 (%+v)", len(res.Hits), res)
	}
	h := res.Hits[0]
	// Both terms occur once in the summary of doc 0 only; the summary's
	// length (2) and the average summary length (2) make the norm 1.
	tf := weightSummary * 1.0
	want := 2 * IDF(10, 1) * tf / (k1 + tf)
	if !near(h.Reasons.Relevance, want) {
		t.Errorf("relevance = %v, want %v", h.Reasons.Relevance, want)
	}
	factors := ScopeGlobal * (decayFloor + (1-decayFloor)/2) * (1 + 2*boostPerDoubling) * h.Reasons.Headline
	if !near(h.Score, want*factors) {
		t.Errorf("score = %v, want relevance × %v = %v", h.Score, factors, want*factors)
	}
	if h.Reasons.Scope != ScopeGlobal || !near(h.Reasons.Boost, 1+2*boostPerDoubling) {
		t.Errorf("reasons = %+v", h.Reasons)
	}
	if len(h.Reasons.Terms) != 2 || h.Reasons.Terms[0].Fields["summary"] != 1 {
		t.Errorf("term reasons = %+v", h.Reasons.Terms)
	}
}

func TestFieldWeights(t *testing.T) {
	// The same two terms in the summary of one memory and the body of
	// another, bodies and summaries of equal length: the summary wins by
	// the ratio the weights give.
	ix, metas := build(
		doc{summary: "redis timeout", body: "alpha beta", meta: Meta{ID: "a/summary"}},
		doc{summary: "alpha beta", body: "redis timeout", meta: Meta{ID: "a/body"}},
	)
	res := Rank(ix, "redis timeout", Params{Mode: Inject})
	if len(res.Hits) != 2 {
		t.Fatalf("hits = %v", res.Hits)
	}
	if metas[res.Hits[0].Doc].ID != "a/summary" {
		t.Fatalf("summary match must rank first: %v", res.Hits)
	}
	sat := func(tf float64) float64 { return tf / (k1 + tf) }
	ratio := res.Hits[0].Score / res.Hits[0].Reasons.Headline / (res.Hits[1].Score / res.Hits[1].Reasons.Headline)
	if want := sat(weightSummary) / sat(weightBody); !near(ratio, want) {
		t.Errorf("summary/body score ratio = %v, want %v", ratio, want)
	}
}

func TestSuperseded(t *testing.T) {
	ix, metas := build(
		doc{summary: "pnpm version eight", meta: Meta{ID: "facts/old", Superseded: true}},
		doc{summary: "pnpm version nine", meta: Meta{ID: "facts/new", Supersedes: "facts/other"}},
		doc{summary: "pnpm version seven", meta: Meta{ID: "facts/other"}}, // superseded_by never set
	)
	res := Rank(ix, "pnpm version", Params{Mode: Inject})
	if len(res.Hits) != 1 || metas[res.Hits[0].Doc].ID != "facts/new" {
		t.Fatalf("want only facts/new, got %+v", res.Hits)
	}
}

func TestProjectWins(t *testing.T) {
	t.Run("same subject, nothing new: dropped", func(t *testing.T) {
		ix, metas := build(
			doc{summary: "use pnpm for packages", triggers: "pnpm", meta: Meta{ID: "preferences/pnpm", Scope: memory.Global, LoadWhen: []string{"pnpm"}}},
			doc{summary: "admin uses npm, never pnpm packages", triggers: "pnpm", meta: Meta{ID: "rules/npm-only", LoadWhen: []string{"pnpm"}}},
		)
		res := Rank(ix, "pnpm packages", Params{Mode: Inject})
		if len(res.Hits) != 1 || metas[res.Hits[0].Doc].ID != "rules/npm-only" {
			t.Fatalf("want only the project memory, got %+v", res.Hits)
		}
	})
	t.Run("extra evidence: kept, but under the project memory", func(t *testing.T) {
		ix, metas := build(
			doc{summary: "money frontend float rounding money", triggers: "money", meta: Meta{ID: "pitfalls/float", Scope: memory.Global, LoadWhen: []string{"money"}}},
			doc{summary: "money in cents", triggers: "money", meta: Meta{ID: "rules/cents", LoadWhen: []string{"money"}}},
			doc{summary: "unrelated", meta: Meta{ID: "x/y"}},
		)
		res := Rank(ix, "money frontend rounding", Params{Mode: Inject})
		if len(res.Hits) != 2 {
			t.Fatalf("hits = %+v", res.Hits)
		}
		if metas[res.Hits[0].Doc].ID != "rules/cents" || res.Hits[1].Reasons.CappedBy != "rules/cents" {
			t.Fatalf("global must be capped under the project memory: %+v", res.Hits)
		}
		if !near(res.Hits[1].Score, res.Hits[0].Score*coverCap) {
			t.Errorf("capped score = %v, want %v", res.Hits[1].Score, res.Hits[0].Score*coverCap)
		}
	})
	t.Run("extra only a straddle of two words: dropped", func(t *testing.T) {
		// 时间存储 cut into bigrams holds 间存, which is no word: a global
		// memory whose only term of its own is 间存 (from 时间存的) says
		// nothing the project memory does not.
		ix, metas := build(
			doc{summary: "时间统一存 UTC", triggers: "时间存储 ; UTC", meta: Meta{ID: "preferences/utc", Scope: memory.Global, LoadWhen: []string{"时间存储", "UTC"}}},
			doc{summary: "订单的下单时间用 UTC", triggers: "UTC", meta: Meta{ID: "facts/order-time", LoadWhen: []string{"UTC"}}},
		)
		res := Rank(ix, "订单的下单时间存的是 UTC 吗", Params{Mode: Inject})
		for _, h := range res.Hits {
			if metas[h.Doc].Scope == memory.Global {
				t.Fatalf("the global memory must be dropped: %v", ids(metas, res.Hits))
			}
		}
		if len(res.Hits) == 0 {
			t.Fatal("no hits; the test proves nothing")
		}
	})
	t.Run("same id: dropped", func(t *testing.T) {
		ix, metas := build(
			doc{summary: "redis cluster hosts", meta: Meta{ID: "facts/redis", Scope: memory.Global}},
			doc{summary: "redis sentinel hosts", meta: Meta{ID: "facts/redis"}},
		)
		res := Rank(ix, "redis hosts cluster", Params{Mode: Inject})
		if len(res.Hits) != 1 || metas[res.Hits[0].Doc].Scope == memory.Global {
			t.Fatalf("got %+v", res.Hits)
		}
	})
	t.Run("shared trigger the query is not about: no conflict", func(t *testing.T) {
		ix, metas := build(
			doc{summary: "vue script setup options api", triggers: "vue", meta: Meta{ID: "preferences/setup", Scope: memory.Global, LoadWhen: []string{"vue"}}},
			doc{summary: "admin stack vite", triggers: "vue", meta: Meta{ID: "facts/stack", LoadWhen: []string{"vue"}}},
		)
		res := Rank(ix, "options api or script setup in admin", Params{Mode: Inject})
		if len(res.Hits) == 0 || metas[res.Hits[0].Doc].ID != "preferences/setup" {
			t.Fatalf("the global answer must lead: %+v", res.Hits)
		}
	})
}

func TestOrderIsTotal(t *testing.T) {
	// Identical text: equal scores; then newer first, then project first,
	// then id.
	ix, metas := build(
		doc{summary: "kafka retention policy", meta: Meta{ID: "facts/c", Updated: 5}},
		doc{summary: "kafka retention policy", meta: Meta{ID: "facts/b", Updated: 9}},
		doc{summary: "kafka retention policy", meta: Meta{ID: "facts/a", Updated: 5}},
	)
	res := Rank(ix, "kafka retention", Params{Now: 10, HalfLifeDays: -1})
	var got []string
	for _, h := range res.Hits {
		got = append(got, metas[h.Doc].ID)
	}
	want := []string{"facts/b", "facts/a", "facts/c"}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("order = %v, want %v", got, want)
	}
}

func TestQuiet(t *testing.T) {
	ix, _ := build(
		doc{summary: "deploy window is tuesday", body: "write the changelog first", meta: Meta{ID: "rules/window"}},
		doc{summary: "redis keys command blocks", body: "use scan instead", meta: Meta{ID: "pitfalls/keys"}},
		doc{summary: "日志统一用 JSON 输出", meta: Meta{ID: "preferences/log"}},
	)
	for _, q := range []string{
		"write me a haiku about autumn leaves", // one word in a body, the rest unknown
		"今天北京天气怎么样?",
		"好的,谢谢,辛苦了!",
		"",
		"the and of",
	} {
		if res := Rank(ix, q, Params{Mode: Inject}); len(res.Hits) != 0 {
			t.Errorf("%q: want no hits, got %+v", q, res.Hits)
		}
	}
	// A trigger-like single term in the summary of a familiar query counts.
	if res := Rank(ix, "what is the deploy window", Params{Mode: Inject}); len(res.Hits) != 1 {
		t.Errorf("want the deploy window rule, got %+v", res.Hits)
	}
	if res := Rank(ix, "日志格式", Params{Mode: Inject}); len(res.Hits) != 1 {
		t.Errorf("日志: want the logging preference, got %+v", res.Hits)
	}
}

func TestFamiliarity(t *testing.T) {
	ix, _ := build(doc{summary: "部署脚本用 pnpm", meta: Meta{ID: "a/b"}})
	tests := []struct {
		q    string
		want float64
	}{
		{"", 1},
		{"pnpm", 1},
		{"pnpm haiku", 0.5},
		{"部署", 1},
		{"部署天气", 0.5},
		{"的的的", 1}, // only function characters: nothing to know
	}
	for _, tt := range tests {
		if got := Familiarity(ix.Index(), tt.q); !near(got, tt.want) {
			t.Errorf("Familiarity(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
}

func TestTinyStores(t *testing.T) {
	// A new user's first memories must be found: with one or two memories
	// every idf is small, and no threshold may depend on its size.
	for _, docs := range [][]doc{
		{{summary: "部署脚本用 pnpm", body: "lockfile 不兼容", meta: Meta{ID: "pitfalls/pnpm"}}},
		{{summary: "部署脚本用 pnpm", body: "lockfile 不兼容", meta: Meta{ID: "pitfalls/pnpm"}}, {summary: "redis keys blocks", meta: Meta{ID: "pitfalls/redis"}}},
	} {
		ds := make([]index.Doc, len(docs))
		ms := make([]Meta, len(docs))
		for i, d := range docs {
			ds[i].Fields = [index.NumFields]string{d.summary, d.highlight, d.triggers, d.body}
			ms[i] = d.meta
		}
		c := NewCorpus(index.Build(ds), ms)
		for _, q := range []string{"部署用什么工具", "pnpm lockfile"} {
			res := Rank(c, q, Params{Mode: Inject})
			if len(res.Hits) != 1 || ms[res.Hits[0].Doc].ID != "pitfalls/pnpm" {
				t.Errorf("%d memories, %q: want pitfalls/pnpm, got %+v", len(docs), q, res.Hits)
			}
		}
	}
}

func TestQueryTerms(t *testing.T) {
	tests := []struct {
		q    string
		want []string
	}{
		// 需要 is a stop word; 认哪 and 些事 hold grammatical characters.
		{"部署前需要确认哪些事项?", []string{"部署", "署前", "前需", "要确", "确认", "事项"}},
		// 能直 sits between the stop words 不能 and 直接.
		{"能不能直接加个依赖", []string{"接加", "依赖"}},
		// 版本 sits between bigrams with grammatical characters (dropped
		// themselves), not between stop words: it stays.
		{"库的版本也升", []string{"版本"}},
		{"Deploying the pnpm-lock.yaml", []string{"deploy", "pnpm-lock.yaml", "pnpm", "lock", "yaml"}},
		// 过期 starts with the particle 过 but is a word of its own; 这段
		// starts with a pronoun.
		{"缓存过期了", []string{"缓存", "过期"}},
		{"这段代码", []string{"段代", "代码"}},
	}
	for _, tt := range tests {
		got := QueryTerms(tt.q)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("QueryTerms(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
}

// The selection stops early with a limit; it must return exactly the first
// hits of the unlimited ranking, conflicts between roots included, and
// Explain must not change the hits.
func TestLimitEqualsPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// deploy, cache and coupon are the translations of 部署, 缓存 and
	// 优惠券: memories that hold a word both itself and through its
	// translation, which is worth more at times (优惠券's two bigrams).
	words := []string{"部署", "缓存", "超时", "回滚", "优惠券", "deploy", "cache", "coupon"}
	for i := range 40 {
		words = append(words, fmt.Sprintf("w%c", 'a'+i%26)+fmt.Sprintf("%c", 'a'+i/26))
	}
	pick := func(n int) string {
		var ws []string
		for range n {
			ws = append(ws, words[rng.IntN(len(words))])
		}
		return strings.Join(ws, " ")
	}
	var docs []doc
	for i := range 300 {
		trig := []string{pick(1), pick(2)}
		id := i
		if i >= 150 && i%3 == 0 {
			id = i - 150 // a global memory with a project twin
		}
		m := Meta{ID: fmt.Sprintf("c%d/m%d", i%5, id), Scope: []memory.Scope{memory.Project, memory.Global}[i/150], Updated: int64(rng.IntN(100)) * day, Pinned: i%17 == 0, Hits: rng.IntN(5), LoadWhen: trig}
		body := pick(4)
		if m.Scope == memory.Global {
			body += fmt.Sprintf(" gonly%c", 'a'+rng.IntN(6)) // words no project memory has
		}
		docs = append(docs, doc{summary: pick(3), highlight: pick(1), triggers: strings.Join(trig, " ; "), body: body, meta: m})
	}
	c, metas := build(docs...)
	capped, covered := 0, 0
	for q := range 200 {
		query := pick(1 + q%5)
		if q%2 == 0 {
			query += fmt.Sprintf(" gonly%c", 'a'+rng.IntN(6))
		}
		p := Params{Now: 100 * day, Mode: []Mode{Inject, Search}[q%3%2]}
		all := Rank(c, query, Params{Now: p.Now, Mode: p.Mode, Explain: true})
		sumsToRelevance(t, query, metas, all)
		for _, h := range all.Hits {
			if h.Reasons.CappedBy != "" {
				capped++
			}
		}
		for _, d := range all.Dropped {
			if strings.HasPrefix(d.Reason, "covered by") {
				covered++
			}
		}
		for _, k := range []int{1, 2, 4, 10} {
			p.Limit = k
			got := Rank(c, query, p).Hits
			want := all.Hits[:min(k, len(all.Hits))]
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q limit %d:\n got  %v\n want %v", query, k, got, want)
			}
			p.Explain = true
			if ex := Rank(c, query, p).Hits; !reflect.DeepEqual(ex, want) {
				t.Fatalf("%q limit %d with Explain:\n got  %v\n want %v", query, k, ex, want)
			}
			p.Explain = false
		}
	}
	// The corpus must exercise project-wins, or the test proves little.
	t.Logf("%d capped, %d covered", capped, covered)
	if capped == 0 || covered == 0 {
		t.Errorf("no conflict exercised: %d capped, %d covered", capped, covered)
	}
}

// FromColumns over a corpus's own columns ranks exactly as the corpus, and
// refuses columns that do not fit the index.
func TestFromColumns(t *testing.T) {
	c, _ := build(
		doc{summary: "use pnpm for packages", triggers: "pnpm", meta: Meta{ID: "preferences/pnpm", Scope: memory.Global, LoadWhen: []string{"pnpm"}}},
		doc{summary: "admin uses npm, never pnpm packages", triggers: "pnpm", meta: Meta{ID: "rules/npm-only", LoadWhen: []string{"pnpm"}}},
		doc{summary: "pnpm lockfile conflicts", meta: Meta{ID: "preferences/pnpm"}},
	)
	d, err := FromColumns(c.Index(), c.Columns())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"pnpm", "pnpm packages", "lockfile"} {
		if a, b := Rank(c, q, Params{Mode: Inject}), Rank(d, q, Params{Mode: Inject}); !reflect.DeepEqual(a, b) {
			t.Errorf("%q: %+v vs %+v", q, a, b)
		}
	}
	cols := c.Columns()
	cols.Hits = cols.Hits[1:]
	if _, err := FromColumns(c.Index(), cols); err == nil {
		t.Error("short column accepted")
	}
	cols = c.Columns()
	cols.SameID = slices.Clone(cols.SameID)
	cols.SameID[1] = 0 // a project document cannot have a project twin
	if _, err := FromColumns(c.Index(), cols); err == nil {
		t.Error("bad link accepted")
	}
}

// An identifier and its parts are one piece of evidence, and numbers of one
// or two digits and single letters are none: a body that merely holds
// them is not a hit for injection.
func TestEvidencePieces(t *testing.T) {
	c, metas := build(
		doc{summary: "heap limit of the build", body: "the javascript runtime; java and script tags", meta: Meta{ID: "pitfalls/heap"}},
		doc{summary: "pagination", body: "loop x over range 10 in steps of 2", meta: Meta{ID: "pitfalls/page"}},
		doc{summary: "release steps", body: "tag the javascript bundle, then upload the bundle", meta: Meta{ID: "rules/release"}},
	)
	for _, q := range []string{
		"What does the ?. operator do in JavaScript", // javascript, java, script: one piece
		"x for x in range 10 if x % 2",               // range only; 10, 2 and x are no evidence
	} {
		if res := Rank(c, q, Params{Mode: Inject}); len(res.Hits) != 0 {
			t.Errorf("%q: want no hits, got %v", q, ids(metas, res.Hits))
		}
	}
	// Two pieces: the identifier and another term.
	if res := Rank(c, "JavaScript bundle upload", Params{Mode: Inject}); len(res.Hits) == 0 || metas[res.Hits[0].Doc].ID != "rules/release" {
		t.Errorf("want rules/release, got %v", ids(metas, res.Hits))
	}
}

func ids(metas []Meta, hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, metas[h.Doc].ID)
	}
	return out
}

// Search mode returns every memory holding a query term; the ones injection
// would refuse come after the others and say why.
func TestSearchMode(t *testing.T) {
	c, metas := build(
		doc{summary: "商品详情页", body: "缓存要清", meta: Meta{ID: "pitfalls/detail"}},
		doc{summary: "预热策略", body: "上线前预热缓存", meta: Meta{ID: "decisions/warmup"}},
	)
	inj := Rank(c, "详情 缓存", Params{Mode: Inject})
	if got := ids(metas, inj.Hits); !slices.Equal(got, []string{"pitfalls/detail"}) {
		t.Fatalf("inject: got %v, want pitfalls/detail only", got)
	}
	res := Rank(c, "详情 缓存", Params{Mode: Search})
	if got := ids(metas, res.Hits); !slices.Equal(got, []string{"pitfalls/detail", "decisions/warmup"}) {
		t.Fatalf("search: got %v, want both, the strong one first", got)
	}
	if res.Hits[0].Reasons.Weak != "" || res.Hits[1].Reasons.Weak == "" {
		t.Errorf("search: weak reasons %q, %q; want only the second weak", res.Hits[0].Reasons.Weak, res.Hits[1].Reasons.Weak)
	}
	// One word held only by a body: search finds it, injection says why not.
	if res := Rank(c, "缓存", Params{Mode: Search}); len(res.Hits) != 2 {
		t.Errorf("search 缓存: got %v, want both memories", ids(metas, res.Hits))
	}
	if res := Rank(c, "帮我看看 haiku autumn 要清", Params{Mode: Inject}); len(res.Hits) != 0 || res.Quiet == "" {
		t.Errorf("inject: got %v, quiet %q; want nothing and a reason", ids(metas, res.Hits), res.Quiet)
	}
}

// A message whose known terms are all common language gets nothing from
// injection, whatever memories hold them, and says why; a name, an
// identifier or an uncommon word anchors it.
func TestAnchorGate(t *testing.T) {
	c, metas := build(
		doc{summary: "继续用 Gin 框架", body: "不换 Echo", meta: Meta{ID: "decisions/gin"}},
		doc{summary: "run the tests before deploy", body: "make test runs every test", meta: Meta{ID: "rules/tests"}},
		doc{summary: "Playwright: wait for the next toast", body: "the next toast hides the button", meta: Meta{ID: "pitfalls/toast"}},
	)
	for _, q := range []string{"继续吧", "run the tests again please", "ok, next one", "Run tests, next"} {
		res := Rank(c, q, Params{Mode: Inject})
		if len(res.Hits) != 0 || !strings.HasPrefix(res.Quiet, "no anchor") {
			t.Errorf("inject %q: got %v, quiet %q; want nothing, no anchor", q, ids(metas, res.Hits), res.Quiet)
		}
		if res := Rank(c, q, Params{Mode: Search}); len(res.Hits) == 0 {
			t.Errorf("search %q: got nothing; the gate is for injection only", q)
		}
	}
	for q, want := range map[string]string{
		"继续用 Gin 吗":                      "decisions/gin",  // a name
		"is the Playwright toast flaky":  "pitfalls/toast", // a name, mid-sentence
		"run make_test before deploying": "rules/tests",    // an identifier, an uncommon word
	} {
		if res := Rank(c, q, Params{Mode: Inject}); len(res.Hits) == 0 || metas[res.Hits[0].Doc].ID != want {
			t.Errorf("inject %q: got %v, want %s first", q, ids(metas, res.Hits), want)
		}
	}
}

func TestIsAnchor(t *testing.T) {
	for _, tt := range []struct {
		text, word string
		want       bool
	}{
		{"run the tests again", "run", false},
		{"Run the tests again", "run", false}, // a capital at a sentence start says nothing
		{"ask Redis", "redi", true},
		{"Done. Run it", "run", false}, // a sentence start again
		{"the TTL is short", "ttl", true},
		{"set max_conns", "max_conns", true},
		{"set error_count", "error", false}, // a part is judged as a word
		{"open internal/payment", "payment", true},
		{"error 1040", "1040", true},
		{"at 10", "10", false},
		{"继续吧", "继续", false},
		{"部署前", "部署", true},
		{"the kubernetes pods", "kubernet", true}, // not an everyday word
	} {
		found := false
		for _, tok := range textseg.Tokenize(tt.text) {
			if tok.Text == tt.word {
				found = true
				if got := isAnchor(tt.text, tok); got != tt.want {
					t.Errorf("isAnchor(%q, %q) = %v, want %v", tt.text, tt.word, got, tt.want)
				}
				break
			}
		}
		if !found {
			t.Errorf("%q: no token %q", tt.text, tt.word)
		}
	}
}

// An English question finds a Chinese memory, and back, through CC-CEDICT;
// a translation weighs less than the word itself, is at most one piece of
// evidence, and shows in the reasons.
func TestTranslation(t *testing.T) {
	c, metas := build(
		doc{summary: "登录后购物车合并", body: "未登录时加入的商品在登录后合并到用户的购物车", meta: Meta{ID: "pitfalls/cart-merge"}},
		doc{summary: "database index missing on the orders table", body: "add the index before the flash sale", meta: Meta{ID: "pitfalls/db-index"}},
		doc{summary: "shopping cart page", body: "the shopping cart lists items", meta: Meta{ID: "facts/cart-page"}},
	)
	res := Rank(c, "why is the shopping cart empty after the user logs in at Acme?", Params{Mode: Inject})
	got := ids(metas, res.Hits)
	if !slices.Contains(got, "pitfalls/cart-merge") {
		t.Fatalf("English question: got %v, want pitfalls/cart-merge", got)
	}
	if got[0] != "facts/cart-page" {
		t.Errorf("English question: got %v; the memory holding the words themselves must rank first", got)
	}
	for _, h := range res.Hits {
		if metas[h.Doc].ID != "pitfalls/cart-merge" {
			continue
		}
		var via []string
		for _, tr := range h.Reasons.Terms {
			via = append(via, tr.Via)
		}
		if !slices.Contains(via, `购物车 ← "shopping cart" (CC-CEDICT)`) {
			t.Errorf("reasons %v do not name the translation", via)
		}
	}
	if got := ids(metas, Rank(c, "大促的时候 MySQL 数据库的索引没建", Params{Mode: Inject}).Hits); !slices.Contains(got, "pitfalls/db-index") {
		t.Errorf("Chinese question: got %v, want pitfalls/db-index", got)
	}
	// Without an anchor there is no injection, so no translation either.
	if got := Rank(c, "the shopping, log in again", Params{Mode: Inject}).Hits; len(got) != 0 {
		t.Errorf("unanchored question: got %v, want nothing", ids(metas, got))
	}
}

func TestReadMessage(t *testing.T) {
	msg := "Integration tests hang at:\n" + // prose
		"2026/11/29 10:12:44 Creating container for image ryuk:0.6.0\n" + // pasted: starts with a digit
		"  File \"scrape.py\", line 12, in <module>\n" + // pasted: indented
		"NameError: name 'x' is not defined\n" + // reports an error, so full weight
		"```go\n" + "total := price * 0.85\n" + "```\n" + // fenced code
		"why?"
	for _, tt := range []struct {
		line    string
		weight  float64
		context bool
	}{
		{"Integration", weightProse, false},
		{"Creating", weightPasted, true},
		{"scrape.py", weightPasted, true},
		{"NameError", weightError, false},
		{"total", weightPasted, true},
		{"why", weightProse, false},
	} {
		i := strings.Index(msg, tt.line)
		w := readMessage(msg)
		if got := w.at(i); got != tt.weight {
			t.Errorf("%q: weight %v, want %v", tt.line, got, tt.weight)
		}
		if got := w.context(i); got != tt.context {
			t.Errorf("%q: context %v, want %v", tt.line, got, tt.context)
		}
	}
	if w := readMessage("one line, all prose"); w.at(3) != weightProse || w.context(3) {
		t.Errorf("a one-line message must be prose")
	}
}

// The common words of a pasted traceback (line, text, file) are no
// evidence: a message that is a stranger's stack trace gets nothing.
func TestPastedCommonWordsAreNoEvidence(t *testing.T) {
	c, metas := build(
		doc{summary: "git converts line endings", body: "set text=auto in .gitattributes, html files too", triggers: "line endings", meta: Meta{ID: "pitfalls/crlf", LoadWhen: []string{"line endings"}}},
	)
	trace := "Traceback (most recent call last):\n  File \"scrape.py\", line 12, in <module>\n    soup = BeautifulSoup(resp.text, \"html.parser\")\nNameError: name 'BeautifulSoup' is not defined\nthis is my side project"
	if res := Rank(c, trace, Params{Mode: Inject}); len(res.Hits) != 0 {
		t.Errorf("traceback: got %v, want nothing", ids(metas, res.Hits))
	}
	// The same words written by the person are evidence.
	if res := Rank(c, "git keeps changing line endings of text files", Params{Mode: Inject}); len(res.Hits) == 0 {
		t.Errorf("question: got nothing, want pitfalls/crlf")
	}
}

// A message whose only matches are translations has no direct mass to
// measure coverage against: its coverage is still a number (JSON cannot
// encode an infinity, and `coverage +Inf` tells a reader nothing).
func TestCoverageOfTranslationsOnly(t *testing.T) {
	c, metas := build(
		doc{summary: "部署前先执行数据库迁移", triggers: "部署", body: "部署之前先执行 make migrate，否则表结构不匹配。", meta: Meta{ID: "pitfalls/deploy-migrate"}},
	)
	for _, mode := range []Mode{Search, Inject} {
		hits := Rank(c, "how do I deploy to production?", Params{Mode: mode}).Hits
		if got := ids(metas, hits); !slices.Contains(got, "pitfalls/deploy-migrate") {
			t.Fatalf("mode %v: got %v, want pitfalls/deploy-migrate through the translation of deploy", mode, got)
		}
		for _, h := range hits {
			if cov := h.Reasons.Coverage; math.IsInf(cov, 0) || math.IsNaN(cov) || cov < 0 {
				t.Errorf("mode %v, %s: coverage %v, want a finite number", mode, metas[h.Doc].ID, cov)
			}
			if _, err := json.Marshal(h.Reasons); err != nil {
				t.Errorf("mode %v, %s: reasons do not encode: %v", mode, metas[h.Doc].ID, err)
			}
		}
	}
}

// A message that gets nothing says why in words true of it: one that names
// a one-word trigger in a statement is told so, not that it names none.
func TestQuietReasonOfUnnamed(t *testing.T) {
	c, _ := build(
		doc{summary: "the local Postgres listens on port 5433", triggers: "postgres database 数据库",
			body: "the dev database moved to 5433", meta: Meta{ID: "facts/db-port", LoadWhen: []string{"postgres", "database", "数据库"}}},
		doc{summary: "services log through the shared logger", triggers: "logging",
			meta: Meta{ID: "facts/logging", LoadWhen: []string{"logging"}}},
	)
	for _, tt := range []struct {
		q, want, not string
	}{
		{q: "the database is slow today", want: `names the trigger "database" but does not ask about it`, not: "names no memory's trigger"},
		{q: "the port is slow today", want: "names no memory's trigger whole", not: "names the trigger"},
	} {
		res := Rank(c, tt.q, Params{Mode: Inject})
		if len(res.Hits) != 0 {
			t.Errorf("inject %q: got %d hits, want none", tt.q, len(res.Hits))
			continue
		}
		if !strings.Contains(res.Quiet, tt.want) || strings.Contains(res.Quiet, tt.not) {
			t.Errorf("inject %q: quiet %q; want it to say %q, not %q", tt.q, res.Quiet, tt.want, tt.not)
		}
	}
	if res := Rank(c, "which port does the database use", Params{Mode: Inject}); len(res.Hits) != 1 {
		t.Errorf("a question naming the trigger: got %d hits, want facts/db-port", len(res.Hits))
	}
}

// A number of one or two digits or a single letter matches at weightShort
// of a word: a version string shares its digits with every memory that
// holds one.
func TestShortTermsWeighLess(t *testing.T) {
	ix, _ := build(doc{summary: "upgrade step 2 x", meta: Meta{ID: "facts/upgrade"}})
	res := Rank(ix, "upgrade step 2 x", Params{Mode: Search, Now: 1})
	if len(res.Hits) != 1 {
		t.Fatalf("hits = %+v, want facts/upgrade", res.Hits)
	}
	score := map[string]float64{}
	for _, tr := range res.Hits[0].Reasons.Terms {
		score[tr.Term] = tr.Score
	}
	for _, short := range []string{"2", "x"} {
		// Every term is held by the one memory, once, in its summary:
		// the same idf and saturation, so only the weight differs.
		if got, want := score[short]/score["upgrad"], weightShort; !near(got, want) {
			t.Errorf("%s weighs %v of a word (scores %v), want weightShort = %v", short, got, score, want)
		}
	}
}
