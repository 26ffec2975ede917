package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/rank"
	"github.com/ocmem/ocmem/internal/sessionlog"
	"github.com/ocmem/ocmem/internal/store"
)

func mustInject(t *testing.T, e *Engine, msg string, o InjectOptions) *Injection {
	t.Helper()
	inj, err := e.Inject(msg, o)
	if err != nil {
		t.Fatalf("Inject(%q): %v", msg, err)
	}
	return inj
}

// addFiller writes memories about other topics: in a store where every
// memory shares the query's words, those words tell nothing apart and the
// ranker rightly returns nothing.
func addFiller(t *testing.T, e *Engine, n int) {
	t.Helper()
	topics := []string{"PostgreSQL vacuum", "Docker layer cache", "前端构建缓存", "Terraform state lock", "gRPC deadline", "日志轮转策略", "TLS certificate renewal", "Go module proxy"}
	for i := range n {
		topic := topics[i%len(topics)]
		mustRemember(t, e, RememberRequest{Category: "facts", Kind: memory.KindFact,
			Summary: fmt.Sprintf("%s note %d", topic, i), LoadWhen: []string{topic}, Body: topic + " details.\n"})
	}
}

func mustStable(t *testing.T, e *Engine) *Injection {
	t.Helper()
	inj, err := e.Stable()
	if err != nil {
		t.Fatal(err)
	}
	return inj
}

// rootMD is a ROOT.md a person wrote, with a hard-rules section.
func rootMD(rules ...string) string {
	return "# Memory\n\n## Goals\n\nShip.\n\n## Hard rules\n\n<!-- written by people -->\n" +
		strings.Join(rules, "\n") + "\n\n## Notes\n\nNot a rule: NOTES-ARE-NOT-RULES.\n"
}

func TestInjectRulesTier(t *testing.T) {
	rs := newRoots(t)
	writeString(t, filepath.Join(rs.global, store.RootFile), rootMD("- GLOBAL-ROOT-RULE: never commit secrets."))
	writeString(t, filepath.Join(rs.project, store.RootFile), rootMD("- PROJECT-ROOT-RULE: run make check before pushing."))
	e := rs.engine(options.Options{MaxInjectChars: 100, MaxOutlineChars: 600})

	// A huge rule body: the rules tier is never cut, whatever the budgets.
	var huge strings.Builder
	for i := range 400 {
		fmt.Fprintf(&huge, "Line %d of the global release rule: 发布前必须跑完整测试。\n", i)
	}
	gRule := mustRemember(t, e, RememberRequest{Scope: store.Global, Category: "rules", Kind: memory.KindRule,
		Summary: "GLOBAL-MEMORY-RULE release checklist", Highlight: "Tag only from main", Body: huge.String(), LoadWhen: []string{"release"}})
	pRule := mustRemember(t, e, RememberRequest{Scope: store.Project, Category: "rules", Kind: memory.KindRule,
		Summary: "PROJECT-MEMORY-RULE use pnpm, not npm", LoadWhen: []string{"pnpm"}})
	prop := mustRemember(t, e, RememberRequest{Scope: store.Project, Category: "rules", Kind: memory.KindRule,
		Summary: "PROPOSED-RULE always squash merges", Source: FromModel})
	if prop.Kind != memory.KindRuleProposal {
		t.Fatalf("a model's rule was stored as %s", prop.Kind)
	}
	old := mustRemember(t, e, RememberRequest{Scope: store.Project, Category: "rules", Kind: memory.KindRule, Summary: "OLD-RULE use yarn"})
	mustRemember(t, e, RememberRequest{Scope: store.Project, Category: "rules", Kind: memory.KindRule, Summary: "NEW-RULE use pnpm workspaces", Supersedes: old.ID})
	mustRemember(t, e, RememberRequest{Scope: store.Project, Category: "facts", Kind: memory.KindFact, Summary: "FACT the CI runs on GitHub Actions"})

	for _, msg := range []string{"", "how do I bake bread", "release checklist pnpm"} {
		inj := mustInject(t, e, msg, InjectOptions{})
		r := inj.Rules
		order := []string{"GLOBAL-ROOT-RULE", "GLOBAL-MEMORY-RULE", "PROJECT-ROOT-RULE", "PROJECT-MEMORY-RULE"}
		last := -1
		for _, s := range order {
			i := strings.Index(r, s)
			if i < 0 {
				t.Fatalf("message %q: rules tier lacks %s:\n%s", msg, s, r)
			}
			if i < last {
				t.Errorf("message %q: %s comes before the one listed ahead of it; want global, then project", msg, s)
			}
			last = i
		}
		for _, line := range strings.Split(strings.TrimSpace(huge.String()), "\n") {
			if !strings.Contains(r, line) {
				t.Fatalf("message %q: the huge rule body was cut; %q is missing", msg, line)
			}
		}
		if !strings.Contains(r, "Tag only from main") {
			t.Errorf("rule highlight missing from the rules tier")
		}
		for _, not := range []string{"PROPOSED-RULE", "OLD-RULE", "FACT the CI", "NOTES-ARE-NOT-RULES", "written by people"} {
			if strings.Contains(r, not) {
				t.Errorf("message %q: rules tier contains %q", msg, not)
			}
		}
		if !strings.Contains(r, "NEW-RULE") {
			t.Errorf("the superseding rule is missing from the rules tier")
		}
		// A proposal is listed in the outline, marked as not in force.
		if !strings.Contains(inj.Outline, "PROPOSED-RULE always squash merges (rule proposal, not in force)") {
			t.Errorf("outline does not list the rule proposal as such:\n%s", inj.Outline)
		}
		// Rules are in the rules tier in full, never repeated as bodies.
		for _, k := range inj.Given {
			if k == "global:"+gRule.ID || k == "project:"+pRule.ID {
				t.Errorf("message %q: rule %s given again as a body", msg, k)
			}
		}
	}
}

