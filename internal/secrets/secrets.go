// Package secrets finds credentials in text before it is written to a
// memory file, which users commit to git.
//
// Scan reports every suspected secret with its rule, line and column, and
// a redacted form that never shows the whole secret. Check scans several
// named fields at once and returns an *Error that says, in one sentence,
// what was found and where:
//
//	if err := secrets.Check(map[string]string{"summary": m.Summary, "body": m.Body}); err != nil {
//		return err // nothing is written
//	}
//
// The rules, and why each threshold is what it is, are described at the
// top of rules.go.
package secrets

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Finding is one suspected secret.
type Finding struct {
	Rule   string // stable rule id, such as "github-pat" or "url-password"
	Desc   string // human description, such as "GitHub Personal Access Token"
	Line   int    // 1-based line of the secret in the scanned text
	Column int    // 1-based byte column of the secret in its line
	// Redacted is the secret with all but its first few characters
	// replaced by '*', one '*' per character: four are shown, or a third of
	// the secret when it is shorter than 12 characters, so a short password
	// is never shown whole.
	Redacted string
	// Field is the name of the field the secret was found in; Check sets
	// it, Scan leaves it empty.
	Field string
}

// String describes the finding with a shortened redaction, such as
// "GitHub Personal Access Token at line 3, column 7 (ghp_****…)".
func (f Finding) String() string {
	return fmt.Sprintf("%s at line %d, column %d%s", f.Desc, f.Line, f.Column, shown(f.Redacted))
}

// shown is the shortened redaction in parentheses, or nothing when the
// finding shows nothing.
func shown(redacted string) string {
	if redacted == "" {
		return ""
	}
	return " (" + shorten(redacted) + ")"
}

// Error is returned by Check when a field holds a suspected secret.
type Error struct {
	// Field names what was scanned, such as "body". When secrets were found
	// in several fields it lists them, comma-separated, and each Finding
	// carries its own Field.
	Field    string
	Findings []Finding
}

// Error lists every finding in one sentence, never the secrets themselves.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("refusing to write: possible secret")
	if len(e.Findings) != 1 {
		b.WriteString("s")
	}
	b.WriteString(" found: ")
	for i, f := range e.Findings {
		if i > 0 {
			b.WriteString("; ")
		}
		field := cmp.Or(f.Field, e.Field)
		b.WriteString(f.Desc)
		if field != "" {
			b.WriteString(" in ")
			b.WriteString(field)
		}
		fmt.Fprintf(&b, " at line %d, column %d%s", f.Line, f.Column, shown(f.Redacted))
	}
	b.WriteString("; keep secrets out of memories and refer to them by name (an environment variable or a vault entry) instead")
	return b.String()
}

// Check scans each named field, in sorted order of the names, and returns
// an *Error listing every finding, or nil when all fields are clean.
func Check(fields map[string]string) error {
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	slices.Sort(names)
	var found []Finding
	var withSecrets []string
	for _, name := range names {
		// A field's lines are also read joined, so a token wrapped over
		// two lines is found.
		fs := scan(fields[name], true)
		if len(fs) == 0 {
			continue
		}
		withSecrets = append(withSecrets, name)
		for _, f := range fs {
			f.Field = name
			found = append(found, f)
		}
	}
	if len(found) == 0 {
		return nil
	}
	return &Error{Field: strings.Join(withSecrets, ", "), Findings: found}
}

// Field is one named text for CheckFields.
type Field struct{ Name, Text string }

