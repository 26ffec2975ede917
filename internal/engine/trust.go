package engine

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/prompt"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/trust"
)

// Trust in a project's rules follows their content
//
// A project's hard rules (its kind: rule memories and its ROOT.md
// hard-rules section, as a whole) are in force only when the user accepted
// exactly that text: Config.Trust holds a digest of each accepted rule (a
// pin). A rule that is new or whose text changed since (a pull, someone's
// commit, a hand edit) is shown to the model as the repository's proposal,
// like an untrusted project's rules, until the user accepts it: Trust
// accepts them all, Accept one. A rule written through the engine by a
// person (Remember with FromPerson, Accept) is pinned as written. Global
// rules are the user's own and always in force.

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

// ruleGate decides which project rules are in force, from the pins read
// at one moment.
type ruleGate struct {
	all     bool // no RuleTrust: every rule is in force (a library caller's own roots)
	trusted bool
	pins    map[string]map[string]string // key → digest → accepted text
	err     error                        // the list could not be read: nothing is pinned
}

// gate reads the trust list.
func (e *Engine) gate() *ruleGate {
	if e.trust == nil {
		return &ruleGate{all: true, trusted: true}
	}
	g := &ruleGate{pins: map[string]map[string]string{}}
	st, err := e.trust.State()
	if err != nil {
		g.err = err
		return g
	}
	g.trusted = st.Trusted
	for _, p := range st.Pins {
		if g.pins[p.Key] == nil {
			g.pins[p.Key] = map[string]string{}
		}
		g.pins[p.Key][p.SHA256] = p.Text
	}
	return g
}

// inForce reports whether a project rule's text was accepted.
func (g *ruleGate) inForce(key, text string) bool {
	if g.all {
		return true
	}
	_, ok := g.pins[key][trust.Digest(text)]
	return ok
}

// inForceText is inForce for a text in bytes. A rule whose key has no pin
// is not in force whatever its text, and its text is not digested.
func (g *ruleGate) inForceText(key string, text []byte) bool {
	if g.all {
		return true
	}
	pins := g.pins[key]
	if len(pins) == 0 {
		return false
	}
	d := trust.DigestBytes(text)
	_, ok := pins[string(d[:])]
	return ok
}

// ruleRef is a rule as the gate judges it: a memory of kind rule or
// rule-proposal, or one rule of a root's ROOT.md hard-rules section.
type ruleRef struct {
	scope        store.Scope
	kind         memory.Kind // memory.KindRule for a ROOT.md rule
	supersededBy string
	// key is the memory's id, or trust.RootMDSectionKey; text is what a
	// pin of the rule digests (RuleText, or rootSection).
	key  string
	text []byte
	// For ROOT.md's section: unfit says it holds text unfit for a prompt;
	// lineByLine, that an earlier version pinned its lines one by one
	// (trust.RootMDKey), a decision that now puts nothing in force.
	unfit, lineByLine bool
}

// state is whether a rule is in force, and if not, why: the one decision
// of it that the rules tier, the bodies tier, `ocmem rules` and every
// report of a project's rules apply. It returns "" for a memory that is
// no rule.
//
// A project's rule that is not in force is changed when the user accepted
// another text of it (another text of its id, or of ROOT.md's section, or
// the section's lines one by one); else it is new in a trusted project and
// untrusted in the others.
func (g *ruleGate) state(r ruleRef) RuleState {
	switch {
	case r.kind != memory.KindRule && r.kind != memory.KindRuleProposal:
		return ""
	case r.unfit:
		return RuleUnfit
	case r.supersededBy != "":
		return RuleSuperseded
	case r.kind == memory.KindRuleProposal:
		return RuleProposal
	case !g.gated(r.scope) || g.inForceText(r.key, r.text):
		return RuleInForce
	case r.lineByLine, len(g.pins[r.key]) > 0:
		return RuleChanged
	case g.trusted:
		return RuleNew
	}
	return RuleUntrusted
}

// gated reports whether a root's rules are in force only as the user
// accepted them: a project's, when there is a trust list.
func (g *ruleGate) gated(scope store.Scope) bool { return scope == store.Project && !g.all }

// change is a state as ProjectRule.Change names it: "" in force, else
// RuleChanged or RuleNew (an untrusted project's rules are new to it).
func (s RuleState) change() RuleState {
	switch s {
	case RuleInForce:
		return ""
	case RuleChanged:
		return RuleChanged
	}
	return RuleNew
}

// news says whether the person should hear of a rule in this state
// (InjectedRuleNews): a changed rule, or a new one in a trusted project.
// An untrusted project's new rules are not news: they were never in
// force.
func (s RuleState) news() bool { return s == RuleNew || s == RuleChanged }

// acceptedBefore is, for a changed rule memory, the text the user
// accepted (the first of its key's, sorted).
func (g *ruleGate) acceptedBefore(key string) string {
	if old := g.accepted(key); len(old) > 0 {
		return old[0]
	}
	return ""
}

// rootMDRules is a root's ROOT.md hard-rules section as the gate judges
// it.
type rootMDRules struct {
	unfit error     // memory.CheckText's objection to the section's text
	text  string    // the section as accepted (rootSection); "" when unfit
	state RuleState // the section's (state)
	// lineByLine are the lines an earlier version accepted one by one,
	// sorted: they put nothing in force now.
	lineByLine []string
}

