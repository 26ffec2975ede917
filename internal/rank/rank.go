// Package rank scores memories against a query and explains every score.
//
//	c := rank.NewCorpus(index.Build(docs), metas)
//	res := rank.Rank(c, "部署前要做什么?", rank.Params{Mode: rank.Inject, Now: now})
//	for _, h := range res.Hits {
//		fmt.Println(c.Meta(h.Doc).ID, h.Score, h.Reasons)
//	}
//
// # The algorithm
//
// A memory is four fields: summary, highlight, load_when (its triggers) and
// body. Query and memory are cut into the same terms (package textseg: CJK
// bigrams, stemmed words, identifier parts), English stop words dropped.
//
// Relevance is BM25F: for each query term t, the term frequencies of the
// fields are length-normalised, weighted and summed into one pseudo-frequency
//
//	tf'(t) = Σ_f w_f · tf_f(t) / (1 − b + b · len_f / avglen_f)
//
// which saturates as idf(t) · tf' / (k1 + tf'), summed over the query's terms.
// Each term also carries a weight: the bigrams of a Chinese word of n ≥ 3
// characters share n/2 words' worth (query.go), a pasted line that reports
// no error weighs less (message.go), a translation less than the word itself
// (translate.go), a number of one or two digits or a single letter less than
// a word (query.go).
// The field weights say what a person wrote a field for: load_when and summary
// are written to be matched (weightTrigger, weightSummary), the highlight is
// the one detail worth knowing (weightHighlight), the body is context
// (weightBody = 1, the unit). Saturation keeps a long body that repeats a term
// from beating a summary that names it once.
//
// The score multiplies relevance by three priors and by aboutness, each in
// its own factor so a reason can name it:
//
//		score = relevance × scope × decay × boost × headline
//
//	  - scope: project 1.0, global 0.5. The more specific memory wins a tie.
//	  - decay: decayFloor + (1 − decayFloor) · 0.5^(age / halfLife) on the
//	    memory's "updated" time; pinned memories do not decay. The floor
//	    (0.95) exists because decay must never outweigh relevance: a fitting
//	    two-month-old decision must still beat a fresh memory that shares
//	    one common word. Decay orders near-equals (within 5 %), it does not
//	    bury: a floor of 0.5 let a memory written this week outrank one with
//	    a quarter more relevance, and every step up to 0.95 ranked better
//	    (docs/RETRIEVAL.md). What a newer memory replaces is said by
//	    supersedes, not by its age.
//	  - boost: 1 + boostPerDoubling · log2(1 + hits), capped at maxBoost, where
//	    hits counts how often memory_recall returned the memory. Used memories
//	    rise gently; a popular memory cannot crowd out a relevant one.
//	  - headline: the smoothed share of the memory's summary, highlight and
//	    triggers that the message matches, to a small power, times the
//	    smoothed share of the memory's matched evidence that lies in them,
//	    to another (aboutness, score.go): of two memories about as strong,
//	    the one about the message ranks first. The cutoffs compare
//	    strengths, the score without this factor (select.go).
//
// # When nothing should be returned
//
// A question no memory answers must inject no bodies, and one shared word is
// not an answer. Relevance alone cannot tell: its scale grows with the
// query's length and the store's size. So a memory is a hit only when all of
// these hold, each scale-free:
//
//   - evidence: it matches at least minTerms informative terms (held by at
//     most maxCommonShare of the memories); or the query names one of its
//     triggers whole, or asks about its topic (a word of its summary and most
//     of its triggers, triggers.go); or it matches one informative term in its summary,
//     highlight or triggers and the query is familiar (below);
//   - coverage: the terms it matches carry at least minCoverage of the idf
//     mass of the query's terms that some memory holds;
//   - relevance: at least minRelevance × the idf of a term held by one
//     memory.
//   - headline: in a message of several lines (a pasted log, an issue, code),
//     at least minHeadTerms of the terms it matches are in its summary,
//     highlight or triggers: a long message shares words with many bodies
//     by chance, and the headline is what a memory is about.
//
// Injection asks one more thing of the message as a whole: when every
// memory that passes was admitted on one and the same piece of evidence,
// alone, and at least minTied of them were, the message offers one word
// that several memories share and nothing that tells them apart ("可以,
// 提交吧", "cool, deployed"): it names a topic of the store, not a memory,
// and gets nothing, unless a sentence that asks holds the word ("提交信息
// 怎么写?"), for then the memories on the topic are what is asked for.
//
// Familiarity is the share of the query the store knows at all (words, and
// CJK characters inside a known bigram). "今天北京天气怎么样" shares 北京 with
// a memory about the user's time zone, but most of it is unknown to the
// store: a single match in such a question is a coincidence.
//
// Query terms are cut like memory terms, with English stop words and, for
// CJK, bigrams holding a grammatical character (的, 了, 吗, 这, 个 …) or
// forming a question word (什么, 可以, 之前 …) dropped: the CJK counterpart
// of a stop list, since half the bigrams of a Chinese sentence straddle two
// words. A bigram between two such stop words ("不能|直接" → 能直) straddles
// their boundary and is dropped too.
//
// After scoring, a search drops the hits under relativeCutoff × the top
// score: the long tail that shares a word by chance. Injection asks more,
// for every body costs tokens on every turn: a body is given only if its
// score is at least injectCutoff × the best (injectCutoffLines for a
// message of several lines) and it covers at least
// injectCoverageCut of what the best covers of the message, so one body is
// given when the best stands out, and a memory that shares one strong word
// with a long message is not given beside the one that is about it.
//
// A message without an anchor is small talk to the injector, with one
// exception: a sentence that asks about a trigger a memory declares, whole
// ("which port does the database use", load_when: [database]). load_when is
// what a person said the memory is for; then only such memories are given.
// A short follow-up that continues the conversation ("can you paste the
// full diff again?", "ok 再跑一次") gets nothing (message.go).
//
// # Project wins on conflict
//
// A project memory P with a global memory G's id, or naming G in supersedes,
// replaces G in this project: G is never returned there, whether or not P
// matches. Otherwise G and P conflict when both match the query and share a
// trigger (load_when, compared case-insensitively) that the query names. The
// project memory is the more specific statement, so:
//
//   - G is dropped when it adds no evidence of its own: every query term G
//     matches that could be evidence is also matched by a project hit. A CJK
//     bigram that is no word (间存, the straddle of 时间|存储) is not
//     evidence of its own. Then G says the same thing
//     about the same words, and where they differ (npm vs pnpm, UTC vs local
//     time) the project is right.
//   - otherwise G stays (it answers part of the question P does not), but its
//     score is capped just under the lowest covering P: it never outranks it.
//
// And whether or not the query names a shared trigger: a global preference,
// rule or decision (it says how things are done) is withheld when a project
// memory ranked above it is on its topic, decided from the two memories'
// triggers (topicOverlap at least conflictOverlap): commit style,
// formatting, the logging library. A global pitfall or fact is never
// withheld this way: beside a project fact on the same words it answers
// more, not something else.
//
// Superseded memories (superseded_by set, or named by another memory's
// supersedes) are never returned.
//
// # Order
//
// Total and deterministic: score descending, then updated descending (newer
// first), then scope (project first), then id.
//
// # Files
//
// One concern each: rank.go is Rank and what it returns; query.go turns a
// message into query terms; score.go accumulates each document's evidence
// from the postings (step 1); evidence.go holds the thresholds and the gate
// (step 2); select.go applies project wins, the cutoffs and the order
// (step 3); tuning.go gathers the thresholds a leave-one-store-out sweep
// varies; bm25.go is the relevance formula, priors.go the factors it is
// multiplied by; triggers.go is load_when; corpus.go is the per-document
// data a ranking reads; anchor.go finds the words that say what a message
// is about; message.go reads a message (what it asks, what it pastes, a
// follow-up); translate.go bridges English and Chinese through CC-CEDICT.
// CJK stop words live in textseg, beside the tokenizer that makes the
// bigrams they filter. ExampleRank (example_test.go) shows the calls.
package rank

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ocmem/ocmem/internal/index"
)

