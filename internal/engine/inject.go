package engine

import (
	"strings"
	"time"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/prompt"
	"github.com/ocmem/ocmem/internal/rank"
	"github.com/ocmem/ocmem/internal/trust"
)

// Injection is what the model gets on a turn, tier by tier.
type Injection struct {
	// Rules is the hard-rules tier: every kind: rule memory and ROOT.md's
	// hard-rules section, global first, never cut.
	Rules string `json:"rules"`
	// Outline is what exists, within MaxOutlineChars.
	Outline string `json:"outline"`
	// Bodies is the per-message tier: the best matches' text, within
	// MaxInjectEntries and MaxInjectChars.
	Bodies string `json:"bodies"`
	// Given lists the memories whose bodies are in Bodies, as "scope:id".
	Given []string `json:"given"`
	// Repeated lists hits left out because the session already has them.
	Repeated []string `json:"repeated,omitempty"`
	// Marks are what a session log records for Given (Hit.GivenKey): the
	// memory and a digest of its content.
	Marks []string `json:"-"`
	// Hits are the ranked matches the bodies were chosen from.
	Hits []Hit `json:"hits"`
	// Quiet says why no memory matched the message although some memory
	// holds one of its terms ("no anchor: …"); empty otherwise.
	Quiet string `json:"quiet,omitempty"`
}

// System is the stable text for the system prompt: rules and outline. It is
// byte-identical while the memories do not change.
func (inj *Injection) System() string {
	switch {
	case inj.Rules == "":
		return inj.Outline
	case inj.Outline == "":
		return inj.Rules
	}
	return inj.Rules + "\n" + inj.Outline
}

// InjectOptions tune an injection.
type InjectOptions struct {
	Now time.Time // zero: the engine's clock
	// Seen reports whether the session was already given a memory in its
	// current content (Hit.GivenKey, "scope:id@digest"); nil means nothing
	// was.
	Seen func(key string) bool
	// CodeDir is the worktree in use, where anchors are checked (the
	// stale lines, the outline's marks); "" is the engine's own.
	CodeDir string
}

// Inject computes all three tiers for a user message. An empty message
// yields only the stable tiers.
func (e *Engine) Inject(message string, o InjectOptions) (*Injection, error) {
	inj, err := e.StableIn(o.CodeDir)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(message) == "" {
		return inj, nil
	}
	hits, quiet, err := e.recall(rank.Analysed(message), RecallOptions{Now: o.Now, Mode: rank.Inject, CodeDir: o.CodeDir})
	if err != nil {
		return nil, err
	}
	inj.Hits, inj.Quiet = hits, quiet
	g := e.stableGate()
	var chosen []Hit
	for _, h := range hits {
		if h.Stale.IsOutdated() {
			continue // judged no longer true: kept for recall, never given as fact
		}
		if h.Kind == memory.KindRule && g.State(trust.Rule{Scope: h.Scope, Kind: h.Kind, Key: h.ID,
			Text: prompt.AppendGuards(prompt.AppendRuleText(nil, h.ID, h.Summary, h.Highlight, h.Body), h.Enforce)}) == RuleInForce {
			continue // already in the rules tier, in full
		}
		// An untrusted project's rule is listed in the rules tier as a
		// one-line proposal only; its body reaches the model here, as
		// data, like any other memory.
		if o.Seen != nil && o.Seen(h.GivenKey()) {
			inj.Repeated = append(inj.Repeated, h.Key())
			continue
		}
		chosen = append(chosen, h)
		if len(chosen) == e.opts.MaxInjectEntriesOrDefault() {
			break
		}
	}
	// The rules gate and the session's marks are of the memories' own
	// text; the model and the person get it with suspected secrets
	// masked.
	marks := make([]string, len(chosen))
	for i := range chosen {
		marks[i] = chosen[i].GivenKey()
		maskHit(&chosen[i])
	}
	for i := range inj.Hits {
		maskHit(&inj.Hits[i])
	}
	inj.Bodies, inj.Given = renderBodies(chosen, e.opts.MaxInjectCharsOrDefault())
	inj.Marks = append(inj.Marks, marks[:len(inj.Given)]...)
	return inj, nil
}

// Stable computes the rules and outline tiers only, anchors checked in the
// engine's own worktree.
func (e *Engine) Stable() (*Injection, error) { return e.StableIn("") }

// StableIn is Stable with anchors checked in the worktree codeDir ("" : the
// engine's own).
func (e *Engine) StableIn(codeDir string) (*Injection, error) {
	s, err := e.Load()
	if err != nil {
		return nil, err
	}
	// The stable tiers depend only on the snapshot, and they are asked for
	// on every turn: compute them once per load.
	st, c := e.stableOf(s), e.code(codeDir)
	return &Injection{Rules: st.text[0], Outline: c.marks.Outline(c.t, s, e.roots(), st.text[1], e.opts.MaxOutlineCharsOrDefault(), staleTimeout)}, nil
}

// renderBodies frames the chosen hits within a character budget
// (prompt.Bodies), and returns the keys of those given.
func renderBodies(hits []Hit, budget int) (string, []string) {
	bodies := make([]prompt.Body, len(hits))
	for i, h := range hits {
		bodies[i] = prompt.Body{ID: h.ID, Key: h.Key(), Scope: h.Scope, Kind: h.Kind,
			Summary: h.Summary, Highlight: h.Highlight, Body: h.Body, Updated: h.Updated}
		if h.Stale != nil {
			bodies[i].Stale = h.Stale.Line
		}
	}
	return prompt.Bodies(bodies, budget)
}
