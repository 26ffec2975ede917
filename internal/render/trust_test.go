package render

import (
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/secrets"
	"github.com/ocmem/ocmem/internal/secrets/secrettest"
)

func TestTrustTexts(t *testing.T) {
	for _, tc := range []struct {
		name, got, want string
	}{
		{"a new rule, shown whole", RuleChange(engine.ProjectRule{Key: "rules/no-force-push", Summary: "Never force-push", Text: "Never force-push.\nAsk first.\n", Change: engine.RuleNew}),
			"- new: Never force-push [rules/no-force-push]\n    | Never force-push.\n    | Ask first.\n"},
		{"a hidden character written out", RuleChange(engine.ProjectRule{Key: "rules/x", Summary: "x", Text: "run\u202e it", Change: engine.RuleNew}),
			"- new: x [rules/x]\n    | run⟨U+202E⟩ it\n"},
		{"ROOT.md, new", RuleChange(engine.ProjectRule{Key: engine.RootMDKey, Text: "- one", Change: engine.RuleNew}),
			"- new: ROOT.md's hard rules, as a whole (its headings, lead-ins and the order of its lines count):\n    | - one\n"},
		{"no line accepted one by one", LineByLine(nil, "gone"), ""},
		{"lines accepted one by one", LineByLine([]string{"- a", "- b"}, "gone"),
			"ROOT.md lines an earlier version of ocmem accepted one by one (gone):\n    | - a\n    | - b\n"},
		{"fit", Unfit(&engine.ProjectRules{}), ""},
		{"unfit", Unfit(&engine.ProjectRules{Unfit: "a lone carriage return", UnfitText: "- a\rb"}),
			"ROOT.md's hard rules are left out, whatever you accept: a lone carriage return. They read, with what a terminal would hide written out:\n    | - a⟨U+000D⟩b\n"},
		{"no rules", ProjectRules(&engine.ProjectRules{}, "Rules:"), "It has no hard rules yet.\n"},
		{"rules", ProjectRules(&engine.ProjectRules{Rules: []engine.ProjectRule{{Key: "rules/a", Summary: "A", Text: "A."}, {Key: engine.RootMDKey, Text: "- one\n- two"}}}, "Rules:"),
			"Rules:\n- A [rules/a]\n    | A.\n- ROOT.md, section Hard rules:\n  > - one\n  > - two\n"},
		// A memory rule's text begins with the line its head says: the
		// title is written once.
		{"a memory rule, new", RuleChange(engine.ProjectRule{Key: "rules/no-gen", Summary: "Never edit gen/",
			Text: engine.RuleText("rules/no-gen", "Never edit gen/", "", "Generated code."), Change: engine.RuleNew}),
			"- new: Never edit gen/ [rules/no-gen]\n    |   Generated code.\n"},
		{"a memory rule with no body", RuleChange(engine.ProjectRule{Key: "rules/no-gen", Summary: "Never edit gen/",
			Text: engine.RuleText("rules/no-gen", "Never edit gen/", "", ""), Change: engine.RuleNew}),
			"- new: Never edit gen/ [rules/no-gen]\n"},
		{"a memory rule, its body changed", RuleChange(engine.ProjectRule{Key: "rules/no-gen", Summary: "Never edit gen/",
			Text:     engine.RuleText("rules/no-gen", "Never edit gen/", "", "Generated code.\nRun make gen."),
			Accepted: engine.RuleText("rules/no-gen", "Never edit gen/", "", "Generated code."), Change: engine.RuleChanged}),
			"- changed: Never edit gen/ [rules/no-gen]\n        Generated code.\n    +   Run make gen.\n"},
		{"a memory rule, its summary changed", RuleChange(engine.ProjectRule{Key: "rules/no-gen", Summary: "Never touch gen/",
			Text:     engine.RuleText("rules/no-gen", "Never touch gen/", "", "Generated code."),
			Accepted: engine.RuleText("rules/no-gen", "Never edit gen/", "", "Generated code."), Change: engine.RuleChanged}),
			"- changed: Never touch gen/ [rules/no-gen]\n    - - Never edit gen/ [rules/no-gen]\n    + - Never touch gen/ [rules/no-gen]\n        Generated code.\n"},
		{"memory rules in force", ProjectRules(&engine.ProjectRules{Rules: []engine.ProjectRule{{Key: "rules/no-gen", Summary: "Never edit gen/",
			Text: engine.RuleText("rules/no-gen", "Never edit gen/", "", "Generated code.")}}}, "Rules:"),
			"Rules:\n- Never edit gen/ [rules/no-gen]\n    |   Generated code.\n"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, tc.got, tc.want)
		}
	}
}