// CheckFields is Check for fields in the order they are written: each
// field is scanned apart, and, when none holds a secret, all of them
// joined by line breaks, so a token split between two fields (the end of
// the summary and the start of the body) is found as one broken over two
// lines. A secret found only so names the field it starts in.
func CheckFields(fields ...Field) error {
	m := make(map[string]string, len(fields))
	for _, f := range fields {
		m[f.Name] = f.Text
	}
	if err := Check(m); err != nil {
		return err
	}
	// Empty fields are left out, so the fields on either side of one are
	// read as adjacent lines.
	var b strings.Builder
	var startLine []int // the first line of each field in the joined text
	var named []Field
	line := 1
	for _, f := range fields {
		if f.Text == "" {
			continue
		}
		if len(named) > 0 {
			b.WriteByte('\n')
			line++
		}
		named = append(named, f)
		startLine = append(startLine, line)
		b.WriteString(f.Text)
		line += strings.Count(f.Text, "\n")
	}
	fields = named
	fs := scan(b.String(), true)
	if len(fs) == 0 {
		return nil
	}
	for i := range fs {
		k := 0
		for k+1 < len(fields) && startLine[k+1] <= fs[i].Line {
			k++
		}
		fs[i].Line -= startLine[k] - 1
		fs[i].Field = fields[k].Name + " (read on into the next field)"
	}
	return &Error{Field: fs[0].Field, Findings: fs}
}

// candidate is a secret span reported by a rule, before overlaps between
// rules are resolved.
type candidate struct {
	start, end int
	rule       int    // index into rules; lower wins a tie
	allow      bool   // a known example: report nothing overlapping it
	note       string // added to the rule's description: how it was found
}

// Window bounds for very long lines: a rule sees at most this much text
// before and after its keyword, so one long line costs no more than many
// short ones.
const (
	windowBefore = 1 << 10
	windowAfter  = 2 << 10
)

// Scan returns every suspected secret in text, in order of position, or
// nil when there is none. Overlapping matches of several rules are
// reported once, by the most specific rule.
func Scan(text string) []Finding {
	return scan(text, false)
}

// scan is Scan; with join it also looks for secrets broken over lines.
func scan(text string, join bool) []Finding {
	if len(text) == 0 {
		return nil
	}
	b := newBudget(len(text))
	cands := visibleCandidates(text, 0, b)
	if join {
		cands = append(cands, joinedCandidates(text, b)...)
		cands = append(cands, viewCandidates(text, markupPieces(text), true, " (split by Markdown)", b)...)
		cands = append(cands, viewCandidates(text, decodedPieces(text), false, " (encoded)", b)...)
	}
	var out []Finding
	if len(cands) > 0 {
		out = findings(text, cands)
	}
	if b.left < 0 {
		// What was not read may hold a secret: the text as a whole is
		// reported (with nothing of it shown).
		out = append(out, Finding{Rule: tooDenseRule, Desc: tooDenseDesc, Line: 1, Column: 1})
	}
	return out
}

// The cost of a scan is bounded by its budget: the bytes handed to the
// rules' regexps, each weighted by its pattern's size (ruleWeight), and a
// fixed charge per finder attempt, at most workPerByte per byte of text
// plus workBase. Prose and code spend a fraction of it (measured: at most
// 2.2 per byte on a file of the development corpus and fixtures of 500
// bytes or more, 2.3 on BenchmarkScan's keyword-laden text at 250 KB, 9.5
// on that text with its line breaks made spaces, a 200 KB line); text
// packed with the rules' keywords, each of which runs its rule over the
// keyword's line, would otherwise cost hundreds of times a plain text of
// its size. A scan that runs out stops and reports the text as too dense
// to scan, so the write is refused rather than slow or unchecked.
//
// The passes for split tokens (lines joined, Markdown taken out) have
// their own, smaller share, splitPerByte: they run the token rules over
// joined lines, the costliest reading of a text packed with keywords, and
// spend at most 0.6 per byte on a file of the corpus, 0.1 on
// BenchmarkScan's text.
const (
	workPerByte  = 24
	splitPerByte = 2
	workBase     = 256 << 10
)

// RuleTooDense is the Rule of the finding of a scan that ran out of its
// budget: it covers the whole text and shows none of it (Redacted is
// empty), so a caller that masks findings must hide the text.
const RuleTooDense = "scan-budget"

const (
	tooDenseRule = RuleTooDense
	tooDenseDesc = "text too dense with secret-shaped keywords to scan in full"
)

