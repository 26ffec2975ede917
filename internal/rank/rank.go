// Package rank scores memories against a query and explains every score.
//
//	hits := rank.Rank(ix, metas, "部署前要做什么?", rank.Params{Now: now})
//	for _, h := range hits { fmt.Println(h.Doc, h.Score, h.Reasons) }
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
// The field weights say what a person wrote a field for: load_when and summary
// are written to be matched (weightTrigger, weightSummary), the highlight is
// the one detail worth knowing (weightHighlight), the body is context
// (weightBody = 1, the unit). Saturation keeps a long body that repeats a term
// from beating a summary that names it once.
//
// The score multiplies relevance by three priors, each in its own factor so a
// reason can name it:
//
//		score = relevance × scope × decay × boost
//
//	  - scope: project 1.0, global 0.5. The more specific memory wins a tie.
//	  - decay: decayFloor + (1 − decayFloor) · 0.5^(age / halfLife) on the
//	    memory's "updated" time; pinned memories do not decay. The floor exists
//	    because decay must never outweigh relevance: a fitting two-month-old
//	    decision must still beat a fresh memory that shares one common word.
//	    Decay orders near-equals, it does not bury.
//	  - boost: 1 + boostPerDoubling · log2(1 + hits), capped at maxBoost, where
//	    hits counts how often memory_recall returned the memory. Used memories
//	    rise gently; a popular memory cannot crowd out a relevant one.
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
//     triggers whole; or it matches one informative term in its summary,
//     highlight or triggers and the query is familiar (below);
//   - coverage: the terms it matches carry at least minCoverage of the idf
//     mass of the query's terms that some memory holds;
//   - relevance: at least minRelevance × the idf of a term held by one
//     memory.
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
// After scoring, hits under relativeCutoff × the top score are dropped: they
// are the long tail that shares a word by chance.
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
//     matches is also matched by a project hit. Then G says the same thing
//     about the same words, and where they differ (npm vs pnpm, UTC vs local
//     time) the project is right.
//   - otherwise G stays (it answers part of the question P does not), but its
//     score is capped just under the lowest covering P: it never outranks it.
//
// Superseded memories (superseded_by set, or named by another memory's
// supersedes) are never returned.
//
// # Order
//
// Total and deterministic: score descending, then updated descending (newer
// first), then scope (project first), then id.
package rank

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ocmem/ocmem/internal/index"
	"github.com/ocmem/ocmem/internal/textseg"
)

// BM25F parameters. k1 and b are the usual BM25 values (Robertson & Zaragoza,
// "The Probabilistic Relevance Framework"); memories are short, so the
// classic defaults fit.
const (
	k1 = 1.2
	b  = 0.75
)

// Field weights, relative to the body.
const (
	weightBody      = 1.0
	weightHighlight = 2 * weightBody
	weightSummary   = 3 * weightBody
	weightTrigger   = weightSummary // load_when is written to be matched, like the summary
)

var fieldWeight = [index.NumFields]float64{
	index.Summary:   weightSummary,
	index.Highlight: weightHighlight,
	index.LoadWhen:  weightTrigger,
	index.Body:      weightBody,
}

// Scope priors.
const (
	ScopeProject = 1.0
	ScopeGlobal  = ScopeProject / 2
)

// Decay and boost.
const (
	DefaultHalfLifeDays = 14
	decayFloor          = 0.5
	boostPerDoubling    = 0.05
	maxBoost            = 1.25
)

