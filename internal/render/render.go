// Package render writes the engine's answers as text for a person or a
// model: recall hits with the reasons for their scores (`ocmem recall`,
// memory_recall), inspection reports (`ocmem inspect`, memory_inspect) and
// the rules listing (`ocmem rules`). The CLI, serve and the MCP server print
// these the same way.
//
// What Inject puts in front of the model unasked (the rules and outline
// tiers, the framed memory bodies) is not here: it is the engine's own
// product, computed and cached with the snapshot it describes (see
// internal/engine's inject.go).
package render

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/textseg"
)

// Hits renders recall results as text for a person or a model: each
// hit with its full text and, briefly, why it matched.
func Hits(hits []engine.Hit, withBody bool) string {
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
		fmt.Fprintf(&b, "   why: %s\n", Reasons(h))
		if h.Stale != nil {
			fmt.Fprintf(&b, "   %s\n", h.Stale.Line)
		}
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

// Reasons is the one-line explanation of a hit's score.
func Reasons(h engine.Hit) string {
	r := h.Reasons
	terms := make([]string, 0, len(r.Terms))
	written := WrittenTerms(h, reasonTerms(h))
	for _, t := range r.Terms {
		fields := make([]string, 0, len(t.Fields))
		for f, n := range t.Fields {
			fields = append(fields, fmt.Sprintf("%s×%d", f, n))
		}
		sort.Strings(fields)
		term := fmt.Sprintf("%q in %s", written[t.Term], strings.Join(fields, "+"))
		if t.Via != "" {
			term += " via " + t.Via
		}
		if t.Aside {
			term += " (the same word, scored by its better match)"
		}
		terms = append(terms, term)
	}
	s := fmt.Sprintf("matched %s; relevance %.3f, coverage %.2f, scope ×%.2f, decay ×%.2f, boost ×%.2f",
		strings.Join(terms, ", "), r.Relevance, r.Coverage, r.Scope, r.Decay, r.Boost)
	if r.Headline != 0 { // how much of its headline the message matches
		s += fmt.Sprintf(", headline ×%.2f", r.Headline)
	}
	if r.Named != "" {
		s += fmt.Sprintf("; the message names its trigger %q whole", r.Named)
	}
	if r.Topic != "" {
		s += "; the message asks about its topic " + r.Topic
	}
	if r.CappedBy != "" {
		s += ", kept under project memory " + r.CappedBy
	}
	if r.Weak != "" {
		s += "; weak match (" + r.Weak + "): not injected with a message"
	}
	switch {
	case h.Stale.IsOutdated():
		s += "; " + h.Stale.Why + " (outdated): ranked last, never injected, kept for history"
	case h.Stale.Gone():
		s += "; its code is gone since it was verified (" + h.Stale.Why + "): ranked below every fresh match"
	case h.Stale != nil:
		s += "; its code changed since it was verified (" + h.Stale.Why + ")"
	}
	return s
}

// AsWritten is a matched term as the memory wrote it (see asWritten), for
// an edge that shows a hit's reasons itself.
func AsWritten(h engine.Hit, term string) string { return asWritten(h, term) }

// reasonTerms are the terms of a hit's reasons.
func reasonTerms(h engine.Hit) []string {
	terms := make([]string, len(h.Reasons.Terms))
	for i, t := range h.Reasons.Terms {
		terms[i] = t.Term
	}
	return terms
}

// AppendWord adds a matched word to a list of them; a CJK bigram that
// continues the last word (表结, 结构 → 表结构) extends it, so a phrase
// reads as it was written. CJK is the tokenizer's (textseg.IsCJK).
func AppendWord(words []string, w string) []string {
	if n := len(words); n > 0 {
		last := []rune(words[n-1])
		r := []rune(w)
		if len(r) == 2 && len(last) >= 2 && textseg.IsCJK(r[0]) && textseg.IsCJK(r[1]) && last[len(last)-1] == r[0] {
			words[n-1] += string(r[1])
			return words
		}
	}
	return append(words, w)
}

// WrittenTerms is asWritten for each of terms, by term: the memory's
// texts are tokenized once, as far as the last term found, where asWritten
// tokenizes them again for every term (a hit's reasons name up to a dozen,
// and its body can be long).
func WrittenTerms(h engine.Hit, terms []string) map[string]string {
	out := make(map[string]string, len(terms))
	found := make(map[string]bool, len(terms))
	for _, t := range terms {
		if _, ok := found[t]; !ok {
			found[t] = false
			out[t] = t // when no word of the texts yields it
		}
	}
	left := len(found)
	for _, text := range append([]string{h.Summary, h.Highlight, h.Body}, h.LoadWhen...) {
		if left == 0 {
			break
		}
		for _, tok := range textseg.Tokenize(text) {
			if done, ok := found[tok.Text]; ok && !done {
				found[tok.Text], out[tok.Text] = true, text[tok.Start:tok.End]
				if left--; left == 0 {
					break
				}
			}
		}
	}
	return out
}

// asWritten is a matched term as the memory wrote it: the first word of its
// text whose term it is ("Tables" for "tabl"); the term itself when no
// word of the text yields it (a translated term, say).
func asWritten(h engine.Hit, term string) string {
	for _, text := range append([]string{h.Summary, h.Highlight, h.Body}, h.LoadWhen...) {
		for _, tok := range textseg.Tokenize(text) {
			if tok.Text == term {
				return text[tok.Start:tok.End]
			}
		}
	}
	return term
}

// Report renders an inspection for a person or a model, with what a
// terminal would hide written out (engine.Visible): a file name or a
// summary from a cloned repository is shown as it is.
func Report(rep *engine.Report, listMemories bool) string {
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
		if i.Severity == engine.SevError {
			errs++
		} else {
			warns++
		}
	}
	if len(rep.Issues) == 0 {
		b.WriteString("\nConsistency: OK, no problems found.\n")
		return engine.Visible(b.String())
	}
	fmt.Fprintf(&b, "\nConsistency: %d error(s), %d warning(s):\n", errs, warns)
	for _, i := range rep.Issues {
		b.WriteString("- " + i.String() + "\n")
	}
	return engine.Visible(b.String())
}