func TestInjectOutlineDegrades(t *testing.T) {
	rs := newRoots(t)
	const n = 300
	cats := []string{"decisions", "facts", "pitfalls", "preferences"}
	var pinned []string
	for i := range n {
		m := &memory.Memory{
			ID:       fmt.Sprintf("%s/memory-%03d", cats[i%len(cats)], i),
			Kind:     memory.KindFact,
			Summary:  fmt.Sprintf("Memory number %d about 子系统 %d and its quirks", i, i%17),
			Created:  testNow.UnixMilli() - int64(n-i)*60_000,
			Updated:  testNow.UnixMilli() - int64(n-i)*60_000,
			LoadWhen: []string{fmt.Sprintf("trigger-%d", i)},
			Body:     "body\n",
		}
		if i < 3 { // the oldest ones: kept only because they are pinned
			m.Pinned = true
			pinned = append(pinned, "project:"+m.ID)
		}
		writeMemory(t, rs.project, m)
	}
	if _, err := rs.engine(options.Options{}).Compile(); err != nil {
		t.Fatal(err)
	}
	moreRE := regexp.MustCompile(`(?m)^… (\d+) more not listed`)
	lineRE := regexp.MustCompile(`(?m)^- (project:[^ ]+) — `)
	for _, budget := range []int{0, 8000, 2000, 1000} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			o := mustStable(t, rs.engine(options.Options{MaxOutlineChars: budget})).Outline
			want := budget
			if want == 0 {
				want = options.DefaultMaxOutlineChars
			}
			if got := utf8.RuneCountInString(o); got > want {
				t.Errorf("outline is %d characters, over its budget of %d", got, want)
			}
			if !strings.Contains(o, "project (300): decisions 75, facts 75, pitfalls 75, preferences 75") {
				t.Errorf("outline lacks the counts per category:\n%s", o)
			}
			listed := lineRE.FindAllStringSubmatch(o, -1)
			keys := make([]string, len(listed))
			for i, l := range listed {
				keys[i] = l[1]
			}
			for _, p := range pinned {
				if !slices.Contains(keys, p) {
					t.Errorf("pinned %s left out of the outline", p)
				}
			}
			if !slices.Contains(keys, "project:"+fmt.Sprintf("%s/memory-%03d", cats[(n-1)%len(cats)], n-1)) {
				t.Errorf("the most recent memory is left out of the outline")
			}
			more := moreRE.FindStringSubmatch(o)
			if more == nil {
				t.Fatalf("a degraded outline does not say how many are left out:\n%s", o)
			}
			if k, _ := strconv.Atoi(more[1]); k+len(keys) != n {
				t.Errorf("outline lists %d and says %d more; want %d in all", len(keys), k, n)
			}
			if !slices.IsSorted(keys) {
				t.Errorf("listed lines are not in id order")
			}
		})
	}
	// A small store is listed in full.
	small := newRoots(t)
	e := small.engine(options.Options{})
	for i := range 5 {
		mustRemember(t, e, RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: fmt.Sprintf("Small fact %d", i), LoadWhen: []string{"小"}})
	}
	o := mustStable(t, e).Outline
	if strings.Contains(o, "more not listed") || len(lineRE.FindAllString(o, -1)) != 5 {
		t.Errorf("a small outline is not complete:\n%s", o)
	}
	if !strings.Contains(o, "- project:facts/small-fact-0 — Small fact 0 (when: 小)") {
		t.Errorf("outline line lacks its summary or triggers:\n%s", o)
	}
}