// Thresholds, all scale-free (see "When nothing should be returned"). They
// were set on the development set of the retrieval benchmark and checked to
// sit in flat regions: minRelevance anywhere in 0.2–0.4 and minCoverage in
// 0.1–0.15 give the same results there (docs/RETRIEVAL.md).
const (
	// minCoverage is low because chatty questions carry many known but
	// unrelated words ("帮我看一下", "quick question"); it only removes
	// memories that match a sliver of a long question.
	minCoverage = 0.1
	// maxCommonShare: a term in more than 40% of memories (at 125 memories,
	// an idf under about 1) tells nothing about which one is meant.
	maxCommonShare = 0.4
	// minTerms: two informative terms are evidence, one is a coincidence
	// unless it is a trigger or a headline term of a familiar question.
	minTerms = 2
	// minFamiliar: at least half the question is vocabulary the store uses.
	minFamiliar = 0.5
	// minVocabulary: below this many distinct terms (some 20–30 memories)
	// a store cannot tell a foreign question from a familiar one, and
	// familiarity is not asked.
	minVocabulary = 1000
	// minRelevance, in units of the idf of a term only one memory holds:
	// that rarest term matched once in a body of twice the average length
	// (saturation 0.5/(k1+0.5), about 0.3) is the floor. In units of a
	// rare term, not of the store's largest idf, so that a store of one or
	// two memories, where every idf is small, still answers.
	minRelevance = 0.3
	// relativeCutoff: a hit under a fifth of the best is a chance overlap.
	relativeCutoff = 0.2
	// coverCap keeps a global memory that a project memory covers just under
	// it: the global keeps its place in the list, the project stays ahead.
	coverCap = 0.999
)

const msPerDay = 24 * 60 * 60 * 1000

// Scope of a memory, as the ranker sees it.
type Scope uint8

const (
	Project Scope = iota
	Global
)

func (s Scope) String() string {
	if s == Global {
		return "global"
	}
	return "project"
}

// Meta is what the ranker needs to know about a document besides its text.
type Meta struct {
	ID         string
	Scope      Scope
	Updated    int64 // Unix ms
	Pinned     bool
	Superseded bool     // superseded_by is set
	Supersedes string   // id this memory replaces ("" if none)
	LoadWhen   []string // triggers, for conflict detection
	Hits       int      // recall counter from .state.json
}

// Params tune one ranking. The zero value uses the documented defaults.
type Params struct {
	Now          int64   // Unix ms; decay is computed against it
	HalfLifeDays float64 // 0: DefaultHalfLifeDays; negative: no decay
	Limit        int     // 0: no limit
	Explain      bool    // fill Result.Dropped
}

// TermReason explains one query term's part in a score.
type TermReason struct {
	Term   string                 `json:"term"`
	IDF    float64                `json:"idf"`
	Counts [index.NumFields]uint8 `json:"-"`
	Fields map[string]int         `json:"fields"` // field name → occurrences
	Score  float64                `json:"score"`  // this term's share of relevance
}

// Reasons explains a score: which terms matched where, and every factor.
type Reasons struct {
	Terms     []TermReason `json:"terms"`
	Relevance float64      `json:"relevance"`
	Coverage  float64      `json:"coverage"`
	Scope     float64      `json:"scope"`
	Decay     float64      `json:"decay"`
	Boost     float64      `json:"boost"`
	// CappedBy names the project memory that covers this global one and
	// keeps it below (empty when not capped).
	CappedBy string `json:"capped_by,omitempty"`
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
}

// QueryTerms cuts a query into distinct terms, stop words removed, in first
// occurrence order.
func QueryTerms(q string) []string {
	var out []string
	seen := map[string]bool{}
	toks := textseg.Tokenize(q)
	for i, t := range toks {
		if t.Stop || seen[t.Text] || t.Type == textseg.CJK && (cjkStop(t.Text) || straddles(toks, i)) {
			continue
		}
		seen[t.Text] = true
		out = append(out, t.Text)
	}
	return out
}

// straddles reports whether CJK bigram i sits between two stop words of the
// same run ("不能|直接" → "能直"): it then spans the boundary of two known
// words and is no word itself.
func straddles(toks []textseg.Token, i int) bool {
	if i == 0 || i+1 >= len(toks) {
		return false
	}
	l, t, r := toks[i-1], toks[i], toks[i+1]
	adjacent := l.Type == textseg.CJK && r.Type == textseg.CJK && l.End > t.Start && r.Start < t.End
	return adjacent && cjkStopWords[l.Text] && cjkStopWords[r.Text]
}

