// Package textseg splits text into the terms ocmem indexes and searches:
// overlapping bigrams for Chinese, Japanese and Korean, stemmed English words,
// and code identifiers together with their parts.
//
//	toks := textseg.Tokenize("部署脚本用 pnpm-lock.yaml") // 部署 署脚 脚本 本用 pnpm-lock.yaml pnpm lock yaml
//	terms := textseg.Terms("Deploying the HTTPServer") // [deploy httpserver http server]
//
// # Why not SQLite FTS5
//
// FTS5's unicode61 tokenizer indexes 部署脚本用 as one token and finds nothing
// for 部署; its trigram tokenizer needs three characters and finds nothing for
// 部署 either. Character bigrams over every CJK run find any word of two or more
// characters without a dictionary, at the price of some false bigrams across
// word boundaries (署脚 above), which idf weighting makes cheap.
//
// # Rules
//
// The input is read rune by rune. Each rune is first folded with
// golang.org/x/text/width (full-width Ａ１ becomes a1, full-width punctuation
// becomes ASCII punctuation, half-width katakana becomes full-width), and a
// kana followed by a combining voicing mark (U+3099, U+309A, as produced by
// folding half-width ｶﾞ or by NFD text) is composed (ガ). Then:
//
//   - CJK runs (Han including extension A and the compatibility ideographs,
//     Hiragana, Katakana with the long-vowel mark ー, Hangul syllables) become
//     overlapping bigrams; a run of one character becomes a unigram. Anything
//     else ends a run. Variation selectors after a CJK character belong to that
//     character's span but not to its text.
//   - Letters and digits of every other script form words. A run of them
//     with no joiner, no case change and no letter/digit change is one Word
//     token: lower-cased and, when it is ASCII letters only, stemmed with the
//     Snowball English stemmer (Deploying → deploy). Capitalized and
//     all-capital words are plain words (GOPROXY and goproxy → goproxi).
//   - Letters and digits joined by '_', '-' or '.' (a joiner counts only
//     between two letters or digits, so a sentence's final '.', a leading
//     '.' and a doubled "--" separate), or containing a case change
//     (camelCase, HTTPServer → http, server; an upper-case run keeps a plural
//     s: APIs, getURLs → get, url) or a letter/digit change (utf8mb4 → utf, 8,
//     mb, 4), form an identifier: one Ident token with the whole identifier
//     lower-cased and not stemmed, then one Part token per part, lower-cased
//     and stemmed like a Word. pnpm-lock.yaml → pnpm-lock.yaml, pnpm, lock,
//     yaml.
//   - Dotted numbers follow the same rule: 1.2.3 and v1.2.3 are identifiers
//     with the parts 1, 2, 3, so a query for "1.2.3" matches the version
//     exactly and a query for "2" still matches a part.
//   - A Part of a single letter is dropped (the v of v1.2, the k and s of k8s,
//     the x of getX): the Ident already carries the identifier, and a lone letter
//     from inside one means nothing on its own. A Word of a single letter is
//     kept: the C and R languages, an x in prose; "a" and "I" are stop words
//     anyway.
//   - Everything else (spaces, punctuation, symbols, emoji, invalid UTF-8)
//     separates tokens and produces none.
//
// Stop words are not removed, only marked (Token.Stop), so callers decide;
// their text is lower-cased but not stemmed. See stopWords for the list.
//
// # Input limits
//
// Any string is accepted, including invalid UTF-8 and the empty string; time
// and the number of tokens are linear in len(s). Token offsets are byte offsets
// into the original string, before folding, with 0 ≤ Start < End ≤ len(s).
// Words longer than 64 bytes are not stemmed. Token.Text may share
// memory with the input. All functions are safe for concurrent use.
//
// Known limits: text is not Unicode-normalized beyond width folding and kana
// voicing (an NFD "café" does not match an NFC "café", a compatibility
// ideograph does not match its unified twin), and scripts written without
// spaces other than CJK (Thai, Lao, Khmer, Myanmar) become one Word per run.
//
// # Files
//
// textseg.go scans and emits tokens; classify.go says what each rune is;
// stem.go holds the English stop list and the stemmer's cache; cjk.go holds
// IsCJK and the CJK counterparts of stop words (function characters,
// question-shaped words) that query analysis filters with.
package textseg

