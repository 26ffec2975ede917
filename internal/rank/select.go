package rank

import (
	"math"
	"slices"
	"sort"
)

// This file: selectHits, the last step of Rank: project wins, the relative
// cutoff, the limit and the order.

// cand is a document that passed the evidence tests, with its score.
type cand struct {
	doc     int32
	capBy   int32 // the project document that caps this global one, when capped
	capped  bool
	trigger bool
	exact   bool // score includes decay; until then it is an upper bound
	score   float64
	rel     float64
	about   float64 // aboutness, a factor of score once exact (1 until then)
	head    uint8   // the query terms that count it matched in its headline
	focus   float64 // the share of its evidence's mass matched in its headline (acc.focus)
	cov     float64
	mask    uint64
	pieces  uint8
	weak    string // Search mode: the evidence test it fails ("": none)
}

// plain is a candidate's score without its aboutness: its strength, which
// the cutoffs compare.
func (x *cand) plain() float64 { return x.score / x.about }

// candBefore is the ranking order on candidates, as before() on hits.
func (c *Corpus) candBefore(x, y *cand) bool {
	switch {
	case (x.weak == "") != (y.weak == ""):
		return x.weak == ""
	case x.score != y.score:
		return x.score > y.score
	case c.updated[x.doc] != c.updated[y.doc]:
		return c.updated[x.doc] > c.updated[y.doc]
	case c.flags[x.doc]&flagGlobal != c.flags[y.doc]&flagGlobal:
		return c.flags[x.doc]&flagGlobal == 0
	}
	return c.ids[x.doc] < c.ids[y.doc]
}

// selectHits applies the project-wins rule and the relative cutoffs to the
// candidates and returns the best p.Limit of them in order. In Inject mode
// a hit must also cover at least injectCoverageCut of what the best hit
// covers of the message: a memory that shares one strong word with a long
// message scores near the best without being about it. It takes the
// candidates best first and stops as soon as no later one can enter the
// result (the rule only ever lowers a score), so its cost follows the
// limit, not the candidates; with Explain it goes through all of them, to
// give every dropped document its reason.
func (c *Corpus) selectHits(cands []cand, p Params, q *query, union uint64, projects bool, drop func(int, string)) []Hit {
	// A heap of candidate positions, best first; cands itself stays in
	// place, since project-wins looks candidates up by position.
	h := make([]int32, len(cands))
	for i := range h {
		h[i] = int32(i)
	}
	less := func(i, j int32) bool { return c.candBefore(&cands[i], &cands[j]) }
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i, less)
	}
	var kept, top []cand // top: the best p.Limit kept so far, in order
	best := math.Inf(-1)
	// The cutoff compares strengths (plain: the score without aboutness,
	// which orders the hits but says nothing of how many are worth their
	// tokens); bestPlain is the strongest kept so far, minAbout bounds
	// how far a later candidate's strength can exceed its score.
	bestPlain, minAbout := math.Inf(-1), c.minAboutness(p.about, p.focus)
	cut := cutoff(p.Mode, q)
	bestCov := 0.0               // the coverage of the best hit kept so far
	var byTrigger map[string]int // trigger the query names → lowest project candidate holding it
	for len(h) > 0 {
		if first := &cands[h[0]]; !first.exact {
			// Decay costs a power per candidate, and can only lower a
			// score: compute it for the best bound, and look again.
			first.score, first.about, first.exact = c.exactScore(first, p), c.aboutness(first, p.about, p.focus), true
			siftDown(h, 0, less)
			continue
		}
		x := cands[h[0]]
		h[0] = h[len(h)-1]
		h = h[:len(h)-1]
		siftDown(h, 0, less)
		if !p.Explain && len(kept) > 0 {
			if x.plain() < bestPlain*cut {
				if x.weak == "" {
					// Weak candidates, after all the others, may
					// still be above the cutoff.
					drop(int(x.doc), "far below the best hit")
					continue
				}
				if x.score < bestPlain*cut*minAbout {
					break // no later candidate can be over it
				}
				continue
			}
			if p.Limit > 0 && len(top) == p.Limit && !c.candBefore(&x, &top[p.Limit-1]) {
				break
			}
		}
		if c.flags[x.doc]&flagGlobal != 0 && projects {
			if by := c.coveredBy(&x, cands, q, p, union, &byTrigger); by >= 0 {
				drop(int(x.doc), "covered by project memory "+c.ids[by])
				continue
			}
			if by := c.overriddenBy(&x, kept, cands, p, q.tune.ConflictOverlap); by >= 0 {
				drop(int(x.doc), "overridden by project memory "+c.ids[by]+": the same topic (their triggers)")
				continue
			}
		}
		// The best so far sets the coverage to match; a global memory
		// capped under a project one may come first and be overtaken.
		switch {
		case x.score >= best:
			bestCov = x.cov
		case p.Mode == Inject && x.cov < bestCov*q.tune.CoverageCut:
			drop(int(x.doc), coverageShort)
			continue
		}
		best = math.Max(best, x.score)
		bestPlain = math.Max(bestPlain, x.plain())
		kept = append(kept, x)
		if p.Limit > 0 {
			i := sort.Search(len(top), func(i int) bool { return c.candBefore(&x, &top[i]) })
			if top = slices.Insert(top, i, x); len(top) > p.Limit {
				top = top[:p.Limit]
			}
		}
	}
	out := c.cutTail(kept, bestPlain, bestCov, cut, p, q, drop)
	if p.Limit > 0 && len(out) > p.Limit {
		out = out[:p.Limit]
	}
	return c.toHits(out, p, q)
}

