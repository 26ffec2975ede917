package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/trust"
)

// TestTrustDecidesProjectRules: serve shows an untrusted project's rules as
// the repository's proposals, and follows `ocmem trust` / `ocmem untrust`
// on the next turn without a restart.
func TestTrustDecidesProjectRules(t *testing.T) {
	g, p := roots(t)
	os.MkdirAll(filepath.Join(p, "rules"), 0o755)
	os.WriteFile(filepath.Join(p, "rules", "r.md"), []byte("---\nid: rules/r\nkind: rule\nsummary: PROJECT-RULE run make check\n---\nRULE-BODY\n"), 0o644)
	list := trust.List{Path: filepath.Join(t.TempDir(), "trusted.json")}
	c := start(t, Config{GlobalDir: g, ProjectDir: p, TrustFile: list.Path})
	const proposed = "# Proposed by this repository, not confirmed by the user"

	sys := c.call("system", map[string]any{}).Result.Text
	if !strings.Contains(sys, proposed) || !strings.Contains(sys, "PROJECT-RULE") || strings.Contains(sys, "RULE-BODY") {
		t.Fatalf("untrusted project: %q", sys)
	}
	// `ocmem trust` pins the rule's text.
	pin := trust.NewPin("rules/r", engine.RuleText("rules/r", "PROJECT-RULE run make check", "", "RULE-BODY\n"))
	if _, err := list.Accept(trust.ProjectKey(p), time.Now(), []trust.Pin{pin}); err != nil {
		t.Fatal(err)
	}
	sys = c.call("system", map[string]any{}).Result.Text
	if strings.Contains(sys, proposed) || !strings.Contains(sys, "RULE-BODY") {
		t.Fatalf("trusted project, next turn: %q", sys)
	}
	// A trusted project whose accepted rules are not the ones it has now
	// (a pull, before `ocmem trust` again) has nothing in force.
	other := trust.NewPin("rules/r", engine.RuleText("rules/r", "PROJECT-RULE run make check", "", "OLD-BODY\n"))
	if _, err := list.Accept(trust.ProjectKey(p), time.Now(), []trust.Pin{other}); err != nil {
		t.Fatal(err)
	}
	if sys = c.call("system", map[string]any{}).Result.Text; !strings.Contains(sys, proposed) || strings.Contains(sys, "RULE-BODY") {
		t.Fatalf("changed since accepted, next turn: %q", sys)
	}
	if _, err := list.Untrust(trust.ProjectKey(p)); err != nil {
		t.Fatal(err)
	}
	if sys = c.call("system", map[string]any{}).Result.Text; !strings.Contains(sys, proposed) {
		t.Fatalf("untrusted again, next turn: %q", sys)
	}

	// Without a trust list nothing is trusted.
	c2 := start(t, Config{GlobalDir: g, ProjectDir: p})
	if sys := c2.call("system", map[string]any{}).Result.Text; !strings.Contains(sys, proposed) {
		t.Fatalf("no trust list: %q", sys)
	}
}