func TestStableIsByteIdentical(t *testing.T) {
	rs := newRoots(t)
	writeString(t, filepath.Join(rs.global, store.RootFile), rootMD("- 永远不要提交密钥。"))
	e := rs.engine(options.Options{})
	for i := range 30 {
		scope := []store.Scope{store.Global, store.Project}[i%2]
		kind := memory.Kinds[i%len(memory.Kinds)]
		mustRemember(t, e, RememberRequest{Scope: scope, Category: options.DefaultCategories[i%5], Kind: kind,
			Summary: fmt.Sprintf("记忆 %d: deploy notes %d", i, i), LoadWhen: []string{"部署", fmt.Sprint("t", i)}, Pinned: i%7 == 0,
			Body: "正文。\n"})
	}
	first := mustStable(t, e).System()
	if first == "" {
		t.Fatal("empty stable tiers")
	}
	check := func(what, got string) {
		t.Helper()
		if got != first {
			t.Errorf("%s: stable tiers differ from the first computation", what)
		}
	}
	check("same engine, again", mustStable(t, e).System())
	e.Invalidate()
	check("same engine, reloaded", mustStable(t, e).System())
	check("second engine", mustStable(t, rs.engine(options.Options{})).System())
	later := New(Config{GlobalDir: rs.global, ProjectDir: rs.project, Now: func() time.Time { return testNow.Add(400 * 24 * time.Hour) }})
	check("engine with a later clock", mustStable(t, later).System())
	check("Inject's system part", mustInject(t, e, "部署 deploy notes", InjectOptions{}).System())
	// Counting recalls changes .state.json, never the cached prefix.
	if _, err := e.Recall("deploy notes", RecallOptions{Count: true}); err != nil {
		t.Fatal(err)
	}
	check("after a counted recall", mustStable(t, e).System())
	check("fresh engine after a counted recall", mustStable(t, rs.engine(options.Options{})).System())
}

var (
	memoryBlockRE = regexp.MustCompile(`(?s)<memory id="([^"]*)" scope="([^"]*)" kind="[^"]*" updated="(?:\d{4}-\d\d-\d\d|unknown)">\n(.*?)\n</memory>\n`)
	cutPointerRE  = regexp.MustCompile(`\n… \(cut to fit; memory_recall "([^"]*)" returns the full text\)$`)
)