// cutTail returns the candidates of kept over the cutoffs of the best
// strength (plain) and the best hit's coverage, in order; drop hears of the
// others.
func (c *Corpus) cutTail(kept []cand, best, bestCov, cut float64, p Params, q *query, drop func(int, string)) []cand {
	out := kept[:0]
	for _, x := range kept {
		switch {
		case x.plain() < best*cut:
			drop(int(x.doc), "far below the best hit")
		case p.Mode == Inject && x.cov < bestCov*q.tune.CoverageCut:
			drop(int(x.doc), coverageShort)
		default:
			out = append(out, x)
		}
	}
	slices.SortStableFunc(out, func(x, y cand) int {
		switch {
		case c.candBefore(&x, &y):
			return -1
		case c.candBefore(&y, &x):
			return 1
		}
		return 0
	})
	return out
}

// toHits makes the selected candidates hits, with their reasons but for the
// terms (Rank adds those).
func (c *Corpus) toHits(out []cand, p Params, q *query) []Hit {
	hits := make([]Hit, len(out))
	for i, x := range out {
		d := int(x.doc)
		f := c.flags[d]
		r := Reasons{
			Relevance: x.rel,
			Coverage:  x.cov,
			Scope:     ScopePrior(scopeOf(f)),
			Decay:     Decay(p.Now, c.updated[d], p.HalfLifeDays, f&flagPinned != 0),
			Boost:     Boost(int(c.hits[d])),
			Headline:  x.about,
		}
		if x.capped {
			r.CappedBy = c.ids[x.capBy]
		}
		r.Weak, r.Pieces = x.weak, int(x.pieces)
		if x.trigger {
			if r.Named = c.namedTrigger(d, q); r.Named == "" {
				r.Topic = c.askedTopic(x.doc, q, x.mask, x.cov)
			}
		}
		hits[i] = Hit{Doc: d, Score: x.score, Reasons: r, mask: x.mask, trigger: x.trigger}
	}
	return hits
}

