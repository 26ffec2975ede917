package engine

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/pathsafe"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/tiers"
	"github.com/ocmem/ocmem/internal/trust"
)

// The human gate for hard rules
//
// A hard rule is put in front of the model on every turn, so only a person
// may write one (spec §4). A rule from a model's tool call or from automatic
// extraction is stored as kind rule-proposal, with proposed_by saying which
// (Remember), and waits. A person lists the rules and proposals (Rules),
// accepts a proposal (Accept: kind becomes rule, updated is bumped, every
// other byte of the file stays) or rejects it (Reject: the file is deleted).
// Editing "kind: rule-proposal" to "kind: rule" by hand does the same as
// Accept in the global root; in a project root the edited file is a rule of
// the repository that nobody accepted, in force only once `ocmem accept`
// or `ocmem trust` pins its text.

// ErrNotProposal is returned when Accept or Reject is given a memory that
// is not a rule-proposal.
var ErrNotProposal = refusal("not a rule-proposal")

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
	InForce bool      `json:"in_force"`
	Status  RuleState `json:"status"`
	Why     string    `json:"why"`
	// Diff is, for a changed rule, its text against the accepted text,
	// line by line ("- " accepted, "+ " now, "  " both).
	Diff []string `json:"diff,omitempty"`
	// Lines are, for ROOT.md rules, the 1-based lines of ROOT.md that
	// Text's non-blank lines come from, in order.
	Lines []int `json:"lines,omitempty"`
	// Enforce is a rule memory's guards: what it stops while in force.
	Enforce []memory.Guard `json:"enforce,omitempty"`
}

// Rule sources.
const (
	SourceMemory = "memory"
	SourceRootMD = "ROOT.md"
)

