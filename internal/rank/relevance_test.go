package rank

import (
	"slices"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/textseg"
)

// A message without an anchor is small talk to the injector, unless it asks
// about a trigger a memory declares, whole: load_when is what a person
// said the memory is for, common word or not, whether the message asks or
// states it. A follow-up or an acknowledgement that names one stays quiet
// ("run the tests again please", "the database looks fine now, thanks").
func TestTriggerAskedWhole(t *testing.T) {
	c, metas := build(
		doc{summary: "The database listens on port 5433, not 5432.", triggers: "postgres\ndatabase\n数据库", body: "The local container maps 5433.",
			meta: Meta{ID: "facts/db-port", LoadWhen: []string{"postgres", "database", "数据库"}}},
		doc{summary: "Services log through the shared logger package.", triggers: "logging", body: "Use logger.With(ctx).",
			meta: Meta{ID: "facts/logging", LoadWhen: []string{"logging"}}},
		doc{summary: "The test suite needs the fixtures container up.", triggers: "run tests", body: "make fixtures first",
			meta: Meta{ID: "pitfalls/tests-fixtures", LoadWhen: []string{"run tests"}}},
	)
	for _, tt := range []struct {
		q    string
		want string // "": nothing
	}{
		{"which port does the database use", "facts/db-port"},
		{"how do we do logging in services?", "facts/logging"},
		{"数据库端口是多少", "facts/db-port"},
		{"the database looks fine now, thanks", ""},
		{"run the tests again please", ""},
		{"ok, next one", ""},
		// Stated, not asked: a symptom or a step that a trigger names
		// whole is what the memory was declared for.
		{"I need to run tests", "pitfalls/tests-fixtures"},
		// Named in part, it is not; nor by one word said in passing.
		{"the tests look slow", ""},
		{"the database keeps timing out", ""},
	} {
		res := Rank(c, tt.q, Params{Mode: Inject, Explain: true})
		got := ids(metas, res.Hits)
		switch {
		case tt.want == "" && (len(got) != 0 || res.Quiet == ""):
			t.Errorf("inject %q: got %v (quiet %q), want nothing and why", tt.q, got, res.Quiet)
		case tt.want != "" && (len(got) == 0 || got[0] != tt.want):
			t.Errorf("inject %q: got %v (quiet %q), want %s first", tt.q, got, res.Quiet, tt.want)
		}
	}
	res := Rank(c, "which port does the database use", Params{Mode: Inject})
	if len(res.Hits) == 0 || res.Hits[0].Reasons.Named != "database" {
		t.Errorf("reasons: want the trigger named whole, database; got %+v", res.Hits)
	}
}

// A trigger that offers alternatives with "or" is named by either: "adding
// a column or table" by a question about adding a column, and by one about
// adding a table, not by one that names a column alone.
func TestTriggerAlternatives(t *testing.T) {
	for _, tt := range []struct {
		trigger string
		want    [][]string
	}{
		{"adding a column or table", [][]string{{"add", "column"}, {"add", "tabl"}}},
		{"prettier or eslint config", [][]string{{"prettier", "config"}, {"eslint", "config"}}},
		{"bf16 or fp16", [][]string{{"bf16", "bf", "16"}, {"fp16", "fp", "16"}}},
		{"redis, memcached or etcd", [][]string{{"redi"}, {"memcach"}, {"etcd"}}},
		{"deploy", [][]string{{"deploy"}}},
		{"or", nil},                           // nothing to name
		{"either or", [][]string{{"either"}}}, // "or" at an end is a word
		// A part that says nothing, or one of more than one word
		// between two "or"s: taken whole.
		{"the or fast path", [][]string{{"fast", "path"}}},
		{"a or two words or c", [][]string{{"two", "word", "c"}}},
	} {
		if got := triggerAlternatives(tt.trigger); !slices.EqualFunc(got, tt.want, slices.Equal) {
			t.Errorf("triggerAlternatives(%q) = %q, want %q", tt.trigger, got, tt.want)
		}
	}
	c, metas := build(
		doc{summary: "Schema changes go through a new gormigrate migration.", triggers: "adding a column or table", body: "Never edit an old migration.",
			meta: Meta{ID: "rules/new-migration", LoadWhen: []string{"adding a column or table"}}},
		doc{summary: "Services log through the shared logger package.", triggers: "logging", meta: Meta{ID: "facts/logging", LoadWhen: []string{"logging"}}},
	)
	for _, tt := range []struct {
		q    string
		want string // "": nothing
	}{
		{"how do I add a new column to the database", "rules/new-migration"},
		{"how do I add a table?", "rules/new-migration"},
		{"which column is the key?", ""},
	} {
		res := Rank(c, tt.q, Params{Mode: Inject})
		got := ids(metas, res.Hits)
		switch {
		case tt.want == "" && len(got) != 0:
			t.Errorf("inject %q: got %v, want nothing", tt.q, got)
		case tt.want != "" && (len(got) == 0 || got[0] != tt.want || res.Hits[0].Reasons.Named != "adding a column or table"):
			t.Errorf("inject %q: got %v (quiet %q), want %s first, named by its trigger", tt.q, got, res.Quiet, tt.want)
		}
	}
}