// budget is what is left of a scan's work, and what the current pass
// looks for.
type budget struct {
	left int
	// splitLeft is what is left for the passes that look for split
	// tokens, which need less: at most splitPerByte per byte.
	splitLeft int
	// tokensOnly: the pass (lines joined, Markdown taken out) looks for
	// tokens only, so rules with a finder or a human-chosen value, which
	// read on along a line, are not run.
	tokensOnly bool
}

// prefixCharge is what an anchored attempt of a prefix rule is charged at
// most: such a pattern fails or ends within a few dozen bytes of its
// keyword, and even one that runs to the end of its window reads at most
// windowAfter bytes, eight times the charge, so the bound stays linear.
// A rule that reads on along the line (readsLine) is charged its window.
const prefixCharge = 256

// ruleWeight is what a rule's regexp is charged per byte it reads: a
// regexp's time per byte grows with the size of its compiled program
// (Go's backtracker, used on short windows, visits up to every
// instruction at every byte), which grows with its source, from 1 for a
// short pattern to about 12 for gitleaks' longest.
func ruleWeight(r *rule) int {
	n := 0
	switch {
	case r.lazy != nil:
		n = len(r.lazy.src)
	case r.re != nil:
		n = len(r.re.String())
	}
	return 1 + n/weightUnit
}

// weightUnit is the pattern length that adds one to a rule's weight.
const weightUnit = 64

// findCost is what a finder's attempt is charged: it reads a few dozen
// bytes around its keyword (a PEM block's finder reads on, but the hits
// inside a block it reported are not tried again).
const findCost = 64

func newBudget(n int) *budget {
	return &budget{left: workPerByte*n + workBase, splitLeft: splitPerByte*n + workBase}
}

// spend takes n bytes of work and reports whether the scan may go on.
func (b *budget) spend(n int) bool {
	b.left -= n
	if b.tokensOnly {
		if b.splitLeft -= n; b.splitLeft < 0 {
			b.left = min(b.left, -1)
		}
	}
	return b.left >= 0
}

// candidates returns what every rule reports in text, and what they
// report inside its base64 runs (depth counts the decodings so far).
func candidates(text string, depth int, b *budget) []candidate {
	var found []ruleHit // in order of position
	for i := 0; i+1 < len(text); i++ {
		bucket := kwIndex[uint16(lowerByte[text[i]])<<8|uint16(lowerByte[text[i+1]])]
		if bucket == 0 {
			continue
		}
		// The third byte must be one that a keyword of the bucket has
		// there: most byte pairs of prose (co, se, to, …) end here.
		if i+2 < len(text) {
			c := lowerByte[text[i+2]]
			if kwThird[bucket-1][c>>6]&(1<<(c&63)) == 0 {
				continue
			}
		}
		for _, k := range kwBuckets[bucket-1] {
			if k.fold && hasPrefixFold(text[i:], k.s) || !k.fold && strings.HasPrefix(text[i:], k.s) {
				found = append(found, ruleHit{k.rule, hit{i, len(k.s)}})
			}
		}
	}
	var cands []candidate
	if len(found) > 0 {
		// Group the hits by rule, each group in order of position (a
		// counting sort: a comparison sort took a third of Scan's time).
		start := make([]int32, len(rules)+1)
		for _, f := range found {
			start[f.rule+1]++
		}
		for ri := range rules {
			start[ri+1] += start[ri]
		}
		grouped := make([]hit, len(found))
		next := slices.Clone(start[:len(rules)])
		for _, f := range found {
			grouped[next[f.rule]] = f.hit
			next[f.rule]++
		}
		for ri := range rules {
			if b.tokensOnly && (rules[ri].find != nil || rules[ri].placeholders) {
				continue
			}
			if hs := grouped[start[ri]:start[ri+1]]; len(hs) > 0 {
				cands = rules[ri].match(text, ri, hs, cands, b)
			}
		}
	}
	return encodedCandidates(text, depth, cands, b)
}

// hit is a keyword found at pos.
type hit struct{ pos, n int }

