package rank

import "strings"

// This file: load_when triggers, as the ranker keeps them and as a query
// names them.

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

// names reports whether the query holds one of a document's triggers whole:
// every term of the trigger phrase is a query term. A trigger is a person's
// statement "load this when the talk is about X"; naming X is enough.
func (c *Corpus) names(doc int, q *query) bool {
	found := false
	eachTrigger(c.triggers[doc], func(_, terms string) bool {
		found = holds(q.all, terms)
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

// projectTriggers maps each trigger the query names, among the project
// candidates that matched a load_when term, to the lowest-scored of them:
// the one a global memory with that trigger must stay under.
func (c *Corpus) projectTriggers(cands []cand, query map[string]bool, p Params) map[string]int {
	out := map[string]int{}
	for i := range cands {
		x := &cands[i]
		if !x.trigger || c.flags[x.doc]&flagGlobal != 0 || x.weak != "" {
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