func FuzzTriggerAlternatives(f *testing.F) {
	for _, s := range []string{"adding a column or table", "redis, memcached or etcd", "or", "a or or b", ", or ,", "部署 or 发布 流程"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, trigger string) {
		alts := triggerAlternatives(trigger)
		if (alts == nil) != (len(QueryTerms(trigger)) == 0) {
			t.Fatalf("triggerAlternatives(%q) = %q: nil exactly when the trigger has no term", trigger, alts)
		}
		for _, a := range alts {
			if len(a) == 0 {
				t.Fatalf("triggerAlternatives(%q) = %q: an alternative without a term names everything", trigger, alts)
			}
		}
	})
}

// Injection gives a body only when it is worth its tokens beside the best:
// a hit under injectCutoff × the best score is left out, while search keeps
// hits down to relativeCutoff × the best.
func TestInjectCutoff(t *testing.T) {
	c, metas := build(
		doc{summary: "kafka consumer lag alerts fire at 10k messages", triggers: "kafka\nconsumer lag", meta: Meta{ID: "facts/lag-alerts", LoadWhen: []string{"kafka", "consumer lag"}}},
		doc{summary: "kafka topic naming", body: "every kafka topic is named team.entity.event; a consumer group is named after its service, " +
			"and the retention of each topic is set per environment by the platform team in the shared terraform module", meta: Meta{ID: "rules/topic-names"}},
	)
	const q = "why does the kafka consumer lag alert fire?"
	search := Rank(c, q, Params{Mode: Search})
	if len(search.Hits) < 2 {
		t.Fatalf("search: got %v, want both memories", ids(metas, search.Hits))
	}
	best := search.Hits[0].Score
	var want []string
	for _, h := range search.Hits {
		if h.Reasons.Weak == "" && h.Score >= injectCutoff*best {
			want = append(want, metas[h.Doc].ID)
		}
	}
	if r := search.Hits[1].Score / best; r >= injectCutoff || r < relativeCutoff {
		t.Fatalf("the second hit's share of the best is %.2f; the test needs it in [%.2f, %.2f)", r, relativeCutoff, injectCutoff)
	}
	if got := ids(metas, Rank(c, q, Params{Mode: Inject}).Hits); !slices.Equal(got, want) {
		t.Errorf("inject: got %v, want %v (the hits of at least %.2f × the best)", got, want, injectCutoff)
	}
}

// A project memory overrides a global preference, rule or decision on its
// topic, decided from the two memories' triggers: the global one is
// withheld in both modes, and the reason names the project memory. A
// global pitfall with the same triggers is not overridden: it says what
// goes wrong, not how things are done.
func TestProjectOverridesGlobal(t *testing.T) {
	c, metas := build(
		doc{summary: "commit titles are English, imperative, under 72 characters", triggers: "commit message\ncommit title", body: "feat: add snapshot sizes",
			meta: Meta{ID: "rules/commit-title", LoadWhen: []string{"commit message", "commit title"}, Kind: memory.KindRule}},
		doc{summary: "commit messages follow Conventional Commits with a scope", triggers: "commit message\ncommit style", body: "type(scope): subject",
			meta: Meta{ID: "preferences/commit-style", Scope: memory.Global, LoadWhen: []string{"commit message", "commit style"}, Kind: memory.KindPreference}},
		doc{summary: "a commit message hook rejects titles over 100 characters on this machine", triggers: "commit message\ncommit hook", body: "git config core.hooksPath",
			meta: Meta{ID: "pitfalls/commit-hook", Scope: memory.Global, LoadWhen: []string{"commit message", "commit hook"}, Kind: memory.KindPitfall}},
	)
	const q = "commit this with a title in English and a conventional scope: will the hook take it?"
	for _, mode := range []Mode{Inject, Search} {
		res := Rank(c, q, Params{Mode: mode, Explain: true})
		got := ids(metas, res.Hits)
		if len(got) == 0 || got[0] != "rules/commit-title" || slices.Contains(got, "preferences/commit-style") {
			t.Errorf("%s: got %v, want rules/commit-title first and no preferences/commit-style", mode, got)
		}
		if !slices.Contains(got, "pitfalls/commit-hook") {
			t.Errorf("%s: got %v, want the global pitfall kept", mode, got)
		}
		found := false
		for _, d := range res.Dropped {
			found = found || metas[d.Doc].ID == "preferences/commit-style" && strings.Contains(d.Reason, "overridden by project memory rules/commit-title")
		}
		if !found {
			t.Errorf("%s: dropped %v; want preferences/commit-style overridden by rules/commit-title", mode, res.Dropped)
		}
	}
}

