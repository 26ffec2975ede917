package extract

// Deciding what becomes of a candidate.
//
// A model asked "what is worth remembering" repeats what is already
// remembered, and restates old facts with one detail changed. Writing every
// candidate would fill the store with near-copies that crowd the outline and
// contradict each other. Each candidate is compared with every live memory
// (both roots, superseded ones left out), on the engine's own tokens
// (textseg.Terms: stemmed words, identifier parts, CJK bigrams, stop words
// dropped), so "the same words" means what it means to recall.
//
// Three term sets are used, each a set (counts do not matter here):
//
//	headline(x) = summary + highlight + load_when   what a memory says
//	full(x)     = headline + body                   everything it holds
//	topic(x)    = summary + load_when               what it is about
//	triggers(x) = load_when                         when it is wanted
//
// Duplicate: containment(headline(c), full(m)) = |headline(c) ∩ full(m)| /
// |headline(c)| ≥ DuplicateContainment. Containment, not Jaccard, because
// the question is one-sided: does the candidate say anything m does not
// already hold? A short candidate restating part of a long memory is a
// duplicate even though the two sets differ in size. One exception: a
// candidate with a new term holding a digit is never a duplicate, because
// the facts that change (versions, ports, limits, sizes) change in digits,
// and "pnpm 9" must not be dropped as a repeat of "pnpm 8".
//
// Update: a candidate that is not a duplicate but shares m's topic —
// jaccard(topic(c), topic(m)) ≥ SameTopicJaccard, in the same category, and
// when both have triggers jaccard(triggers(c), triggers(m)) ≥
// SameTopicJaccard too — is the same subject with a changed fact, so it
// supersedes m rather than standing beside it. Jaccard here, because topics
// must match both ways: a candidate that merely mentions m's subject among
// others is not about it. The triggers condition keeps sibling facts apart:
// "Service A listens on its own queue" and "… Service B …" share most of
// their summary but are wanted in different scenarios, while two facts
// wanted in the same scenarios ("deploy") differ in their summaries.
// The model may also name the memory it updates ("supersedes"); that claim
// is taken when the old memory is contained in the new one: at least
// ClaimedContainment of the concepts of its summary and triggers are in
// the candidate, written or translated (rank.Concepts, CC-CEDICT, the
// bridge recall uses). Containment, because a good update is richer than
// what it updates (a reason, eight bilingual triggers) and a Jaccard of
// the two would fall with every word it adds; a wrong id, to an unrelated
// memory, is refused (it would hide that memory from recall).
//
// Another subject is never an update nor a duplicate (otherSubject):
// "Backend uses pnpm workspaces" says of the backend what "Frontend uses
// pnpm workspaces" says of the frontend; both are true. Their summaries
// differ in their first term only, and neither memory names the other's.
//
// Duplicates across languages: a candidate whose summary is in the other
// script than a memory's is compared with that memory's text and the
// translations of its headline, by concepts, with the same bar.
//
// A pinned memory is never superseded automatically (SPEC §2): the
// candidate is logged in full for a person and nothing is written.
//
// Measured on the store of decide_test.go: reworded duplicates score 0.83
// and 1.0 containment; "pnpm 8" → "pnpm 9" scores topic Jaccard 0.80, a
// changed decision 0.56. Claims (containment): a rich switch from npm to
// pnpm 1.00 (its topic Jaccard is below 0.25), a switch from pnpm to bun 0.75,
// a claim to update an unrelated memory 0.25; a Chinese restatement of an
// English pitfall is a duplicate at 0.83. Wrong answers are
// cheap in one direction only: superseding keeps the old file
// (superseded_by is history, and ocmem inspect shows it), a false
// duplicate loses the fact; so the duplicate bar is the high one.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/rank"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/textseg"
)

const (
	// DuplicateContainment: at most one in five of the candidate's headline
	// terms is new — a rewording of m, not a new fact.
	DuplicateContainment = 0.8
	// SameTopicJaccard: at least half of the two topics' terms are shared.
	SameTopicJaccard = 0.5
	// ClaimedContainment is the bar for the model's own "supersedes": at
	// least half of what the old memory is about (the concepts of its
	// summary and triggers) is in the new one, in either language.
	ClaimedContainment = 0.5
)

// Action is what became of a candidate.
type Action string

