package rank

import (
	"strings"

	"github.com/ocmem/ocmem/internal/lexicon"
	"github.com/ocmem/ocmem/internal/textseg"
)

// This file: whether a project memory and a global one are on the same
// topic, which decides that the project's wins (overriddenBy, select.go).
// The two are written by different people, often in different languages:
// a developer's global "commit subjects in plain imperative English" with
// the triggers 写提交信息 and 提交标题风格, a project's "Conventional Commits
// prefix" with "writing a commit message". Their topic is what their
// triggers say, in either language.

// concept is one word of a document's triggers: its own terms, the terms of
// its translations, and its weight (the idf of its rarest own term).
type concept struct {
	terms  []string // the own terms first, then the translations
	own    int      // how many of terms are its own
	weight float64
}

// topic is what a document's triggers say: their words as concepts, and
// every term of those (written or translated).
type topic struct {
	concepts []concept
	terms    map[string]bool
}

// topicOf returns the topic of a global memory's triggers. Each English
// word is a concept with the terms of all its CC-CEDICT headwords; each
// Chinese word CC-CEDICT glosses (the longest at each point) is one with
// its bigrams and the terms of the glosses of all its senses (a gloss of
// several words by its uncommon words); a bigram outside such words is a
// concept of its own, unless it straddles two words (计接 of 设计接口).
// Common words, and every sense, are translated, unlike a message's: a
// trigger is a short phrase on one topic, compared with another memory's
// triggers only, and the senses the dictionary lists first are often not
// the trade's (title → 目, 称号, 衔 before 标题; 信息 → information before
// message). A translation the other memory does not share takes nothing
// away, since only a concept's own terms weigh.
func (c *Corpus) topicOf(doc int) topic {
	tb := topicBuilder{c: c, tp: topic{terms: map[string]bool{}}}
	seen := ""
	eachTrigger(c.triggers[doc], func(key, _ string) bool {
		if key != seen { // the alternatives of one trigger ("or") share it
			seen = key
			tb.trigger(key)
		}
		return true
	})
	tb.tp.concepts = mergeConcepts(tb.tp.concepts)
	return tb.tp
}

// Concept is one idea of a text, as the ranker compares two memories'
// triggers across languages (topicOf): its own terms first (Own of them),
// then the terms of their CC-CEDICT translations. A word written in both
// languages in one text ("deploy", "部署") is one concept.
type Concept struct {
	Terms []string
	Own   int
}

// Concepts returns the concepts of short texts (triggers, a summary), each
// read as topicOf reads a trigger. It needs no corpus: for comparing two
// memories' texts with each other, as extraction does when a new memory
// may restate or update an old one in the other language.
func Concepts(texts ...string) []Concept {
	tb := topicBuilder{tp: topic{terms: map[string]bool{}}}
	for _, t := range texts {
		tb.trigger(t)
	}
	ks := mergeConcepts(tb.tp.concepts)
	out := make([]Concept, len(ks))
	for i, k := range ks {
		out[i] = Concept{Terms: k.terms, Own: k.own}
	}
	return out
}

// topicBuilder makes a topic (topicOf), one trigger at a time; c is nil
// for Concepts.
type topicBuilder struct {
	c  *Corpus
	tp topic
}

// add adds a concept: its own terms and their translations.
func (tb *topicBuilder) add(own, translated []string) {
	if len(own) == 0 {
		return
	}
	k := concept{own: len(own)}
	if tb.c != nil { // Concepts weighs nothing: it has no corpus
		n := tb.c.ix.Len()
		for _, t := range own {
			k.weight = max(k.weight, IDF(n, len(tb.c.ix.Postings(t))))
		}
	}
	k.terms = append(append(k.terms, own...), translated...)
	for _, t := range k.terms {
		tb.tp.terms[t] = true
	}
	tb.tp.concepts = append(tb.tp.concepts, k)
}

// trigger adds the concepts of one trigger: its Chinese words CC-CEDICT
// glosses, then its other tokens.
func (tb *topicBuilder) trigger(key string) {
	toks := textseg.Tokenize(key)
	inWord := map[int]bool{} // CJK tokens (by start) inside a glossed word
	for _, run := range cjkRuns(key) {
		eachGlossedWord(run, func(_ string, ss [][]string, at span) bool {
			var own []string
			for i, t := range toks {
				if t.Type == textseg.CJK && t.Start >= at.start && t.End <= at.end {
					inWord[t.Start] = true
					if !t.Stop && !cjkStop(t.Text) && !straddles(toks, i) {
						own = append(own, t.Text)
					}
				}
			}
			tb.add(own, glossTerms(ss))
			return true
		})
	}
	for i, t := range toks {
		switch {
		case t.Stop:
		case t.Type == textseg.CJK:
			if !inWord[t.Start] && !cjkStop(t.Text) && !straddles(toks, i) && !(allHan(t.Text) && lexicon.ChineseFreq(t.Text) == 0 && straddlesWord(key, t)) {
				tb.add([]string{t.Text}, nil)
			}
		default:
			var tr []string
			if (t.Type == textseg.Word || t.Type == textseg.Part) && isEvidence(t) {
				tr = headwordTerms(key[t.Start:t.End], t.Text)
			}
			tb.add([]string{t.Text}, tr)
		}
	}
}

