package tiers

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/prompt"
	"github.com/ocmem/ocmem/internal/snapshot"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/trust"
)

// RuleEntry is one rule or rule proposal, with where it came from and
// whether it is in force. Source "memory" is a kind: rule or rule-proposal
// memory; source "ROOT.md" is the root's hard-rules section, decided as a
// whole: its Text, and in Lines the line of ROOT.md each of its non-blank
// lines was read from (Line is the first).
type RuleEntry struct {
	ID           string      `json:"id,omitempty"`
	Scope        store.Scope `json:"scope"`
	Source       string      `json:"source"`
	Path         string      `json:"path"`
	Line         int         `json:"line,omitempty"`
	Kind         memory.Kind `json:"kind,omitempty"`
	Summary      string      `json:"summary,omitempty"`
	Text         string      `json:"text,omitempty"`
	Created      int64       `json:"created,omitempty"`
	Updated      int64       `json:"updated,omitempty"`
	ProposedBy   string      `json:"proposed_by,omitempty"`
	SupersededBy string      `json:"superseded_by,omitempty"`
	// Supersedes is, for a proposal, the memory accepting it replaces.
	Supersedes string `json:"supersedes,omitempty"`
	// InForce is true when the rule is injected as a hard rule; Status
	// says which case (Rule… constants) and Why says it in words.
	InForce bool            `json:"in_force"`
	Status  trust.RuleState `json:"status"`
	Why     string          `json:"why"`
	// Diff is, for a changed rule, its text against the accepted text,
	// line by line ("- " accepted, "+ " now, "  " both).
	Diff []string `json:"diff,omitempty"`
	// Lines are, for ROOT.md rules, the 1-based lines of ROOT.md that
	// Text's non-blank lines come from, in order.
	Lines []int `json:"lines,omitempty"`
	// Enforce is a rule memory's guards: what it stops while in force.
	Enforce []memory.Guard `json:"enforce,omitempty"`
	// Digest is the digest of Text (trust.Digest), what its pin holds once
	// accepted, and for a proposal that replaces a memory of Supersedes
	// too (ShownDigest): Accept given it back accepts only if the rule
	// still reads as listed.
	Digest string `json:"digest,omitempty"`
}

// Rule sources.
const (
	SourceMemory = "memory"
	SourceRootMD = "ROOT.md"
)