// A Chinese bigram that straddles two words (再跑一次 → 跑一) is no anchor:
// it names nothing, even when some memory's trigger happens to hold it.
// A word of the dictionary outside everyday language still is (部署), and
// so is a word of the trade the dictionary lacks (超发).
func TestStraddleIsNoAnchor(t *testing.T) {
	c, metas := build(
		doc{summary: "每跑一次训练都把输出目录和配置存进 runs", triggers: "跑一次\n训练产物", meta: Meta{ID: "preferences/runs-artifacts", LoadWhen: []string{"跑一次", "训练产物"}}},
		doc{summary: "部署前先在预发环境验证", triggers: "部署", meta: Meta{ID: "rules/deploy-staging", LoadWhen: []string{"部署"}}},
		doc{summary: "限量优惠券在高峰被超发", triggers: "超发", meta: Meta{ID: "pitfalls/coupon-overissue", LoadWhen: []string{"超发"}}},
	)
	if q := c.newQuery("ok 再跑一次", DefaultTuning); q.anchored {
		t.Errorf("%q: anchored, want no anchor (跑一 straddles 一次)", "ok 再跑一次")
	}
	if res := Rank(c, "ok 再跑一次", Params{Mode: Inject}); len(res.Hits) != 0 || res.Quiet == "" {
		t.Errorf("inject %q: got %v (quiet %q), want nothing and why", "ok 再跑一次", ids(metas, res.Hits), res.Quiet)
	}
	for q, want := range map[string]string{"部署": "rules/deploy-staging", "领券超发": "pitfalls/coupon-overissue"} {
		if got := ids(metas, Rank(c, q, Params{Mode: Inject}).Hits); !slices.Equal(got, []string{want}) {
			t.Errorf("inject %s: got %v, want %s", q, got, want)
		}
	}
}

// A short message that repeats or continues what the conversation was doing
// gets nothing, whatever words of it some memory holds; a name, an
// identifier or a longer question keeps it a question.
func TestFollowUp(t *testing.T) {
	c, metas := build(
		doc{summary: "show the full diff before writing any yaml", triggers: "diff\nyaml", meta: Meta{ID: "rules/confirm-diff", LoadWhen: []string{"diff", "yaml"}}},
		doc{summary: "the full diff of a chat template change goes in the PR", body: "paste the diff", meta: Meta{ID: "decisions/template-diff"}},
		doc{summary: "继续用 Gin,不换框架", triggers: "Gin", meta: Meta{ID: "decisions/gin", LoadWhen: []string{"Gin"}}},
	)
	for _, tt := range []struct {
		q    string
		want string // "": a follow-up, nothing
	}{
		{"can you paste the full diff again?", ""},
		{"嗯，下一步呢？", ""},
		{"继续用 Gin 吗", "decisions/gin"},
		{"why does the full diff have to be shown again before the yaml is written?", "rules/confirm-diff"},
	} {
		res := Rank(c, tt.q, Params{Mode: Inject})
		got := ids(metas, res.Hits)
		if tt.want == "" {
			if len(got) != 0 || res.Quiet == "" {
				t.Errorf("inject %q: got %v (quiet %q), want nothing and why", tt.q, got, res.Quiet)
			}
			continue
		}
		if len(got) == 0 || got[0] != tt.want {
			t.Errorf("inject %q: got %v (quiet %q), want %s first", tt.q, got, res.Quiet, tt.want)
		}
	}
	if res := Rank(c, "can you paste the full diff again?", Params{Mode: Search}); len(res.Hits) == 0 {
		t.Error("search: a follow-up is injection's test only")
	}
}