import (
	"strconv"
	"sync"
	"unicode/utf8"
)

// Type of a token.
type Type uint8

const (
	Word  Type = iota // a latin/digit word (or a word of another non-CJK script), lower-cased; English words stemmed
	Ident             // a whole code identifier as written, lower-cased, not stemmed (e.g. "pnpm-lock.yaml", "camelcase", "snake_case", "utf8mb4")
	Part              // a part of an identifier (camel/snake/kebab/dot parts), lower-cased and stemmed
	CJK               // a CJK bigram, or a lone CJK character (unigram)
)

var typeNames = [...]string{Word: "word", Ident: "ident", Part: "part", CJK: "cjk"}

// String returns the lower-case name of t ("word", "ident", "part", "cjk").
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "Type(" + strconv.Itoa(int(t)) + ")"
}

// Token is one term of the input and the span it came from.
type Token struct {
	Text       string // the normalized term that goes into the index
	Start, End int    // byte offsets of the source span in the ORIGINAL input (before width folding)
	Type       Type
	Stop       bool // an English stop word ("the", "to", "you", "again", "what", …); kept so callers can decide
}

// Tokenize returns the tokens of s in order of Start; an Ident comes before
// its Parts, which share its Start with the first part. Same input, same
// output.
func Tokenize(s string) []Token {
	// About one token per five bytes in English prose and one per three
	// bytes in CJK text; starting near that avoids most regrowth without
	// holding much more than needed.
	return AppendTokens(make([]Token, 0, len(s)/4+1), s)
}

// AppendTokens appends the tokens of s to dst and returns the extended slice,
// so a caller tokenizing many texts can reuse one slice.
func AppendTokens(dst []Token, s string) []Token {
	sc := scanners.Get().(*scanner)
	sc.src, sc.toks = s, dst
	sc.scan()
	dst = sc.toks
	sc.release()
	return dst
}

// Terms returns the Text of each token of s that is not a stop word, in order,
// duplicates kept: the form a query or a document takes for term matching.
func Terms(s string) []string {
	p := tokenBufs.Get().(*[]Token)
	toks := AppendTokens((*p)[:0], s)
	n := 0
	for i := range toks {
		if !toks[i].Stop {
			n++
		}
	}
	terms := make([]string, 0, n)
	for i := range toks {
		if !toks[i].Stop {
			terms = append(terms, toks[i].Text)
		}
	}
	clear(toks) // drop references to s and its terms before pooling
	if cap(toks) <= maxPooledTokens {
		*p = toks[:0]
		tokenBufs.Put(p)
	}
	return terms
}

// maxPooledTokens bounds the token buffers Terms keeps for reuse, so one huge
// input does not pin its buffer forever.
const maxPooledTokens = 4096

var tokenBufs = sync.Pool{New: func() any { return new([]Token) }}

// char is one character of a run being collected: a rune after folding and
// composition, with the span of original bytes it came from.
type char struct {
	start, end int
	r          rune
	cls        class
	// changed reports that the text of this character is not the
	// original bytes src[start:end] (folded, composed, or carrying a mark
	// that is left out of the text), so it must be built from r.
	changed bool
}

// scanner holds the state and scratch buffers of one tokenization. Scanners
// are pooled; one is used by one goroutine at a time.
type scanner struct {
	src   string
	toks  []Token
	run   []char // the current CJK run or latin chunk
	inCJK bool   // run is a CJK run
	parts []int  // part boundaries of the current chunk: start, end index pairs
	buf   []byte // scratch for building token text

	// slowOnly turns off the plain-word fast path, so tests can check
	// that it changes nothing.
	slowOnly bool
}

var scanners = sync.Pool{New: func() any { return new(scanner) }}

// maxPooledRun bounds the scratch a pooled scanner keeps; a longer run (a
// megabyte of base64, say) gets a fresh buffer that is then dropped.
const maxPooledRun = 1024

func (sc *scanner) release() {
	sc.src, sc.toks = "", nil
	sc.run, sc.parts, sc.buf = sc.run[:0], sc.parts[:0], sc.buf[:0]
	if cap(sc.run) > maxPooledRun {
		sc.run = nil
	}
	if cap(sc.parts) > 2*maxPooledRun {
		sc.parts = nil
	}
	if cap(sc.buf) > 4*maxPooledRun {
		sc.buf = nil
	}
	scanners.Put(sc)
}