// ruleHit is a keyword hit of one rule.
type ruleHit struct {
	rule int
	hit
}

// keyword is one entry of the prefilter.
type keyword struct {
	s    string
	rule int
	fold bool
}

// The keyword prefilter: kwIndex maps the first two bytes of a keyword,
// lower-cased, to 1 + its bucket in kwBuckets. Scan looks up every byte
// pair of the text once, which costs the same however many keywords there
// are; a strings.Index pass per keyword took half of Scan's time.
var (
	kwIndex   [1 << 16]uint16
	kwBuckets [][]keyword
	// kwThird is, per bucket, the set of the lower-cased third bytes of
	// its keywords (all bytes for a two-byte keyword).
	kwThird [][4]uint64
)

func init() {
	for ri := range rules {
		r := &rules[ri]
		r.weight = ruleWeight(r)
		switch {
		case r.prefix && r.lazy != nil:
			r.lazy.src = "^(?:" + r.lazy.src + ")"
		case r.prefix:
			r.re = regexp.MustCompile("^(?:" + r.re.String() + ")")
		}
		for _, kw := range r.keywords {
			l := asciiLower(kw)
			if len(kw) < 2 || r.fold && l != kw {
				panic("secrets: keyword " + kw + " is shorter than 2 bytes or folded but not lower case")
			}
			key := uint16(l[0])<<8 | uint16(l[1])
			if kwIndex[key] == 0 {
				if len(kwBuckets) == 1<<16-1 {
					panic("secrets: too many keyword buckets for kwIndex")
				}
				kwBuckets = append(kwBuckets, nil)
				kwThird = append(kwThird, [4]uint64{})
				kwIndex[key] = uint16(len(kwBuckets))
			}
			b := kwIndex[key] - 1
			kwBuckets[b] = append(kwBuckets[b], keyword{kw, ri, r.fold})
			if len(l) == 2 {
				kwThird[b] = [4]uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
			} else {
				kwThird[b][l[2]>>6] |= 1 << (l[2] & 63)
			}
		}
	}
}

// match runs the rule around each keyword hit and appends what it finds.
func (r *rule) match(text string, ri int, hits []hit, cands []candidate, b *budget) []candidate {
	re := r.re
	if r.lazy != nil {
		re = r.lazy.get()
	}
	add := func(s, e int) {
		if ok, allow := r.accept(text, s, e); ok || allow {
			cands = append(cands, candidate{start: s, end: e, rule: ri, allow: allow})
		}
	}
	switch {
	case r.find != nil:
		done := -1 // a hit inside a reported span was read with it
		for _, h := range hits {
			if h.pos < done {
				continue
			}
			if !b.spend(findCost) {
				return cands
			}
			for _, s := range r.find(text, h.pos, h.n) {
				add(s.start, s.end)
				if s.start <= h.pos {
					done = max(done, s.end)
				}
			}
		}
	case r.prefix:
		// The match starts at the keyword: one anchored attempt per hit.
		for _, h := range hits {
			if !r.anyStart && h.pos > 0 && isWordByte(text[h.pos-1]) {
				continue
			}
			end := min(len(text), h.pos+windowAfter)
			if i := strings.IndexByte(text[h.pos:end], '\n'); i >= 0 {
				end = h.pos + i
			}
			win := text[h.pos:end]
			charge := len(win)
			if !r.readsLine {
				charge = min(charge, prefixCharge)
			}
			if !b.spend(charge * r.weight) {
				return cands
			}
			if m := re.FindStringSubmatchIndex(win); m != nil {
				if s, e, ok := r.secret(m, win); ok {
					add(h.pos+s, h.pos+e)
				}
			}
		}
	default:
		done := -1 // hits before this were covered by the previous window
		for _, h := range hits {
			if h.pos < done {
				continue
			}
			ws, we, lineEnd := window(text, h.pos)
			if lineEnd {
				done = we
			} else {
				done = we - windowBefore
			}
			for n, more := 0, lineEnd; n < r.lines && more && we < len(text); n++ {
				// The rule spans lines: take in the next one.
				_, we, more = window(text, we+1)
			}
			win := text[ws:we]
			if !b.spend(len(win) * r.weight) {
				return cands
			}
			for _, m := range re.FindAllStringSubmatchIndex(win, -1) {
				if s, e, ok := r.secret(m, win); ok {
					add(ws+s, ws+e)
				}
			}
		}
	}
	return cands
}