// rootMDEntry writes a ROOT.md section of Rules: each line with its own
// line of ROOT.md and, when a project's section is not in force, how the
// person confirms it.
func rootMDEntry(b *strings.Builder, r engine.RuleEntry) {
	fmt.Fprintf(b, "- %s ROOT.md, section Hard rules (%s):\n", r.Scope, r.Path)
	i := 0
	for _, l := range strings.Split(r.Text, "\n") {
		if l = strings.TrimRight(l, " \t\r"); strings.TrimSpace(l) == "" {
			continue
		}
		if i < len(r.Lines) {
			fmt.Fprintf(b, "    line %d: %s\n", r.Lines[i], l)
		} else {
			fmt.Fprintf(b, "    > %s\n", l)
		}
		i++
	}
	switch {
	case r.Scope != engine.Project:
	case r.Status == engine.RuleChanged && len(r.Diff) == 0:
		// Changed with nothing accepted to diff against: its lines
		// were accepted one by one, which Why explains.
		fmt.Fprintf(b, "    %s.\n", r.Why)
	case r.Status == engine.RuleUntrusted || r.Status == engine.RuleNew || r.Status == engine.RuleChanged:
		fmt.Fprintf(b, "    %s.\n", engine.ConfirmRootMD)
	}
}

// acceptLine says, for a rule a person may accept, how to accept exactly
// the text shown: the model can edit the files between the listing and
// the decision, and the digest makes the decision about what was read.
func acceptLine(b *strings.Builder, r engine.RuleEntry) {
	waiting := r.Status == engine.RuleProposal || r.Status == engine.RuleUntrusted || r.Status == engine.RuleNew || r.Status == engine.RuleChanged
	switch {
	case !waiting || r.Digest == "":
	case r.Source == engine.SourceRootMD && r.Scope == engine.Project:
		fmt.Fprintf(b, "    to accept exactly this text: ocmem accept --digest %s ROOT.md\n", r.Digest)
	case r.Source == engine.SourceMemory:
		fmt.Fprintf(b, "    to accept exactly this text: ocmem accept --scope %s --digest %s %s\n", r.Scope, r.Digest, r.ID)
	}
}

