package tiers

import (
	"strings"

	"github.com/ocmem/ocmem/internal/prompt"
	"github.com/ocmem/ocmem/internal/trust"
)

// What ocmem shows of a hard rule has its suspected secrets masked, as the
// rules tier masks them (prompt.Mask): a rule written by hand, in a kind:
// rule memory or under ROOT.md's Hard rules, may hold a token, and `ocmem
// rules`, `ocmem trust` and their JSON would print it to a terminal, a log
// or a pasted report. What is pinned and digested stays the rule's own
// text: masking changes what a person reads, never what is accepted or its
// fingerprint.

// ShownRule is the rule as shown: its text, summary and accepted text
// masked.
func ShownRule(r ProjectRule) ProjectRule {
	r.Text, r.Summary, r.Accepted = prompt.Mask(r.Text), prompt.Mask(r.Summary), prompt.Mask(r.Accepted)
	return r
}

// ShownRules is ShownRule of each rule, in a new slice.
func ShownRules(rules []ProjectRule) []ProjectRule {
	if rules == nil {
		return nil
	}
	out := make([]ProjectRule, len(rules))
	for i, r := range rules {
		out[i] = ShownRule(r)
	}
	return out
}

// Shown is a copy of the rules as shown: each rule (ShownRule), the lines
// accepted one by one and an unfit section's text masked.
func (p *ProjectRules) Shown() *ProjectRules {
	out := *p
	out.Rules = ShownRules(p.Rules)
	out.LineByLine = shownLines(p.LineByLine)
	out.UnfitText = prompt.Mask(p.UnfitText)
	return &out
}

// ShownPins is a copy of pins with their texts masked; each keeps the
// digest of the text as accepted.
func ShownPins(pins []trust.Pin) []trust.Pin {
	if pins == nil {
		return nil
	}
	out := make([]trust.Pin, len(pins))
	for i, p := range pins {
		p.Text = prompt.Mask(p.Text)
		out[i] = p
	}
	return out
}

// shownLines masks each of texts, in a new slice.
func shownLines(texts []string) []string {
	if texts == nil {
		return nil
	}
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = prompt.Mask(t)
	}
	return out
}

// ShownDiff is trust.Diff of a rule's accepted text and its text now, as
// shown. The diff is of the texts themselves, each line then shown as its
// whole text masks it, so a change inside a secret (a token replaced)
// still shows as a changed line, masked on both sides. When masking
// changes a text's number of lines (a secret over several lines), the
// diff is of the masked texts.
func ShownDiff(accepted, now string) []string {
	a, n := maskedLines(accepted), maskedLines(now)
	if a == nil || n == nil {
		return trust.Diff(prompt.Mask(accepted), prompt.Mask(now))
	}
	d := trust.Diff(accepted, now)
	i, j := 0, 0
	for k, l := range d {
		switch {
		case strings.HasPrefix(l, "- ") && i < len(a):
			d[k] = "- " + a[i]
			i++
		case strings.HasPrefix(l, "+ ") && j < len(n):
			d[k] = "+ " + n[j]
			j++
		case i < len(a) && j < len(n):
			d[k] = "  " + n[j]
			i, j = i+1, j+1
		default: // not a diff of these texts: show none of it unmasked
			return trust.Diff(prompt.Mask(accepted), prompt.Mask(now))
		}
	}
	return d
}

// maskedLines is text masked, split into lines as trust.Diff splits it;
// nil when masking changed their number.
func maskedLines(text string) []string {
	lines := func(s string) []string {
		if s = strings.TrimRight(s, "\n"); s == "" {
			return []string{}
		}
		return strings.Split(s, "\n")
	}
	raw, masked := lines(text), lines(prompt.Mask(text))
	if len(raw) != len(masked) {
		return nil
	}
	return masked
}