// Entries lists every hard rule and rule proposal of the roots in s, with
// whether it is in force by the gate g: each root's ROOT.md hard-rules
// section and every memory of kind rule or rule-proposal, as shown (their
// suspected secrets masked: see ShownRule). Global first,
// then project; within a root, ROOT.md first, then rules, then proposals;
// then by id.
func Entries(s *snapshot.Snapshot, roots []store.Root, g *trust.Gate) []RuleEntry {
	out := []RuleEntry{}
	for _, r := range roots {
		text, line := compile.HardRulesAt(s.RootMD[r.Scope])
		if text == "" {
			continue
		}
		re := RuleEntry{Scope: r.Scope, Source: SourceRootMD, Path: filepath.Join(r.Dir, "ROOT.md"), Line: line, Text: text, Digest: trust.Digest(text)}
		sec := g.RootMD(r.Scope, text)
		if sec.Unfit != nil {
			re.InForce, re.Status, re.Why = false, trust.RuleUnfit, "left out: "+oneLine(sec.Unfit)+"; `ocmem inspect` shows where"
			re.Text = prompt.Mask(re.Text)
			out = append(out, re)
			continue
		}
		re.Text, re.Digest = prompt.Mask(sec.Text), trust.Digest(sec.Text)
		if nums := RootRuleLineNumbers(s.RootMD[r.Scope], nonBlankLines(sec.Text)); len(nums) > 0 {
			re.Line, re.Lines = nums[0], nums
		}
		describe(&re, sec.State, g.Trusted())
		if sec.State == trust.RuleChanged {
			if before := g.AcceptedBefore(trust.RootMDSectionKey); before != "" {
				re.Diff = ShownDiff(before, sec.Text)
			} else {
				re.Why = "its lines were accepted one by one by an earlier version of ocmem; ROOT.md's hard rules are now accepted " +
					"as one section (a line means what its heading and lead-in say), so none of them is in force until you accept it: " +
					"shown to the model as the repository's proposal only; `ocmem accept ROOT.md` or `ocmem trust` puts it in force as it reads now"
			}
		}
		out = append(out, re)
	}
	for _, f := range s.Files() {
		m := f.Memory
		if m.Kind != memory.KindRule && m.Kind != memory.KindRuleProposal {
			continue
		}
		re := RuleEntry{
			ID: m.ID, Scope: f.Scope, Source: SourceMemory, Path: f.Path, Kind: m.Kind, Summary: prompt.Mask(m.Summary),
			Created: m.Created, Updated: m.Updated, ProposedBy: m.ProposedBy, SupersededBy: m.SupersededBy,
			Enforce: m.Enforce,
		}
		if m.Kind == memory.KindRuleProposal {
			re.Supersedes = m.Supersedes
		}
		// The whole text that accepting puts in force, not only its
		// summary: what a person accepts is what they read.
		text := MemoryRuleText(m)
		re.Text, re.Digest = prompt.Mask(text), ShownDigest(m)
		st := g.State(trust.Rule{Scope: f.Scope, Kind: m.Kind, SupersededBy: m.SupersededBy, Key: m.ID, Text: []byte(text)})
		describe(&re, st, g.Trusted())
		if st == trust.RuleChanged {
			re.Diff = ShownDiff(g.AcceptedBefore(m.ID), text)
		}
		out = append(out, re)
	}
	rank := func(r RuleEntry) int {
		n := 0
		if r.Scope == store.Project {
			n += 4
		}
		switch {
		case r.Source == SourceRootMD:
		case r.Kind == memory.KindRuleProposal:
			n += 2
		default:
			n++
		}
		return n
	}
	sort.SliceStable(out, func(i, j int) bool {
		if a, b := rank(out[i]), rank(out[j]); a != b {
			return a < b
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// describe sets a rule's InForce, Status and Why from its state (the
// gate's state), in the words every report of rules uses.
func describe(re *RuleEntry, st trust.RuleState, trusted bool) {
	re.InForce, re.Status = st == trust.RuleInForce, st
	switch {
	case st == trust.RuleSuperseded:
		re.Why = "superseded by " + re.SupersededBy + "; not injected"
	case st == trust.RuleProposal:
		re.Why = "a proposal waiting for a person (`ocmem accept ID` or `ocmem reject ID`); not injected as a rule"
	case st == trust.RuleInForce && re.Scope == store.Global:
		re.Why = "your global memory"
	case st == trust.RuleInForce && trusted:
		re.Why = "this repository's memory, which you trust, as you accepted it (`ocmem untrust` withdraws it)"
	case st == trust.RuleInForce:
		re.Why = "accepted by you as it reads (written or accepted through ocmem); the rest of this repository is not trusted"
	case st == trust.RuleChanged && re.Source == SourceRootMD:
		re.Why = "changed since you accepted ROOT.md's hard rules (a pull, or an edit by hand; the section is accepted as a whole, " +
			"so a line added, moved or reordered, or a heading or lead-in changed, counts): shown to the model as the repository's proposal only; " +
			"`ocmem accept ROOT.md` or `ocmem trust` puts it in force as it reads now"
	case st == trust.RuleChanged:
		re.Why = "changed since you accepted it (a pull, or an edit by hand): shown to the model as the repository's proposal only; " +
			"`ocmem accept " + re.ID + "` or `ocmem trust` puts it in force as it reads now"
	case st == trust.RuleNew && re.Source == SourceRootMD:
		re.Why = "new since you trusted this repository: shown to the model as the repository's proposal only; `ocmem accept ROOT.md` or `ocmem trust` puts it in force"
	case st == trust.RuleNew:
		re.Why = "new since you trusted this repository: shown to the model as the repository's proposal only; `ocmem accept ID` or `ocmem trust` puts it in force"
	default:
		re.Why = "this repository's memory, which you have not trusted: shown to the model as the repository's proposal only; `ocmem trust` puts it in force"
	}
}

// nonBlankLines are a text's lines that are not blank, in order.
func nonBlankLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}