const (
	ActWrite     Action = "write"     // a new memory
	ActSupersede Action = "supersede" // a new memory replacing Match
	ActDuplicate Action = "duplicate" // skipped: Match already says it
	ActPinned    Action = "pinned"    // skipped: it would update the pinned Match; left for a person
	ActInvalid   Action = "invalid"   // skipped: not a usable memory
	// ActMustNotSync: skipped, it holds what is true only here and now (a
	// branch, a local path, task state) and would go wrong on another
	// machine or in a later session.
	ActMustNotSync Action = "must-not-sync"
	ActOverCap     Action = "over-cap" // skipped: beyond MaxCandidates
	ActRefused     Action = "refused"  // the engine refused the write (a secret, …)
)

// Decision is a candidate and what became of it.
type Decision struct {
	Candidate Candidate
	Action    Action
	Match     string  // "scope:id" of the memory it duplicates or updates
	Score     float64 // the similarity that decided
	Reason    string
	Written   *engine.Written
}

// memoryTerms holds the term sets of one live memory.
type memoryTerms struct {
	file                            *store.File
	key                             string // "scope:id"
	headline, full, topic, triggers termSet
	bridged                         termSet // full with translations; see bridgedFull
}

type termSet map[string]struct{}

func terms(parts ...string) termSet {
	s := termSet{}
	for _, p := range parts {
		for _, t := range textseg.Terms(p) {
			s[t] = struct{}{}
		}
	}
	return s
}

// containment is |a ∩ b| / |a|; 0 for an empty a.
func containment(a, b termSet) float64 {
	if len(a) == 0 {
		return 0
	}
	return float64(intersect(a, b)) / float64(len(a))
}

// jaccard is |a ∩ b| / |a ∪ b|; 0 when both are empty.
func jaccard(a, b termSet) float64 {
	n := intersect(a, b)
	u := len(a) + len(b) - n
	if u == 0 {
		return 0
	}
	return float64(n) / float64(u)
}

func intersect(a, b termSet) int {
	if len(a) > len(b) {
		a, b = b, a
	}
	n := 0
	for t := range a {
		if _, ok := b[t]; ok {
			n++
		}
	}
	return n
}

// newDigitTerm reports whether a has a term with a digit that b lacks.
func newDigitTerm(a, b termSet) bool {
	for t := range a {
		if _, ok := b[t]; ok {
			continue
		}
		if strings.ContainsFunc(t, unicode.IsDigit) {
			return true
		}
	}
	return false
}

func triggersText(ts []string) string { return strings.Join(ts, " ; ") }

func candidateSets(c Candidate) (headline, topic, trig termSet) {
	lw := triggersText(c.LoadWhen)
	return terms(c.Summary, c.Highlight, lw), terms(c.Summary, lw), terms(lw)
}

// sameTopic is the update test of the essay above.
func sameTopic(topic, trig termSet, m *memoryTerms) (float64, bool) {
	s := jaccard(topic, m.topic)
	if s < SameTopicJaccard {
		return s, false
	}
	if len(trig) > 0 && len(m.triggers) > 0 && jaccard(trig, m.triggers) < SameTopicJaccard {
		return s, false
	}
	return s, true
}

// bridgedFull is everything m holds with the translations of its
// headline (summary, highlight, triggers), computed once.
func (m *memoryTerms) bridgedFull() termSet {
	if m.bridged == nil {
		mm := m.file.Memory
		m.bridged = termSet{}
		for t := range m.full {
			m.bridged[t] = struct{}{}
		}
		for _, k := range rank.Concepts(append([]string{mm.Summary, mm.Highlight}, mm.LoadWhen...)...) {
			for _, t := range k.Terms {
				m.bridged[t] = struct{}{}
			}
		}
	}
	return m.bridged
}

// contained is how much of what old is about — the concepts of its
// summary and triggers — the candidate holds, written or translated
// (package rank's bridge of CC-CEDICT, which recall uses): an update
// restates what it updates, and usually adds a reason and triggers in
// both languages. Containment, not Jaccard, since the new memory is
// rightly richer than the old one.
func contained(old *memory.Memory, c Candidate) float64 {
	held := terms(c.Body)
	for _, k := range rank.Concepts(append([]string{c.Summary, c.Highlight}, c.LoadWhen...)...) {
		for _, t := range k.Terms {
			held[t] = struct{}{}
		}
	}
	return conceptContainment(rank.Concepts(append([]string{old.Summary}, old.LoadWhen...)...), held)
}