// TestTrustTextsMaskSecrets: a rule's suspected secret is masked in every
// text `ocmem trust` and `trust --show` print (its summary, its text, its
// diff, ROOT.md's section, the lines accepted one by one, an unfit
// section), the rest of the rule as it reads; a change inside the secret
// still shows as a changed line. The rule given is not changed.
func TestTrustTextsMaskSecrets(t *testing.T) {
	g := secrettest.NewGen(t.Name())
	pat := "ghp_" + g.S(secrettest.Alnum, 36)
	pat2 := "ghp_" + g.S(secrettest.Alnum, 36)
	key := "AKIA" + g.S(secrettest.Base32, 16)
	mask := func(s string) string {
		out, ok := secrets.Mask(s)
		if !ok || out == s {
			t.Fatalf("the scanner does not mask %q in place", s)
		}
		return out
	}
	rule := engine.ProjectRule{Key: "rules/deploy-key", Summary: "Deploy with " + pat, Text: "Always deploy with " + pat + " here.\nAsk first.\n", Change: engine.RuleNew}
	changed := rule
	changed.Change, changed.Accepted = engine.RuleChanged, "Always deploy with "+pat2+" here.\nAsk first.\n"
	root := engine.ProjectRule{Key: engine.RootMDKey, Text: "## Hard rules\n\n- Use the key " + key + " for S3", Change: engine.RuleNew}
	for _, tc := range []struct {
		name, got string
		secrets   []string
		want      []string
	}{
		{"a new rule", RuleChange(rule), []string{pat},
			[]string{"- new: Deploy with " + mask(pat) + " [rules/deploy-key]\n", "    | Always deploy with " + mask(pat) + " here.\n    | Ask first.\n"}},
		{"a changed rule", RuleChange(changed), []string{pat, pat2},
			[]string{"    - Always deploy with " + mask(pat2) + " here.\n    + Always deploy with " + mask(pat) + " here.\n      Ask first.\n"}},
		{"ROOT.md, new", RuleChange(root), []string{key}, []string{"    | - Use the key " + mask(key) + " for S3\n"}},
		{"lines accepted one by one", LineByLine([]string{"- Use the key " + key}, "gone"), []string{key}, []string{"    | - Use the key " + mask(key) + "\n"}},
		{"unfit", Unfit(&engine.ProjectRules{Unfit: "a lone carriage return", UnfitText: "- " + key + "\rb"}), []string{key}, []string{"    | - " + mask(key) + "⟨U+000D⟩b\n"}},
		{"rules", ProjectRules(&engine.ProjectRules{Rules: []engine.ProjectRule{rule, root}}, "Rules:"), []string{pat, key},
			[]string{"- Deploy with " + mask(pat) + " [rules/deploy-key]\n    | Always deploy with " + mask(pat) + " here.\n", "  > - Use the key " + mask(key) + " for S3\n"}},
	} {
		for _, s := range tc.secrets {
			if strings.Contains(tc.got, s) {
				t.Errorf("%s shows a secret:\n%s", tc.name, tc.got)
			}
		}
		for _, w := range tc.want {
			if !strings.Contains(tc.got, w) {
				t.Errorf("%s lacks %q:\n%s", tc.name, w, tc.got)
			}
		}
	}
	if !strings.Contains(rule.Text, pat) || !strings.Contains(changed.Accepted, pat2) {
		t.Errorf("rendering changed the rule: %+v", changed)
	}
}
