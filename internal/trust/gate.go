package trust

import (
	"sort"
	"strings"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/store"
)

// Trust in a project's rules follows their content
//
// A project's hard rules (its kind: rule memories and its ROOT.md
// hard-rules section, as a whole) are in force only when the user accepted
// exactly that text: the trust list holds a digest of each accepted rule
// (a pin). A rule that is new or whose text changed since (a pull,
// someone's commit, a hand edit) is shown to the model as the repository's
// proposal, like an untrusted project's rules, until the user accepts it.
// Global rules are the user's own and always in force. The Gate applies
// that decision to the pins read at one moment.

// RuleState is whether a rule is in force, and if not, why: the one
// vocabulary of every report of rules (`ocmem rules`, `ocmem trust`,
// doctor, the log, the plugin's warning, the viewer).
type RuleState string

// Rule states.
const (
	// RuleInForce: injected as a hard rule on every turn.
	RuleInForce RuleState = "in-force"
	// RuleUntrusted: a project's rule while the user has not trusted the
	// project (`ocmem trust`); injected as the repository's proposal only.
	RuleUntrusted RuleState = "untrusted"
	// RuleProposal: a rule-proposal waiting for a person (accept, reject).
	RuleProposal RuleState = "proposal"
	// RuleSuperseded: replaced by another memory; not injected.
	RuleSuperseded RuleState = "superseded"
	// RuleUnfit: ROOT.md's section holds text unfit for a prompt; left out.
	RuleUnfit RuleState = "unfit"
	// RuleChanged: a project rule whose text differs from what the user
	// accepted (a pull, a hand edit); the repository's proposal until
	// accepted again. Diff shows the change.
	RuleChanged RuleState = "changed"
	// RuleNew: a project rule that arrived after the user trusted the
	// project; the repository's proposal until accepted.
	RuleNew RuleState = "new"
)

// Gate decides which project rules are in force, from the pins read at
// one moment.
type Gate struct {
	all     bool // no trust list: every rule is in force (a library caller's own roots)
	trusted bool
	pins    map[string]map[string]string // key → digest → accepted text
	err     error                        // the list could not be read: nothing is pinned
}

// AllInForce is the gate without a trust list: every rule is in force.
func AllInForce() *Gate { return &Gate{all: true, trusted: true} }