// secret returns the span of the secret in a match of r.re on win, or
// false when the rule's allowlist names it.
func (r *rule) secret(m []int, win string) (s, e int, ok bool) {
	switch {
	case r.group > 0:
		if s, e = m[2*r.group], m[2*r.group+1]; s < 0 {
			return 0, 0, false
		}
	case r.group < 0:
		s, e = m[0], m[1]
	default:
		s, e = secretSpan(m)
	}
	if r.skip != nil && r.skip(win[s:e], win[m[0]:m[1]], win) {
		return 0, 0, false
	}
	return s, e, true
}

// secretSpan picks the first submatch that took part in the match, or the
// whole match when the pattern has no group.
func secretSpan(m []int) (int, int) {
	for g := 2; g < len(m); g += 2 {
		if m[g] >= 0 {
			return m[g], m[g+1]
		}
	}
	return m[0], m[1]
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// accept applies the checks every rule shares, then the rule's own. It
// reports whether the match is a secret, or else whether it is a known
// example that must keep every other rule quiet too.
func (r *rule) accept(text string, start, end int) (ok, allow bool) {
	secret := text[start:end]
	if r.allowed != nil && r.allowed(secret, lineAt(text, start)) {
		return false, true
	}
	if r.example != nil {
		// The rule knows its own fillers; they are no secret, but they
		// allow nothing else either.
		if r.example(secret) {
			return false, false
		}
	} else if isExample(secret) {
		return false, true
	}
	if r.placeholders && isPlaceholder(secret) {
		return false, false
	}
	minH := r.minEntropy
	if minH == 0 && r.find == nil {
		minH = minTokenEntropy
	}
	if minH > 0 && entropy(secret) < minH {
		return false, false
	}
	return r.valid == nil || r.valid(secret, lineAt(text, start)), false
}

// lineAt returns the line containing byte p.
func lineAt(text string, p int) string {
	s, e, _ := window(text, p)
	return text[s:e]
}

// window returns the line around p, clipped to windowBefore bytes before p
// and windowAfter bytes after it, and whether it ends at the line's end.
func window(text string, p int) (start, end int, lineEnd bool) {
	return windowOf(text, p, windowBefore, windowAfter)
}

// windowOf is window with the bounds given.
func windowOf(text string, p, before, after int) (start, end int, lineEnd bool) {
	lo := max(0, p-before)
	start = lo
	if i := strings.LastIndexByte(text[lo:p], '\n'); i >= 0 {
		start = lo + i + 1
	}
	hi := min(len(text), p+after)
	end = hi
	if i := strings.IndexByte(text[p:hi], '\n'); i >= 0 {
		return start, p + i, true
	}
	return start, end, hi == len(text)
}

// findings resolves overlaps and turns spans into positioned findings. A
// known example (an allowed candidate) silences the other rules that
// report exactly the same span, and nothing else: a secret that merely
// overlaps an example, or contains one, is still reported.
func findings(text string, cands []candidate) []Finding {
	slices.SortFunc(cands, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.rule, b.rule), cmp.Compare(b.end, a.end))
	})
	var allowed map[span]bool
	for _, c := range cands {
		if c.allow {
			if allowed == nil {
				allowed = map[span]bool{}
			}
			allowed[span{c.start, c.end}] = true
		}
	}
	var out []Finding
	line, lineStart, pos := 1, 0, 0
	covered := 0
	for _, c := range cands {
		if c.allow || c.start < covered || allowed[span{c.start, c.end}] {
			continue
		}
		covered = c.end
		for ; pos < c.start; pos++ {
			if text[pos] == '\n' {
				line++
				lineStart = pos + 1
			}
		}
		r := &rules[c.rule]
		out = append(out, Finding{
			Rule:     r.id,
			Desc:     r.desc + c.note,
			Line:     line,
			Column:   c.start - lineStart + 1,
			Redacted: redact(text[c.start:c.end]),
		})
	}
	return out
}