// scan reads sc.src and appends its tokens to sc.toks.
func (sc *scanner) scan() {
	s := sc.src
	for i := 0; i < len(s); {
		// Most words of prose are plain ASCII words; take them whole
		// without collecting characters.
		if b := s[i]; b < utf8.RuneSelf && isAlnum(asciiClass[b]) && (sc.inCJK || len(sc.run) == 0) && !sc.slowOnly {
			if end, ok := plainASCIIWord(s, i); ok {
				sc.flush()
				sc.emitTerm(sc.lowerASCII(s[i:end]), i, end, Word)
				i = end
				continue
			}
		}

		start := i
		var r rune
		var cls class
		changed := false
		if b := s[i]; b < utf8.RuneSelf {
			r, cls = rune(b), asciiClass[b]
			i++
		} else {
			var size int
			r, size = utf8.DecodeRuneInString(s[i:])
			i += size
			if r == utf8.RuneError && size == 1 {
				cls = clsSep // invalid UTF-8 separates, like a space
			} else {
				if f := fold(r); f != 0 {
					r, changed = f, true
				}
				cls = classify(r)
			}
		}

		if cls == clsVoice {
			if n := len(sc.run); n > 0 && sc.inCJK {
				if v := composeVoiced(sc.run[n-1].r, r); v != 0 {
					last := &sc.run[n-1]
					last.r, last.end, last.changed = v, i, true
					continue
				}
			}
			cls = clsMark // after anything else it is an ordinary combining mark
		}

		switch cls {
		case clsCJK:
			if !sc.inCJK {
				sc.flush()
				sc.inCJK = true
			}
			sc.run = append(sc.run, char{start: start, end: i, r: r, cls: cls, changed: changed})
			continue
		case clsLower, clsUpper, clsDigit:
			if sc.inCJK {
				sc.flush()
			}
			sc.run = append(sc.run, char{start: start, end: i, r: r, cls: cls, changed: changed})
			continue
		case clsJoiner:
			// Kept only after a letter or digit of a latin chunk; if
			// no letter or digit follows, flush drops it again.
			if n := len(sc.run); n > 0 && !sc.inCJK && sc.run[n-1].cls != clsJoiner {
				sc.run = append(sc.run, char{start: start, end: i, r: r, cls: cls, changed: changed})
				continue
			}
		case clsMark:
			// A combining mark belongs to the character before it. In
			// a latin word it is a diacritic and stays in the text; after
			// a CJK character it is a variation selector and only
			// widens the span.
			if n := len(sc.run); n > 0 && sc.run[n-1].cls != clsJoiner {
				last := &sc.run[n-1]
				last.end = i
				if sc.inCJK {
					last.changed = true
				}
				continue
			}
		}
		sc.flush()
	}
	sc.flush()
}

// flush turns the collected run into tokens and empties it.
func (sc *scanner) flush() {
	if sc.inCJK {
		sc.flushCJK()
		sc.inCJK = false
	} else if len(sc.run) > 0 {
		if sc.run[len(sc.run)-1].cls == clsJoiner {
			sc.run = sc.run[:len(sc.run)-1] // a joiner at the end joins nothing
		}
		sc.flushLatin()
	}
	sc.run = sc.run[:0]
}

func (sc *scanner) flushCJK() {
	run := sc.run
	if len(run) == 1 {
		sc.emit(sc.cjkText(run), run[0].start, run[0].end, CJK, false)
		return
	}
	for k := 0; k+1 < len(run); k++ {
		sc.emit(sc.cjkText(run[k:k+2]), run[k].start, run[k+1].end, CJK, false)
	}
}

// cjkText returns the text of one or two adjacent CJK characters.
func (sc *scanner) cjkText(cs []char) string {
	changed := false
	for _, c := range cs {
		changed = changed || c.changed
	}
	if !changed {
		return sc.src[cs[0].start:cs[len(cs)-1].end]
	}
	b := sc.buf[:0]
	for _, c := range cs {
		b = utf8.AppendRune(b, c.r)
	}
	sc.buf = b
	return string(b)
}