// Mode says who asks: the injector on every message, or a person or model
// searching.
type Mode uint8

const (
	// Search is for an explicit recall: every memory holding a query term
	// is a candidate, ranked, the tail cut by score.
	Search Mode = iota
	// Inject is for what is given unasked with a message: a memory is
	// returned only on real evidence, and a message without an anchor
	// gets nothing.
	Inject
)

func (m Mode) String() string {
	if m == Inject {
		return "inject"
	}
	return "search"
}

// ParseMode accepts "inject" or "search".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "inject":
		return Inject, nil
	case "search":
		return Search, nil
	}
	return 0, fmt.Errorf("mode %q is not inject or search", s)
}

// Params tune one ranking. The zero value uses the documented defaults.
type Params struct {
	Mode         Mode    // Search (the zero value) or Inject
	Now          int64   // Unix ms; decay is computed against it
	HalfLifeDays float64 // 0: DefaultHalfLifeDays; negative: no decay
	Limit        int     // 0: no limit
	Explain      bool    // fill Result.Dropped
	// Tuning replaces the default thresholds and weights (nil: none do);
	// for the leave-one-store-out sweep.
	Tuning *Tuning
	// about and focus are the tuning's Aboutness and Focus, for exactScore.
	about, focus float64
}

// TermReason explains one query term's part in a score.
type TermReason struct {
	Term   string                 `json:"term"`
	IDF    float64                `json:"idf"`
	Counts [index.NumFields]uint8 `json:"-"`
	Fields map[string]int         `json:"fields"` // field name → occurrences
	Score  float64                `json:"score"`  // this term's share of relevance
	// Via says where a translated term comes from, e.g.
	// `购物车 ← "shopping cart" (CC-CEDICT)`; empty for a term of the query.
	Via string `json:"via,omitempty"`
	// Aside marks the weaker match of a word the memory matched both
	// itself and through its translation: the word counts once, by the
	// better, so this term has no share of relevance (Score 0).
	Aside bool `json:"aside,omitempty"`
	// Anchor: the term names a thing (an identifier, a name, a word
	// outside everyday language), not a common word.
	Anchor bool `json:"anchor,omitempty"`
	// Evidence: the term can be a piece of evidence (informative, and
	// not a short number or a single letter).
	Evidence bool `json:"evidence,omitempty"`
}

