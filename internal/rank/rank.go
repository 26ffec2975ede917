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
	"fmt"
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
//
// The per-document data is kept in columns (one slice per attribute) rather
// than one struct per document: the scoring loop reads one byte of flags and
// the field lengths per posting, and a cache can store the columns as they
// are (Columns, FromColumns).
type Corpus struct {
	ix       *index.Index
	flags    []uint8                   // per document: flag* bits
	updated  []int64                   // Unix ms
	hits     []int32                   // recall counters
	sameID   []int32                   // for a global document, the project document with its id, or -1
	ids      []string                  // memory ids
	supers   []string                  // the id each memory supersedes, or ""
	triggers []string                  // load_when, encoded by encodeTriggers
	lengths  [][index.NumFields]uint32 // the index's field lengths
	slope    [index.NumFields]float64  // length normalisation: 1 − b + slope[f] · length
	rareIDF  float64                   // idf of a term held by one memory
	slots    *sync.Pool                // *[]int32 of Len() entries, all -1; shared by Replace
	bufs     *sync.Pool                // *buffers, per-query scratch
}

// Flags of a document.
const (
	flagGlobal = 1 << iota
	flagPinned
	flagSuperseded // superseded_by is set
	flagReplaced   // named by a live memory's supersedes
	flagOut        = flagSuperseded | flagReplaced
)

// NewCorpus prepares an index and its documents' metadata for ranking;
// metas[i] describes document i.
func NewCorpus(ix *index.Index, metas []Meta) *Corpus {
	n := len(metas)
	c := &Corpus{ix: ix, flags: make([]uint8, n), updated: make([]int64, n), hits: make([]int32, n),
		ids: make([]string, n), supers: make([]string, n), triggers: make([]string, n)}
	for i, m := range metas {
		c.set(i, m)
	}
	c.link()
	c.prepare()
	return c
}

// set fills document i's columns from m, except the links between
// documents (link).
func (c *Corpus) set(i int, m Meta) {
	f := c.flags[i] & flagReplaced
	if m.Scope == Global {
		f |= flagGlobal
	}
	if m.Pinned {
		f |= flagPinned
	}
	if m.Superseded {
		f |= flagSuperseded
	}
	c.flags[i], c.updated[i], c.hits[i] = f, m.Updated, int32(min(m.Hits, math.MaxInt32))
	c.ids[i], c.supers[i], c.triggers[i] = m.ID, m.Supersedes, encodeTriggers(m.LoadWhen)
}

// prepare computes what is derived from the index: length normalisation, the rare
// idf, the scratch pools.
func (c *Corpus) prepare() {
	ix := c.ix
	n := ix.Len()
	c.rareIDF = IDF(n, 1)
	var avg [index.NumFields]float64
	for f := index.Field(0); f < index.NumFields; f++ {
		avg[f] = math.Max(ix.AvgFieldLen(f), 1)
	}
	c.lengths = ix.Lengths()
	for f := range avg {
		c.slope[f] = b / avg[f]
	}
	if c.slots == nil {
		c.slots = &sync.Pool{New: func() any {
			s := make([]int32, n)
			for i := range s {
				s[i] = -1
			}
			return &s
		}}
		c.bufs = &sync.Pool{New: func() any { return new(buffers) }}
	}
}

// encodeTriggers stores a memory's load_when as one string: per trigger,
// its case-folded text (conflicts compare triggers by it), then its terms
// (a query names it when it holds them all), each ended by sepTerm, the
// trigger ended by sepTrigger. Trigger text cannot hold either byte: memory
// files refuse control characters.
func encodeTriggers(loadWhen []string) string {
	var b strings.Builder
	for _, t := range loadWhen {
		terms := QueryTerms(t)
		if len(terms) == 0 {
			continue
		}
		b.WriteString(strings.ToLower(strings.TrimSpace(t)))
		for _, term := range terms {
			b.WriteByte(sepTerm)
			b.WriteString(term)
		}
		b.WriteByte(sepTrigger)
	}
	return b.String()
}

const (
	sepTerm    = 0x1f
	sepTrigger = 0x1e
)

// eachTrigger calls fn with each trigger's key and its terms (sepTerm
// separated) until fn returns false.
func eachTrigger(enc string, fn func(key, terms string) bool) {
	for enc != "" {
		tr, rest, _ := strings.Cut(enc, string(rune(sepTrigger)))
		enc = rest
		key, terms, _ := strings.Cut(tr, string(rune(sepTerm)))
		if !fn(key, terms) {
			return
		}
	}
}