// rootMD judges a root's hard-rules section hr (compile.HardRules).
func (g *ruleGate) rootMD(scope store.Scope, hr string) *rootMDRules {
	sec := &rootMDRules{}
	if err := memory.CheckText([]byte(hr)); err != nil {
		sec.unfit = err
		return sec
	}
	if g.gated(scope) {
		sec.lineByLine = g.accepted(trust.RootMDKey)
	}
	if sec.text = rootSection(hr); sec.text != "" {
		sec.state = g.state(ruleRef{scope: scope, kind: memory.KindRule, key: trust.RootMDSectionKey, text: []byte(sec.text), lineByLine: len(sec.lineByLine) > 0})
	}
	return sec
}

// accepted returns the accepted texts of a key, sorted.
func (g *ruleGate) accepted(key string) []string {
	var out []string
	for _, t := range g.pins[key] {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
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

// rootSection is ROOT.md's hard-rules text hr as it is accepted (pinned):
// the whole section, its headings and lead-ins with the lines under them,
// in order, each line without trailing space and each run of blank lines
// made one. A line there means what the heading and the lead-in above it
// say ("Never do these:", "Ask the user first before any of these:"), so
// the section is accepted as one: a line moved under another lead-in, a
// heading or lead-in deleted, lines reordered are a change the person
// decides again, as is a line added. Text outside the section (the goals,
// the compiled tables) is not part of it.
func rootSection(hr string) string {
	var b strings.Builder
	blank := false
	for _, l := range strings.Split(hr, "\n") {
		if l = strings.TrimRight(l, " \t\r"); strings.TrimSpace(l) == "" {
			blank = b.Len() > 0
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
			if blank {
				b.WriteByte('\n')
			}
		}
		blank = false
		b.WriteString(l)
	}
	return b.String()
}

// ProjectRule is one of the project's hard rules and whether it is in force.
type ProjectRule struct {
	// Key is the memory's id, or "ROOT.md" for its hard-rules section.
	Key  string `json:"key"`
	Path string `json:"path"`
	// Line is, for ROOT.md's section, where its first line is (1-based).
	Line int `json:"line,omitempty"`
	// Text is what the rule says (RuleText, or the whole ROOT.md section:
	// rootSection).
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

func projectRules(s *Snapshot, r store.Root, g *ruleGate) *ProjectRules {
	t := &rulesTier{g: g, every: true}
	if r.Dir != "" {
		t.startRoot(s, r)
		s.each(store.Project, func(i int, m *memory.Memory) { t.add(s, i, r, m) })
		t.endRoot()
		t.finish()
	}
	return t.projectRules(s, r)
}

// projectRootMD is ProjectRules without the rules of memories: whether
// the project is trusted, and its ROOT.md section with its state (for
// InjectedRuleNews).
func projectRootMD(s *Snapshot, r store.Root, g *ruleGate) (*ProjectRules, []RuleState) {
	out := &ProjectRules{Trusted: g.trusted}
	if g.err != nil {
		out.TrustErr = g.err.Error()
	}
	if r.Dir == "" {
		return out, nil
	}
	hr := compile.HardRules(s.RootMD[store.Project])
	sec := g.rootMD(store.Project, hr)
	if sec.unfit != nil {
		out.Unfit, out.UnfitText = oneLineErr(sec.unfit), hr
		return out, nil
	}
	out.LineByLine = sec.lineByLine
	if sec.text == "" {
		return out, nil
	}
	pr := ProjectRule{Key: trust.RootMDKey, Path: filepath.Join(r.Dir, store.RootFile), Text: sec.text,
		InForce: sec.state == RuleInForce, Change: sec.state.change()}
	if nums := rootRuleLineNumbers(s.RootMD[store.Project], []string{sec.text}); len(nums) > 0 {
		pr.Line = nums[0]
	}
	if sec.state == RuleChanged {
		pr.Accepted = g.acceptedBefore(trust.RootMDSectionKey)
	}
	out.Rules = append(out.Rules, pr)
	return out, []RuleState{sec.state}
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

// Diff is a line diff of an accepted rule's text and its text now: each
// line prefixed "- " (only in the old), "+ " (only in the new) or "  ".
// Rules are short, so the quadratic longest common subsequence is fine;
// above 400 lines each it shows the old text removed and the new added.
func Diff(old, new string) []string {
	lines := func(s string) []string {
		if s = strings.TrimRight(s, "\n"); s == "" {
			return nil
		}
		return strings.Split(s, "\n")
	}
	a, b := lines(old), lines(new)
	var out []string
	if len(a) > 400 || len(b) > 400 {
		for _, l := range a {
			out = append(out, "- "+l)
		}
		for _, l := range b {
			out = append(out, "+ "+l)
		}
		return out
	}
	// lcs[i][j]: the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			out = append(out, "  "+a[i])
			i++
			j++
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, "- "+a[i])
			i++
		default:
			out = append(out, "+ "+b[j])
			j++
		}
	}
	return out
}
