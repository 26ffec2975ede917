package rank

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ocmem/ocmem/internal/index"
)

// This file: load_when triggers, as the ranker keeps them and as a query
// names them.

// encodeTriggers stores a memory's load_when as one string: per trigger,
// its case-folded text (conflicts compare triggers by it), then its terms
// (a query names it when it holds them all), each ended by sepTerm, the
// trigger ended by sepTrigger. Trigger text cannot hold either byte: memory
// files refuse control characters.
//
// A trigger that offers alternatives with "or" is stored once per
// alternative, under the same text (triggerAlternatives).
func encodeTriggers(loadWhen []string) string {
	var b strings.Builder
	for _, t := range loadWhen {
		key := strings.ToLower(strings.TrimSpace(t))
		for _, terms := range triggerAlternatives(t) {
			b.WriteString(key)
			for _, term := range terms {
				b.WriteByte(sepTerm)
				b.WriteString(term)
			}
			b.WriteByte(sepTrigger)
		}
	}
	return b.String()
}

// triggerAlternatives returns the term lists a trigger is named by: its
// terms, or, when it offers alternatives with "or" (a list with commas
// before it: "redis, memcached or etcd"), one list per alternative. The
// alternatives are the words on either side of each "or"; the words before
// the first and after the last are shared: "adding a column or table" is
// named by add + column and by add + table, "prettier or eslint config" by
// prettier + config and by eslint + config, "bf16 or fp16" by either. A part
// between two "or"s must be one word, and each part must say something;
// otherwise the trigger is taken whole, as written.
func triggerAlternatives(t string) [][]string {
	whole := QueryTerms(t)
	if len(whole) == 0 {
		return nil
	}
	parts := splitOr(t)
	if len(parts) < 2 {
		return [][]string{whole}
	}
	for i, p := range parts {
		if len(QueryTerms(strings.Join(p, " "))) == 0 || i > 0 && i < len(parts)-1 && len(p) != 1 {
			return [][]string{whole}
		}
	}
	first, last := parts[0], parts[len(parts)-1]
	prefix, suffix := first[:len(first)-1], last[1:]
	alts := make([][]string, 0, len(parts))
	for i, p := range parts {
		word := p[0]
		if i == 0 {
			word = p[len(p)-1]
		}
		words := append(append(slices.Clip(prefix), word), suffix...)
		alts = append(alts, QueryTerms(strings.Join(words, " ")))
	}
	return alts
}