// conceptContainment is the share of the concepts ks that b holds, by any
// of their terms, written or translated; 0 when ks is empty.
func conceptContainment(ks []rank.Concept, b termSet) float64 {
	if len(ks) == 0 {
		return 0
	}
	n := 0
	for _, k := range ks {
		for _, t := range k.Terms {
			if _, ok := b[t]; ok {
				n++
				break
			}
		}
	}
	return float64(n) / float64(len(ks))
}

// otherSubject says why the candidate is about another subject than old
// though it says the same of it ("Backend uses pnpm workspaces" and
// "Frontend uses pnpm workspaces"), or "" when it is not. Two summaries
// whose first terms (their subject, in the sentences memories are written
// in) differ, neither named anywhere in the other memory, and whose other
// terms are the same, are siblings, not an update: superseding one with
// the other would hide a true fact. A changed number is a changed value,
// never another subject ("pnpm 8" → "pnpm 9").
func otherSubject(old *memory.Memory, c Candidate) string {
	a, b := nonDigitTerms(old.Summary), nonDigitTerms(c.Summary)
	if len(a) == 0 || len(b) == 0 || a[0] == b[0] {
		return ""
	}
	newAll := terms(append([]string{c.Summary, c.Highlight, c.Body}, c.LoadWhen...)...)
	oldAll := terms(append([]string{old.Summary, old.Highlight, old.Body}, old.LoadWhen...)...)
	if _, ok := newAll[a[0]]; ok {
		return ""
	}
	if _, ok := oldAll[b[0]]; ok {
		return ""
	}
	if rest := terms(a[1:]...); len(rest) == 0 || jaccard(rest, terms(b[1:]...)) < 1 {
		return ""
	}
	return fmt.Sprintf("another subject (%q, not %q)", b[0], a[0])
}

func nonDigitTerms(s string) []string {
	var out []string
	for _, t := range textseg.Terms(s) {
		if !strings.ContainsFunc(t, unicode.IsDigit) {
			out = append(out, t)
		}
	}
	return out
}

func hasHan(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) })
}

// liveMemories returns the term sets of every memory that is not
// superseded, in snapshot order (global, then project, by path).
func liveMemories(files []*store.File) []memoryTerms {
	var out []memoryTerms
	for _, f := range files {
		m := f.Memory
		if m.SupersededBy != "" {
			continue
		}
		lw := triggersText(m.LoadWhen)
		out = append(out, memoryTerms{
			file:     f,
			key:      string(f.Scope) + ":" + m.ID,
			headline: terms(m.Summary, m.Highlight, lw),
			full:     terms(m.Summary, m.Highlight, lw, m.Body),
			topic:    terms(m.Summary, lw),
			triggers: terms(lw),
		})
	}
	return out
}