// NewGate is the gate of a project's state on the trust list, as State
// returned it; with err, nothing is pinned and Err reports it.
func NewGate(st State, err error) *Gate {
	g := &Gate{pins: map[string]map[string]string{}}
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

// All reports whether there is no trust list: every rule is in force.
func (g *Gate) All() bool { return g.all }

// Trusted reports whether the user trusted the project.
func (g *Gate) Trusted() bool { return g.trusted }

// Err is why the trust list could not be read, or nil.
func (g *Gate) Err() error { return g.err }

// InForce reports whether a project rule's text was accepted.
func (g *Gate) InForce(key, text string) bool {
	if g.all {
		return true
	}
	_, ok := g.pins[key][Digest(text)]
	return ok
}

// InForceText is inForce for a text in bytes. A rule whose key has no pin
// is not in force whatever its text, and its text is not digested.
func (g *Gate) InForceText(key string, text []byte) bool {
	if g.all {
		return true
	}
	pins := g.pins[key]
	if len(pins) == 0 {
		return false
	}
	d := DigestBytes(text)
	_, ok := pins[string(d[:])]
	return ok
}

// Rule is a rule as the gate judges it: a memory of kind rule or
// rule-proposal, or one rule of a root's ROOT.md hard-rules section.
type Rule struct {
	Scope        store.Scope
	Kind         memory.Kind // memory.KindRule for a ROOT.md rule
	SupersededBy string
	// Key is the memory's id, or RootMDSectionKey; Text is what a pin of
	// the rule digests (the rule's text as the rules tier gives it, or
	// RootSection).
	Key  string
	Text []byte
	// For ROOT.md's section: Unfit says it holds text unfit for a prompt;
	// LineByLine, that an earlier version pinned its lines one by one
	// (RootMDKey), a decision that now puts nothing in force.
	Unfit, LineByLine bool
}

// State is whether a rule is in force, and if not, why: the one decision
// of it that the rules tier, the bodies tier, `ocmem rules` and every
// report of a project's rules apply. It returns "" for a memory that is
// no rule.
//
// A project's rule that is not in force is changed when the user accepted
// another text of it (another text of its id, or of ROOT.md's section, or
// the section's lines one by one); else it is new in a trusted project and
// untrusted in the others.
func (g *Gate) State(r Rule) RuleState {
	switch {
	case r.Kind != memory.KindRule && r.Kind != memory.KindRuleProposal:
		return ""
	case r.Unfit:
		return RuleUnfit
	case r.SupersededBy != "":
		return RuleSuperseded
	case r.Kind == memory.KindRuleProposal:
		return RuleProposal
	case !g.Gated(r.Scope) || g.InForceText(r.Key, r.Text):
		return RuleInForce
	case r.LineByLine, len(g.pins[r.Key]) > 0:
		return RuleChanged
	case g.trusted:
		return RuleNew
	}
	return RuleUntrusted
}

// Gated reports whether a root's rules are in force only as the user
// accepted them: a project's, when there is a trust list.
func (g *Gate) Gated(scope store.Scope) bool { return scope == store.Project && !g.all }

// Change is a state as ProjectRule.Change names it (internal/tiers): ""
// in force, else RuleChanged or RuleNew (an untrusted project's rules are
// new to it).
func (s RuleState) Change() RuleState {
	switch s {
	case RuleInForce:
		return ""
	case RuleChanged:
		return RuleChanged
	}
	return RuleNew
}

// News says whether the person should hear of a rule in this state (the
// engine's InjectedRuleNews): a changed rule, or a new one in a trusted
// project. An untrusted project's new rules are not news: they were never
// in force.
func (s RuleState) News() bool { return s == RuleNew || s == RuleChanged }

// AcceptedBefore is, for a changed rule memory, the text the user
// accepted (the first of its key's, sorted).
func (g *Gate) AcceptedBefore(key string) string {
	if old := g.Accepted(key); len(old) > 0 {
		return old[0]
	}
	return ""
}

// RootMDRules is a root's ROOT.md hard-rules section as the gate judges
// it.
type RootMDRules struct {
	Unfit error     // memory.CheckText's objection to the section's text
	Text  string    // the section as accepted (RootSection); "" when unfit
	State RuleState // the section's (Gate.State)
	// LineByLine are the lines an earlier version accepted one by one,
	// sorted: they put nothing in force now.
	LineByLine []string
}

// RootMD judges a root's hard-rules section hr (compile.HardRules).
func (g *Gate) RootMD(scope store.Scope, hr string) *RootMDRules {
	sec := &RootMDRules{}
	if err := memory.CheckText([]byte(hr)); err != nil {
		sec.Unfit = err
		return sec
	}
	if g.Gated(scope) {
		sec.LineByLine = g.Accepted(RootMDKey)
	}
	if sec.Text = RootSection(hr); sec.Text != "" {
		sec.State = g.State(Rule{Scope: scope, Kind: memory.KindRule, Key: RootMDSectionKey, Text: []byte(sec.Text), LineByLine: len(sec.LineByLine) > 0})
	}
	return sec
}

// Accepted returns the accepted texts of a key, sorted.
func (g *Gate) Accepted(key string) []string {
	var out []string
	for _, t := range g.pins[key] {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// RootSection is ROOT.md's hard-rules text hr as it is accepted (pinned):
// the whole section, its headings and lead-ins with the lines under them,
// in order, each line without trailing space and each run of blank lines
// made one. A line there means what the heading and the lead-in above it
// say ("Never do these:", "Ask the user first before any of these:"), so
// the section is accepted as one: a line moved under another lead-in, a
// heading or lead-in deleted, lines reordered are a change the person
// decides again, as is a line added. Text outside the section (the goals,
// the compiled tables) is not part of it.
func RootSection(hr string) string {
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