// coveredBy applies project wins to global candidate x: it returns the
// project document that replaces x (-1: none), or caps x's score just under
// the project candidate that covers it. byTrigger is computed on first use.
func (c *Corpus) coveredBy(x *cand, cands []cand, q *query, p Params, union uint64, byTrigger *map[string]int) int {
	d := int(x.doc)
	// A project memory with the same id replaces the global one in this
	// project, matching or not, as one that supersedes it does (that one
	// was excluded before scoring).
	if j := c.sameID[d]; j >= 0 {
		return int(j)
	}
	if !x.trigger {
		return -1
	}
	if *byTrigger == nil {
		*byTrigger = c.projectTriggers(cands, q.all, p)
	}
	lowest := -1
	eachTrigger(c.triggers[d], func(key, _ string) bool {
		if j, ok := (*byTrigger)[key]; ok && (lowest < 0 || c.exactScore(&cands[j], p) < c.exactScore(&cands[lowest], p)) {
			lowest = j
		}
		return true
	})
	if lowest < 0 {
		return -1
	}
	low := &cands[lowest]
	if x.mask&^union&q.own == 0 {
		return int(low.doc)
	}
	if limit := c.exactScore(low, p) * coverCap; x.score > limit {
		x.score = limit
		x.capped, x.capBy = true, low.doc
	}
	return -1
}

// coverageShort is the reason a hit is dropped for its coverage.
const coverageShort = "covers far less of the message than the best hit"

// cutoff is the share of the best score under which a hit is dropped: in
// Inject mode the bodies worth their tokens beside the best (injectCutoff;
// injectCutoffLines for a message of several lines, which shares words
// with many memories), in Search mode only the long tail (relativeCutoff).
func cutoff(m Mode, q *query) float64 {
	switch {
	case m != Inject:
		return relativeCutoff
	case q.lines > 1:
		return q.tune.InjectCutoffLines
	}
	return q.tune.InjectCutoff
}

// overriddenBy returns the project document that overrides global
// candidate x, or -1: among kept (the hits ranked above) or, since aboutness
// may order a global memory before a stronger project one, among the
// strong project candidates at least as strong (plain). A global memory
// that says how things are done (normative) is overridden by a project
// memory on the same topic, and the project is right where they differ:
// commit style, formatting, the logging library. Same topic is decided from
// the two memories alone, by what their triggers say in either language
// (conflict.go): the overlap of their topics is at least overlap
// (conflictOverlap). A pitfall or fact is never overridden this way: a
// general pitfall beside a project fact on the same words answers more,
// not something else.
func (c *Corpus) overriddenBy(x *cand, kept, cands []cand, p Params, overlap float64) int {
	g := x.doc
	if c.flags[g]&flagNormative == 0 || c.triggers[g] == "" {
		return -1
	}
	var tg *topic // made when a project memory is first compared with it
	on := func(d int32) bool {
		if tg == nil {
			t := c.topicOf(int(g))
			tg = &t
		}
		return c.topicOverlap(*tg, c.triggerTerms(int(d))) >= overlap
	}
	for i := range kept {
		d := kept[i].doc
		if c.flags[d]&flagGlobal == 0 && on(d) {
			return int(d)
		}
	}
	strength := x.plain()
	for i := range cands {
		y := &cands[i]
		if y.weak != "" || c.flags[y.doc]&flagGlobal != 0 || y.score/y.about < strength {
			continue // the bound first: exact is only lower
		}
		if c.strength(y, p) >= strength && on(y.doc) {
			return int(y.doc)
		}
	}
	return -1
}

// siftDown restores the heap property of h below position i.
func siftDown(h []int32, i int, less func(i, j int32) bool) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && less(h[r], h[l]) {
			m = r
		}
		if !less(h[m], h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// exactScore is a candidate's score with decay and aboutness, whether or not
// selectHits has made it exact yet.
func (c *Corpus) exactScore(x *cand, p Params) float64 {
	if x.exact {
		return x.score
	}
	return c.strength(x, p) * c.aboutness(x, p.about, p.focus)
}

// strength is a candidate's score without aboutness (plain), whether or
// not selectHits has made it exact yet.
func (c *Corpus) strength(x *cand, p Params) float64 {
	if x.exact {
		return x.plain()
	}
	d := x.doc
	return x.score * Decay(p.Now, c.updated[d], p.HalfLifeDays, c.flags[d]&flagPinned != 0)
}
