package rank

// This file: accumulate, the first step of Rank: every posting of every query
// term adds to its document's evidence.

import (
	"math"
	"sort"

	"github.com/ocmem/ocmem/internal/index"
)

// acc accumulates one document's evidence for a query. Its fields are
// ordered so that it packs into 64 bytes: accumulate appends one per
// document a query reaches, tens of thousands at 100,000 memories.
type acc struct {
	doc       int32
	headline  bool   // an anchor that counts matched summary, highlight or load_when
	trigger   bool   // some matched term is in load_when: a trigger may be named
	groups    uint64 // bit g: a term of evidence group g matched and counts (qterm.counts)
	head      uint64 // bit i: query term i counts and matched summary, highlight or load_when
	via       uint64 // the same for translated terms, by the group of the word translated
	direct    uint64 // bit g: a term of the message of group g matched
	relevance float64
	matched   float64 // idf mass of the matched terms
	mask      uint64  // bit i: query term i matched
}

// buffers is one query's scratch space, reused across queries.
type buffers struct {
	accs  []acc
	cands []cand
	both  []both
	// bothAt finds a document's entry in both: acc index << 6 | group.
	bothAt map[uint64]int32
}

// both is a document that matched one word of the message both itself and
// through its translation: what the translation's terms add up to there,
// until resolve keeps the better of the two.
type both struct {
	acc   int32 // index in accs
	group int   // the word's evidence group
	rel   float64
	mask  uint64 // the translation's terms that matched
}

// accumulate walks the postings of the query's terms and sets buf.accs to
// one acc per document they reach (superseded documents aside). Its cost is
// the postings', not the store's.
//
// Each word of the message counts once in a document: by the better of its
// direct match and its translation, never by both (one idea counted twice)
// and never by the direct match alone when that is the weaker (a body that
// holds deploy once inside deploy.sh, and 部署 in its summary). The
// evidence of either kind stands: the word is one piece either way, and in
// the headline if either is.
func (c *Corpus) accumulate(q *query, buf *buffers) {
	slotp := c.slots.Get().(*[]int32)
	slot := *slotp
	// The message's own terms first, so that a translation knows the
	// documents that matched its word itself.
	accs := c.accumulateDirect(q, slot, buf.accs[:0])
	accs, bs := c.accumulateTranslated(q, slot, accs, buf)
	for _, a := range accs {
		slot[a.doc] = -1
	}
	c.slots.Put(slotp)
	c.resolve(q, accs, bs)
	clear(buf.bothAt)
	buf.accs, buf.both = accs, bs
}

// accumulateDirect adds the postings of the message's own terms to accs;
// slot maps a document to its acc, or -1.
func (c *Corpus) accumulateDirect(q *query, slot []int32, accs []acc) []acc {
	flags := c.flags
	lengths, slope := c.lengths, &c.slope
	for i := range q.terms {
		t := &q.terms[i]
		if t.via != "" {
			continue
		}
		bit, group := uint64(1)<<uint(i), uint64(1)<<uint(t.group)
		counts, anchor := t.counts(), t.anchor
		// w·idf once per term: the product is the same float the
		// per-posting expression w·idf·saturate(tf) computes first.
		wi := t.weight * t.idf
		for _, post := range t.list {
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
			x := &accs[a]
			x.direct |= group
			if counts {
				x.groups |= group
				if post.TF[index.Summary]+post.TF[index.Highlight]+post.TF[index.LoadWhen] > 0 {
					x.head |= bit
					x.headline = x.headline || anchor
				}
			}
			x.relevance += wi * saturate(bm25tf(&lengths[d], slope, &post.TF))
			x.matched += wi
			x.mask |= bit
			x.trigger = x.trigger || post.TF[index.LoadWhen] > 0
		}
	}
	return accs
}

// accumulateTranslated adds the postings of the translated terms to accs,
// after accumulateDirect: in a document that matched the word itself, a
// translation's share is set aside in buf for resolve.
func (c *Corpus) accumulateTranslated(q *query, slot []int32, accs []acc, buf *buffers) ([]acc, []both) {
	bs := buf.both[:0]
	if buf.bothAt == nil {
		buf.bothAt = map[uint64]int32{}
	}
	flags := c.flags
	lengths, slope := c.lengths, &c.slope
	for i := range q.terms {
		t := &q.terms[i]
		if t.via == "" {
			continue
		}
		bit, group := uint64(1)<<uint(i), uint64(1)<<uint(t.group)
		counts := t.counts()
		wi := t.weight * t.idf
		for _, post := range t.list {
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
			x := &accs[a]
			if counts {
				x.via |= group
				if post.TF[index.Summary]+post.TF[index.Highlight]+post.TF[index.LoadWhen] > 0 {
					x.headline = true
					x.head |= bit
				}
			}
			x.trigger = x.trigger || post.TF[index.LoadWhen] > 0
			rel := wi * saturate(bm25tf(&lengths[d], slope, &post.TF))
			if x.direct&group != 0 {
				bs = buf.setAside(bs, a, t.group, bit, rel)
				continue
			}
			x.relevance += rel
			x.matched += wi
			x.mask |= bit
		}
	}
	return accs, bs
}