// glossTerms returns the terms of the glosses of every sense of a Chinese
// word; of a gloss of several words, those of its uncommon words.
func glossTerms(ss [][]string) []string {
	var out []string
	for _, s := range ss {
		for _, g := range s {
			gt := textseg.Tokenize(g)
			for _, u := range gt {
				if !u.Stop && isEvidence(u) && (len(gt) == 1 || !commonEnglish(g[u.Start:u.End])) {
					out = append(out, u.Text)
				}
			}
		}
	}
	return out
}

// headwordTerms returns the terms of every CC-CEDICT headword of an
// English word (of stem stem), by the first of its forms the dictionary
// glosses (glossedForm).
func headwordTerms(word, stem string) []string {
	var out []string
	_, hws := glossedForm(word, stem, "", true)
	for _, hw := range hws {
		for _, u := range textseg.Tokenize(hw) {
			if !textseg.IsCJKStop(u.Text) {
				out = append(out, u.Text)
			}
		}
	}
	return out
}

// mergeConcepts makes one concept of those that name one idea: the same
// own terms (a word of two triggers), or one translated as the other's own
// (版本 and version in a list that says both "Node 版本" and "node
// version"), so that a list written in both languages does not weigh its
// words twice. A merged concept weighs as the lightest of its parts: an
// idea is at least as common as its commonest word.
func mergeConcepts(ks []concept) []concept {
	parent := make([]int, len(ks))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	owner := map[string]int{} // an own term → a concept holding it
	for i, k := range ks {
		for _, t := range k.terms[:k.own] {
			if j, ok := owner[t]; ok {
				parent[find(i)] = find(j)
			} else {
				owner[t] = i
			}
		}
	}
	for i, k := range ks {
		for _, t := range k.terms[k.own:] {
			if j, ok := owner[t]; ok {
				parent[find(i)] = find(j)
			}
		}
	}
	root := map[int]int{} // a set's root → its place in out
	var out []concept
	for i, k := range ks {
		r := find(i)
		j, ok := root[r]
		if !ok {
			root[r] = len(out)
			out = append(out, concept{weight: k.weight})
			j = len(out) - 1
		}
		m := &out[j]
		m.weight = min(m.weight, k.weight)
		own := append(append([]string(nil), m.terms[:m.own]...), k.terms[:k.own]...)
		tr := append(append([]string(nil), m.terms[m.own:]...), k.terms[k.own:]...)
		m.terms, m.own = append(own, tr...), len(own)
	}
	return out
}

// topicOverlap is how much a global memory's topic (g, with its
// translations) and a project memory's triggers (d, their terms as
// written) share: the weight of the concepts of one that the other holds,
// over the weight of all of its concepts, the larger of the two ways (an
// overlap coefficient, weighted by idf so that a shared "use" counts for
// little). A concept of g is held when d's triggers hold one of its terms,
// written or translated; a term of d when g holds it, written or
// translated. Only g is translated: a translation then bridges the two
// languages, never two words of one through a third (composition and
// element, both 成分), and a ranking translates one memory, not every
// candidate it is compared with. In [0, 1]; 0 when either has no trigger.
func (c *Corpus) topicOverlap(g topic, d map[string]bool) float64 {
	if len(g.concepts) == 0 || len(d) == 0 {
		return 0
	}
	var all, held float64
	for _, k := range g.concepts {
		all += k.weight
		for _, t := range k.terms {
			if d[t] {
				held += k.weight
				break
			}
		}
	}
	fromG := held / all
	n := c.ix.Len()
	all, held = 0, 0
	for t := range d {
		w := IDF(n, len(c.ix.Postings(t)))
		all += w
		if g.terms[t] {
			held += w
		}
	}
	if all <= 0 {
		return fromG
	}
	return max(fromG, held/all)
}

// triggerTerms returns the distinct terms of a document's triggers.
func (c *Corpus) triggerTerms(doc int) map[string]bool {
	out := map[string]bool{}
	eachTrigger(c.triggers[doc], func(_, terms string) bool {
		for _, t := range strings.Split(terms, string(rune(sepTerm))) {
			if t != "" {
				out[t] = true
			}
		}
		return true
	})
	return out
}
