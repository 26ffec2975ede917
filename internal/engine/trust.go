package engine

import (
	"fmt"
	"path/filepath"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/prompt"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/trust"
)

// Which of a project's rules are in force is trust.Gate's decision; a rule
// written through the engine by a person (Remember with FromPerson,
// Accept) is pinned as written, and Trust accepts them all.

// RuleTrust is the user's record of a project's accepted rules
// (trust.Project implements it over the user's trust list).
type RuleTrust interface {
	// State returns whether the project is trusted and its pins.
	State() (trust.State, error)
	// Pin records rules as accepted, replacing the pins of their keys.
	Pin(pins []trust.Pin) error
	// Accept trusts the project and pins exactly the given rules.
	Accept(pins []trust.Pin) (added bool, err error)
}

// gate reads the trust list.
func (e *Engine) gate() *trust.Gate {
	if e.trust == nil {
		return trust.AllInForce()
	}
	return trust.NewGate(e.trust.State())
}

// RuleText is a kind: rule memory as the rules tier gives it: its summary
// line with the id, its highlight and its body, indented. It is what a pin
// of the memory digests, so a change to any of them needs a new decision,
// and a change elsewhere in the file (updated:, triggers) does not.
func RuleText(id, summary, highlight, body string) string {
	return prompt.RuleText(id, summary, highlight, body)
}

func memoryRuleText(m *memory.Memory) string {
	return string(prompt.AppendGuards(prompt.AppendRuleText(nil, m.ID, m.Summary, m.Highlight, m.Body), m.Enforce))
}

// ProjectRule is one of the project's hard rules and whether it is in force.
type ProjectRule struct {
	// Key is the memory's id, or "ROOT.md" for its hard-rules section.
	Key  string `json:"key"`
	Path string `json:"path"`
	// Line is, for ROOT.md's section, where its first line is (1-based).
	Line int `json:"line,omitempty"`
	// Text is what the rule says (RuleText, or the whole ROOT.md section:
	// trust.RootSection).
	Text    string `json:"text"`
	Summary string `json:"summary,omitempty"`
	InForce bool   `json:"in_force"`
	// Change is "" when in force, else RuleNew or RuleChanged;
	// Accepted holds the text the user accepted for a changed rule (empty
	// for a ROOT.md section whose lines were accepted one by one: see
	// ProjectRules.LineByLine).
	Change   RuleState `json:"change,omitempty"`
	Accepted string    `json:"accepted,omitempty"`
}

// ProjectRules is the project root's hard rules, as loaded now, against
// what the user accepted.
type ProjectRules struct {
	Trusted bool          `json:"trusted"`
	Rules   []ProjectRule `json:"rules"`
	// LineByLine lists the ROOT.md lines an earlier version accepted one
	// by one. They put nothing in force: the section is accepted as a
	// whole now, and accepting it withdraws them.
	LineByLine []string `json:"accepted_line_by_line,omitempty"`
	// Unfit is set when ROOT.md's section holds text unfit for a prompt
	// (memory.CheckText): it is left out whatever was accepted.
	Unfit string `json:"unfit,omitempty"`
	// UnfitText is that section's text, for the person to read (through
	// Visible: it holds what a display would hide).
	UnfitText string `json:"unfit_text,omitempty"`
	// TrustErr says why the trust list could not be read.
	TrustErr string `json:"trust_error,omitempty"`
}

// Empty reports whether the project has no hard rules.
func (p *ProjectRules) Empty() bool { return len(p.Rules) == 0 }

// Pending lists the rules that are not in force.
func (p *ProjectRules) Pending() []ProjectRule {
	var out []ProjectRule
	for _, r := range p.Rules {
		if !r.InForce {
			out = append(out, r)
		}
	}
	return out
}

// pins is what accepting every rule pins.
func (p *ProjectRules) pins() []trust.Pin {
	var out []trust.Pin
	for _, r := range p.Rules {
		out = append(out, trust.NewPin(pinKey(r.Key), r.Text))
	}
	return out
}

// pinKey is the key of a ProjectRule's pin.
func pinKey(key string) string {
	if key == trust.RootMDKey {
		return trust.RootMDSectionKey
	}
	return key
}

// ProjectRules lists the project root's hard rules with whether each is in
// force: ROOT.md's section first, then the kind: rule memories by id.
func (e *Engine) ProjectRules() (*ProjectRules, error) {
	s, err := e.Load()
	if err != nil {
		return nil, err
	}
	return projectRules(s, e.project, e.gate()), nil
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
		if pr, _ := projectRootMD(s, e.project, st.gate); len(pr.Rules) > 0 {
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

func projectRules(s *Snapshot, r store.Root, g *trust.Gate) *ProjectRules {
	t := &rulesTier{g: g, every: true}
	if r.Dir != "" {
		t.startRoot(s, r)
		s.Each(store.Project, func(i int, m *memory.Memory) { t.add(s, i, r, m) })
		t.endRoot()
		t.finish()
	}
	return t.projectRules(s, r)
}

// projectRootMD is ProjectRules without the rules of memories: whether
// the project is trusted, and its ROOT.md section with its state (for
// InjectedRuleNews).
func projectRootMD(s *Snapshot, r store.Root, g *trust.Gate) (*ProjectRules, []RuleState) {
	out := &ProjectRules{Trusted: g.Trusted()}
	if g.Err() != nil {
		out.TrustErr = g.Err().Error()
	}
	if r.Dir == "" {
		return out, nil
	}
	hr := compile.HardRules(s.RootMD[store.Project])
	sec := g.RootMD(store.Project, hr)
	if sec.Unfit != nil {
		out.Unfit, out.UnfitText = oneLineErr(sec.Unfit), hr
		return out, nil
	}
	out.LineByLine = sec.LineByLine
	if sec.Text == "" {
		return out, nil
	}
	pr := ProjectRule{Key: trust.RootMDKey, Path: filepath.Join(r.Dir, store.RootFile), Text: sec.Text,
		InForce: sec.State == RuleInForce, Change: sec.State.Change()}
	if nums := rootRuleLineNumbers(s.RootMD[store.Project], []string{sec.Text}); len(nums) > 0 {
		pr.Line = nums[0]
	}
	if sec.State == RuleChanged {
		pr.Accepted = g.AcceptedBefore(trust.RootMDSectionKey)
	}
	out.Rules = append(out.Rules, pr)
	return out, []RuleState{sec.State}
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
func (e *Engine) Trust() (*TrustResult, error) {
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
	defer e.Invalidate()
	added, err := e.trust.Accept(rules.pins())
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
	return e.trust.Pin([]trust.Pin{trust.NewPin(m.ID, memoryRuleText(m))})
}

// acceptRootMD pins the project's ROOT.md hard-rules section as it reads
// now, as a whole, replacing what was accepted of it before.
func (e *Engine) acceptRootMD() (*Written, error) {
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
	if err := e.trust.Pin(pins); err != nil {
		return nil, err
	}
	return &Written{ID: trust.RootMDKey, Scope: store.Project, Path: filepath.Join(e.project.Dir, store.RootFile), Kind: memory.KindRule}, nil
}