// revealed is how many leading characters of an n-character secret are
// shown: four (a token's prefix), or a third of a short secret.
func revealed(n int) int {
	if n >= 12 {
		return 4
	}
	return n / 3
}

func redact(secret string) string {
	n := utf8.RuneCountInString(secret)
	keep, cut := revealed(n), len(secret)
	i := 0
	for k := range secret {
		if i == keep {
			cut = k
			break
		}
		i++
	}
	// The shown part is copied byte for byte, so invalid UTF-8 does not
	// grow into U+FFFD and the redaction is never longer than the secret.
	return secret[:cut] + strings.Repeat("*", n-keep)
}

// shorten cuts a redaction to its shown characters and four stars, so a
// long token reads "ghp_****…".
func shorten(redacted string) string {
	n := utf8.RuneCountInString(redacted)
	keep := revealed(n) + 4
	if n <= keep {
		return redacted
	}
	i := 0
	for k := range redacted {
		if i == keep {
			return redacted[:k] + "…"
		}
		i++
	}
	return redacted
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	h, n := 0.0, float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// isExample reports documentation fillers that no rule reports: "example"
// in any case, six identical characters in a row, or an alphabet or digit
// run. It is a test for a token, whose characters are random: a longer
// structured value (a PEM block, which always holds runs such as AAAAAA)
// needs a rule's own example test.
func isExample(s string) bool {
	if l := asciiLower(s); strings.Contains(l, "example") || strings.Contains(l, "abcdefgh") || strings.Contains(s, "12345678") {
		return true
	}
	run := 1
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			run++
			if run >= 6 {
				return true
			}
		} else {
			run = 1
		}
	}
	return false
}

// placeholderWords are values that stand for a secret in documentation
// and templates; a value equal to one of them (any case) is not reported
// by the URL, header and generic rules.
var placeholderWords = set("password", "passwd", "pass", "pwd", "secret", "token", "apikey", "api_key", "key",
	"none", "null", "nil", "undefined", "empty", "true", "false", "changeme", "changeit", "test", "sample",
	"redacted", "todo", "tbd", "xxx", "foo", "bar", "foobar")

// placeholderParts mark a value as a placeholder wherever they occur in it.
var placeholderParts = []string{"your", "changeme", "change_me", "change-me", "changeit", "placeholder",
	"redacted", "dummy", "replace", "insert", "xxx", "***", "...", "…", "${", "{{", "<", ">"}

// isPlaceholder reports whether a human-chosen value (a password, a header
// credential, an assigned secret) is a stand-in rather than the real
// thing.
func isPlaceholder(v string) bool {
	if v == "" || placeholderWords[strings.ToLower(v)] {
		return true
	}
	switch v[0] {
	case '$', '%', '{', '[', '<', '*', ':':
		return true
	}
	l := asciiLower(v)
	for _, p := range placeholderParts {
		if strings.Contains(l, p) {
			return true
		}
	}
	for i := 1; i < len(v); i++ {
		if v[i] != v[0] {
			return false
		}
	}
	return true // one character repeated
}

// lowerByte maps ASCII upper-case letters to lower case and every other
// byte to itself.
var lowerByte = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] += 'a' - 'A'
		}
	}
	return t
}()

// hasPrefixFold reports whether s starts with the lower-case prefix,
// ignoring ASCII case in s.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if lowerByte[s[i]] != prefix[i] {
			return false
		}
	}
	return true
}

// asciiLower lower-cases ASCII letters only, so byte offsets in the result
// are offsets in s.
func asciiLower(s string) string {
	i := 0
	for i < len(s) && !('A' <= s[i] && s[i] <= 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if 'A' <= b[i] && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}