// bodyBlock is one <memory> element of the bodies tier.
type bodyBlock struct {
	key     string // scope:id
	content string // the memory's text as given, the cut pointer removed
	cut     bool
}

func parseBodies(t *testing.T, bodies string) []bodyBlock {
	t.Helper()
	var out []bodyBlock
	for _, m := range memoryBlockRE.FindAllStringSubmatch(bodies, -1) {
		b := bodyBlock{key: m[2] + ":" + m[1], content: m[3]}
		if p := cutPointerRE.FindStringSubmatch(b.content); p != nil {
			if p[1] != m[1] {
				t.Errorf("cut pointer of %s names %q", b.key, p[1])
			}
			b.content, b.cut = b.content[:len(b.content)-len(p[0])], true
		}
		out = append(out, b)
	}
	return out
}

// fullText is what renderBodies gives of a memory when it fits: summary,
// highlight and body, one per line.
func fullText(m *memory.Memory) string {
	s := compile.OneLine(m.Summary)
	if m.Highlight != "" {
		s += "\n" + compile.OneLine(m.Highlight)
	}
	if b := strings.TrimSpace(m.Body); b != "" {
		s += "\n" + b
	}
	return s
}

func TestInjectBodiesBudget(t *testing.T) {
	rs := newRoots(t)
	e := rs.engine(options.Options{})
	mems := map[string]*memory.Memory{}
	add := func(summary, body string) {
		w := mustRemember(t, e, RememberRequest{Category: "pitfalls", Kind: memory.KindPitfall, Summary: summary,
			Highlight: "Kafka 保留策略按分区计算", LoadWhen: []string{"kafka", "retention"}, Body: body})
		mems[string(w.Scope)+":"+w.ID] = readMemory(t, w.Path)
	}
	var sentences strings.Builder
	for i := range 60 {
		fmt.Fprintf(&sentences, "第%d句：Kafka 的保留策略按分区生效。", i)
	}
	add("Kafka retention is per partition", sentences.String())
	add("Kafka retention bytes versus time", strings.Repeat("保留字节与保留时间先到先删", 40))
	add("Kafka retention and compaction", "Short body about kafka retention and compaction.\n")
	for i := range 5 {
		add(fmt.Sprintf("Kafka retention note %d", i), strings.Repeat(fmt.Sprintf("Retention note %d line.\n", i), 30))
	}
	addFiller(t, e, 16)
	const query = "kafka retention 保留策略"

	sawCut, sawSeveral := false, false
	for _, tt := range []struct{ entries, chars int }{{0, 0}, {2, 300}, {3, 500}, {8, 100}, {1, 5000}, {8, 3000}} {
		t.Run(fmt.Sprintf("entries=%d,chars=%d", tt.entries, tt.chars), func(t *testing.T) {
			o := options.Options{MaxInjectEntries: tt.entries, MaxInjectChars: tt.chars}
			e := rs.engine(o)
			entries, chars := o.MaxInjectEntriesOrDefault(), o.MaxInjectCharsOrDefault()
			inj := mustInject(t, e, query, InjectOptions{})
			if !utf8.ValidString(inj.Bodies) {
				t.Fatalf("bodies are not valid UTF-8")
			}
			if len(inj.Given) == 0 || len(inj.Given) > entries {
				t.Fatalf("%d bodies given, want 1..%d", len(inj.Given), entries)
			}
			blocks := parseBodies(t, inj.Bodies)
			if len(blocks) != len(inj.Given) {
				t.Fatalf("%d <memory> blocks for %d given:\n%s", len(blocks), len(inj.Given), inj.Bodies)
			}
			total := 0
			for i, b := range blocks {
				if b.key != inj.Given[i] {
					t.Errorf("block %d is %s, Given says %s", i, b.key, inj.Given[i])
				}
				m := mems[b.key]
				if m == nil {
					t.Fatalf("unknown memory %s given", b.key)
				}
				full := fullText(m)
				total += utf8.RuneCountInString(b.content)
				if !b.cut {
					if b.content != full {
						t.Errorf("%s given uncut but different from its text:\n%q\nwant\n%q", b.key, b.content, full)
					}
					continue
				}
				if !strings.HasPrefix(full, b.content) || len(b.content) >= len(full) {
					t.Errorf("%s: cut text is not a proper prefix of the memory's text: %q", b.key, b.content)
					continue
				}
				if !utf8.ValidString(b.content) {
					t.Errorf("%s: cut inside a character", b.key)
				}
				// The first body has sentence ends every ~25 characters: the
				// cut must land on one (or on a line end).
				if strings.Contains(m.Body, "第0句") {
					next := full[len(b.content):]
					if !strings.HasSuffix(b.content, "。") && !strings.HasPrefix(next, "\n") {
						t.Errorf("%s: cut mid-sentence: …%q | %q…", b.key, lastRunes(b.content, 10), firstRunes(next, 10))
					}
				}
			}
			for _, b := range blocks {
				sawCut = sawCut || b.cut
			}
			sawSeveral = sawSeveral || len(blocks) > 1
			if total > chars {
				t.Errorf("bodies hold %d characters of memory text, over maxInjectChars %d", total, chars)
			}
		})
	}
	if !sawCut || !sawSeveral {
		t.Errorf("no case cut a body (%v) or gave several (%v): the cases no longer test the budget", sawCut, sawSeveral)
	}
}

