package rank

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// A message whose only evidence is one word that several memories hold in
// their headlines names a topic of the store, not a memory: injection gives
// nothing for it when the message reports or acknowledges, and says why.
// Asked about, the word gets the memories on it; held by one memory, it
// singles that one out; search is not gated. The store is of another
// project than the benchmark's (a mobile app).
func TestLoneEvidence(t *testing.T) {
	c, metas := build(
		doc{summary: "iOS 推送证书每年续期一次,过期后推送全部失败", triggers: "推送证书", meta: Meta{ID: "pitfalls/apns-cert", LoadWhen: []string{"推送证书"}}},
		doc{summary: "Android 推送走 FCM,国内机型走厂商通道", triggers: "推送", meta: Meta{ID: "facts/android-push", LoadWhen: []string{"推送"}}},
		doc{summary: "推送文案不超过四十个字", body: "运营写的文案要先过产品", meta: Meta{ID: "rules/push-copy"}},
		doc{summary: "hotfix branches start from the release tag", triggers: "hotfix", meta: Meta{ID: "rules/hotfix-branch", LoadWhen: []string{"hotfix"}}},
		doc{summary: "every hotfix gets a changelog line", meta: Meta{ID: "rules/hotfix-changelog"}},
		doc{summary: "crash reports go to Sentry, project mobile-app", triggers: "Sentry", meta: Meta{ID: "facts/crash-reports", LoadWhen: []string{"Sentry"}}},
	)
	for _, tt := range []struct {
		q     string
		quiet bool   // injection gives nothing, for the lone word's reason
		want  string // else: this memory is among the hits
	}{
		{q: "好的,推送已经上线", quiet: true},
		{q: "ok, the hotfix is out.", quiet: true},
		{q: "thanks. hotfix merged", quiet: true},
		// The word stands in a sentence that asks: the topic is wanted.
		{q: "推送有什么要注意的?", want: "facts/android-push"},
		{q: "ok. what do we do for a hotfix?", want: "rules/hotfix-branch"},
		{q: "hotfix: should it get a changelog line", want: "rules/hotfix-changelog"},
		// A request to be told asks too.
		{q: "tell me about hotfix", want: "rules/hotfix-branch"},
		{q: "说说推送", want: "facts/android-push"},
		// One memory holds the word: it is singled out.
		{q: "ok, Sentry is set up now", want: "facts/crash-reports"},
		// More than one word: the lone-word test does not apply.
		{q: "推送证书过期了", want: "pitfalls/apns-cert"},
	} {
		res := Rank(c, tt.q, Params{Mode: Inject, Explain: true})
		got := ids(metas, res.Hits)
		if tt.quiet {
			if len(got) != 0 || !strings.Contains(res.Quiet, "names a topic of the store, not a memory") {
				t.Errorf("inject %q: got %v, quiet %q; want nothing, for one word many memories hold", tt.q, got, res.Quiet)
			}
			if len(res.Dropped) < 2 {
				t.Errorf("inject %q: dropped %v; want each tied memory with its reason", tt.q, res.Dropped)
			}
			if s := Rank(c, tt.q, Params{Mode: Search}); len(s.Hits) < 2 {
				t.Errorf("search %q: got %v; the test is for injection only", tt.q, ids(metas, s.Hits))
			}
			continue
		}
		if !slices.Contains(got, tt.want) {
			t.Errorf("inject %q: got %v (quiet %q), want %s among them", tt.q, got, res.Quiet, tt.want)
		}
	}
}

