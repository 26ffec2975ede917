package engine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// brokenPush is a global rule's file broken by a tab-indented line, as an
// editor slip leaves it.
const brokenPush = "---\nid: rules/no-force-push\nkind: rule\nsummary: Never force-push\nenforce:\n  bash:\n    \"git push --force *\": deny\n\t\"git push -f *\": deny\n  edit:\n    \"dist/**\": deny\n---\nbody\n"

func TestBrokenRuleReadsItsTools(t *testing.T) {
	for _, tc := range []struct {
		name, rel, raw string
		rule           bool
		tools          []string
	}{
		{"tab slip", "rules/no-force-push.md", brokenPush, true, []string{"bash", "edit"}},
		{"kind line outside rules", "facts/x.md", "---\nkind: rule\nsummary: \"open\nenforce:\n  write: deny\n---\n", true, []string{"write"}},
		{"rules folder, no enforce", "rules/x.md", "---\nsummary: [\n---\n", true, nil},
		{"a proposal is no rule", "facts/p.md", "---\nkind: rule-proposal\nenforce:\n  bash: deny\n---\n", false, []string{"bash"}},
		{"a fact", "facts/f.md", "---\nkind: fact\nsummary: \"open\n---\n", false, nil},
		{"a comment after enforce", "rules/c.md", "---\nenforce: # guards\n  edit: deny\n---\n", true, []string{"edit"}},
		{"an inline block is not read", "rules/i.md", "---\nkind: rule\nenforce: { bash: { \"x*\": deny } }\nsummary: [\n", true, nil},
		{"enforce ends at the next key", "rules/y.md", "---\nenforce:\n  bash:\n    x: deny\nkind: rule\nsummary: [\n", true, []string{"bash"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rule, tools := brokenRule(tc.rel, []byte(tc.raw))
			if rule != tc.rule || !slices.Equal(tools, tc.tools) {
				t.Errorf("brokenRule = %v %q, want %v %q", rule, tools, tc.rule, tc.tools)
			}
		})
	}
}

// A hard rule's file that stops loading is not silently off: calls of the
// tools it guarded ask, naming the file; other tools run; a rule in force
// that denies still denies; and the file is listed among the problems.
func TestBrokenRuleFileAsks(t *testing.T) {
	rs := newRoots(t)
	path := filepath.Join(rs.global, "rules", "no-force-push.md")
	writeString(t, path, brokenPush)
	writeString(t, filepath.Join(rs.global, "rules", "clean.md"),
		guardedFile("rules/clean", "rule", "never make clean", "  bash: { \"make clean*\": deny }\n"))
	e := New(Config{GlobalDir: rs.global, ProjectDir: rs.project, Now: func() time.Time { return testNow }})

	v := mustCheck(t, e, bashCall("git push --force origin main"))
	if v.Action != "ask" || v.Rule == nil || v.Rule.Path != path || v.Rule.Broken == "" {
		t.Fatalf("a call the broken rule guarded: %+v", v)
	}
	for _, want := range []string{path, "line 7: invalid YAML", "does not load", "not in force"} {
		if !strings.Contains(v.Message, want) {
			t.Errorf("the message lacks %q: %s", want, v.Message)
		}
	}
	if v := mustCheck(t, e, bashCall("make clean")); v.Action != "deny" || v.Rule.ID != "rules/clean" {
		t.Errorf("a rule in force no longer denies: %+v", v)
	}
	if v := mustCheck(t, e, ToolCall{Tool: "read", Args: map[string]any{"filePath": "a.go"}}); v.Stopped() {
		t.Errorf("a tool the broken rule never named is stopped: %+v", v)
	}
	g, err := e.Guards()
	if err != nil {
		t.Fatal(err)
	}
	if tools := GuardedTools(g); !slices.Contains(tools, "bash") || !slices.Contains(tools, "edit") {
		t.Errorf("guarded tools %q lack the broken rule's", tools)
	}
	ps, err := e.LoadProblems()
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].Path != path || ps[0].Line != 7 || !ps[0].Rule || !slices.Equal(ps[0].Asks, []string{"bash", "edit"}) {
		t.Errorf("LoadProblems = %+v", ps)
	}
}

// A project's broken rule file asks only once the project's rules could
// bind: an untrusted repository cannot make its tools ask.
func TestBrokenProjectRuleAsksOnlyWhenTrusted(t *testing.T) {
	rs := newRoots(t)
	writeString(t, filepath.Join(rs.project, "rules", "no-force-push.md"), brokenPush)
	ft := &fakeTrust{}
	e := New(Config{GlobalDir: rs.global, ProjectDir: rs.project, Now: func() time.Time { return testNow }, Trust: ft})
	ft.e = e
	if v := mustCheck(t, e, bashCall("git push --force origin main")); v.Stopped() {
		t.Errorf("an untrusted project's broken file stopped a call: %+v", v)
	}
	if _, err := e.Trust(""); err != nil {
		t.Fatal(err)
	}
	if v := mustCheck(t, e, bashCall("git push --force origin main")); v.Action != "ask" {
		t.Errorf("a trusted project's broken rule file: %+v", v)
	}
}

// brokenRule reads any text without failing, and names only tools the
// text holds as keys.
func FuzzBrokenRule(f *testing.F) {
	f.Add("rules/x.md", brokenPush)
	f.Add("facts/x.md", "---\nkind: rule\nenforce:\n\t\"*\": deny\n  bash: [\n")
	f.Add("x.md", "enforce:\n  \"edit\" :\n")
	f.Fuzz(func(t *testing.T, rel, raw string) {
		rule, tools := brokenRule(rel, []byte(raw))
		if strings.HasPrefix(rel, "rules/") && !rule {
			t.Errorf("a file in a rules folder is not a rule")
		}
		lower := strings.ToLower(raw)
		for _, tool := range tools {
			if tool == "" || !strings.Contains(lower, tool) || !strings.Contains(raw, "enforce:") {
				t.Errorf("tool %q is not in the text %q", tool, raw)
			}
		}
	})
}

// A rule-looking file the loader refuses without reading it (a link that
// leaves the root) is not read for its tools either: what it points to is
// not the store's.
func TestBrokenRuleLinkNotFollowed(t *testing.T) {
	rs := newRoots(t)
	outside := filepath.Join(t.TempDir(), "elsewhere.md")
	writeString(t, outside, brokenPush)
	link := filepath.Join(rs.global, "rules", "linked.md")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	e := New(Config{GlobalDir: rs.global, ProjectDir: rs.project, Now: func() time.Time { return testNow }})
	ps, err := e.LoadProblems()
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].Path != link {
		t.Fatalf("problems = %+v, want the link", ps)
	}
	if len(ps[0].Asks) != 0 {
		t.Errorf("the link's target was read for its tools: %q", ps[0].Asks)
	}
	if v := mustCheck(t, e, bashCall("git push --force origin main")); v.Action == "ask" {
		t.Errorf("a link's target guards calls: %+v", v)
	}
}
