package engine

import (
	"fmt"
	"strings"

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

// Rules lists every hard rule and rule proposal in both roots, with whether
// it is in force (tiers.Entries). Files that do not parse are not listed
// (Inspect reports them).
func (e *Engine) Rules() ([]RuleEntry, error) {
	e.Invalidate()
	s, err := e.Load()
	if err != nil {
		return nil, err
	}
	return tiers.Entries(s, e.roots(), e.gate()), nil
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
//
// shown is the digest of the text the person was shown (RuleEntry.Digest):
// when the rule no longer reads that way, nothing is accepted and the
// refusal wraps ErrRulesChanged. "" accepts the rule as it reads now.
func (e *Engine) Accept(scope store.Scope, id, shown string) (_ *Written, err error) {
	defer func() { err = asRefusal(err) }()
	if id == trust.RootMDKey && scope != store.Global {
		return e.acceptRootMD(shown)
	}
	if strings.HasPrefix(id, trust.RootMDKey+"@") && scope != store.Global {
		return nil, badRequest("%s: ROOT.md's hard rules are accepted as one section, not line by line (a line means what its heading and lead-in say): "+
			"`ocmem accept ROOT.md` accepts the section as it reads now, after `ocmem rules` shows it", id)
	}
	return e.decide(scope, id, true, shown, func(wr *write, rel string, m *memory.Memory) error {
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
	return e.decide(scope, id, false, "", func(wr *write, rel string, _ *memory.Memory) error {
		if err := wr.r.Remove(rel); err != nil {
			return err
		}
		wr.wrote(rel, true)
		return nil
	})
}

// decide finds a rule-proposal and applies act to it in a write of its
// root (beginWrite), which act tells of each file it changes; the write
// then compiles what changed, as every write does. With shown, the rule's
// text must have that digest (Accept).
func (e *Engine) decide(scope store.Scope, id string, accept bool, shown string, act func(wr *write, rel string, m *memory.Memory) error) (*Written, error) {
	rel, id, err := memoryRel(id)
	if err != nil {
		return nil, err
	}
	scope, err = e.scopeOf(scope, rel, id)
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
	if err := checkShown(string(scope)+":"+id, shown, tiers.ShownDigest(m)); err != nil {
		return nil, err
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