// IDF is the BM25 inverse document frequency, always positive. A term no
// document holds gets the idf of a term held by none, ln(1 + (N+0.5)/0.5).
func IDF(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// Decay is the time factor for a memory updated at updated (Unix ms).
func Decay(now, updated int64, halfLifeDays float64, pinned bool) float64 {
	if pinned || halfLifeDays < 0 {
		return 1
	}
	if halfLifeDays == 0 {
		halfLifeDays = DefaultHalfLifeDays
	}
	age := float64(now-updated) / msPerDay
	if age <= 0 {
		return 1
	}
	return decayFloor + (1-decayFloor)*math.Pow(0.5, age/halfLifeDays)
}

// Boost is the recall-count factor.
func Boost(hits int) float64 {
	if hits <= 0 {
		return 1
	}
	return math.Min(maxBoost, 1+boostPerDoubling*math.Log2(1+float64(hits)))
}

// ScopePrior is the scope factor.
func ScopePrior(s Scope) float64 {
	if s == Global {
		return ScopeGlobal
	}
	return ScopeProject
}

// saturate is BM25's term-frequency saturation.
func saturate(tf float64) float64 { return tf / (k1 + tf) }

// maxQueryTerms bounds the terms a query is scored on. A pasted log or a long
// message can hold thousands; the rarest ones (highest idf) say the most, and
// the bound keeps a query's cost and its term sets (bit masks) small.
const maxQueryTerms = 64

// Corpus is an index plus what the ranker needs about each document,
// prepared once per load so that a query does no work per stored memory.
// It is immutable and safe for concurrent use.
type Corpus struct {
	ix       *index.Index
	metas    []Meta
	triggers [][]trigger // per document
	replaced []bool      // named by a live memory's supersedes
	sameID   []int32     // for a global document, the project document with its id, or -1
	rareIDF  float64     // idf of a term held by one memory
	slots    *sync.Pool  // *[]int32 of Len() entries, all -1; shared by Replace
}

// trigger is one load_when entry: its case-folded text (conflicts compare
// triggers by it) and its terms (a query names it when it holds them all).
type trigger struct {
	key   string
	terms []string
}

// NewCorpus prepares an index and its documents' metadata for ranking;
// metas[i] describes document i.
func NewCorpus(ix *index.Index, metas []Meta) *Corpus {
	c := &Corpus{ix: ix, metas: metas, triggers: make([][]trigger, len(metas)), rareIDF: IDF(ix.Len(), 1)}
	for i, m := range metas {
		c.triggers[i] = triggersOf(m)
	}
	c.link()
	n := len(metas)
	c.slots = &sync.Pool{New: func() any {
		s := make([]int32, n)
		for i := range s {
			s[i] = -1
		}
		return &s
	}}
	return c
}

// triggersOf cuts a memory's load_when into triggers.
func triggersOf(m Meta) []trigger {
	var out []trigger
	for _, t := range m.LoadWhen {
		if terms := QueryTerms(t); len(terms) > 0 {
			out = append(out, trigger{strings.ToLower(strings.TrimSpace(t)), terms})
		}
	}
	return out
}

// link computes what ties documents to each other: a global memory's
// project twin, and the memories a live memory supersedes.
func (c *Corpus) link() {
	metas := c.metas
	c.replaced = make([]bool, len(metas))
	c.sameID = make([]int32, len(metas))
	pos := make(map[string]int, len(metas))
	for i, m := range metas {
		pos[key(m.Scope, m.ID)] = i
	}
	for i, m := range metas {
		c.sameID[i] = -1
		if j, ok := pos[key(Project, m.ID)]; ok && m.Scope == Global {
			c.sameID[i] = int32(j)
		}
	}
	// Memories named by a live memory's supersedes are out, even if their
	// own superseded_by was never set (a hand edit, or the other root: a
	// project memory may supersede a global one for this project).
	for _, m := range metas {
		if m.Supersedes == "" || m.Superseded {
			continue
		}
		if i, ok := pos[key(m.Scope, m.Supersedes)]; ok {
			c.replaced[i] = true
		}
		if i, ok := pos[key(Global, m.Supersedes)]; ok && m.Scope == Project {
			c.replaced[i] = true
		}
	}
}

// Replace returns a corpus over ix and metas, which differ from the
// receiver's only in the documents listed in changed (same number of
// documents). It reuses everything else: a reload after a file edit costs
// that file. The result ranks exactly as NewCorpus(ix, metas) would.
func (c *Corpus) Replace(ix *index.Index, metas []Meta, changed []int) *Corpus {
	n := &Corpus{ix: ix, metas: metas, triggers: slices.Clone(c.triggers), replaced: c.replaced, sameID: c.sameID, rareIDF: c.rareIDF, slots: c.slots}
	relink := false
	for _, d := range changed {
		n.triggers[d] = triggersOf(metas[d])
		o, m := c.metas[d], metas[d]
		relink = relink || o.ID != m.ID || o.Scope != m.Scope || o.Supersedes != m.Supersedes || o.Superseded != m.Superseded
	}
	if relink {
		n.link()
	}
	return n
}

// Index returns the corpus's index.
func (c *Corpus) Index() *index.Index { return c.ix }

// Metas returns the documents' metadata.
func (c *Corpus) Metas() []Meta { return c.metas }

// acc accumulates one document's evidence for a query.
type acc struct {
	doc       int32
	relevance float64
	matched   float64 // idf mass of the matched terms
	distinct  int     // informative terms matched
	headline  bool    // an informative term matched summary, highlight or load_when
	trigger   bool    // some matched term is in load_when: a trigger may be named
	mask      uint64  // bit i: query term i matched
}

// Rank scores every document that matches the query and returns the hits in
// order. Its cost grows with the postings of the query's terms, not with the
// size of the store.
func Rank(c *Corpus, query string, p Params) Result {
	ix, metas := c.ix, c.metas
	terms := QueryTerms(query)
	n := ix.Len()
	// Only terms some memory holds can match or weigh in coverage. An
	// unknown CJK bigram is usually noise: every other bigram of a Chinese
	// sentence straddles two words and exists nowhere. An unknown word
	// ("haiku") does say the question is about something else; familiarity
	// below accounts for it.
	known := terms[:0:0]
	for _, t := range terms {
		if ix.DF(t) > 0 {
			known = append(known, t)
		}
	}
	if len(known) > maxQueryTerms {
		sort.SliceStable(known, func(i, j int) bool { return ix.DF(known[i]) < ix.DF(known[j]) })
		known = known[:maxQueryTerms]
	}
	res := Result{Terms: known}
	if len(known) == 0 || n == 0 {
		return res
	}
	idfs := make([]float64, len(known))
	var mass float64
	for i, t := range known {
		idfs[i] = IDF(n, ix.DF(t))
		mass += idfs[i]
	}
	// Familiarity needs a vocabulary to judge against: a store of a few
	// memories knows few words, and every question looks foreign to it.
	familiar := ix.Vocabulary() < minVocabulary || Familiarity(ix, query) >= minFamiliar
	qset := make(map[string]bool, len(terms))
	for _, t := range terms {
		qset[t] = true
	}
	var avg [index.NumFields]float64
	for f := index.Field(0); f < index.NumFields; f++ {
		avg[f] = math.Max(ix.AvgFieldLen(f), 1)
	}

	slotp := c.slots.Get().(*[]int32)
	slot := *slotp
	var accs []acc
	for i, t := range known {
		inf := informative(n, ix.DF(t))
		for _, post := range ix.Postings(t) {
			d := post.Doc
			if metas[d].Superseded || c.replaced[d] {
				continue
			}
			a := slot[d]
			if a < 0 {
				a = int32(len(accs))
				slot[d] = a
				accs = append(accs, acc{doc: d})
			}
			s := idfs[i] * saturate(pseudoTF(ix, post, avg))
			x := &accs[a]
			x.relevance += s
			x.matched += idfs[i]
			x.mask |= 1 << uint(i)
			x.trigger = x.trigger || post.TF[index.LoadWhen] > 0
			if inf {
				x.distinct++
				x.headline = x.headline || post.TF[index.Summary]+post.TF[index.Highlight]+post.TF[index.LoadWhen] > 0
			}
		}
	}
	for _, a := range accs {
		slot[a.doc] = -1
	}
	c.slots.Put(slotp)

	drop := func(d int, why string) {
		if p.Explain {
			res.Dropped = append(res.Dropped, Dropped{d, why})
		}
	}
	hits := make([]Hit, 0, len(accs))
	for _, a := range accs {
		d, m := int(a.doc), metas[a.doc]
		switch {
		case a.matched/mass < minCoverage:
			drop(d, "coverage below threshold")
			continue
		// names is the costly test, and a query can name a trigger only
		// if one of the document's load_when terms matched.
		case a.distinct < minTerms && !(a.headline && familiar) && !(a.trigger && c.names(d, qset)):
			drop(d, "one incidental term matched")
			continue
		case a.relevance < minRelevance*c.rareIDF:
			drop(d, "relevance below threshold")
			continue
		}
		r := Reasons{
			Relevance: a.relevance,
			Coverage:  a.matched / mass,
			Scope:     ScopePrior(m.Scope),
			Decay:     Decay(p.Now, m.Updated, p.HalfLifeDays, m.Pinned),
			Boost:     Boost(m.Hits),
		}
		hits = append(hits, Hit{Doc: d, Score: r.Relevance * r.Scope * r.Decay * r.Boost, Reasons: r, mask: a.mask, trigger: a.trigger})
	}

	hits = c.projectWins(hits, qset, drop)
	// Drop the long tail under relativeCutoff × the best score, then order
	// what is left; with a limit, only the best Limit need a full sort.
	best := 0.0
	for _, h := range hits {
		best = math.Max(best, h.Score)
	}
	kept := hits[:0]
	for _, h := range hits {
		if h.Score >= best*relativeCutoff {
			kept = append(kept, h)
		} else {
			drop(h.Doc, "far below the best hit")
		}
	}
	hits = topK(kept, p.Limit, metas)
	// Term-by-term reasons only for what is returned: they cost a lookup
	// per matched term.
	for i := range hits {
		hits[i].Reasons.Terms = c.termReasons(hits[i].Doc, known, idfs, hits[i].mask, avg)
	}
	res.Hits = hits
	sort.Slice(res.Dropped, func(i, j int) bool { return res.Dropped[i].Doc < res.Dropped[j].Doc })
	return res
}

// topK returns the best k hits (all when k ≤ 0) in order.
func topK(hits []Hit, k int, metas []Meta) []Hit {
	if k <= 0 || len(hits) <= k {
		sortHits(hits, metas)
		return hits
	}
	// A partial selection: keep a sorted window of the k best seen.
	top := make([]Hit, 0, k+1)
	for _, h := range hits {
		if len(top) == k && !before(h, top[k-1], metas) {
			continue
		}
		i := sort.Search(len(top), func(i int) bool { return before(h, top[i], metas) })
		top = slices.Insert(top, i, h)
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}

// pseudoTF is BM25F's weighted, length-normalised term frequency.
func pseudoTF(ix *index.Index, post index.Posting, avg [index.NumFields]float64) float64 {
	var tf float64
	for f := index.Field(0); f < index.NumFields; f++ {
		if c := post.TF[f]; c > 0 {
			norm := 1 - b + b*float64(ix.FieldLen(int(post.Doc), f))/avg[f]
			tf += fieldWeight[f] * float64(c) / norm
		}
	}
	return tf
}

func (c *Corpus) termReasons(doc int, terms []string, idfs []float64, mask uint64, avg [index.NumFields]float64) []TermReason {
	var out []TermReason
	for i, t := range terms {
		if mask&(1<<uint(i)) == 0 {
			continue
		}
		ps := c.ix.Postings(t)
		j := sort.Search(len(ps), func(j int) bool { return int(ps[j].Doc) >= doc })
		if j == len(ps) || int(ps[j].Doc) != doc {
			continue
		}
		tr := TermReason{Term: t, IDF: idfs[i], Counts: ps[j].TF, Fields: map[string]int{}}
		tr.Score = idfs[i] * saturate(pseudoTF(c.ix, ps[j], avg))
		for f := index.Field(0); f < index.NumFields; f++ {
			if ps[j].TF[f] > 0 {
				tr.Fields[f.String()] = int(ps[j].TF[f])
			}
		}
		out = append(out, tr)
	}
	return out
}

// names reports whether the query holds one of a document's triggers whole:
// every term of the trigger phrase is a query term. A trigger is a person's
// statement "load this when the talk is about X"; naming X is enough.
func (c *Corpus) names(doc int, query map[string]bool) bool {
	for _, tr := range c.triggers[doc] {
		if holds(query, tr.terms) {
			return true
		}
	}
	return false
}

func holds(query map[string]bool, terms []string) bool {
	for _, t := range terms {
		if !query[t] {
			return false
		}
	}
	return true
}

func key(s Scope, id string) string { return s.String() + ":" + id }

// projectWins applies the conflict rule described in the package comment,
// in time linear in the hits.
func (c *Corpus) projectWins(hits []Hit, query map[string]bool, drop func(int, string)) []Hit {
	byTrigger := map[string][]int{} // trigger the query names → project hit indexes
	var union uint64                // query terms some project hit matched
	projects := 0
	for i, h := range hits {
		if c.metas[h.Doc].Scope != Project {
			continue
		}
		union |= h.mask
		projects++
		if !h.trigger {
			continue // none of its triggers can be named by the query
		}
		for _, tr := range c.triggers[h.Doc] {
			if holds(query, tr.terms) {
				byTrigger[tr.key] = append(byTrigger[tr.key], i)
			}
		}
	}
	if projects == 0 {
		return hits
	}
	out := hits[:0:0]
	for _, h := range hits {
		if c.metas[h.Doc].Scope != Global {
			out = append(out, h)
			continue
		}
		// A project memory with the same id replaces the global one in
		// this project, matching or not, as one that supersedes it does
		// (that one was excluded before scoring).
		if p := c.sameID[h.Doc]; p >= 0 {
			drop(h.Doc, "covered by project memory "+c.metas[p].ID)
			continue
		}
		lowest := -1
		if h.trigger {
			for _, tr := range c.triggers[h.Doc] {
				for _, pi := range byTrigger[tr.key] {
					if lowest < 0 || hits[pi].Score < hits[lowest].Score {
						lowest = pi
					}
				}
			}
		}
		switch {
		case lowest < 0:
			out = append(out, h)
		case h.mask&^union == 0:
			drop(h.Doc, "covered by project memory "+c.metas[hits[lowest].Doc].ID)
		default:
			if limit := hits[lowest].Score * coverCap; h.Score > limit {
				h.Score = limit
				h.Reasons.CappedBy = c.metas[hits[lowest].Doc].ID
			}
			out = append(out, h)
		}
	}
	return out
}

func sortHits(hits []Hit, metas []Meta) {
	slices.SortStableFunc(hits, func(x, y Hit) int {
		switch {
		case before(x, y, metas):
			return -1
		case before(y, x, metas):
			return 1
		}
		return 0
	})
}

// before is the ranking order: score descending, then updated descending
// (newer first), then project before global, then id.
func before(x, y Hit, metas []Meta) bool {
	mx, my := &metas[x.Doc], &metas[y.Doc]
	switch {
	case x.Score != y.Score:
		return x.Score > y.Score
	case mx.Updated != my.Updated:
		return mx.Updated > my.Updated
	case mx.Scope != my.Scope:
		return mx.Scope < my.Scope
	}
	return mx.ID < my.ID
}

// isCJK reports whether a term is a CJK bigram or unigram.
func isCJK(t string) bool {
	for _, r := range t {
		return r >= 0x2E80 // CJK radicals and up: Han, kana, Hangul
	}
	return false
}

// functionChars are Chinese characters that are mostly grammar: particles,
// pronouns, measure words, copulas. A query bigram holding one is nearly
// always a straddle ("的时", "个字", "我要") or a filler ("这个", "那个"),
// the CJK counterpart of an English stop word. Characters that also start
// common content words (用 in 用户, 有 in 有效, 不 in 不兼容) are not listed.
const functionChars = "的了着过吗呢吧啊呀哦嘛么是在和与及或把被给让就都也还又很太这那哪我你他她它们个些吧"

// cjkStopWords are two-character words that carry the shape of a question,
// not its subject ("can I", "directly", "before", "problem"): the core of the
// usual Chinese stop-word lists, cut to bigrams.
var cjkStopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`可以 不能 能不 需要 需不 直接 什么 怎么 为什么 没有 有没 是不 不是 一下 一个 之前 之后 以后 以前
		时候 现在 问题 如果 因为 所以 但是 然后 还是 或者 已经 应该 不要 不用 一直 好像 感觉 觉得 知道 帮忙 麻烦 谢谢
		请问 请教 一些 有些 有点 其实 还有 比如 另外 大家 自己 今天 刚才 为啥 咋办 怎样 如何 哪里 多少 几个`) {
		cjkStopWords[w] = true
	}
}