// link computes what ties documents to each other: a global memory's
// project twin, and the memories a live memory supersedes.
func (c *Corpus) link() {
	n := len(c.ids)
	c.sameID = make([]int32, n)
	pos := make(map[string]int, n)
	for i, id := range c.ids {
		pos[key(scopeOf(c.flags[i]), id)] = i
		c.flags[i] &^= flagReplaced
	}
	for i, id := range c.ids {
		c.sameID[i] = -1
		if j, ok := pos[key(Project, id)]; ok && c.flags[i]&flagGlobal != 0 {
			c.sameID[i] = int32(j)
		}
	}
	// Memories named by a live memory's supersedes are out, even if their
	// own superseded_by was never set (a hand edit, or the other root: a
	// project memory may supersede a global one for this project).
	for d, sup := range c.supers {
		if sup == "" || c.flags[d]&flagSuperseded != 0 {
			continue
		}
		if i, ok := pos[key(scopeOf(c.flags[d]), sup)]; ok {
			c.flags[i] |= flagReplaced
		}
		if i, ok := pos[key(Global, sup)]; ok && c.flags[d]&flagGlobal == 0 {
			c.flags[i] |= flagReplaced
		}
	}
}

// Replace returns a corpus over ix in which the documents in changed have
// the given metadata (same number of documents). It reuses everything else:
// a reload after a file edit costs that file, unless the edit changes an id
// or a supersede link. The result ranks exactly as NewCorpus over ix and
// every document's metadata would.
func (c *Corpus) Replace(ix *index.Index, changed map[int]Meta) *Corpus {
	n := &Corpus{ix: ix, flags: slices.Clone(c.flags), updated: slices.Clone(c.updated), hits: slices.Clone(c.hits),
		sameID: c.sameID, ids: slices.Clone(c.ids), supers: slices.Clone(c.supers), triggers: slices.Clone(c.triggers),
		slots: c.slots, bufs: c.bufs}
	relink := false
	for d, m := range changed {
		o := c.Meta(d)
		n.set(d, m)
		relink = relink || o.ID != m.ID || o.Scope != m.Scope || o.Supersedes != m.Supersedes || o.Superseded != m.Superseded
	}
	if relink {
		n.link()
	}
	n.prepare()
	return n
}

// Remap returns the corpus of a store in which some documents were removed,
// renumbered or added, over ix (see index.Index.Remap): the document d here
// is remap[d] there (-1: gone), added gives the new documents' metadata.
// Recall counters are kept for the documents that stay (WithHits replaces
// them all).
func (c *Corpus) Remap(ix *index.Index, remap []int32, added map[int]Meta) *Corpus {
	n := ix.Len()
	r := &Corpus{ix: ix, flags: make([]uint8, n), updated: make([]int64, n), hits: make([]int32, n),
		ids: make([]string, n), supers: make([]string, n), triggers: make([]string, n)}
	for d, to := range remap {
		if to >= 0 {
			r.flags[to], r.updated[to], r.hits[to] = c.flags[d], c.updated[d], c.hits[d]
			r.ids[to], r.supers[to], r.triggers[to] = c.ids[d], c.supers[d], c.triggers[d]
		}
	}
	for d, m := range added {
		r.set(d, m)
	}
	r.link()
	r.prepare()
	return r
}

// WithHits returns the corpus with other recall counters, one per document.
func (c *Corpus) WithHits(hits []int32) *Corpus {
	n := *c
	n.hits = hits
	return &n
}

// Meta returns what the corpus knows of document d (LoadWhen is not kept,
// and is empty).
func (c *Corpus) Meta(d int) Meta {
	f := c.flags[d]
	m := Meta{ID: c.ids[d], Updated: c.updated[d], Pinned: f&flagPinned != 0, Superseded: f&flagSuperseded != 0,
		Supersedes: c.supers[d], Hits: int(c.hits[d])}
	if f&flagGlobal != 0 {
		m.Scope = Global
	}
	return m
}

// Index returns the corpus's index.
func (c *Corpus) Index() *index.Index { return c.ix }

// Len is the number of documents.
func (c *Corpus) Len() int { return len(c.flags) }