// Injection drops a hit that covers far less of the message than the best
// one, even when one strong word puts its score near the best: it shares a
// word with the message without being about it. Search keeps it.
func TestInjectCoverageCut(t *testing.T) {
	c, metas := build(
		doc{summary: "backup upload notes", body: "the backup upload does a multipart retry when a part fails",
			meta: Meta{ID: "pitfalls/backup-upload"}},
		doc{summary: "oncall rotation", triggers: "oncall", meta: Meta{ID: "facts/oncall", LoadWhen: []string{"oncall"}}},
	)
	const q = "backup upload, multipart retry, oncall"
	search := Rank(c, q, Params{Mode: Search})
	if len(search.Hits) < 2 || metas[search.Hits[0].Doc].ID != "pitfalls/backup-upload" {
		t.Fatalf("search: got %v, want both, the backup memory first", ids(metas, search.Hits))
	}
	best := search.Hits[0]
	second := search.Hits[1]
	// The cut compares strengths: scores without aboutness.
	plain := func(h Hit) float64 { return h.Score / h.Reasons.Headline }
	if plain(second) < injectCutoff*plain(best) || second.Reasons.Coverage >= injectCoverageCut*best.Reasons.Coverage {
		t.Fatalf("the second hit (strength %.2f of %.2f, coverage %.2f of %.2f) must pass the score cut and fail the coverage cut",
			plain(second), plain(best), second.Reasons.Coverage, best.Reasons.Coverage)
	}
	res := Rank(c, q, Params{Mode: Inject, Explain: true})
	if got := ids(metas, res.Hits); !slices.Equal(got, []string{"pitfalls/backup-upload"}) {
		t.Errorf("inject: got %v, want the backup memory alone", got)
	}
	found := false
	for _, d := range res.Dropped {
		found = found || metas[d.Doc].ID == "facts/oncall" && strings.Contains(d.Reason, "covers far less")
	}
	if !found {
		t.Errorf("inject: dropped %v, want facts/oncall for its coverage", res.Dropped)
	}
}

// A Chinese word counts its characters once: the n−1 bigrams of a word of
// n ≥ 3 characters carry n/(2(n−1)) each, a two-character word's bigram 1,
// and a bigram that straddles two words 1.
func TestWordShare(t *testing.T) {
	const text = "数据库连接池满了,部署失败"
	words := cutWords(text)
	if len(words) == 0 || words[0].n != 3 {
		t.Fatalf("words of %q: %v, want 数据库 first", text, words)
	}
	for _, tt := range []struct {
		bigram string
		want   float64
	}{
		{"数据", 3.0 / 4}, {"据库", 3.0 / 4},
		{"部署", 1}, {"失败", 1},
	} {
		for _, tok := range textseg.Tokenize(text) {
			if tok.Text != tt.bigram {
				continue
			}
			if got := words.share(tok); !near(got, tt.want) {
				t.Errorf("share(%s) = %v, want %v (words %v)", tt.bigram, got, tt.want, words)
			}
		}
	}
}

// In a message of several lines a memory is a hit only with two of its
// evidence terms in its headline: a pasted report shares words with many
// bodies by chance. A message of one line keeps the usual tests; search
// keeps the memory as a weak match.
func TestHeadlineInLongMessages(t *testing.T) {
	c, metas := build(
		doc{summary: "nightly backup job", body: "the scheduler retries the upload when the disk is full", meta: Meta{ID: "facts/backup-job"}},
		doc{summary: "upload retries and a full disk", triggers: "upload\ndisk full", body: "the scheduler stops after three", meta: Meta{ID: "pitfalls/upload-disk"}},
	)
	const long = "> [Bug] scheduler stuck\n> the scheduler retries the upload forever\n> disk is full"
	res := Rank(c, long, Params{Mode: Inject, Explain: true})
	if got := ids(metas, res.Hits); !slices.Equal(got, []string{"pitfalls/upload-disk"}) {
		t.Errorf("inject, several lines: got %v, want pitfalls/upload-disk alone", got)
	}
	one := strings.ReplaceAll(long, "\n> ", "; ")
	if got := ids(metas, Rank(c, one, Params{Mode: Inject}).Hits); !slices.Contains(got, "facts/backup-job") {
		t.Errorf("inject, one line: got %v, want facts/backup-job too", got)
	}
	search := Rank(c, long, Params{Mode: Search})
	if h := find(metas, search, "facts/backup-job"); h == nil || !strings.Contains(h.Reasons.Weak, "several lines") {
		t.Errorf("search: got %+v, want facts/backup-job as a weak match for its headline", h)
	}
}

