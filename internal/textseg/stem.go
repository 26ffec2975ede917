package textseg

import (
	"sync"

	"github.com/kljensen/snowball/english"
)

// stopWords are the lower-cased words a Token marks with Stop.
//
// Why these: retrieval weights a term by its idf, and a word that is common in
// questions but rare in memory bodies ("tell", "please") gets a high idf and
// matches the few memories that happen to contain it. So the list is
// Snowball's English list (closed-class words: articles, pronouns,
// prepositions, auxiliaries) plus what people type to a chat agent and what
// contractions split into, and nothing that names a thing a memory could be
// about. Programming keywords that are also English ("if", "for", "while") stay
// stop words as in every English list; "let", "get", "use", "like", "without"
// are deliberately not stop words ("use const, not let"; "without a
// lockfile"). Stop words are only marked, never dropped, so a caller that
// wants them still has them.
var stopWords = func() map[string]struct{} {
	words := [...]string{
		// Snowball's English stop list, as english.IsStopWord has it.
		"a", "about", "above", "after", "again", "against", "all", "am", "an",
		"and", "any", "are", "as", "at", "be", "because", "been", "before",
		"being", "below", "between", "both", "but", "by", "can", "did", "do",
		"does", "doing", "don", "down", "during", "each", "few", "for", "from",
		"further", "had", "has", "have", "having", "he", "her", "here", "hers",
		"herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is",
		"it", "its", "itself", "just", "me", "more", "most", "my", "myself",
		"no", "nor", "not", "now", "of", "off", "on", "once", "only", "or",
		"other", "our", "ours", "ourselves", "out", "over", "own", "s", "same",
		"she", "should", "so", "some", "such", "t", "than", "that", "the", "their",
		"theirs", "them", "themselves", "then", "there", "these", "they",
		"this", "those", "through", "to", "too", "under", "until", "up",
		"very", "was", "we", "were", "what", "when", "where", "which", "while",
		"who", "whom", "why", "will", "with", "you", "your", "yours", "yourself",
		"yourselves",

		// What contractions leave once the apostrophe separates them:
		// I'd, I'll, I'm, you're, we've, didn't, won't, …
		"d", "ll", "m", "re", "ve", "aren", "couldn", "didn", "doesn", "hadn",
		"hasn", "haven", "isn", "mustn", "shouldn", "wasn", "weren", "won",
		"wouldn", "cannot",

		// Closed-class words Snowball's list lacks.
		"us", "could", "would", "might", "must", "shall", "may", "also",
		"onto", "upon", "whose", "whether", "yet", "however", "though",
		"although", "etc", "e.g", "i.e", "something", "anything",
		"everything",

		// Filler of chat questions to an agent: "hi, could you please tell
		// me what we know about …", "ok thanks, I think I need …".
		"hi", "hello", "hey", "please", "thanks", "thank", "ok", "okay",
		"yes", "yeah", "sure", "really", "actually", "maybe", "perhaps",
		"anyway", "basically", "tell", "know", "think", "want", "need",
	}
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}()

// maxStemLen is the longest word that is stemmed, in bytes. English words
// are far shorter; longer runs of letters are hashes, base64 or minified code,
// where a suffix rule would only add noise.
const maxStemLen = 64

// asciiWord reports whether w is lower-case ASCII letters only, at most
// maxStemLen of them: the words the English stop list and stemmer apply to.
// (Other words are never stop words: the list is ASCII letters only.)
func asciiWord(w []byte) bool {
	if len(w) == 0 || len(w) > maxStemLen {
		return false
	}
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// termInfo is what an ASCII word becomes: its term and whether it is a stop
// word. A stop word's term is the word itself, unstemmed.
type termInfo struct {
	term string
	stop bool
}

// terms is the process-wide cache of termInfo by lower-cased word.
//
// Snowball's Stem allocates a rune slice and a result string and runs nine
// suffix steps per call, and prose repeats a small vocabulary, so one map
// lookup replaces both the stop-list lookup and nearly every Stem call, and
// the cached term string replaces an allocation for capitalized words. The
// cache is bounded: when full it is emptied and refills with the words in
// use, which keeps it simple and its memory fixed whatever is tokenized.
// Measured with BenchmarkTokenize (2 shared cores, noisy): without the cache
// 47–62µs and 117 allocations per 609-byte mixed body, 63–67µs and 207
// allocations per 557-byte English paragraph; with it 7–11µs and 4
// allocations for either.
var terms = termCache{m: make(map[string]termInfo)}

// maxTermCache is the number of words the cache holds before it is emptied:
// above the working vocabulary of a memory store, small enough (a few MB) not
// to matter.
const maxTermCache = 1 << 16

type termCache struct {
	mu sync.RWMutex
	m  map[string]termInfo
}

// stem is Snowball's English stem of word, except where Snowball undoes
// the doubled consonant of a word of three letters: after -ed or -ing it
// undoubles ("hopping" → hop), which leaves "adding" and "added" at ad
// while "add" stays add, so that "how do I add a column" never matched a
// memory "adding a column". A stem of two letters that the word spells
// with its last letter doubled keeps the double.
func stem(word string) string {
	st := english.Stem(word, true)
	if len(st) == 2 && len(word) > 3 && word[2] == st[1] && word[:2] == st {
		return st + st[1:]
	}
	return st
}

// lookup returns the term of w, a word for which asciiWord is true.
func (c *termCache) lookup(w []byte) termInfo {
	c.mu.RLock()
	info, ok := c.m[string(w)]
	c.mu.RUnlock()
	if ok {
		return info
	}
	word := string(w)
	info = termInfo{term: word}
	if _, info.stop = stopWords[word]; !info.stop {
		if st := stem(word); st != word {
			info.term = st
		}
	}
	c.mu.Lock()
	if len(c.m) >= maxTermCache {
		clear(c.m)
	}
	c.m[word] = info
	c.mu.Unlock()
	return info
}
