package tiers

import (
	"regexp"
	"strings"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/trust"
)

// RootRuleLineNumbers returns, for each rule of ROOT.md's hard-rules
// section (rootRuleLines, in order), the 1-based line of ROOT.md it was
// read from, so a person is pointed at the rule itself, not at the
// section's heading. Each rule is looked for after the previous one's
// line, as written or with the comments inside the line removed (as the
// section's text is read); one not found gets the heading's line.
func RootRuleLineNumbers(rootMD []byte, rules []string) []int {
	_, heading := compile.HardRulesAt(rootMD)
	text := strings.TrimPrefix(strings.ReplaceAll(string(rootMD), "\r\n", "\n"), "\ufeff")
	file := strings.Split(text, "\n")
	out := make([]int, len(rules))
	next := heading // index of the line after the heading
	for i, rule := range rules {
		out[i] = heading
		// A rule with nested lines is found by its first line.
		rule, _, _ = strings.Cut(rule, "\n")
		at := findLine(file, next, func(l string) bool { return strings.TrimRight(l, " \t\r") == rule })
		if at < 0 {
			at = findLine(file, next, func(l string) bool {
				return strings.TrimRight(inlineComment.ReplaceAllString(l, ""), " \t\r") == rule
			})
		}
		if at >= 0 {
			out[i], next = at+1, at+1
		}
	}
	return out
}

// inlineComment is an HTML comment within one line.
var inlineComment = regexp.MustCompile(`<!--.*?-->`)

// findLine is the index of the first of lines[from:] that match accepts,
// or -1.
func findLine(lines []string, from int, match func(string) bool) int {
	for i := max(from, 0); i < len(lines); i++ {
		if match(lines[i]) {
			return i
		}
	}
	return -1
}

// ChangeCounts counts the rules not in force that are new (trust.RuleNew) and
// those that changed (trust.RuleChanged): the words `ocmem rules`, doctor, the
// log and the plugin's warning all use for them.
func ChangeCounts(rules []ProjectRule) (fresh, changed int) {
	for _, r := range rules {
		switch r.Change {
		case trust.RuleNew:
			fresh++
		case trust.RuleChanged:
			changed++
		}
	}
	return fresh, changed
}
