package rank

// This file: accumulate, the first step of Rank: every posting of every query
// term adds to its document's evidence.

import (
	"sort"

	"github.com/ocmem/ocmem/internal/index"
)

// acc accumulates one document's evidence for a query. Its fields are
// ordered so that it packs into 56 bytes: accumulate appends one per
// document a query reaches, tens of thousands at 100,000 memories.
type acc struct {
	doc       int32
	headline  bool   // an anchor that counts matched summary, highlight or load_when
	trigger   bool   // some matched term is in load_when: a trigger may be named
	groups    uint64 // bit g: a term of evidence group g matched and counts (qterm.counts)
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
}

// accumulate walks the postings of the query's terms and appends one acc per
// document they reach (superseded documents aside) to accs. Its cost is the
// postings', not the store's.
func (c *Corpus) accumulate(q *query, accs []acc) []acc {
	slotp := c.slots.Get().(*[]int32)
	slot := *slotp
	flags := c.flags
	lengths, slope := c.lengths, &c.slope
	for i := range q.terms {
		t := &q.terms[i]
		bit, group := uint64(1)<<uint(i), uint64(1)<<uint(t.group)
		counts, translated, anchor := t.counts(), t.via != "", t.anchor
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
			headline := post.TF[index.Summary]+post.TF[index.Highlight]+post.TF[index.LoadWhen] > 0
			if translated {
				// Translations come after the message's own terms: a
				// document that matched the word itself gets nothing
				// more from its translation.
				if x.direct&group != 0 {
					continue
				}
				if counts {
					x.via |= group
					x.headline = x.headline || headline
				}
			} else {
				x.direct |= group
				if counts {
					x.groups |= group
					x.headline = x.headline || anchor && headline
				}
			}
			x.relevance += wi * saturate(bm25tf(&lengths[d], slope, &post.TF))
			x.matched += wi
			x.mask |= bit
			x.trigger = x.trigger || post.TF[index.LoadWhen] > 0
		}
	}
	for _, a := range accs {
		slot[a.doc] = -1
	}
	c.slots.Put(slotp)
	return accs
}

// termReasons explains, term by term, the relevance of a returned document.
// It costs a lookup per matched term, so it is done only for what is
// returned.
func (c *Corpus) termReasons(doc int, q *query, mask uint64) []TermReason {
	var out []TermReason
	for i, t := range q.terms {
		if mask&(1<<uint(i)) == 0 {
			continue
		}
		ps := t.list
		j := sort.Search(len(ps), func(j int) bool { return int(ps[j].Doc) >= doc })
		if j == len(ps) || int(ps[j].Doc) != doc {
			continue
		}
		tr := TermReason{Term: t.text, IDF: t.idf, Counts: ps[j].TF, Fields: map[string]int{}, Via: t.via}
		for f := index.Field(0); f < index.NumFields; f++ {
			if k := ps[j].TF[f]; k > 0 {
				tr.Fields[f.String()] = int(k)
			}
		}
		tr.Score = t.weight * t.idf * saturate(c.tf(int32(doc), ps[j].TF))
		out = append(out, tr)
	}
	return out
}
