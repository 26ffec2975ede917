package engine

import (
	"fmt"
	"path/filepath"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/prompt"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/tiers"
	"github.com/ocmem/ocmem/internal/trust"
)

// Which of a project's rules are in force is trust.Gate's decision; a rule
// written through the engine by a person (Remember with FromPerson,
// Accept) is pinned as written, and Trust accepts them all.

// RuleText is a kind: rule memory as the rules tier gives it: its summary
// line with the id, its highlight and its body, indented. It is what a pin
// of the memory digests, so a change to any of them needs a new decision,
// and a change elsewhere in the file (updated:, triggers) does not.
func RuleText(id, summary, highlight, body string) string {
	return prompt.RuleText(id, summary, highlight, body)
}

// ProjectRules lists the project root's hard rules with whether each is in
// force: ROOT.md's section first, then the kind: rule memories by id.
func (e *Engine) ProjectRules() (*ProjectRules, error) {
	s, err := e.Load()
	if err != nil {
		return nil, err
	}
	return tiers.Project(s, e.project, e.gate()), nil
}

// InjectedRootMD is the project's ROOT.md hard-rules section as the
// current rules tier judged it, or nil when it has none (or one unfit for
// a prompt). It reads only ROOT.md: serve asks on every turn whether the
// person must be told the section is not in force.
func (e *Engine) InjectedRootMD() (*ProjectRule, error) {
	s, err := e.Load()
	if err != nil {
		return nil, err
	}
	st := e.stableOf(s)
	st.rootMDOnce.Do(func() {
		if pr, _ := tiers.ProjectRootMD(s, e.project, st.gate); len(pr.Rules) > 0 {
			st.rootMD = &pr.Rules[0]
		}
	})
	return st.rootMD, nil
}

// ConfirmRootMD is what every report of a project's ROOT.md hard rules
// not in force tells the person: they are the repository's proposals
// until confirmed, the person's own lines too (the model can edit ROOT.md
// as well, so a line typed there proves nothing about who wrote it).
const ConfirmRootMD = "ROOT.md's hard rules are in force only once you confirm them with `ocmem trust` " +
	"(yours too: the model can edit ROOT.md, so until then it sees them only as this repository's proposals)"

// InjectedRuleNews is what the person should hear of the project's rules
// as the current rules tier was rendered: the rules not in force whose
// text changed since the user accepted it, and in a trusted project the
// rules that arrived since, ROOT.md's section first, as ProjectRules lists
// them. An untrusted project's new rules are not news: they were never in
// force. Computed once per load with the rules tier.
func (e *Engine) InjectedRuleNews() ([]ProjectRule, error) {
	s, err := e.Load()
	if err != nil {
		return nil, err
	}
	return e.stableOf(s).news, nil
}

// TrustResult is what Trust did.
type TrustResult struct {
	Added bool `json:"added"` // the project was not trusted before
	// Accepted are the rules that were not in force and now are.
	Accepted []ProjectRule `json:"accepted"`
	// Withdrawn are the ROOT.md lines an earlier version accepted one by
	// one (ProjectRules.LineByLine), replaced by the section.
	Withdrawn []string      `json:"withdrawn,omitempty"`
	Rules     *ProjectRules `json:"rules"`
}

// Trust trusts the project and accepts every rule it has now, exactly as
// it reads now: they are in force from the next load. It fails when the
// engine has no trust list.
//
// shown is the fingerprint (ProjectRules.Digest) of the rules as the
// person was shown them: when the rules no longer read that way (a line
// added to ROOT.md since, a rule changed), nothing is trusted and the
// refusal wraps ErrRulesChanged. "" accepts the rules as they read now,
// for a caller that shows exactly what it accepted in the same step.
func (e *Engine) Trust(shown string) (*TrustResult, error) {
	if e.trust == nil {
		return nil, fmt.Errorf("no trust list is configured")
	}
	if e.project.Dir == "" {
		return nil, fmt.Errorf("%w: no project root", ErrNoRoot)
	}
	e.Invalidate()
	rules, err := e.ProjectRules()
	if err != nil {
		return nil, err
	}
	if rules.TrustErr != "" {
		return nil, fmt.Errorf("%s", rules.TrustErr)
	}
	if now := rules.Digest(); shown != "" && shown != now {
		return nil, fmt.Errorf("%w: nothing was trusted; this repository's hard rules do not read as they were shown "+
			"(fingerprint %s shown, %s now): read them again", ErrRulesChanged, shown, now)
	}
	defer e.Invalidate()
	added, err := e.trust.Accept(rules.Pins())
	if err != nil {
		return nil, err
	}
	res := &TrustResult{Added: added, Accepted: rules.Pending(), Withdrawn: rules.LineByLine, Rules: rules}
	return res, nil
}

// pinWritten pins a rule a person just wrote into the project root
// through the engine. The caller holds the root's lock.
func (e *Engine) pinWritten(m *memory.Memory) error {
	if e.trust == nil || m.Kind != memory.KindRule {
		return nil
	}
	return e.trust.Pin([]trust.Pin{trust.NewPin(m.ID, tiers.MemoryRuleText(m))})
}

// acceptRootMD pins the project's ROOT.md hard-rules section as it reads
// now, as a whole, replacing what was accepted of it before; with shown,
// only if it still has that digest (Accept).
func (e *Engine) acceptRootMD(shown string) (*Written, error) {
	if e.trust == nil {
		return nil, fmt.Errorf("no trust list is configured")
	}
	if e.project.Dir == "" {
		return nil, fmt.Errorf("%w: no project root", ErrNoRoot)
	}
	e.Invalidate()
	defer e.Invalidate()
	rules, err := e.ProjectRules()
	if err != nil {
		return nil, err
	}
	if rules.Unfit != "" {
		return nil, fmt.Errorf("ROOT.md's hard rules hold text unfit for a prompt (%s); fix it first", rules.Unfit)
	}
	var pins []trust.Pin
	for _, r := range rules.Rules {
		if r.Key == trust.RootMDKey {
			pins = append(pins, trust.NewPin(trust.RootMDSectionKey, r.Text))
		}
	}
	if len(pins) == 0 {
		return nil, fmt.Errorf("ROOT.md has no hard rules: %w", ErrNotFound)
	}
	if err := checkShown(trust.RootMDKey, shown, pins[0].SHA256); err != nil {
		return nil, err
	}
	if err := e.trust.Pin(pins); err != nil {
		return nil, err
	}
	return &Written{ID: trust.RootMDKey, Scope: store.Project, Path: filepath.Join(e.project.Dir, store.RootFile), Kind: memory.KindRule}, nil
}

// checkShown refuses to accept a rule whose text's digest now is not the
// digest shown to the person ("" : nothing to check).
func checkShown(name, shown, now string) error {
	if shown == "" || shown == now {
		return nil
	}
	return fmt.Errorf("%w: nothing was accepted; %s does not read as it was shown (digest %s shown, %s now): read it again", ErrRulesChanged, name, shown, now)
}