// Rules lists every hard rule and rule proposal in both roots, with whether
// it is in force: each root's ROOT.md hard-rules section and every memory
// of kind rule or rule-proposal. Global first, then project; within a
// root, ROOT.md first, then rules, then proposals; then by id. Files that
// do not parse are not listed (Inspect reports them).
func (e *Engine) Rules() ([]RuleEntry, error) {
	e.Invalidate()
	s, err := e.Load()
	if err != nil {
		return nil, err
	}
	g := e.gate()
	out := []RuleEntry{}
	for _, r := range e.roots() {
		text, line := compile.HardRulesAt(s.RootMD[r.Scope])
		if text == "" {
			continue
		}
		re := RuleEntry{Scope: r.Scope, Source: SourceRootMD, Path: filepath.Join(r.Dir, "ROOT.md"), Line: line, Text: text}
		sec := g.RootMD(r.Scope, text)
		if sec.Unfit != nil {
			re.InForce, re.Status, re.Why = false, RuleUnfit, "left out: "+oneLineErr(sec.Unfit)+"; `ocmem inspect` shows where"
			out = append(out, re)
			continue
		}
		re.Text = sec.Text
		if nums := tiers.RootRuleLineNumbers(s.RootMD[r.Scope], nonBlankLines(sec.Text)); len(nums) > 0 {
			re.Line, re.Lines = nums[0], nums
		}
		describe(&re, sec.State, g.Trusted())
		if sec.State == RuleChanged {
			if before := g.AcceptedBefore(trust.RootMDSectionKey); before != "" {
				re.Diff = Diff(before, sec.Text)
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
			ID: m.ID, Scope: f.Scope, Source: SourceMemory, Path: f.Path, Kind: m.Kind, Summary: m.Summary,
			Created: m.Created, Updated: m.Updated, ProposedBy: m.ProposedBy, SupersededBy: m.SupersededBy,
			Enforce: m.Enforce,
		}
		if m.Kind == memory.KindRuleProposal {
			re.Supersedes = m.Supersedes
		}
		// The whole text that accepting puts in force, not only its
		// summary: what a person accepts is what they read.
		text := tiers.MemoryRuleText(m)
		re.Text = text
		st := g.State(trust.Rule{Scope: f.Scope, Kind: m.Kind, SupersededBy: m.SupersededBy, Key: m.ID, Text: []byte(text)})
		describe(&re, st, g.Trusted())
		if st == RuleChanged {
			re.Diff = Diff(g.AcceptedBefore(m.ID), text)
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
	return out, nil
}

// describe sets a rule's InForce, Status and Why from its state (the
// gate's state), in the words every report of rules uses.
func describe(re *RuleEntry, st RuleState, trusted bool) {
	re.InForce, re.Status = st == RuleInForce, st
	switch {
	case st == RuleSuperseded:
		re.Why = "superseded by " + re.SupersededBy + "; not injected"
	case st == RuleProposal:
		re.Why = "a proposal waiting for a person (`ocmem accept ID` or `ocmem reject ID`); not injected as a rule"
	case st == RuleInForce && re.Scope == store.Global:
		re.Why = "your global memory"
	case st == RuleInForce && trusted:
		re.Why = "this repository's memory, which you trust, as you accepted it (`ocmem untrust` withdraws it)"
	case st == RuleInForce:
		re.Why = "accepted by you as it reads (written or accepted through ocmem); the rest of this repository is not trusted"
	case st == RuleChanged && re.Source == SourceRootMD:
		re.Why = "changed since you accepted ROOT.md's hard rules (a pull, or an edit by hand; the section is accepted as a whole, " +
			"so a line added, moved or reordered, or a heading or lead-in changed, counts): shown to the model as the repository's proposal only; " +
			"`ocmem accept ROOT.md` or `ocmem trust` puts it in force as it reads now"
	case st == RuleChanged:
		re.Why = "changed since you accepted it (a pull, or an edit by hand): shown to the model as the repository's proposal only; " +
			"`ocmem accept " + re.ID + "` or `ocmem trust` puts it in force as it reads now"
	case st == RuleNew && re.Source == SourceRootMD:
		re.Why = "new since you trusted this repository: shown to the model as the repository's proposal only; `ocmem accept ROOT.md` or `ocmem trust` puts it in force"
	case st == RuleNew:
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

// Accept turns a rule-proposal into a rule: kind becomes rule and updated
// the current time; every other byte of the file (proposed_by included)
// stays. The root is recompiled. With no scope the id is looked up in the
// project root, then the global one; an id in both needs a scope.
//
// Accepting is also how a person puts one of a project's rules in force:
// a project rule-proposal accepted is pinned as written (see trust.go); a
// project kind: rule that is new or changed since the user accepted it is
// pinned as it reads now, its file untouched; "ROOT.md" pins the project's
// ROOT.md hard-rules section as it reads now, as a whole (a line of it is
// not accepted alone: it means what its heading and lead-in say). This is
// the one place an accepted rule is pinned: every edge (CLI, web UI)
// calls it.
func (e *Engine) Accept(scope store.Scope, id string) (_ *Written, err error) {
	defer func() { err = asRefusal(err) }()
	if id == trust.RootMDKey && scope != store.Global {
		return e.acceptRootMD()
	}
	if strings.HasPrefix(id, trust.RootMDKey+"@") && scope != store.Global {
		return nil, badRequest("%s: ROOT.md's hard rules are accepted as one section, not line by line (a line means what its heading and lead-in say): "+
			"`ocmem accept ROOT.md` accepts the section as it reads now, after `ocmem rules` shows it", id)
	}
	return e.decide(scope, id, true, func(wr *write, rel string, m *memory.Memory) error {
		if m.Kind == memory.KindRule { // a project rule not in force yet
			if err := e.pinWritten(m); err != nil {
				return err
			}
			// No file changed: the snapshot stays, but not its rules
			// tier, rendered under the pins read before.
			e.Invalidate()
			return nil
		}
		m.Kind = memory.KindRule
		m.Updated = e.now().UnixMilli()
		if _, err := wr.r.WriteFile(rel, m.Format()); err != nil {
			return err
		}
		wr.wrote(rel, false)
		// A proposal that would replace a memory (a rule, when it came from
		// a model) replaces it now.
		if err := markSuperseded(wr, m); err != nil {
			return err
		}
		if wr.r.Scope == store.Project {
			return e.pinWritten(m)
		}
		return nil
	})
}

// markSuperseded sets superseded_by on the live memory of r that m
// supersedes, if r holds it; one in the other root is left alone, as
// Remember leaves it.
func markSuperseded(wr *write, m *memory.Memory) error {
	if m.Supersedes == "" || pathsafe.Check(m.Supersedes+".md") != nil {
		return nil
	}
	r, rel := wr.r, m.Supersedes+".md"
	data, err := r.ReadFile(rel)
	if err != nil || data == nil {
		return err
	}
	old, err := memory.Parse(data)
	if err != nil || old.SupersededBy != "" {
		return nil // reported by inspect; nothing to mark
	}
	old.SupersededBy = m.ID
	if _, err := r.WriteFile(rel, old.Format()); err != nil {
		return fmt.Errorf("mark %s superseded: %w", old.ID, err)
	}
	wr.wrote(rel, false)
	return nil
}

// Reject deletes a rule-proposal and recompiles its root. Anything that is
// not a rule-proposal is refused: forgetting a rule is `Forget`'s job.
func (e *Engine) Reject(scope store.Scope, id string) (_ *Written, err error) {
	defer func() { err = asRefusal(err) }()
	return e.decide(scope, id, false, func(wr *write, rel string, _ *memory.Memory) error {
		if err := wr.r.Remove(rel); err != nil {
			return err
		}
		wr.wrote(rel, true)
		return nil
	})
}

// decide finds a rule-proposal and applies act to it in a write of its
// root (beginWrite), which act tells of each file it changes; the write
// then compiles what changed, as every write does.
func (e *Engine) decide(scope store.Scope, id string, accept bool, act func(wr *write, rel string, m *memory.Memory) error) (*Written, error) {
	rel := strings.TrimSuffix(id, ".md") + ".md"
	if err := pathsafe.Check(rel); err != nil {
		return nil, err
	}
	if !strings.Contains(rel, "/") {
		return nil, badRequest("id %q is not <category>/<slug>", id)
	}
	id = strings.TrimSuffix(rel, ".md")
	scope, err := e.scopeOf(scope, rel, id)
	if err != nil {
		return nil, err
	}
	r := e.Root(scope)
	path, err := r.Path(rel)
	if err != nil {
		return nil, err
	}
	wr, err := e.beginWrite(r)
	if err != nil {
		return nil, err
	}
	defer wr.end()
	wr.readRootAhead()
	data, err := r.ReadFile(rel)
	switch {
	case err != nil:
		return nil, err
	case data == nil:
		return nil, fmt.Errorf("%s:%s: %w", scope, id, ErrNotFound)
	}
	m, err := memory.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s does not parse (%v); fix it first", path, err)
	}
	if err := m.Validate(id); err != nil {
		return nil, fmt.Errorf("%s is not a valid memory (%v); fix it first", path, err)
	}
	// A project's kind: rule may be accepted (pinned) when it is not in
	// force; Reject leaves rules alone.
	acceptRule := accept && m.Kind == memory.KindRule && scope == store.Project && e.trust != nil &&
		!e.gate().InForce(m.ID, tiers.MemoryRuleText(m))
	if m.Kind != memory.KindRuleProposal && !acceptRule {
		return nil, fmt.Errorf("%s:%s is a %s: %w", scope, id, m.Kind, ErrNotProposal)
	}
	if err := act(wr, rel, m); err != nil {
		return nil, err
	}
	w := &Written{ID: id, Scope: scope, Path: path, Kind: m.Kind}
	if _, err := wr.compile(); err != nil {
		w.Warning = indexNotUpdated("changed", err)
	}
	return w, nil
}

// scopeOf returns the scope of the root that holds rel: the one named, or
// the only one that has it.
func (e *Engine) scopeOf(scope store.Scope, rel, id string) (store.Scope, error) {
	if scope != "" {
		if e.Root(scope).Dir == "" {
			return "", fmt.Errorf("%w: no %s root", ErrNoRoot, scope)
		}
		return scope, nil
	}
	var found []store.Scope
	for _, s := range []store.Scope{store.Project, store.Global} {
		if r := e.Root(s); r.Dir != "" && r.Exists(rel) {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		if e.global.Dir == "" && e.project.Dir == "" {
			return "", ErrNoRoot
		}
		return "", fmt.Errorf("%q: %w", id, ErrNotFound)
	case 2:
		return "", fmt.Errorf("%q: %w", id, ErrAmbiguous)
	}
	return found[0], nil
}