// Reasons explains a score: which terms matched where, and every factor.
type Reasons struct {
	Terms     []TermReason `json:"terms"`
	Relevance float64      `json:"relevance"`
	Coverage  float64      `json:"coverage"`
	Scope     float64      `json:"scope"`
	Decay     float64      `json:"decay"`
	Boost     float64      `json:"boost"`
	// Headline is the factor of how much of the memory's headline the
	// message matches (aboutness, score.go); the score is relevance ×
	// scope × decay × boost × headline.
	Headline float64 `json:"headline"`
	// CappedBy names the project memory that covers this global one and
	// keeps it below (empty when not capped).
	CappedBy string `json:"capped_by,omitempty"`
	// Weak names the evidence test a Search hit fails, so it would not be
	// injected with a message; such hits rank after all the others.
	Weak string `json:"weak,omitempty"`
	// Named is the trigger (load_when, case-folded) the message names
	// whole, if any.
	Named string `json:"named,omitempty"`
	// Topic, when no trigger is named whole, is the word of the message
	// asked about that is the memory's topic (in its summary and most of
	// its triggers) and why; "" otherwise.
	Topic string `json:"topic,omitempty"`
	// Pieces counts the distinct pieces of evidence matched (an
	// identifier and its parts are one; all translations at most one).
	Pieces int `json:"pieces"`
}

// Hit is one ranked document.
type Hit struct {
	Doc     int
	Score   float64
	Reasons Reasons
	mask    uint64 // query terms matched
	trigger bool   // a load_when term matched: the query may name a trigger
}

// Dropped records a document that matched but was left out, and why; for
// diagnostics (inject --json, inspect).
type Dropped struct {
	Doc    int
	Reason string
}

// Result of a ranking.
type Result struct {
	Hits    []Hit
	Dropped []Dropped
	Terms   []string // the query's terms after stop words
	// Quiet says why an Inject ranking returned nothing although some
	// memory holds a query term; empty otherwise.
	Quiet string
}

// silence says why a message gets nothing whatever memories it names, or
// "". A short follow-up that continues the conversation asks the memories
// nothing (followsUp), nor does an acknowledgement (acknowledges). A
// message without an anchor is not silenced here: it gets only the memories
// one of whose triggers it names whole, or whose topic it asks about
// (naming, in Rank), for a trigger is what a person declared the memory is
// for, common word or not, whether the message asks ("which port does the
// database use" and load_when: [database]) or states it ("loss is 0 during
// training" and the trigger "loss is 0").
func silence(text string) string {
	switch {
	case followsUp(text):
		return "a follow-up that continues the conversation (again, 再, 继续 …): it asks the memories nothing"
	case acknowledges(text):
		return "an acknowledgement (thanks, it works now, 解决了 …): it says something is done and asks the memories nothing"
	}
	return ""
}

