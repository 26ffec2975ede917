package serve

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func writeRule(t *testing.T, path, enforce string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	data := "---\nid: rules/push\nkind: rule\nsummary: never force-push\nenforce:\n" + enforce + "---\nRewrite your own branch only.\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (c *client) check(params map[string]any) checkResult {
	c.t.Helper()
	if r := c.call("check", params); r.Error != nil {
		c.t.Fatalf("check: %+v", r.Error)
	}
	var r struct {
		Result checkResult `json:"result"`
	}
	if err := json.Unmarshal(c.out.Bytes(), &r); err != nil {
		c.t.Fatal(err)
	}
	return r.Result
}

// The plugin's check: a guarded call is stopped with the rule named, the
// stop is logged with its session; an unguarded call runs; a rule edited
// mid-session binds from the next call; system lists the guarded tools.
func TestCheck(t *testing.T) {
	g, p := roots(t)
	path := filepath.Join(g, "rules", "push.md")
	writeRule(t, path, "  bash: { \"git push -f*\": deny }\n")
	var buf lockedBuffer
	c := start(t, Config{GlobalDir: g, ProjectDir: p, Log: slog.New(slog.NewJSONHandler(&buf, nil))})
	call := func(tool string, args map[string]any) checkResult {
		return c.check(map[string]any{"sessionID": "ses_g", "worktree": t.TempDir(), "tool": tool, "callID": "call_1", "args": args})
	}

	r := call("bash", map[string]any{"command": "bash -c 'git push -f origin main'"})
	if r.Action != "deny" || r.Rule != "rules/push" || r.Path != path || !strings.Contains(r.Message, "never force-push") || r.Notice == "" {
		t.Fatalf("a guarded call: %+v", r)
	}
	if !slices.Contains(r.Guarded, "bash") || !slices.Contains(r.Guarded, "shell") {
		t.Errorf("guarded tools: %v", r.Guarded)
	}
	if r := call("shell", map[string]any{"command": "git status"}); r.Action != "" || r.Message != "" {
		t.Errorf("an unguarded call: %+v", r)
	}
	stops := 0
	for _, rec := range buf.records(t) {
		if rec["msg"] == "tool stopped" {
			stops++
			if rec["session"] != "ses_g" || rec["rule"] != "rules/push" || rec["subject"] != "git push -f origin main" || rec["tool"] != "bash" {
				t.Errorf("the stop's log line: %v", rec)
			}
		}
	}
	if stops != 1 {
		t.Errorf("%d stops logged, want 1", stops)
	}

	// An edit mid-session: the file watch reloads; the next call binds.
	writeRule(t, path, "  bash: { \"git push -f*\": deny }\n  edit: { \"dist/**\": deny }\n")
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := call("edit", map[string]any{"filePath": "dist/app.js"})
		if r.Action == "deny" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the edited rule does not bind: %+v", r)
		}
		time.Sleep(50 * time.Millisecond)
	}

	sys := c.call("system", map[string]any{"sessionID": "ses_g", "worktree": "/x"})
	var full struct {
		Result textResult `json:"result"`
	}
	if err := json.Unmarshal(c.out.Bytes(), &full); err != nil || sys.Error != nil {
		t.Fatal(err, sys.Error)
	}
	if !slices.Contains(full.Result.Guarded, "edit") || !slices.Contains(full.Result.Guarded, "write") {
		t.Errorf("system's guarded tools: %v", full.Result.Guarded)
	}
	if r := c.call("check", map[string]any{"tool": "bash", "args": "not an object"}); r.Error == nil {
		t.Error("check took args that are no object")
	}
}

// A hand edit that breaks a guarded rule's file mid-session does not turn
// the guard off: the plugin's next call of the tool it guarded asks, the
// message and the notice naming the file; a tool it never named runs.
func TestCheckBrokenRuleFileAsks(t *testing.T) {
	g, p := roots(t)
	path := filepath.Join(g, "rules", "push.md")
	writeRule(t, path, "  bash:\n    \"git push --force *\": deny\n")
	c := start(t, Config{GlobalDir: g, ProjectDir: p})
	call := func(tool string, args map[string]any) checkResult {
		return c.check(map[string]any{"sessionID": "ses_b", "worktree": t.TempDir(), "tool": tool, "callID": "call_1", "args": args})
	}
	push := map[string]any{"command": "git push --force origin main"}
	if r := call("bash", push); r.Action != "deny" {
		t.Fatalf("the rule before the edit: %+v", r)
	}

	writeRule(t, path, "  bash:\n    \"git push --force *\": deny\n\t\"git push -f *\": deny\n")
	deadline := time.Now().Add(10 * time.Second)
	r := call("bash", push)
	for r.Action == "deny" && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		r = call("bash", push)
	}
	if r.Action != "ask" || r.Path != path || !strings.Contains(r.Message, "does not load") || !strings.Contains(r.Notice, path) {
		t.Fatalf("a call the broken file guarded: %+v", r)
	}
	if !slices.Contains(r.Guarded, "bash") {
		t.Errorf("guarded tools: %v", r.Guarded)
	}
	if r := call("edit", map[string]any{"filePath": "main.go"}); r.Action != "" {
		t.Errorf("a tool the broken file never named: %+v", r)
	}
}
