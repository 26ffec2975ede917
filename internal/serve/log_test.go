package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/rank"
	"github.com/ocmem/ocmem/internal/store"
)

// lockedBuffer is a log sink safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) records(t *testing.T) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.b.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %s", line)
		}
		out = append(out, m)
	}
	return out
}

// The log is what the viewer's session timeline is made from: each turn's
// ranked memories as a structured list, and each tool call named.
func TestLogIsStructured(t *testing.T) {
	g, p := roots(t)
	var buf lockedBuffer
	c := start(t, Config{GlobalDir: g, ProjectDir: p, Log: slog.New(slog.NewJSONHandler(&buf, nil))})
	common := func(extra map[string]any) map[string]any {
		m := map[string]any{"sessionID": "ses_log", "worktree": "/ignored"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	c.call("remember", common(map[string]any{"category": "pitfalls", "kind": "pitfall",
		"summary": "SQLite FTS5 cannot split Chinese", "body": "use trigram", "load_when": []string{"sqlite"}}))
	c.call("message", common(map[string]any{"messageID": "msg_1", "text": "sqlite search for Chinese text"}))
	c.call("recall", common(map[string]any{"query": "sqlite"}))
	c.call("forget", common(map[string]any{"id": "../outside"}))
	c.call("inspect", common(nil))
	c.call("tool", common(map[string]any{"tool": "bash", "callID": "call_1"}))
	if r := c.call("tool", common(map[string]any{"tool": ""})); r.Error == nil {
		t.Error("a tool call without a name was taken")
	}

	tools := map[string]string{}
	var injected []any
	for _, r := range buf.records(t) {
		if tool, ok := r["tool"].(string); ok {
			tools[r["msg"].(string)] = tool
		}
		if r["msg"] == "bodies injected" {
			injected, _ = r["injected"].([]any)
			if r["hits"] == nil || r["given"] == nil {
				t.Errorf("the older fields are gone: %v", r)
			}
		}
	}
	want := map[string]string{"remembered": "memory_remember", "recall": "memory_recall", "forget refused": "memory_forget", "inspect": "memory_inspect", "tool called": "bash"}
	for msg, tool := range want {
		if tools[msg] != tool {
			t.Errorf("log %q: tool %q, want %q (all: %v)", msg, tools[msg], tool, tools)
		}
	}
	if len(injected) != 1 {
		t.Fatalf("injected = %v, want one hit", injected)
	}
	h := injected[0].(map[string]any)
	if h["key"] != "project:pitfalls/sqlite-fts5-cannot-split-chinese" || h["given"] != true || h["score"].(float64) <= 0 {
		t.Errorf("injected hit = %v", h)
	}
}

// Each turn's log line holds what the viewer shows of it: the start of the
// person's message (bounded, one line, secrets masked) and, per ranked
// memory, the words that matched as the memory writes them, not stems.
func TestLogTurnTextAndWords(t *testing.T) {
	g, p := roots(t)
	var buf lockedBuffer
	c := start(t, Config{GlobalDir: g, ProjectDir: p, Log: slog.New(slog.NewJSONHandler(&buf, nil))})
	common := func(extra map[string]any) map[string]any {
		m := map[string]any{"sessionID": "ses_text", "worktree": "/ignored"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	c.call("remember", common(map[string]any{"category": "pitfalls", "kind": "pitfall",
		"summary": "Run database migrations before deploying", "body": "The schema must match.", "load_when": []string{"deploy"}}))
	token := "gh" + "p_" + "R4nd0mT0k3nV4lu3F0rT3st1ngQx9Zk7Wp2L"
	long := "the deploy failed, the databases\nare out of date; token " + token + " " + strings.Repeat("padding ", 100)
	c.call("message", common(map[string]any{"messageID": "msg_1", "text": long}))
	var turn map[string]any
	for _, r := range buf.records(t) {
		if r["msg"] == "bodies injected" {
			turn = r
		}
	}
	if turn == nil {
		t.Fatal("no turn logged")
	}
	text, _ := turn["text"].(string)
	if !strings.HasPrefix(text, "the deploy failed, the databases are out of date; token ghp_") || strings.Contains(text, token) ||
		strings.Contains(text, "\n") || len([]rune(text)) > maxExcerptRunes+1 {
		t.Errorf("text = %q: want the message's start on one line, bounded, the token masked", text)
	}
	hits, _ := turn["injected"].([]any)
	if len(hits) != 1 {
		t.Fatalf("injected = %v", turn["injected"])
	}
	words := fmt.Sprint(hits[0].(map[string]any)["words"])
	if !strings.Contains(words, "database") || !strings.Contains(words, "deploy") || strings.Contains(words, "databas ") {
		t.Errorf("words = %s: want the matched words as the memory writes them", words)
	}
}

// A secret that the excerpt's end cuts through is masked before the cut,
// so no prefix of it reaches the log; a huge paste costs only its start.
func TestExcerptMasksSecretAtTheCut(t *testing.T) {
	token := "gh" + "p_" + "R4nd0mT0k3nV4lu3F0rT3st1ngQx9Zk7Wp2L"
	text := strings.Repeat("x", maxExcerptRunes-10) + " " + token + "\n" + strings.Repeat("line\n", 1<<20)
	got := excerpt(text)
	if strings.Contains(got, token[4:8]) || !strings.HasSuffix(got, "…") || len([]rune(got)) != maxExcerptRunes+1 {
		t.Errorf("excerpt = %q", got)
	}
	if got := excerpt("plain words"); got != "plain words" {
		t.Errorf("excerpt of a short message = %q", got)
	}
}

// The matched words are logged for the top-ranked memories and the given
// ones, not for every memory a message ranks.
func TestInjectedLogWordsOfTopAndGiven(t *testing.T) {
	inj := &engine.Injection{}
	for i := range maxWordedHits + 10 {
		h := engine.Hit{}
		h.Scope, h.ID, h.Summary = store.Project, fmt.Sprintf("facts/m%02d", i), "deploy tables"
		h.Reasons.Terms = []rank.TermReason{{Term: "deploy"}}
		inj.Hits = append(inj.Hits, h)
	}
	given := inj.Hits[maxWordedHits+5].Key()
	inj.Given = []string{given}
	for i, ih := range injectedLog(inj) {
		if want := i < maxWordedHits || ih.Key == given; (len(ih.Words) > 0) != want || want && ih.Words[0] != "deploy" {
			t.Errorf("hit %d (%s, given %v): words %q", i, ih.Key, ih.Given, ih.Words)
		}
	}
}

// A recall query is logged as a message is: on one line, masked, in every
// form a write's check reads (a DSN's password, a token as Markdown
// escapes it).
func TestLogMasksRecallQuery(t *testing.T) {
	g, p := roots(t)
	var buf lockedBuffer
	c := start(t, Config{GlobalDir: g, ProjectDir: p, Log: slog.New(slog.NewJSONHandler(&buf, nil))})
	token := "gh" + "p_" + "R4nd0mT0k3nV4lu3F0rT3st1ngQx9Zk7Wp2L"
	pw := "Xk9v" + "Q2mLp7Rt"
	for _, q := range []string{"deploy with " + token, "deploy with ghp\\_" + token[4:], "shop:" + pw + "@tcp(db:3306)/shop refused"} {
		c.call("recall", map[string]any{"sessionID": "ses_q", "worktree": "/ignored", "query": q})
	}
	n := 0
	for _, r := range buf.records(t) {
		if r["msg"] != "recall" {
			continue
		}
		n++
		if q, _ := r["query"].(string); strings.Contains(q, token[4:]) || strings.Contains(q, pw) || q == "" {
			t.Errorf("query logged as %q", q)
		}
	}
	if n != 3 {
		t.Errorf("%d recalls logged, want 3", n)
	}
}
