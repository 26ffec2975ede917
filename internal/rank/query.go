package rank

import (
	"cmp"
	"slices"

	"github.com/ocmem/ocmem/internal/index"
	"github.com/ocmem/ocmem/internal/textseg"
)

// This file: a message becomes a query, the terms it is ranked on.

// QueryTerms cuts a query into distinct terms, stop words removed, in first
// occurrence order.
func QueryTerms(q string) []string {
	var out []string
	seen := map[string]bool{}
	toks := textseg.Tokenize(q)
	for i, t := range toks {
		if t.Stop || seen[t.Text] || t.Type == textseg.CJK && (textseg.IsCJKStop(t.Text) || straddles(toks, i)) {
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
	return adjacent && textseg.IsCJKStopWord(l.Text) && textseg.IsCJKStopWord(r.Text)
}

// maxQueryTerms bounds the terms a query is scored on. A pasted log or a long
// message can hold thousands; the rarest ones (highest idf) say the most, and
// the bound keeps a query's cost and its term sets (bit masks) small.
const maxQueryTerms = 64

// query is a message prepared for ranking.
type query struct {
	// terms are the query terms some memory holds, at most maxQueryTerms
	// of them; a term's position is its bit in the masks of acc and cand.
	terms []qterm
	// all holds every query term, known or not: a query names a trigger
	// when it holds all of the trigger's terms.
	all map[string]bool
	// mass is the idf mass of terms, what coverage is measured against.
	mass float64
	// familiar: the store knows most of the message (Familiarity).
	familiar bool
}

// qterm is one term of a query.
type qterm struct {
	text string
	list []index.Posting
	idf  float64
	// informative: the term is rare enough to be evidence (informative).
	informative bool
}

// newQuery cuts text into terms and looks them up.
//
// Only terms some memory holds can match or weigh in coverage. An unknown
// CJK bigram is usually noise: every other bigram of a Chinese sentence
// straddles two words and exists nowhere. An unknown word ("haiku") does say
// the question is about something else; familiarity accounts for it.
func (c *Corpus) newQuery(text string) *query {
	ix := c.ix
	n := ix.Len()
	words := QueryTerms(text)
	q := &query{all: make(map[string]bool, len(words))}
	for _, w := range words {
		q.all[w] = true
		if l := ix.Postings(w); len(l) > 0 {
			q.terms = append(q.terms, qterm{text: w, list: l})
		}
	}
	if len(q.terms) > maxQueryTerms {
		// The rarest terms say the most; keep them.
		slices.SortStableFunc(q.terms, func(x, y qterm) int { return cmp.Compare(len(x.list), len(y.list)) })
		q.terms = q.terms[:maxQueryTerms]
	}
	for i := range q.terms {
		t := &q.terms[i]
		t.idf = IDF(n, len(t.list))
		t.informative = informative(n, len(t.list))
		q.mass += t.idf
	}
	// Familiarity needs a vocabulary to judge against: a store of a few
	// memories knows few words, and every question looks foreign to it.
	q.familiar = ix.Vocabulary() < minVocabulary || Familiarity(ix, text) >= minFamiliar
	return q
}

// texts returns the texts of the query's terms, in the order of their bits.
func (q *query) texts() []string {
	out := make([]string, len(q.terms))
	for i, t := range q.terms {
		out[i] = t.text
	}
	return out
}