// cjkStop reports whether a CJK query term says nothing about the subject.
func cjkStop(t string) bool {
	if cjkStopWords[t] {
		return true
	}
	for _, r := range t {
		if strings.ContainsRune(functionChars, r) {
			return true
		}
	}
	return false
}

// Familiarity is the share of a query the store knows at all: of its words
// (identifiers count once, not per part), those some memory holds, and of its
// CJK characters (function characters aside), those inside a bigram or
// unigram some memory holds. Characters rather than bigrams, because half of
// a Chinese sentence's bigrams straddle two words and exist nowhere; a
// character is known when any bigram through it is. In [0, 1]; 1 for an
// empty query.
func Familiarity(ix *index.Index, query string) float64 {
	toks := textseg.Tokenize(query)
	known, total := 0, 0
	covered := map[int]bool{} // byte offset of a CJK character → known
	for _, t := range toks {
		switch t.Type {
		case textseg.CJK:
			for off, r := range query[t.Start:t.End] {
				if !strings.ContainsRune(functionChars, r) {
					covered[t.Start+off] = covered[t.Start+off] || ix.DF(t.Text) > 0
				}
			}
		case textseg.Word, textseg.Ident:
			if t.Stop {
				continue
			}
			total++
			if ix.DF(t.Text) > 0 {
				known++
			}
		}
	}
	for _, k := range covered {
		total++
		if k {
			known++
		}
	}
	if total == 0 {
		return 1
	}
	return float64(known) / float64(total)
}

// informative reports whether a term held by df of n memories says enough to
// count as evidence: it is not in more than maxCommonShare of them. In a
// store of one or two memories every term is informative.
func informative(n, df int) bool {
	return df <= max(1, int(maxCommonShare*float64(n)))
}