// decide says what to do with a valid candidate, given the live memories.
// It writes nothing. Ties between memories go to the higher score, then the
// project memory, then the smaller key, so the same store and candidate
// always give the same decision.
func decide(c Candidate, live []memoryTerms) Decision {
	headline, topic, trig := candidateSets(c)
	d := Decision{Candidate: c, Action: ActWrite}

	if c.Supersedes != "" {
		if m := findClaimed(c.Supersedes, live); m != nil {
			score := contained(m.file.Memory, c)
			switch other := otherSubject(m.file.Memory, c); {
			case other != "":
				d.Reason = fmt.Sprintf("ignored supersedes %s: %s", m.key, other)
			case score >= ClaimedContainment:
				return updateOf(d, headline, m, score, "the model says it updates this memory")
			default:
				d.Reason = fmt.Sprintf("ignored supersedes %s: %.2f of it is in the new memory < %.2f", m.key, score, ClaimedContainment)
			}
		} else {
			d.Reason = fmt.Sprintf("ignored supersedes %q: no live memory has that id", c.Supersedes)
		}
	}

	// Duplicate of any memory, any category; across languages through the
	// dictionary, so that a Chinese restatement of an English memory is
	// one too.
	var dup *memoryTerms
	dupScore := 0.0
	var cConcepts []rank.Concept
	cHan := hasHan(c.Summary)
	for i := range live {
		m := &live[i]
		s := containment(headline, m.full)
		if s < DuplicateContainment && cHan != hasHan(m.file.Memory.Summary) {
			if cConcepts == nil {
				cConcepts = rank.Concepts(append([]string{c.Summary, c.Highlight}, c.LoadWhen...)...)
			}
			s = max(s, conceptContainment(cConcepts, m.bridgedFull()))
		}
		if s >= DuplicateContainment && !newDigitTerm(headline, m.full) && better(s, m, dupScore, dup) && otherSubject(m.file.Memory, c) == "" {
			dup, dupScore = m, s
		}
	}
	if dup != nil {
		d.Action, d.Match, d.Score = ActDuplicate, dup.key, dupScore
		d.Reason = fmt.Sprintf("%.0f%% of its terms are already in %s", 100*dupScore, dup.key)
		return d
	}

	// Same topic in the same category: an update.
	var same *memoryTerms
	sameScore := 0.0
	for i := range live {
		m := &live[i]
		if m.file.Memory.Category() != c.Category {
			continue
		}
		s, ok := sameTopic(topic, trig, m)
		if ok && otherSubject(m.file.Memory, c) == "" && better(s, m, sameScore, same) {
			same, sameScore = m, s
		}
	}
	if same != nil {
		return updateOf(d, headline, same, sameScore, "same topic, changed fact")
	}
	return d
}

// updateOf is the decision for a candidate that updates m: supersede it,
// unless m is pinned or the candidate adds nothing to it.
func updateOf(d Decision, headline termSet, m *memoryTerms, score float64, why string) Decision {
	d.Match, d.Score = m.key, score
	switch {
	case m.file.Memory.Pinned:
		d.Action = ActPinned
		d.Reason = why + "; it is pinned, so a person must decide"
	case containment(headline, m.full) == 1 && len(headline) > 0:
		d.Action = ActDuplicate
		d.Reason = why + ", but adds nothing to it"
	default:
		d.Action = ActSupersede
		d.Reason = fmt.Sprintf("%s (topic overlap %.2f)", why, score)
	}
	return d
}

// better reports whether memory m with score s beats the best so far.
func better(s float64, m *memoryTerms, bestScore float64, best *memoryTerms) bool {
	if best == nil {
		return true
	}
	if s != bestScore {
		return s > bestScore
	}
	if m.file.Scope != best.file.Scope {
		return m.file.Scope == store.Project
	}
	return m.key < best.key
}

// findClaimed finds the memory a candidate says it supersedes: "scope:id"
// or a bare id (the project memory first, as recall prefers it).
func findClaimed(ref string, live []memoryTerms) *memoryTerms {
	ref = strings.TrimSuffix(strings.TrimSpace(ref), ".md")
	var found []*memoryTerms
	for i := range live {
		m := &live[i]
		if m.key == ref || m.file.Memory.ID == ref {
			found = append(found, m)
		}
	}
	if len(found) == 0 {
		return nil
	}
	slices.SortFunc(found, func(a, b *memoryTerms) int {
		return cmp.Compare(scopeRank(a.file.Scope), scopeRank(b.file.Scope))
	})
	return found[0]
}

func scopeRank(s store.Scope) int {
	if s == store.Project {
		return 0
	}
	return 1
}

// kindCategory is the default category of each kind.
var kindCategory = map[memory.Kind]string{
	memory.KindRule:         "rules",
	memory.KindRuleProposal: "rules",
	memory.KindPreference:   "preferences",
	memory.KindDecision:     "decisions",
	memory.KindPitfall:      "pitfalls",
	memory.KindFact:         "facts",
}

// mustNotSync says why a candidate holds what is true only here and now
// (memory.SyncHazards: a branch, a local path, task state, a token), or ""
// when it holds none. Such a memory would sync to other machines and
// later sessions and be wrong there, so it is never written.
func mustNotSync(c Candidate) string {
	m := &memory.Memory{Summary: c.Summary, Highlight: c.Highlight, LoadWhen: c.LoadWhen, Body: c.Body}
	var why []string
	for _, h := range memory.SyncHazards(m) {
		why = append(why, h.String())
	}
	return strings.Join(why, "; ")
}