// Columns is a corpus's per-document data laid out as a cache stores it;
// every slice has one entry per document.
type Columns struct {
	Flags    []uint8
	Updated  []int64
	Hits     []int32
	SameID   []int32
	IDs      []string
	Supers   []string
	Triggers []string
}

// Columns returns the corpus's columns; do not modify them.
func (c *Corpus) Columns() Columns {
	return Columns{c.flags, c.updated, c.hits, c.sameID, c.ids, c.supers, c.triggers}
}

// FromColumns returns the corpus of ix and cols, using cols's slices
// without copying them. It checks their lengths and links, so a damaged
// cache is an error, never a crash.
func FromColumns(ix *index.Index, cols Columns) (*Corpus, error) {
	n := ix.Len()
	if len(cols.Flags) != n || len(cols.Updated) != n || len(cols.Hits) != n || len(cols.SameID) != n || len(cols.IDs) != n || len(cols.Supers) != n || len(cols.Triggers) != n {
		return nil, fmt.Errorf("rank: columns do not have one entry for each of %d documents", n)
	}
	for d, j := range cols.SameID {
		if j < -1 || j >= int32(n) || j >= 0 && (cols.Flags[d]&flagGlobal == 0 || cols.Flags[j]&flagGlobal != 0) {
			return nil, fmt.Errorf("rank: document %d: bad link %d", d, j)
		}
	}
	c := &Corpus{ix: ix, flags: cols.Flags, updated: cols.Updated, hits: cols.Hits, sameID: cols.SameID, ids: cols.IDs,
		supers: cols.Supers, triggers: cols.Triggers}
	c.prepare()
	return c, nil
}

// acc accumulates one document's evidence for a query.
type acc struct {
	doc       int32
	distinct  int32 // informative terms matched
	headline  bool  // an informative term matched summary, highlight or load_when
	trigger   bool  // some matched term is in load_when: a trigger may be named
	relevance float64
	matched   float64 // idf mass of the matched terms
	mask      uint64  // bit i: query term i matched
}

// cand is a document that passed the evidence tests, with its score.
type cand struct {
	doc     int32
	capBy   int32 // the project document that caps this global one, when capped
	capped  bool
	trigger bool
	exact   bool // score includes decay; until then it is an upper bound
	score   float64
	rel     float64
	cov     float64
	mask    uint64
}

// buffers is one query's scratch space, reused across queries.
type buffers struct {
	accs  []acc
	cands []cand
}