// Rules renders engine.Rules for a person: what is in force, what a
// repository asks for but is not in force (and why), and the proposals
// waiting for a decision, each with where it lives.
func Rules(rules []engine.RuleEntry) string {
	var b strings.Builder
	day := func(ms int64) string {
		if ms == 0 {
			return "unknown"
		}
		return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04 UTC")
	}
	entry := func(r engine.RuleEntry) {
		if r.Source == engine.SourceRootMD {
			rootMDEntry(&b, r)
		} else {
			fmt.Fprintf(&b, "- %s:%s — %s", r.Scope, r.ID, compile.OneLine(r.Summary))
			if r.ProposedBy != "" {
				fmt.Fprintf(&b, " (proposed by %s)", r.ProposedBy)
			}
			if r.SupersededBy != "" {
				fmt.Fprintf(&b, " (superseded by %s)", r.SupersededBy)
			}
			if r.Supersedes != "" {
				fmt.Fprintf(&b, " (accepting it replaces %s)", r.Supersedes)
			}
			fmt.Fprintf(&b, "\n    %s · created %s · updated %s\n", r.Path, day(r.Created), day(r.Updated))
			// A rule's guards: what it stops while in force, and what
			// it would stop once it is.
			verb := "stops"
			if !r.InForce {
				verb = "would stop, once in force"
			}
			for _, g := range r.Enforce {
				v := verb
				if g.Action == "allow" {
					v = "except" // an exception to the patterns before it
				}
				fmt.Fprintf(&b, "    %s: %s %q → %s\n", v, g.Tool, g.Pattern, g.Action)
			}
			// What is not in force is shown whole: accepting puts all of
			// it in force, not only its summary. A changed rule's diff
			// below shows it whole too.
			if !r.InForce && len(r.Diff) == 0 && r.Text != "" {
				for _, l := range strings.Split(strings.TrimRight(r.Text, "\n"), "\n") {
					fmt.Fprintf(&b, "    | %s\n", l)
				}
			}
		}
		for _, l := range r.Diff {
			fmt.Fprintf(&b, "    %s\n", l)
		}
		if !r.InForce && r.Status != engine.RuleProposal && r.Status != engine.RuleUntrusted && r.Status != engine.RuleNew && r.Status != engine.RuleChanged {
			fmt.Fprintf(&b, "    not in force: %s\n", r.Why)
		}
		acceptLine(&b, r)
	}
	sections := []struct {
		title  string
		status []engine.RuleState
		foot   string
	}{
		{"In force (injected as hard rules on every turn):", []engine.RuleState{engine.RuleInForce}, ""},
		{"Changed since you accepted them, not in force (the model sees them only as the repository's proposals); - accepted, + now:", []engine.RuleState{engine.RuleChanged},
			"A pull, or your own edit by hand: accept one with `ocmem accept ID` (`ocmem accept ROOT.md` for its hard-rules section, as a whole), all with `ocmem trust`.\n"},
		{"New since you trusted this repository, not in force (the model sees them only as the repository's proposals):", []engine.RuleState{engine.RuleNew},
			"Accept one with `ocmem accept ID` (`ocmem accept ROOT.md` for its hard-rules section, as a whole), all with `ocmem trust`, after reading them.\n"},
		{"Not in force: this repository's rules, which you have not trusted (the model sees them only as the repository's proposals):", []engine.RuleState{engine.RuleUntrusted},
			"Put them in force with `ocmem trust` (after reading them).\n"},
		{"Rule proposals (not injected as rules; waiting for a person):", []engine.RuleState{engine.RuleProposal},
			"Accept a proposal with `ocmem accept ID`, reject it with `ocmem reject ID`.\n" +
				"Editing its `kind:` line to `rule` by hand accepts a global one; a project one so edited\n" +
				"is not in force until you accept it (`ocmem accept ID`), as every rule of a repository.\n"},
		{"Not in force for other reasons:", []engine.RuleState{engine.RuleSuperseded, engine.RuleUnfit}, ""},
	}
	n := 0
	for _, sec := range sections {
		k := 0
		for _, r := range rules {
			if !slices.Contains(sec.status, r.Status) {
				continue
			}
			if k == 0 {
				if n > 0 {
					b.WriteString("\n")
				}
				b.WriteString(sec.title + "\n")
			}
			k++
			entry(r)
		}
		if k > 0 && sec.foot != "" {
			b.WriteString(sec.foot)
		}
		n += k
	}
	if n == 0 {
		b.WriteString("No rules and no rule proposals.\n")
	}
	// A person decides on what this shows: what a terminal would hide is
	// written out (a lone carriage return draws a rule's second half over
	// its first).
	return engine.Visible(b.String())
}