// flushLatin emits a Word, or an Ident and its Parts, for the chunk in sc.run:
// letters and digits, with joiners only between two of them.
func (sc *scanner) flushLatin() {
	run := sc.run
	parts := sc.parts[:0]
	from := 0
	for k := 1; k < len(run); k++ {
		switch {
		case run[k].cls == clsJoiner:
			parts = append(parts, from, k)
			from = k + 1
			k++ // the next character is a letter or digit and starts a part
		case partBoundary(run, k):
			parts = append(parts, from, k)
			from = k
		}
	}
	parts = append(parts, from, len(run))
	sc.parts = parts

	if len(parts) == 2 {
		sc.emitWord(run, Word)
		return
	}
	text, stop := sc.lower(run), false
	if _, ok := stopWords[string(text)]; ok {
		stop = true // e.g, i.e
	}
	start, end := run[0].start, run[len(run)-1].end
	sc.emit(sc.textOf(start, end, text), start, end, Ident, stop)
	for p := 0; p < len(parts); p += 2 {
		part := run[parts[p]:parts[p+1]]
		if len(part) == 1 && part[0].cls != clsDigit {
			continue // a single letter inside an identifier means nothing alone
		}
		sc.emitWord(part, Part)
	}
}

// partBoundary reports whether a new identifier part starts at run[k], given
// that run[k-1] and run[k] are letters or digits.
func partBoundary(run []char, k int) bool {
	prev, cur := run[k-1].cls, run[k].cls
	switch {
	case (prev == clsDigit) != (cur == clsDigit):
		return true // utf8mb4 → utf 8 mb 4
	case prev == clsLower && cur == clsUpper:
		return true // camelCase → camel Case
	case prev == clsUpper && cur == clsUpper && k+1 < len(run) && run[k+1].cls == clsLower:
		// HTTPServer → HTTP Server, but APIs and getURLs keep their
		// plural s: an upper-case run followed by a lone "s" is one part.
		pluralS := run[k+1].r == 's' && (k+2 == len(run) || run[k+2].cls != clsLower)
		return !pluralS
	}
	return false
}

// emitWord emits the chars of a Word or a Part.
func (sc *scanner) emitWord(cs []char, typ Type) {
	sc.emitTerm(sc.lower(cs), cs[0].start, cs[len(cs)-1].end, typ)
}

// emitTerm emits a Word or a Part whose lower-cased text is text: marked as a
// stop word, or stemmed.
func (sc *scanner) emitTerm(text []byte, start, end int, typ Type) {
	if asciiWord(text) {
		info := terms.lookup(text)
		sc.emit(info.term, start, end, typ, info.stop)
		return
	}
	sc.emit(sc.textOf(start, end, text), start, end, typ, false)
}

// lower writes the lower-cased text of cs into sc.buf and returns it. The
// result is only valid until the next use of sc.buf.
func (sc *scanner) lower(cs []char) []byte {
	changed := false
	for _, c := range cs {
		changed = changed || c.changed
	}
	if !changed {
		return sc.lowerString(sc.src[cs[0].start:cs[len(cs)-1].end])
	}
	b := sc.buf[:0]
	for _, c := range cs {
		if c.changed {
			b = appendLowerRune(b, c.r)
		} else {
			b = appendLower(b, sc.src[c.start:c.end])
		}
	}
	sc.buf = b
	return b
}

// lowerString writes the lower-cased s into sc.buf and returns it.
func (sc *scanner) lowerString(s string) []byte {
	sc.buf = appendLower(sc.buf[:0], s)
	return sc.buf
}

// lowerASCII is lowerString for ASCII s.
func (sc *scanner) lowerASCII(s string) []byte {
	b := append(sc.buf[:0], s...)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	sc.buf = b
	return b
}

// textOf returns text, the lower-cased form of src[start:end], as a string:
// the input's own bytes when they are identical, so most tokens cost no
// allocation.
func (sc *scanner) textOf(start, end int, text []byte) string {
	if orig := sc.src[start:end]; orig == string(text) {
		return orig
	}
	return string(text)
}

func (sc *scanner) emit(text string, start, end int, typ Type, stop bool) {
	sc.toks = append(sc.toks, Token{Text: text, Start: start, End: end, Type: typ, Stop: stop})
}