// setAside adds rel, the share of translated term bit in document accs[a],
// to what the translation of the word of group g adds up to there.
func (buf *buffers) setAside(bs []both, a int32, g int, bit uint64, rel float64) []both {
	key := uint64(a)<<6 | uint64(g)
	k, ok := buf.bothAt[key]
	if !ok {
		k = int32(len(bs))
		buf.bothAt[key] = k
		bs = append(bs, both{acc: a, group: g})
	}
	bs[k].rel += rel
	bs[k].mask |= bit
	return bs
}

// resolve gives each document that matched a word both itself and through
// its translation the better of the two: when the translation's terms add
// up to more relevance than the word's own, they replace them in relevance
// and in the terms that count (the mask). The mass matched stays the word's
// own: the message's word is matched either way, and coverage is the share
// of the message a document matched.
func (c *Corpus) resolve(q *query, accs []acc, bs []both) {
	for _, e := range bs {
		x := &accs[e.acc]
		var rel float64
		var mask uint64
		for i := range q.terms {
			t := &q.terms[i]
			if t.via != "" || t.group != e.group || x.mask&(1<<uint(i)) == 0 {
				continue
			}
			ps := t.list
			j := sort.Search(len(ps), func(j int) bool { return ps[j].Doc >= x.doc })
			wi := t.weight * t.idf
			rel += wi * saturate(bm25tf(&c.lengths[x.doc], &c.slope, &ps[j].TF))
			mask |= 1 << uint(i)
		}
		if e.rel > rel {
			x.relevance += e.rel - rel
			x.mask = x.mask&^mask | e.mask
		}
	}
}

// termReasons explains, term by term, the relevance of a returned document.
// It costs a lookup per matched term, so it is done only for what is
// returned. A word the document matched both itself and through its
// translation shows both, the weaker with no share of relevance (resolve):
// the reasons say what the memory holds, and still add up to its relevance.
func (c *Corpus) termReasons(doc int, q *query, mask uint64) []TermReason {
	var groups uint64 // the words that matched
	for i, t := range q.terms {
		if mask&(1<<uint(i)) != 0 {
			groups |= 1 << uint(t.group)
		}
	}
	var out []TermReason
	for i, t := range q.terms {
		counted := mask&(1<<uint(i)) != 0
		if !counted && groups&(1<<uint(t.group)) == 0 {
			continue
		}
		ps := t.list
		j := sort.Search(len(ps), func(j int) bool { return int(ps[j].Doc) >= doc })
		if j == len(ps) || int(ps[j].Doc) != doc {
			continue
		}
		tr := TermReason{Term: t.text, IDF: t.idf, Counts: ps[j].TF, Fields: map[string]int{}, Via: t.via, Anchor: t.anchor, Evidence: t.counts()}
		for f := index.Field(0); f < index.NumFields; f++ {
			if k := ps[j].TF[f]; k > 0 {
				tr.Fields[f.String()] = int(k)
			}
		}
		if counted {
			tr.Score = t.weight * t.idf * saturate(c.tf(int32(doc), ps[j].TF))
		} else {
			tr.Aside = true
		}
		out = append(out, tr)
	}
	return out
}

// aboutness is how much of a document's headline (summary, highlight,
// load_when: what the memory is about) the message matches, as a factor of
// its score: the share of the headline's terms among the query terms that
// count it matched there, smoothed, to the power beta (Tuning.Aboutness). Of
// two memories that match a message about as well, the one whose headline
// the message covers more is the one about it: a memory whose summary is
// mostly the message's words beside one that holds them among many others.
// The headline's length is counted in terms, as BM25 counts a field's.
//
// Its second part looks from the message's side: the share of what the
// memory matched that it matched in its headline (focus, evidence.go),
// smoothed, to the power gamma (Tuning.Focus). Of a memory that holds the
// message's words in its summary and triggers and one that holds more of
// them in its body, the first is about them. Both parts are at most 1.
func (c *Corpus) aboutness(x *cand, beta, gamma float64) float64 {
	l := &c.lengths[x.doc]
	n := float64(l[index.Summary] + l[index.Highlight] + l[index.LoadWhen])
	return math.Pow(min((float64(x.head)+0.5)/(n+1), 1), beta) * math.Pow((x.focus+focusSmoothing)/(1+focusSmoothing), gamma)
}

// focusSmoothing keeps a memory that matched nothing in its headline from a
// factor of zero: at the default power its factor is 0.74 (≈ (0.05/1.05)^0.1),
// one that matched everything there 1.
const focusSmoothing = 0.05

// minAboutness is the least aboutness any document can have: that of the
// longest headline matched nowhere.
func (c *Corpus) minAboutness(beta, gamma float64) float64 {
	return math.Pow(0.5/(float64(c.maxHead)+1), beta) * math.Pow(focusSmoothing/(1+focusSmoothing), gamma)
}