func TestAsks(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"打日志有没有什么格式要求", true},
		{"能再解释一下吗", true},
		{"预发那台机器怎么登上去", true},
		{"what's next?", true},
		{"how do we name consumer groups", true},
		{"ok, should I rebase first", true},
		{"Can you deploy it now", true},
		{"日志我看过了,没问题", false},
		{"可以,提交吧", false},
		{"cool, deployed", false},
		{"thanks, I merged your changes", false},
		{"ok, do", true}, // an opening auxiliary is read as a question: the test errs towards answering
		{"tell me about ibex", true},
		{"请介绍一下推送", true},
		{"please explain the hotfix rules", true},
		{"the pipeline is green now", false},
	} {
		if got := asks(tt.s); got != tt.want {
			t.Errorf("asks(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestAskingSentences(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"cool, deployed. what's next?", []string{"what's next?"}},
		{"time.Parse 用 UTC 吗?我看过了。", []string{"time.Parse 用 UTC 吗?"}},
		{"done!\nhow do I roll back", []string{"how do I roll back"}},
		{"可以,提交吧", nil},
	} {
		var got []string
		for _, s := range askingSentences(tt.text) {
			got = append(got, strings.TrimSpace(tt.text[s.start:s.end]))
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("askingSentences(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// askingSentences reads any text: its spans are in order, disjoint, inside
// the text and on character boundaries.
func FuzzAskingSentences(f *testing.F) {
	for _, s := range []string{"cool, deployed. what's next?", "time.Parse 用 UTC 吗?我看过了。", "done!\nhow do I roll back", "可以,提交吧", "?", "。？", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		prev := 0
		for _, s := range askingSentences(text) {
			if s.start < prev || s.end < s.start || s.end > len(text) {
				t.Fatalf("askingSentences(%q): span %v after %d", text, s, prev)
			}
			prev = s.end
			if utf8.ValidString(text) && (!utf8.RuneStart(byteAt(text, s.start)) || !utf8.RuneStart(byteAt(text, s.end))) {
				t.Fatalf("askingSentences(%q): span %v cuts a character", text, s)
			}
		}
	})
}

func FuzzAcknowledges(f *testing.F) {
	for _, s := range []string{"ok the docker one works now, thanks", "好的，显存那个问题解决了", "thanks! now add retries", "İİ thanks", "fixed\nok", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !acknowledges(text) {
			return
		}
		if strings.Contains(strings.TrimSpace(text), "\n") || asks(text) || reportsError(text) {
			t.Fatalf("acknowledges(%q): a message of several lines, one that asks or one that reports an error is none", text)
		}
	})
}

// byteAt returns text[i], or a rune start at the end of text.
func byteAt(text string, i int) byte {
	if i == len(text) {
		return 0
	}
	return text[i]
}

func TestAcknowledges(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"ok the docker one works now, thanks", true},
		{"thanks, the snapshot thing is fixed", true},
		{"ok that fixed the tokenizer thing, cheers", true},
		{"thanks!", true},
		{"lgtm", true},
		{"好的，显存那个问题解决了", true},
		{"好的，防火墙那个已经搞定了", true},
		{"问题解决了,谢谢", true},
		{"缓存清掉以后正常了", true},
		{"this is great, thanks a lot 🙏", true},
		// Not done after all, or not said to be.
		{"thanks, but the build still fails", false},
		{"it works locally but not in CI", false},
		{"the deploy doesn't work", false},
		{"还没解决", false},
		{"不行了", false},
		{"数据库连接还是超时", false},
		// It asks.
		{"fixed, what's next?", false},
		{"解决了吗", false},
		{"is the migration done", false},
		// It goes on with a request, or says more than an acknowledgement.
		{"thanks! now add retries to the payment client", false},
		{"looks good, merge it", false},
		{"改好了，帮我提交", false},
		{"great, now write the changelog entry for the release", false},
		{"I moved the Redis cache to a separate instance, changed the pool size to 50, tuned the eviction policy, and it works", false},
		{"ok", false},
		{"the pipeline is green now", false},
		// Pasted text is not an acknowledgement.
		{"fixed\n```\npanic: nil map\n```", false},
		{"thanks, `go test ./...` works", false},
	} {
		if got := acknowledges(tt.s); got != tt.want {
			t.Errorf("acknowledges(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

// An acknowledgement gets nothing, whatever word of the store it names, and
// says why; the same words in a message that is not one still get their
// memory. The store is TestLoneEvidence's.
func TestAcknowledgementQuiet(t *testing.T) {
	c, metas := build(
		doc{summary: "iOS 推送证书每年续期一次,过期后推送全部失败", triggers: "推送证书", meta: Meta{ID: "pitfalls/apns-cert", LoadWhen: []string{"推送证书"}}},
		doc{summary: "Android 推送走 FCM,国内机型走厂商通道", triggers: "推送", meta: Meta{ID: "facts/android-push", LoadWhen: []string{"推送"}}},
		doc{summary: "crash reports go to Sentry, project mobile-app", triggers: "Sentry", meta: Meta{ID: "facts/crash-reports", LoadWhen: []string{"Sentry"}}},
	)
	for _, tt := range []struct {
		q    string
		want string // "": an acknowledgement, nothing given
	}{
		{q: "ok, Sentry works now"},
		{q: "thanks, the Sentry thing is fixed"},
		{q: "好的,推送已经好了"},
		{q: "推送证书的问题解决了,谢谢"},
		{q: "Sentry works locally but not in the release build", want: "facts/crash-reports"},
		{q: "thanks! now send the crash reports to Sentry too", want: "facts/crash-reports"},
		{q: "推送证书还是过期了", want: "pitfalls/apns-cert"},
	} {
		res := Rank(c, tt.q, Params{Mode: Inject})
		got := ids(metas, res.Hits)
		if tt.want == "" {
			if len(got) != 0 || !strings.Contains(res.Quiet, "an acknowledgement") {
				t.Errorf("inject %q: got %v, quiet %q; want nothing, for an acknowledgement", tt.q, got, res.Quiet)
			}
			if s := Rank(c, tt.q, Params{Mode: Search}); len(s.Hits) == 0 {
				t.Errorf("search %q: nothing; the test is for injection only", tt.q)
			}
			continue
		}
		if !slices.Contains(got, tt.want) {
			t.Errorf("inject %q: got %v (quiet %q), want %s among them", tt.q, got, res.Quiet, tt.want)
		}
	}
}