// A message of several lines asks a body beside the best to come closer to
// it (injectCutoffLines) than a message of one line does (injectCutoff).
func TestInjectCutoffLines(t *testing.T) {
	c, metas := build(
		doc{summary: "kafka consumer lag alerts fire at 10k messages", triggers: "kafka\nconsumer lag", meta: Meta{ID: "facts/lag-alerts", LoadWhen: []string{"kafka", "consumer lag"}}},
		doc{summary: "kafka consumer lag per group", triggers: "consumer group", body: "every kafka topic is named team.entity.event, and the retention of each topic is set per environment",
			meta: Meta{ID: "rules/consumer-names", LoadWhen: []string{"consumer group"}}},
	)
	for _, tt := range []struct {
		q   string
		cut float64
	}{
		{"why does the kafka consumer lag alert fire?", injectCutoff},
		{"> alert: kafka consumer lag 12000\n> service orders\nwhy does it fire?", injectCutoffLines},
	} {
		search := Rank(c, tt.q, Params{Mode: Search})
		if len(search.Hits) < 2 {
			t.Fatalf("search %q: got %v, want both", tt.q, ids(metas, search.Hits))
		}
		best := search.Hits[0].Score
		r := search.Hits[1].Score / best
		if r < injectCutoff || r >= injectCutoffLines {
			t.Fatalf("%q: the second hit has %.2f of the best; the test needs it in [%.2f, %.2f)", tt.q, r, injectCutoff, injectCutoffLines)
		}
		got := ids(metas, Rank(c, tt.q, Params{Mode: Inject}).Hits)
		if want := r >= tt.cut; slices.Contains(got, metas[search.Hits[1].Doc].ID) != want {
			t.Errorf("inject %q: got %v; the second hit (%.2f of the best, cut %.2f) given: want %v", tt.q, got, r, tt.cut, want)
		}
	}
}

// A question that names the word a memory's triggers share (its topic: in
// its summary and most of its triggers, all of them phrases) asks about what
// the memory is for, though it names no trigger whole. The memories that
// hold the word in one trigger of several, or whose topic is a word of a
// longer question, are not given; nor is the memory when the message does
// not ask.
func TestTopicAsked(t *testing.T) {
	c, metas := build(
		doc{summary: "Logging goes through global.LOG, a logrus logger; log lines go to a daily file.", triggers: "adding logs\nlog format\nwhere the panel logs go",
			body: "Use global.LOG.Infof, not fmt.Println.", meta: Meta{ID: "facts/logging-global-log", LoadWhen: []string{"adding logs", "log format", "where the panel logs go"}}},
		doc{summary: "Every POST handler needs swagger annotations.", triggers: "swagger annotations\noperation log\nnew endpoint",
			body: "The operation log reads x-panel-log.", meta: Meta{ID: "rules/swagger-annotations", LoadWhen: []string{"swagger annotations", "operation log", "new endpoint"}}},
		doc{summary: "Long operations run as tasks with a task log.", triggers: "long operation\ntask log\nbackground job",
			body: "Pass the task into commands.", meta: Meta{ID: "decisions/long-ops-as-tasks", LoadWhen: []string{"long operation", "task log", "background job"}}},
		doc{summary: "I run tests with pytest -x -q.", triggers: "run tests\nrunning one test",
			body: "Add -k for a single test.", meta: Meta{ID: "preferences/pytest-quick-flags", LoadWhen: []string{"run tests", "running one test"}}},
		doc{summary: "Training checkpoints are saved every 500 steps.", body: "The two GPU machines share /data.", meta: Meta{ID: "facts/checkpoints"}},
	)
	for _, tt := range []struct {
		q    string
		want string // "": nothing
	}{
		{"how do we do logging here?", "facts/logging-global-log"},
		{"how do I spread one training run over two machines?", ""},
		{"logging works now, thanks", ""},
	} {
		res := Rank(c, tt.q, Params{Mode: Inject, Explain: true})
		got := ids(metas, res.Hits)
		switch {
		case tt.want == "" && (len(got) != 0 || res.Quiet == ""):
			t.Errorf("inject %q: got %v (quiet %q), want nothing and why", tt.q, got, res.Quiet)
		case tt.want != "" && (len(got) != 1 || got[0] != tt.want):
			t.Errorf("inject %q: got %v (quiet %q), want %s alone", tt.q, got, res.Quiet, tt.want)
		case tt.want != "" && !strings.Contains(res.Hits[0].Reasons.Topic, "3 of its 3 triggers"):
			t.Errorf("inject %q: reasons %+v, want the topic and its triggers", tt.q, res.Hits[0].Reasons)
		}
	}
}