// splitOr cuts a trigger into its words at each word "or" (any case) and,
// when there is one, at each comma before the last: the parts, each a list
// of words; one part when there is no "or" between two words.
func splitOr(t string) [][]string {
	words := strings.Fields(t)
	lastOr := -1
	for i, w := range words {
		if strings.EqualFold(w, "or") && i > 0 && i < len(words)-1 {
			lastOr = i
		}
	}
	if lastOr < 0 {
		return [][]string{words}
	}
	var parts [][]string
	var cur []string
	for i, w := range words {
		switch {
		case strings.EqualFold(w, "or") && i > 0 && i < len(words)-1:
			parts, cur = append(parts, cur), nil
		case i < lastOr && strings.HasSuffix(w, ",") && len(w) > 1:
			parts, cur = append(parts, append(cur, strings.TrimSuffix(w, ","))), nil
		default:
			cur = append(cur, w)
		}
	}
	return append(parts, cur)
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
func (c *Corpus) names(doc int, q *query) bool { return c.namedTrigger(doc, q) != "" }

// namedTrigger returns the first of a document's triggers (case-folded) the
// query holds whole, or "".
func (c *Corpus) namedTrigger(doc int, q *query) string {
	named := ""
	eachTrigger(c.triggers[doc], func(key, terms string) bool {
		if holds(q.all, terms) {
			named = key
		}
		return named == ""
	})
	return named
}

// namesPhrase reports whether the query holds whole one of a document's
// triggers of two terms or more: a phrase ("loss is 0", "run tests",
// "adding a column"), not one word. A message that states something rather
// than asks is held to it (naming): one common word such a message shares
// with a trigger ("check the logs" and logging; "training is going well"
// and Go, which the stemmer makes of going) is said in passing, two words of
// a trigger phrase together are what the memory was declared for.
func (c *Corpus) namesPhrase(doc int, q *query) bool {
	named := false
	eachTrigger(c.triggers[doc], func(_, terms string) bool {
		named = strings.ContainsRune(terms, sepTerm) && holds(q.all, terms)
		return !named
	})
	return named
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

// naming keeps the candidates one of whose triggers the query names whole,
// or whose topic it asks about (askedTopic), and returns with them what
// gate learnt of the project ones among them; drop hears of the others. A
// message that asks nothing must name a trigger phrase of two terms or
// more (namesPhrase).
func (c *Corpus) naming(q *query, cands []cand, g gated, drop func(int, string)) ([]cand, gated) {
	out := cands[:0]
	g.union, g.projects = 0, false
	for _, x := range cands {
		switch {
		case !x.trigger:
			drop(int(x.doc), "no anchor in the message, and it names none of the memory's triggers whole, nor asks about its topic")
			continue
		case q.asked == 0 && !c.namesPhrase(int(x.doc), q):
			if g.stated == "" {
				g.stated = c.namedTrigger(int(x.doc), q)
			}
			drop(int(x.doc), "no anchor in the message, which asks nothing, and it names none of the memory's trigger phrases (two words or more) whole")
			continue
		case q.asked != 0 && !c.names(int(x.doc), q) && c.askedTopic(x.doc, q, x.mask, x.cov) == "":
			drop(int(x.doc), "no anchor in the message, and it names none of the memory's triggers whole, nor asks about its topic")
			continue
		}
		out = append(out, x)
		if x.weak == "" && c.flags[x.doc]&flagGlobal == 0 {
			g.union |= x.mask
			g.projects = true
		}
	}
	return out, g
}

// askedTopic returns, for a document and the query terms it matched
// (mask), the word of the message, asked about (a question, a request to be
// told), that is the document's topic: a word that is evidence (not in
// more than maxCommonShare of the memories: "train" in a store about
// training names no memory's topic), that its summary holds and more than
// half of its triggers, at least two of them; and the memory covers at
// least topicCoverage of the message (cov): the word is most of what the
// message asks, not one word of a longer question ("how do I spread one
// training run over two machines?" and a memory whose triggers say "run
// tests"). The triggers of a memory
// are phrases ("adding logs", "log format", "where the panel logs go"); a
// question that names the word they share ("how do we do logging here?")
// asks about what the memory is for, as one that names a trigger whole
// does, though it names none of them. "" when there is none; else the
// reason, for the log.
func (c *Corpus) askedTopic(doc int32, q *query, mask uint64, cov float64) string {
	enc := c.triggers[doc]
	if enc == "" || q.asked == 0 || cov < q.tune.TopicCoverage {
		return ""
	}
	for i := range q.terms {
		t := &q.terms[i]
		if mask&(1<<uint(i)) == 0 || t.via != "" || !t.counts() || q.asked&(1<<uint(t.group)) == 0 {
			continue
		}
		ps := t.list
		j := sort.Search(len(ps), func(j int) bool { return ps[j].Doc >= doc })
		if j == len(ps) || ps[j].Doc != doc || ps[j].TF[index.Summary] == 0 || ps[j].TF[index.LoadWhen] < minTopicTriggers {
			continue
		}
		n, in := 0, 0
		eachTrigger(enc, func(_, terms string) bool {
			n++
			if slices.Contains(strings.Split(terms, string(rune(sepTerm))), t.text) {
				in++
			}
			return true
		})
		if in >= minTopicTriggers && 2*in > n {
			return fmt.Sprintf("%q, in its summary and %d of its %d triggers", t.text, in, n)
		}
	}
	return ""
}

// minTopicTriggers: a word is a memory's topic (askedTopic) only if two
// of its triggers hold it at least; one trigger of one is a trigger, named
// whole or not.
const minTopicTriggers = 2

// topicCoverage: a memory is given for its topic asked about only when it
// covers at least half of the message (askedTopic). Swept leave-one-store-
// out (docs/RETRIEVAL.md).
const topicCoverage = 0.5