func lastRunes(s string, n int) string {
	r := []rune(s)
	return string(r[max(0, len(r)-n):])
}

func firstRunes(s string, n int) string {
	r := []rune(s)
	return string(r[:min(n, len(r))])
}

func TestInjectSeenSuppressesRepeats(t *testing.T) {
	rs := newRoots(t)
	e := rs.engine(options.Options{MaxInjectEntries: 2})
	for i := range 5 {
		mustRemember(t, e, RememberRequest{Category: "facts", Kind: memory.KindFact,
			Summary: fmt.Sprintf("Redis cache eviction fact %d", i), LoadWhen: []string{"redis"}, Body: "Redis eviction uses allkeys-lru.\n"})
	}
	addFiller(t, e, 16)
	const q = "redis cache eviction"
	first := mustInject(t, e, q, InjectOptions{})
	if len(first.Given) != 2 || len(first.Repeated) != 0 {
		t.Fatalf("first turn: given %v, repeated %v", first.Given, first.Repeated)
	}
	given, marked := map[string]bool{}, map[string]bool{}
	for i, k := range first.Given {
		given[k] = true
		marked[first.Marks[i]] = true
	}
	second := mustInject(t, e, q, InjectOptions{Seen: func(k string) bool { return marked[k] }})
	if !slices.Equal(second.Repeated, first.Given) {
		t.Errorf("second turn: Repeated = %v, want %v", second.Repeated, first.Given)
	}
	for _, k := range second.Given {
		if given[k] {
			t.Errorf("second turn repeated body %s", k)
		}
		if strings.Contains(second.Bodies, `id="`+strings.TrimPrefix(k, "project:")+`"`) == false {
			t.Errorf("given %s is not in the bodies", k)
		}
	}
	for k := range given {
		if strings.Contains(second.Bodies, `id="`+strings.TrimPrefix(k, "project:")+`"`) {
			t.Errorf("second turn's bodies contain %s again", k)
		}
	}
	if len(second.Given) != 2 {
		t.Errorf("second turn gave %v; want the next two matches", second.Given)
	}
	if second.System() != first.System() {
		t.Errorf("the stable tiers changed between turns")
	}

	// A session log carries Seen across processes.
	t.Setenv("OCMEM_CACHE_DIR", t.TempDir())
	log, err := sessionlog.Open("ses_1/../../x")
	if err != nil {
		t.Fatal(err)
	}
	if err := log.Add(first.Marks...); err != nil {
		t.Fatal(err)
	}
	again, err := sessionlog.Open("ses_1/../../x")
	if err != nil {
		t.Fatal(err)
	}
	third := mustInject(t, e, q, InjectOptions{Seen: again.Seen})
	if !slices.Equal(third.Repeated, first.Given) {
		t.Errorf("reopened session log: Repeated = %v, want %v", third.Repeated, first.Given)
	}
	other, _ := sessionlog.Open("ses_2")
	if other.Seen(first.Marks[0]) {
		t.Errorf("another session sees the first one's memories")
	}
}