// Rank scores every document that matches the query and returns the hits in
// order. Its cost grows with the postings of the query's terms, not with the
// size of the store, and what it allocates grows with the hits it returns.
func Rank(c *Corpus, query string, p Params) Result {
	ix := c.ix
	terms := QueryTerms(query)
	n := ix.Len()
	// Only terms some memory holds can match or weigh in coverage. An
	// unknown CJK bigram is usually noise: every other bigram of a Chinese
	// sentence straddles two words and exists nowhere. An unknown word
	// ("haiku") does say the question is about something else; familiarity
	// below accounts for it.
	known := terms[:0:0]
	lists := make([][]index.Posting, 0, len(terms))
	for _, t := range terms {
		if l := ix.Postings(t); len(l) > 0 {
			known = append(known, t)
			lists = append(lists, l)
		}
	}
	if len(known) > maxQueryTerms {
		order := make([]int, len(known))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(i, j int) bool { return len(lists[order[i]]) < len(lists[order[j]]) })
		k2, l2 := make([]string, maxQueryTerms), make([][]index.Posting, maxQueryTerms)
		for i := range k2 {
			k2[i], l2[i] = known[order[i]], lists[order[i]]
		}
		known, lists = k2, l2
	}
	res := Result{Terms: known}
	if len(known) == 0 || n == 0 {
		return res
	}
	idfs := make([]float64, len(known))
	var mass float64
	for i, l := range lists {
		idfs[i] = IDF(n, len(l))
		mass += idfs[i]
	}
	// Familiarity needs a vocabulary to judge against: a store of a few
	// memories knows few words, and every question looks foreign to it.
	familiar := ix.Vocabulary() < minVocabulary || Familiarity(ix, query) >= minFamiliar
	qset := make(map[string]bool, len(terms))
	for _, t := range terms {
		qset[t] = true
	}

	buf := c.bufs.Get().(*buffers)
	defer c.bufs.Put(buf)
	slotp := c.slots.Get().(*[]int32)
	slot := *slotp
	accs := buf.accs[:0]
	flags, lengths, slope := c.flags, c.lengths, c.slope
	for i, list := range lists {
		idf := idfs[i]
		inf := informative(n, len(list))
		bit := uint64(1) << uint(i)
		for _, post := range list {
			d := post.Doc
			if flags[d]&flagOut != 0 {
				continue
			}
			a := slot[d]
			if a < 0 {
				a = int32(len(accs))
				slot[d] = a
				accs = append(accs, acc{doc: d})
			}
			var tf float64
			for f := index.Field(0); f < index.NumFields; f++ {
				if k := post.TF[f]; k > 0 {
					tf += fieldWeight[f] * float64(k) / (1 - b + slope[f]*float64(lengths[d][f]))
				}
			}
			x := &accs[a]
			x.relevance += idf * saturate(tf)
			x.matched += idf
			x.mask |= bit
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
	buf.accs = accs

	drop := func(d int, why string) {
		if p.Explain {
			res.Dropped = append(res.Dropped, Dropped{d, why})
		}
	}
	cands := buf.cands[:0]
	var union uint64 // query terms some project hit matched
	projects := 0
	for _, a := range accs {
		d := int(a.doc)
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
		f := c.flags[d]
		// The score without decay, which is at most 1: an upper bound that
		// select_ makes exact only for the candidates it gets to.
		bound := a.relevance * ScopePrior(scopeOf(f)) * Boost(int(c.hits[d]))
		cands = append(cands, cand{doc: a.doc, trigger: a.trigger, score: bound, rel: a.relevance, cov: a.matched / mass, mask: a.mask})
		if f&flagGlobal == 0 {
			union |= a.mask
			projects++
		}
	}
	buf.cands = cands
	res.Hits = c.select_(cands, p, qset, union, projects > 0, drop)
	// Term-by-term reasons only for what is returned: they cost a lookup
	// per matched term.
	for i := range res.Hits {
		res.Hits[i].Reasons.Terms = c.termReasons(res.Hits[i].Doc, known, idfs, res.Hits[i].mask)
	}
	sort.Slice(res.Dropped, func(i, j int) bool { return res.Dropped[i].Doc < res.Dropped[j].Doc })
	return res
}

func scopeOf(f uint8) Scope {
	if f&flagGlobal != 0 {
		return Global
	}
	return Project
}

// candBefore is the ranking order on candidates, as before() on hits.
func (c *Corpus) candBefore(x, y *cand) bool {
	switch {
	case x.score != y.score:
		return x.score > y.score
	case c.updated[x.doc] != c.updated[y.doc]:
		return c.updated[x.doc] > c.updated[y.doc]
	case c.flags[x.doc]&flagGlobal != c.flags[y.doc]&flagGlobal:
		return c.flags[x.doc]&flagGlobal == 0
	}
	return c.ids[x.doc] < c.ids[y.doc]
}

// select_ applies the project-wins rule and the relative cutoff to the
// candidates and returns the best p.Limit of them in order. It takes the
// candidates best first and stops as soon as no later one can enter the
// result (the rule only ever lowers a score), so its cost follows the
// limit, not the candidates; with Explain it goes through all of them, to
// give every dropped document its reason.
func (c *Corpus) select_(cands []cand, p Params, query map[string]bool, union uint64, projects bool, drop func(int, string)) []Hit {
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
	var byTrigger map[string]int // trigger the query names → lowest project candidate holding it
	for len(h) > 0 {
		if first := &cands[h[0]]; !first.exact {
			// Decay costs a power per candidate, and can only lower a
			// score: compute it for the best bound, and look again.
			first.score, first.exact = c.exactScore(first, p), true
			siftDown(h, 0, less)
			continue
		}
		x := cands[h[0]]
		h[0] = h[len(h)-1]
		h = h[:len(h)-1]
		siftDown(h, 0, less)
		if !p.Explain && len(kept) > 0 {
			if x.score < best*relativeCutoff {
				break
			}
			if p.Limit > 0 && len(top) == p.Limit && !c.candBefore(&x, &top[p.Limit-1]) {
				break
			}
		}
		d := int(x.doc)
		if c.flags[d]&flagGlobal != 0 && projects {
			// A project memory with the same id replaces the global one in
			// this project, matching or not, as one that supersedes it does
			// (that one was excluded before scoring).
			if j := c.sameID[d]; j >= 0 {
				drop(d, "covered by project memory "+c.ids[j])
				continue
			}
			if x.trigger {
				if byTrigger == nil {
					byTrigger = c.projectTriggers(cands, query, p)
				}
				lowest := -1
				eachTrigger(c.triggers[d], func(key, _ string) bool {
					if j, ok := byTrigger[key]; ok && (lowest < 0 || c.exactScore(&cands[j], p) < c.exactScore(&cands[lowest], p)) {
						lowest = j
					}
					return true
				})
				if lowest >= 0 {
					low := &cands[lowest]
					if x.mask&^union == 0 {
						drop(d, "covered by project memory "+c.ids[low.doc])
						continue
					}
					if limit := c.exactScore(low, p) * coverCap; x.score > limit {
						x.score = limit
						x.capped, x.capBy = true, low.doc
					}
				}
			}
		}
		best = math.Max(best, x.score)
		kept = append(kept, x)
		if p.Limit > 0 {
			i := sort.Search(len(top), func(i int) bool { return c.candBefore(&x, &top[i]) })
			if top = slices.Insert(top, i, x); len(top) > p.Limit {
				top = top[:p.Limit]
			}
		}
	}
	// Drop the long tail under relativeCutoff × the best score.
	out := kept[:0]
	for _, x := range kept {
		if x.score >= best*relativeCutoff {
			out = append(out, x)
		} else {
			drop(int(x.doc), "far below the best hit")
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
	if p.Limit > 0 && len(out) > p.Limit {
		out = out[:p.Limit]
	}
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
		}
		if x.capped {
			r.CappedBy = c.ids[x.capBy]
		}
		hits[i] = Hit{Doc: d, Score: x.score, Reasons: r, mask: x.mask, trigger: x.trigger}
	}
	return hits
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

func (c *Corpus) termReasons(doc int, terms []string, idfs []float64, mask uint64) []TermReason {
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
		var tf float64
		for f := index.Field(0); f < index.NumFields; f++ {
			if k := ps[j].TF[f]; k > 0 {
				tf += fieldWeight[f] * float64(k) / (1 - b + c.slope[f]*float64(c.lengths[doc][f]))
				tr.Fields[f.String()] = int(k)
			}
		}
		tr.Score = idfs[i] * saturate(tf)
		out = append(out, tr)
	}
	return out
}

// names reports whether the query holds one of a document's triggers whole:
// every term of the trigger phrase is a query term. A trigger is a person's
// statement "load this when the talk is about X"; naming X is enough.
func (c *Corpus) names(doc int, query map[string]bool) bool {
	found := false
	eachTrigger(c.triggers[doc], func(_, terms string) bool {
		found = holds(query, terms)
		return !found
	})
	return found
}

// holds reports whether every term of terms (sepTerm separated) is in query.
func holds(query map[string]bool, terms string) bool {
	for terms != "" {
		t, rest, _ := strings.Cut(terms, string(rune(sepTerm)))
		if !query[t] {
			return false
		}
		terms = rest
	}
	return true
}

func key(s Scope, id string) string { return s.String() + ":" + id }

// projectTriggers maps each trigger the query names, among the project
// candidates that matched a load_when term, to the lowest-scored of them:
// the one a global memory with that trigger must stay under.
func (c *Corpus) projectTriggers(cands []cand, query map[string]bool, p Params) map[string]int {
	out := map[string]int{}
	for i := range cands {
		x := &cands[i]
		if !x.trigger || c.flags[x.doc]&flagGlobal != 0 {
			continue // none of its triggers can be named by the query
		}
		eachTrigger(c.triggers[x.doc], func(key, terms string) bool {
			if holds(query, terms) {
				if j, ok := out[key]; !ok || c.exactScore(x, p) < c.exactScore(&cands[j], p) {
					out[key] = i
				}
			}
			return true
		})
	}
	return out
}

// exactScore is a candidate's score with decay, whether or not select_ has
// made it exact yet.
func (c *Corpus) exactScore(x *cand, p Params) float64 {
	if x.exact {
		return x.score
	}
	d := x.doc
	return x.score * Decay(p.Now, c.updated[d], p.HalfLifeDays, c.flags[d]&flagPinned != 0)
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