// TestRuleChangeToldOnce: when a rule the user accepted changes (a pull,
// a hand edit), the next turn's system result carries a warning for the
// person, once; the rule is the repository's proposal meanwhile. An
// untrusted project's rules are not news.
func TestRuleChangeToldOnce(t *testing.T) {
	g, p := roots(t)
	rule := filepath.Join(p, "rules", "r.md")
	os.MkdirAll(filepath.Dir(rule), 0o755)
	os.WriteFile(rule, []byte("---\nid: rules/r\nkind: rule\nsummary: PROJECT-RULE run make check\n---\nRULE-BODY\n"), 0o644)
	list := trust.List{Path: filepath.Join(t.TempDir(), "trusted.json")}
	c := start(t, Config{GlobalDir: g, ProjectDir: p, TrustFile: list.Path})
	if r := c.call("system", map[string]any{}); r.Result.Warning != "" {
		t.Fatalf("untrusted project: warning %q", r.Result.Warning)
	}
	pin := trust.NewPin("rules/r", engine.RuleText("rules/r", "PROJECT-RULE run make check", "", "RULE-BODY\n"))
	if _, err := list.Accept(trust.ProjectKey(p), time.Now(), []trust.Pin{pin}); err != nil {
		t.Fatal(err)
	}
	if r := c.call("system", map[string]any{}); r.Result.Warning != "" || !strings.Contains(r.Result.Text, "RULE-BODY") {
		t.Fatalf("accepted: %+v", r.Result)
	}
	os.WriteFile(rule, []byte("---\nid: rules/r\nkind: rule\nsummary: PROJECT-RULE run make check\n---\nCHANGED-BODY\n"), 0o644)
	var warnings []string
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := c.call("system", map[string]any{})
		if r.Result.Warning != "" {
			warnings = append(warnings, r.Result.Warning)
		}
		if strings.Contains(r.Result.Text, "# Proposed by this repository") {
			if strings.Contains(r.Result.Text, "CHANGED-BODY") {
				t.Fatalf("the changed body is in the system prompt:\n%s", r.Result.Text)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the change was not seen: %q", r.Result.Text)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := c.call("system", map[string]any{}); r.Result.Warning != "" {
		warnings = append(warnings, r.Result.Warning)
	}
	want := "1 project rule changed since you accepted this repository's rules (a pull, or an edit by hand), so not in force: `ocmem rules` shows them, `ocmem trust` accepts them."
	if len(warnings) != 1 || warnings[0] != want {
		t.Errorf("warnings %q, want once %q", warnings, want)
	}
}

// TestRuleNewsNotice: the warning names rules new and changed in the
// words `ocmem rules` and the log use, not "new or changed" for a rule
// that is one of the two.
func TestRuleNewsNotice(t *testing.T) {
	n, c := engine.ProjectRule{Change: engine.RuleNew}, engine.ProjectRule{Change: engine.RuleChanged}
	for _, tt := range []struct {
		news []engine.ProjectRule
		want string
	}{
		{[]engine.ProjectRule{n}, "1 project rule is new since you accepted"},
		{[]engine.ProjectRule{n, n}, "2 project rules are new since you accepted"},
		{[]engine.ProjectRule{c}, "1 project rule changed since you accepted"},
		{[]engine.ProjectRule{n, c, c}, "3 project rules are new or changed (1 new, 2 changed) since you accepted"},
	} {
		if got := ruleNewsNotice(tt.news); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%d news: %q, want it to start %q", len(tt.news), got, tt.want)
		}
	}
}

// TestRootMDNotInForceToldOnce: a person's own ROOT.md hard rule in a
// project they have not trusted is the repository's proposal; the next
// turn's system result tells them so once, with the command that confirms
// it, and again only when the section's text changes. Confirmed, it is in
// force and nothing is said.
func TestRootMDNotInForceToldOnce(t *testing.T) {
	g, p := roots(t)
	root := filepath.Join(p, "ROOT.md")
	os.MkdirAll(p, 0o755)
	os.WriteFile(root, []byte("# Memory\n\n## Hard rules\n\n- MY-RULE: never force-push to main.\n"), 0o644)
	list := trust.List{Path: filepath.Join(t.TempDir(), "trusted.json")}
	c := start(t, Config{GlobalDir: g, ProjectDir: p, TrustFile: list.Path})
	first := c.call("system", map[string]any{}).Result
	if !strings.Contains(first.Text, "> - MY-RULE") || !strings.Contains(first.Warning, "confirm them with `ocmem trust`") {
		t.Fatalf("first turn: warning %q, text:\n%s", first.Warning, first.Text)
	}
	if w := c.call("system", map[string]any{}).Result.Warning; w != "" {
		t.Errorf("told again on the next turn: %q", w)
	}

	os.WriteFile(root, []byte("# Memory\n\n## Hard rules\n\n- MY-RULE: never force-push to main.\n- MY-RULE-2: run make check.\n"), 0o644)
	var warnings []string
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := c.call("system", map[string]any{}).Result
		if r.Warning != "" {
			warnings = append(warnings, r.Warning)
		}
		if strings.Contains(r.Text, "MY-RULE-2") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the edit was not seen: %q", r.Text)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := c.call("system", map[string]any{}); r.Result.Warning != "" {
		warnings = append(warnings, r.Result.Warning)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "`ocmem trust`") {
		t.Errorf("after an edit: warnings %q, want one naming `ocmem trust`", warnings)
	}

	e := engine.New(engine.Config{ProjectDir: p, Trust: list.For(p)})
	if _, err := e.Trust(""); err != nil {
		t.Fatal(err)
	}
	r := c.call("system", map[string]any{}).Result
	if r.Warning != "" || strings.Contains(r.Text, "# Proposed by this repository") || !strings.Contains(r.Text, "\n- MY-RULE-2") {
		t.Errorf("confirmed: warning %q, text:\n%s", r.Warning, r.Text)
	}
}