// quietUnnamed is the reason a message without an anchor got nothing:
// it names no trigger whole, or (stated) only a one-word trigger in a
// message that asks nothing about it.
func quietUnnamed(q *query, stated string) string {
	if stated != "" {
		return fmt.Sprintf("no anchor: it names the trigger %q but does not ask about it, and a statement is given a memory only for a trigger phrase of two words or more; %s", stated, q.commonWords())
	}
	return "no anchor, and it names no memory's trigger whole nor asks about a memory's topic: " + q.commonWords()
}

// Rank scores every document that matches the query and returns the hits in
// order. Its cost grows with the postings of the query's terms, not with the
// size of the store, and what it allocates grows with the hits it returns.
//
// It reads in three steps: accumulate (score.go) adds up each document's
// evidence from the postings of the query's terms, gate (evidence.go) keeps
// the documents with evidence enough, selectHits (select.go) applies project
// wins, the cutoff and the limit.
func Rank(c *Corpus, text string, p Params) Result {
	q := c.newQuery(text, p.Tuning.or())
	p.about, p.focus = q.tune.Aboutness, q.tune.Focus
	res := Result{Terms: q.texts()}
	if len(q.terms) == 0 || c.Len() == 0 {
		if p.Mode == Inject && strings.TrimSpace(text) != "" {
			res.Quiet = "no term of the message is in any memory"
		}
		return res
	}
	drop := func(d int, why string) {
		if p.Explain {
			res.Dropped = append(res.Dropped, Dropped{d, why})
		}
	}
	namedOnly := p.Mode == Inject && !q.anchored
	if p.Mode == Inject && !namedOnly {
		if res.Quiet = silence(text); res.Quiet != "" {
			return res
		}
	}
	buf := c.bufs.Get().(*buffers)
	defer c.bufs.Put(buf)
	c.accumulate(q, buf)
	// The strong candidates first. Weak ones (Search) rank after all of
	// them, so they are needed only when the strong ones leave room: most
	// searches never pay for testing every document that shares a word.
	var g gated
	buf.cands, g = c.gate(q, Inject, buf.accs, buf.cands[:0], 0, drop)
	if namedOnly {
		if buf.cands, g = c.naming(q, buf.cands, g, drop); len(buf.cands) == 0 {
			res.Quiet = quietUnnamed(q, g.stated)
			return res
		}
		if res.Quiet = silence(text); res.Quiet != "" {
			res.Dropped = res.Dropped[:0]
			return res
		}
	}
	if p.Mode == Inject && g.lone != 0 && g.strong >= minTied && g.lone&q.asked == 0 {
		why := fmt.Sprintf("%d memories match one word of the message alone (%s), in a message that does not ask about it: the word names a topic of the store, not a memory",
			g.strong, q.pieceWords(g.lone))
		for _, x := range buf.cands {
			drop(int(x.doc), "matches one word alone, as other memories do")
		}
		sort.Slice(res.Dropped, func(i, j int) bool { return res.Dropped[i].Doc < res.Dropped[j].Doc })
		res.Quiet = why
		return res
	}
	res.Hits = c.selectHits(buf.cands, p, q, g.union, g.projects, drop)
	if p.Mode == Search && (p.Limit == 0 || len(res.Hits) < p.Limit || p.Explain) {
		res.Dropped = res.Dropped[:0]
		// A weak candidate under the relative cutoff of the best strong
		// hit cannot be a hit: leave it out of the candidates (with
		// Explain every document is looked at, to give its reason).
		floor := 0.0
		if !p.Explain {
			for _, h := range res.Hits { // the strongest (plain) sets the cutoff
				floor = max(floor, h.Score/h.Reasons.Headline*relativeCutoff)
			}
		}
		buf.cands, _ = c.gate(q, Search, buf.accs, buf.cands[:0], floor, drop)
		res.Hits = c.selectHits(buf.cands, p, q, g.union, g.projects, drop)
	}
	for i := range res.Hits {
		res.Hits[i].Reasons.Terms = c.termReasons(res.Hits[i].Doc, q, res.Hits[i].mask)
	}
	sort.Slice(res.Dropped, func(i, j int) bool { return res.Dropped[i].Doc < res.Dropped[j].Doc })
	if len(res.Hits) == 0 && p.Mode == Inject {
		res.Quiet = "no memory has evidence enough: two distinct terms, a trigger named whole, or an anchor in its summary"
	}
	return res
}
