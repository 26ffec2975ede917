package render

import (
	"fmt"
	"strings"

	"github.com/ocmem/ocmem/internal/engine"
)

// The project rules a person accepts with `ocmem trust`, as text: what is
// accepted is what the person read, so each rule is shown whole, and what
// a terminal would hide is written out (engine.Visible). Its suspected
// secrets are masked (engine.ShownText): the person sees which rule holds
// one, never the value, and what is accepted is still the rule's text.

// RuleChange renders a rule that is not (or was not) in force: new, or
// changed with a diff against what was accepted.
func RuleChange(r engine.ProjectRule) string {
	var b strings.Builder
	switch {
	case r.Key == engine.RootMDKey && r.Change == engine.RuleChanged && r.Accepted != "":
		b.WriteString("- changed: ROOT.md's hard rules, as a whole (its headings, lead-ins and the order of its lines count; - accepted, + now):\n")
		diffLines(&b, r.Accepted, r.Text)
	case r.Key == engine.RootMDKey && r.Change == engine.RuleChanged:
		b.WriteString("- changed: ROOT.md's hard rules, accepted line by line before, now accepted as a whole:\n")
		ruleText(&b, r.Text)
	case r.Key == engine.RootMDKey:
		b.WriteString("- new: ROOT.md's hard rules, as a whole (its headings, lead-ins and the order of its lines count):\n")
		ruleText(&b, r.Text)
	case r.Change == engine.RuleChanged:
		head := ruleHead(r)
		fmt.Fprintf(&b, "- changed: %s\n", shownHead(r))
		accepted, now := r.Accepted, r.Text
		if a, ok := underHead(head, accepted); ok {
			if n, ok := underHead(head, now); ok {
				accepted, now = a, n
			}
		}
		diffLines(&b, accepted, now)
	default:
		fmt.Fprintf(&b, "- new: %s\n", shownHead(r))
		body, _ := underHead(ruleHead(r), r.Text)
		ruleText(&b, body)
	}
	return engine.Visible(b.String())
}

func diffLines(b *strings.Builder, accepted, now string) {
	for _, l := range engine.ShownDiff(accepted, now) {
		b.WriteString(strings.TrimRight("    "+l, " ") + "\n")
	}
}

// ruleHead is the line a listing heads a memory rule with: its summary
// and id, as its text begins (engine.RuleText).
func ruleHead(r engine.ProjectRule) string {
	return fmt.Sprintf("%s [%s]", engine.OneLine(r.Summary), r.Key)
}

// shownHead is ruleHead as the person sees it, suspected secrets masked.
func shownHead(r engine.ProjectRule) string {
	return fmt.Sprintf("%s [%s]", engine.OneLine(engine.ShownText(r.Summary)), r.Key)
}

// underHead is a rule's text without its first line when that line is the
// listing's head: a memory rule's text (engine.RuleText) begins with its
// summary and id, and written under a head that says the same, the person
// would read the title twice. The text is still shown whole, its first
// line as the head. A text that begins otherwise is returned whole, and
// false.
func underHead(head, text string) (string, bool) {
	first, rest, _ := strings.Cut(text, "\n")
	if first != "- "+head {
		return text, false
	}
	return rest, true
}

// ruleText writes a rule's whole text, indented, as shown; nothing for
// none.
func ruleText(b *strings.Builder, text string) {
	if strings.TrimRight(text, "\n") == "" {
		return
	}
	for _, l := range strings.Split(strings.TrimRight(engine.ShownText(text), "\n"), "\n") {
		b.WriteString(strings.TrimRight("    | "+l, " ") + "\n")
	}
}

// LineByLine renders the ROOT.md lines an earlier version accepted one by
// one, and what becomes of them (fate); "" when there are none.
func LineByLine(lines []string, fate string) string {
	if len(lines) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ROOT.md lines an earlier version of ocmem accepted one by one (%s):\n", fate)
	for _, l := range lines {
		ruleText(&b, l)
	}
	return engine.Visible(b.String())
}

// Unfit renders ROOT.md's hard rules when their text is unfit for a prompt
// (a lone carriage return, a control, a bidirectional character): they are
// out of force whatever is accepted, and the person sees them whole, with
// what the terminal would hide written out, to find and fix what a
// stranger hid; "" when they are fit.
func Unfit(rules *engine.ProjectRules) string {
	if rules.Unfit == "" {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ROOT.md's hard rules are left out, whatever you accept: %s. They read, with what a terminal would hide written out:\n", rules.Unfit)
	ruleText(&b, rules.UnfitText)
	return engine.Visible(b.String())
}

// ProjectRules renders a project's hard rules under heading, each whole.
func ProjectRules(rules *engine.ProjectRules, heading string) string {
	if rules.Empty() {
		return "It has no hard rules yet.\n"
	}
	var b strings.Builder
	b.WriteString(heading + "\n")
	var root []string
	for _, r := range rules.Rules {
		if r.Key == engine.RootMDKey {
			root = append(root, engine.ShownText(r.Text))
			continue
		}
		fmt.Fprintf(&b, "- %s\n", shownHead(r))
		body, _ := underHead(ruleHead(r), r.Text)
		ruleText(&b, body)
	}
	if len(root) > 0 {
		b.WriteString("- ROOT.md, section Hard rules:\n")
		for _, l := range root {
			fmt.Fprintf(&b, "  > %s\n", strings.ReplaceAll(l, "\n", "\n  > "))
		}
	}
	return engine.Visible(b.String())
}
