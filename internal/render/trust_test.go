package render

import (
	"testing"

	"github.com/ocmem/ocmem/internal/engine"
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