// Of two memories that match a message about as strongly, the one whose
// headline the message covers more is the one about it, and ranks first:
// the pitfall whose summary is the message's words, before the reference
// that holds them among a dozen keys (aboutness). The cut counts strength,
// not aboutness: both are still given.
func TestAboutnessOrders(t *testing.T) {
	c, metas := build(
		doc{summary: "A GPTQ quantized base cannot be merged with LoRA.", body: "Merge into the fp16 base, then quantize.",
			meta: Meta{ID: "pitfalls/merge-into-quantized-base"}},
		doc{summary: "Export merges LoRA adapters: export_dir, export_size, export_device, export_legacy_format, template, adapter_name_or_path, quantization bits.",
			highlight: "llamafactory-cli export merge_lora.yaml", triggers: "merge lora adapters\ngptq quantized export", body: "GPTQ quantized exports need a calibration dataset.",
			meta: Meta{ID: "facts/export-merge-keys", LoadWhen: []string{"merge lora adapters", "gptq quantized export"}}},
	)
	const q = "can I merge LoRA adapters into a GPTQ quantized model?"
	for _, tt := range []struct {
		about float64
		first string
	}{{0.001, "facts/export-merge-keys"}, {0, "pitfalls/merge-into-quantized-base"}} {
		res := Rank(c, q, Params{Mode: Inject, Tuning: &Tuning{Aboutness: tt.about}})
		got := ids(metas, res.Hits)
		if len(got) != 2 || got[0] != tt.first {
			t.Errorf("aboutness %v: got %v (quiet %q), want both, %s first", tt.about, got, res.Quiet, tt.first)
		}
		for _, h := range res.Hits {
			r := h.Reasons
			if want := r.Relevance * r.Scope * r.Decay * r.Boost * r.Headline; !near(h.Score, want) {
				t.Errorf("aboutness %v: score %v, want the product of its reasons %v", tt.about, h.Score, want)
			}
		}
	}
}

// TestFocusOrders: of two memories a message matches about as strongly, the
// one that holds its words in its summary and triggers ranks before the one
// that holds more of them in its body (focus, the second part of
// aboutness); with the factor off the body's count wins.
func TestFocusOrders(t *testing.T) {
	c, metas := build(
		doc{summary: "Version 1 formats prompts with apply_chat_template.", triggers: "apply_chat_template",
			body: "The hand-written prefixes are gone.",
			meta: Meta{ID: "decisions/v1-apply-chat-template", LoadWhen: []string{"apply_chat_template"}}},
		doc{summary: "The template must match the model it was trained with.",
			body: "Support for chat messages: inference and fine-tuning with the wrong chat template give repeated output; transformers formats the messages with the template the model was trained with, and fine-tuning keeps it for inference.",
			meta: Meta{ID: "pitfalls/template-must-match-model"}},
	)
	const q = "support apply_chat_template: format the chat messages with transformers for inference and fine-tuning"
	for _, tt := range []struct {
		focus float64
		first string
	}{{0.001, "pitfalls/template-must-match-model"}, {0, "decisions/v1-apply-chat-template"}} {
		res := Rank(c, q, Params{Mode: Search, Tuning: &Tuning{Aboutness: 0.001, Focus: tt.focus}})
		got := ids(metas, res.Hits)
		if len(got) != 2 || got[0] != tt.first {
			t.Errorf("focus %v: got %v, want both, %s first", tt.focus, got, tt.first)
			for _, h := range res.Hits {
				t.Logf("%s %.3f %+v", metas[h.Doc].ID, h.Score, h.Reasons.Headline)
			}
		}
		for _, h := range res.Hits {
			r := h.Reasons
			if want := r.Relevance * r.Scope * r.Decay * r.Boost * r.Headline; !near(h.Score, want) {
				t.Errorf("focus %v: score %v, want the product of its reasons %v", tt.focus, h.Score, want)
			}
		}
	}
}