func TestInjectUnrelatedMessageGivesNoBodies(t *testing.T) {
	rs := newRoots(t)
	e := rs.engine(options.Options{})
	mustRemember(t, e, RememberRequest{Category: "pitfalls", Kind: memory.KindPitfall, Summary: "Kafka consumer lag after rebalance", LoadWhen: []string{"kafka"}, Body: "Lag spikes after every rebalance.\n"})
	mustRemember(t, e, RememberRequest{Category: "decisions", Kind: memory.KindDecision, Summary: "部署脚本用 pnpm", LoadWhen: []string{"部署"}})
	stable := mustStable(t, e)
	for _, msg := range []string{"how do I bake sourdough bread", "今天天气怎么样", "", "   "} {
		inj := mustInject(t, e, msg, InjectOptions{})
		if inj.Bodies != "" || len(inj.Given) != 0 {
			t.Errorf("Inject(%q) gave bodies %v:\n%s", msg, inj.Given, inj.Bodies)
		}
		if inj.System() != stable.System() {
			t.Errorf("Inject(%q): stable tiers differ from Stable()", msg)
		}
	}
	// The same store does answer a related message.
	if inj := mustInject(t, e, "kafka consumer lag", InjectOptions{}); len(inj.Given) == 0 {
		t.Errorf("a related message gave no bodies; the test above proves nothing")
	}
}

// Injection is strict where an explicit search is not: a message whose only
// link to a memory is one word of its body gets nothing, with the reason, and
// a recall in Search mode finds that memory.
func TestInjectQuietSearchFinds(t *testing.T) {
	rs := newRoots(t)
	e := rs.engine(options.Options{})
	mustRemember(t, e, RememberRequest{Category: "pitfalls", Kind: memory.KindPitfall, Summary: "商品详情页价格不更新", Body: "改价后缓存要清。\n"})
	inj := mustInject(t, e, "缓存", InjectOptions{})
	if len(inj.Given) != 0 || inj.Quiet == "" {
		t.Errorf("Inject(缓存) gave %v, quiet %q; want nothing and the reason", inj.Given, inj.Quiet)
	}
	hits, err := e.Recall("缓存", RecallOptions{Mode: rank.Search})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Reasons.Weak == "" {
		t.Errorf("Recall(缓存, Search) = %v; want the memory, marked weak", hits)
	}
}

// A hand-written memory without an updated time is framed as of an unknown
// date, not as of 1970-01-01, which would read as a very old fact.
func TestInjectUnknownUpdatedDate(t *testing.T) {
	rs := newRoots(t)
	dir := filepath.Join(rs.project, "pitfalls")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nid: pitfalls/kafka-lag\nkind: pitfall\nsummary: Kafka consumer lag after rebalance\nload_when: [kafka]\n---\nLag spikes after every rebalance.\n"
	if err := os.WriteFile(filepath.Join(dir, "kafka-lag.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	e := rs.engine(options.Options{})
	inj := mustInject(t, e, "why does the kafka consumer lag after a rebalance?", InjectOptions{})
	if len(inj.Given) != 1 {
		t.Fatalf("gave %v; want the hand-written memory", inj.Given)
	}
	if !strings.Contains(inj.Bodies, `updated="unknown"`) || strings.Contains(inj.Bodies, "1970") {
		t.Errorf("body framed as:\n%s\nwant updated=\"unknown\"", inj.Bodies)
	}
}
