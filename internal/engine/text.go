package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/textseg"
)

// FormatHits renders recall results as text for a person or a model: each
// hit with its full text and, briefly, why it matched.
func FormatHits(hits []Hit, withBody bool) string {
	if len(hits) == 0 {
		return "No memory matches.\n"
	}
	var b strings.Builder
	for i, h := range hits {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%d. %s:%s (%s) score %.3f\n", i+1, h.Scope, h.ID, h.Kind, h.Score)
		fmt.Fprintf(&b, "   %s\n", compile.OneLine(h.Summary))
		if h.Highlight != "" {
			fmt.Fprintf(&b, "   highlight: %s\n", compile.OneLine(h.Highlight))
		}
		fmt.Fprintf(&b, "   why: %s\n", FormatReasons(h))
		if withBody {
			if body := strings.TrimSpace(h.Body); body != "" {
				for _, line := range strings.Split(body, "\n") {
					fmt.Fprintf(&b, "   | %s\n", strings.TrimRight(line, "\r"))
				}
			}
		}
	}
	return b.String()
}

// FormatReasons is the one-line explanation of a hit's score.
func FormatReasons(h Hit) string {
	r := h.Reasons
	terms := make([]string, 0, len(r.Terms))
	for _, t := range r.Terms {
		fields := make([]string, 0, len(t.Fields))
		for f, n := range t.Fields {
			fields = append(fields, fmt.Sprintf("%s×%d", f, n))
		}
		sort.Strings(fields)
		term := fmt.Sprintf("%q in %s", asWritten(h, t.Term), strings.Join(fields, "+"))
		if t.Via != "" {
			term += " via " + t.Via
		}
		terms = append(terms, term)
	}
	s := fmt.Sprintf("matched %s; relevance %.3f, coverage %.2f, scope ×%.2f, decay ×%.2f, boost ×%.2f",
		strings.Join(terms, ", "), r.Relevance, r.Coverage, r.Scope, r.Decay, r.Boost)
	if r.CappedBy != "" {
		s += ", kept under project memory " + r.CappedBy
	}
	if r.Weak != "" {
		s += "; weak match (" + r.Weak + "): not injected with a message"
	}
	return s
}

// asWritten is a matched term as the memory wrote it: the first word of its
// text whose term it is ("Tables" for "tabl"); the term itself when no
// word of the text yields it (a translated term, say).
func asWritten(h Hit, term string) string {
	for _, text := range append([]string{h.Summary, h.Highlight, h.Body}, h.LoadWhen...) {
		for _, tok := range textseg.Tokenize(text) {
			if tok.Text == term {
				return text[tok.Start:tok.End]
			}
		}
	}
	return term
}

// FormatReport renders an inspection for a person or a model.
func FormatReport(rep *Report, listMemories bool) string {
	var b strings.Builder
	for _, scope := range []string{"global", "project"} {
		if dir, ok := rep.Roots[store.Scope(scope)]; ok {
			fmt.Fprintf(&b, "%s root: %s\n", scope, dir)
		}
	}
	if listMemories {
		fmt.Fprintf(&b, "\n%d memories:\n", len(rep.Memories))
		for _, m := range rep.Memories {
			flags := string(m.Kind)
			if m.Pinned {
				flags += ", pinned"
			}
			if m.SupersededBy != "" {
				flags += ", superseded by " + m.SupersededBy
			}
			fmt.Fprintf(&b, "- %s:%s (%s) — %s\n", m.Scope, m.ID, flags, compile.OneLine(m.Summary))
		}
	}
	errs, warns := 0, 0
	for _, i := range rep.Issues {
		if i.Severity == SevError {
			errs++
		} else {
			warns++
		}
	}
	if len(rep.Issues) == 0 {
		b.WriteString("\nConsistency: OK, no problems found.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "\nConsistency: %d error(s), %d warning(s):\n", errs, warns)
	for _, i := range rep.Issues {
		b.WriteString("- " + i.String() + "\n")
	}
	return b.String()
}
