package secrets

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"html"
	"strings"
	"unicode/utf8"
)

// What a plain pass over the text misses: characters that do not show,
// secrets that are base64-encoded, a private key's body without its PEM
// lines, and a token broken over two lines.

// ---- invisible characters ----

// isInvisible reports characters that render as nothing but split a
// token for a regexp: zero-width spaces and joiners, the word joiner and
// invisible operators, the byte-order mark, the soft hyphen, the
// Mongolian vowel separator and the bidirectional controls.
func isInvisible(r rune) bool {
	switch {
	case r == 0xAD, r == 0x180E, r == 0xFEFF, r == 0x061C:
		return true
	case 0x200B <= r && r <= 0x200F, 0x202A <= r && r <= 0x202E, 0x2060 <= r && r <= 0x2064, 0x2066 <= r && r <= 0x2069:
		return true
	}
	return false
}

// stripInvisible returns text without invisible characters and, when it
// removed any, the offset in text of each byte of the result (and of its
// end); offs is nil when text has none.
func stripInvisible(text string) (string, []int) {
	// Look for the lead bytes with IndexByte, which is vectorised: a test
	// of every byte cost a tenth of Scan's time.
	first := -1
	for _, lead := range invisibleLeads {
		for i := 0; ; {
			k := strings.IndexByte(text[i:], lead)
			if k < 0 || first >= 0 && i+k >= first {
				break
			}
			i += k
			if r, _ := utf8.DecodeRuneInString(text[i:]); isInvisible(r) {
				first = i
				break
			}
			i++
		}
	}
	if first < 0 {
		return text, nil
	}
	var b strings.Builder
	b.Grow(len(text))
	offs := make([]int, 0, len(text)+1)
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if i >= first && isInvisible(r) {
			i += n
			continue
		}
		b.WriteString(text[i : i+n])
		for k := range n {
			offs = append(offs, i+k)
		}
		i += n
	}
	offs = append(offs, len(text))
	return b.String(), offs
}

// mapBack moves candidates found in a text derived from another (by
// removing bytes) to the original's offsets.
func mapBack(cands []candidate, offs []int) {
	for i := range cands {
		c := &cands[i]
		if c.end > c.start {
			c.start, c.end = offs[c.start], offs[c.end-1]+1
		} else {
			c.start, c.end = offs[c.start], offs[c.start]
		}
	}
}

// visibleCandidates scans text without its invisible characters, and
// reports positions in text.
func visibleCandidates(text string, depth int, b *budget) []candidate {
	clean, offs := stripInvisible(text)
	cands := candidates(clean, depth, b)
	if offs != nil {
		mapBack(cands, offs)
	}
	return cands
}

// ---- lines joined ----

// joinLines returns text with the line breaks that may split a token
// removed, with the spaces, tabs and Markdown quote marks around them, and
// the offsets of its bytes in text; offs is nil when it removed none. A
// break may split a token when a token's byte ends the line and another
// starts the next (after its indentation or quote marks): the break after
// "dashboard)" or before "- item" does not, so a list of short lines is
// not read as one long line, which cost every rule the whole text.
func joinLines(text string) (string, []int) {
	if !strings.Contains(text, "\n") {
		return text, nil
	}
	b := make([]byte, 0, len(text))
	offs := make([]int, 0, len(text)+1)
	joined := false
	for i := 0; i < len(text); {
		if text[i] != '\n' {
			b = append(b, text[i])
			offs = append(offs, i)
			i++
			continue
		}
		// The spaces before the break are already written: they are cut
		// off in place (copying what came before made a text of spaced
		// lines cost its length squared).
		k := len(b)
		for k > 0 && (b[k-1] == ' ' || b[k-1] == '\t' || b[k-1] == '\r') {
			k--
		}
		next := i + 1
		for next < len(text) && (text[next] == ' ' || text[next] == '\t' || text[next] == '>') {
			next++
		}
		if k == 0 || next == len(text) || !isTokenByte(b[k-1]) || !isTokenByte(text[next]) {
			b = append(b, '\n')
			offs = append(offs, i)
			i++
			continue
		}
		b, offs = b[:k], offs[:k]
		i, joined = next, true
	}
	if !joined {
		return text, nil
	}
	offs = append(offs, len(text))
	return string(b), offs
}

// isTokenByte reports the bytes of tokens' alphabets: letters, digits and
// _ - + / = .
func isTokenByte(c byte) bool {
	return isWordByte(c) || c == '-' || c == '+' || c == '/' || c == '=' || c == '.'
}

// joinedCandidates finds the tokens that only appear when the lines of
// text are joined: a token the writer, or a model, wrapped. Only token
// rules count (an assignment rule would pair a key with the next line),
// and only matches that span a break.
func joinedCandidates(text string, b *budget) []candidate {
	joined, offs := joinLines(text)
	if offs == nil {
		return nil
	}
	var out []candidate
	b.tokensOnly = true
	defer func() { b.tokensOnly = false }()
	for _, c := range visibleCandidates(joined, 0, b) {
		if c.allow || rules[c.rule].find != nil || c.end <= c.start {
			continue
		}
		if offs[c.end-1]-offs[c.start] == c.end-1-c.start {
			continue // on one line: the plain scan reports it
		}
		c.start, c.end = offs[c.start], offs[c.end-1]+1
		c.note = " (broken over lines)"
		out = append(out, c)
	}
	return out
}

// ---- base64 ----

const (
	minBase64      = 20       // shortest run worth decoding
	maxBase64      = 64 << 10 // longest decoded
	maxDecodeDepth = 2        // base64 inside base64, and no deeper
)

// base64Byte marks the bytes of standard and URL-safe base64 and its
// padding (a table: this test runs on every byte of every text).
var base64Byte = func() (t [256]bool) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_") {
		t[c] = true
	}
	return t
}()

// invisibleLeads are the first bytes of the UTF-8 encodings of the
// invisible characters.
var invisibleLeads = func() []byte {
	var out []byte
	for _, r := range []rune{0xAD, 0x061C, 0x180E, 0x200B, 0x202A, 0x2060, 0x2066, 0xFEFF} {
		if b := string(r)[0]; !bytes.Contains(out, []byte{b}) {
			out = append(out, b)
		}
	}
	return out
}()

// b64Run is a run of base64 characters, maybe over several lines (the
// body of a PEM block, an email attachment): start and end in the text,
// and the characters without the line breaks.
type b64Run struct {
	start, end int
	data       string
}

// lineEnd returns the end of the line if only spaces follow i on it.
func lineEnd(text string, i int) (int, bool) {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r') {
		i++
	}
	return i, i == len(text) || text[i] == '\n'
}

// base64Runs returns the runs of at least minBase64 characters. A run
// that fills its line, is at least 40 characters long and is followed by
// a line holding only base64 (after indentation or a quote mark)
// continues there.
func base64Runs(text string) []b64Run {
	var out []b64Run
	for i := 0; i+minBase64 <= len(text); {
		// i starts a run or follows a byte outside base64. A run long
		// enough fills text[i:i+minBase64]; test that window from its end,
		// so prose, whose words are short, is skipped a word at a time.
		j := i + minBase64 - 1
		for j >= i && base64Byte[text[j]] {
			j--
		}
		if j >= i {
			i = j + 1
			continue
		}
		s := i
		for i < len(text) && base64Byte[text[i]] {
			i++
		}
		run := b64Run{start: s, end: i, data: text[s:i]}
		var data []byte // the pieces joined, once there are several
		// Only a run that fills its line continues on the next.
		for pieceLen := i - s; pieceLen >= 40 && startsLine(text, s); {
			le, ok := lineEnd(text, i)
			if !ok || le == len(text) {
				break
			}
			j := le + 1
			for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '>') {
				j++
			}
			k := j
			for k < len(text) && base64Byte[text[k]] {
				k++
			}
			if _, ok := lineEnd(text, k); !ok || k == j {
				break
			}
			if data == nil {
				data = append(data, run.data...)
			}
			data = append(data, text[j:k]...) // appending: += copied the run per line
			run.end, i, pieceLen = k, k, k-j
			s = j
		}
		if data != nil {
			run.data = string(data)
		}
		out = append(out, run)
	}
	return out
}

// startsLine reports whether only indentation or quote marks come before
// s on its line.
func startsLine(text string, s int) bool {
	for i := s - 1; i >= 0; i-- {
		switch text[i] {
		case '\n':
			return true
		case ' ', '\t', '>':
		default:
			return false
		}
	}
	return true
}

// decodeBase64 decodes standard or URL-safe base64, padded or not; nil
// when data is neither.
func decodeBase64(data string) []byte {
	data = strings.TrimRight(data, "=")
	data = strings.TrimLeft(data, "-_")
	if len(data)%4 == 1 {
		data = data[:len(data)-1]
	}
	enc := base64.RawStdEncoding
	if strings.ContainsAny(data, "-_") {
		if strings.ContainsAny(data, "+/") {
			return nil
		}
		enc = base64.RawURLEncoding
	}
	if len(data) > maxBase64*4/3 {
		return nil
	}
	// Most runs in prose and code are identifiers, paths and hex hashes,
	// which decode to binary: look at the first six bytes before
	// decoding the rest.
	var head [6]byte
	if n, err := enc.Decode(head[:], []byte(data[:min(len(data), 8)])); err != nil ||
		!noControl(head[:n]) && head[0] != 0x30 && head[0] != opensshMagic[0] {
		return nil
	}
	b, err := enc.DecodeString(data)
	if err != nil {
		return nil
	}
	return b
}

// noControl reports whether b has no control characters but tabs and
// line breaks (b may end inside a UTF-8 sequence).
func noControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return false
		}
	}
	return true
}

// printable reports whether b is text: valid UTF-8 with no control
// characters but tabs and line breaks.
func printable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return false
		}
	}
	return true
}

var (
	opensshMagic = []byte("openssh-key-v1\x00")
	// The object identifier of PBES2, which an encrypted PKCS#8 key names
	// right at its start.
	pbes2OID = []byte{0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x05, 0x0d}
)

// privateKeyDER reports whether b starts like a private key: an OpenSSH
// key, or a DER SEQUENCE whose first element is the version of a PKCS#1
// (0, then an INTEGER), PKCS#8 (0 or 1, then a SEQUENCE) or SEC1 (1, then
// an OCTET STRING) key, or an encrypted PKCS#8 key. A certificate or a
// public key starts with a SEQUENCE, not a version, so it is not one.
func privateKeyDER(b []byte) bool {
	if bytes.HasPrefix(b, opensshMagic) {
		return true
	}
	if len(b) < 32 || b[0] != 0x30 {
		return false
	}
	i := 2
	switch l := b[1]; {
	case l < 0x80:
	case l >= 0x81 && l <= 0x83:
		i += int(l - 0x80)
	default:
		return false
	}
	if bytes.Contains(b[i:min(len(b), i+8)], pbes2OID[:4]) && bytes.Contains(b[:min(len(b), 24)], pbes2OID) {
		return true
	}
	if len(b) < i+4 || b[i] != 0x02 || b[i+1] != 0x01 {
		return false
	}
	switch version, next := b[i+2], b[i+3]; version {
	case 0:
		return next == 0x02 || next == 0x30
	case 1:
		return next == 0x04 || next == 0x30
	}
	return false
}

// privateKeyRule is the index of the rule that reports private keys.
var privateKeyRule = func() int {
	for i, r := range rules {
		if r.id == "private-key" {
			return i
		}
	}
	panic("secrets: no private-key rule")
}()

// encodedCandidates adds what is hidden in the base64 runs of text: a
// private key's body without its PEM lines, and a secret any rule finds in
// the decoded text, reported over the whole run.
func encodedCandidates(text string, depth int, cands []candidate, b *budget) []candidate {
	if depth >= maxDecodeDepth {
		return cands
	}
	for _, run := range base64Runs(text) {
		if inner := hexText(run.data); inner != "" {
			if r, ok := innerRule(inner, depth, b); ok {
				cands = append(cands, candidate{start: run.start, end: run.end, rule: r, note: " (hex-encoded)"})
			}
			continue
		}
		dec := decodeBase64(run.data)
		if len(dec) < 12 {
			continue
		}
		if privateKeyDER(dec) {
			cands = append(cands, candidate{start: run.start, end: run.end, rule: privateKeyRule, note: " (its body, without the PEM lines)"})
			continue
		}
		if !printable(dec) {
			continue
		}
		if r, ok := innerRule(string(dec), depth, b); ok {
			cands = append(cands, candidate{start: run.start, end: run.end, rule: r, note: " (base64-encoded)"})
		}
	}
	return cands
}

// innerRule scans decoded text and returns the rule of its first finding.
func innerRule(inner string, depth int, b *budget) (int, bool) {
	ic := visibleCandidates(inner, depth+1, b)
	if len(ic) == 0 {
		return 0, false
	}
	if fs := findings(inner, ic); len(fs) > 0 {
		for i, r := range rules {
			if r.id == fs[0].Rule {
				return i, true
			}
		}
	}
	return 0, false
}

// ---- markup and character encodings ----

// A view is the text with some pieces removed or replaced: the Markdown
// that can split a token (** and empty or short comments inside it, a
// hyphen at a line's end), or the encodings that spell one in other
// characters (%XX, fullwidth letters and digits). Each byte of the view
// knows the span of the text it comes from.
type view struct {
	s          string
	start, end []int32 // per byte of s: its span in the text (memories are far below 2 GiB)
}

// piece is a span of the text a view replaces by repl ("" removes it).
type piece struct {
	start, end int
	repl       string
}

// newView builds the view of text with pieces (in order, not
// overlapping) applied.
func newView(text string, pieces []piece) view {
	var b strings.Builder
	b.Grow(len(text))
	v := view{start: make([]int32, 0, len(text)), end: make([]int32, 0, len(text))}
	at := 0
	emit := func(s string, from, to int) {
		b.WriteString(s)
		for range len(s) {
			v.start, v.end = append(v.start, int32(from)), append(v.end, int32(to))
		}
	}
	for _, p := range pieces {
		for ; at < p.start; at++ {
			emit(text[at:at+1], at, at+1)
		}
		emit(p.repl, p.start, p.end)
		at = p.end
	}
	for ; at < len(text); at++ {
		emit(text[at:at+1], at, at+1)
	}
	v.s = b.String()
	return v
}

// viewCandidates scans a view and returns, at their places in the text,
// the candidates that take in a piece the view changed (the others the
// plain scan reports); tokenOnly keeps the token rules' alone.
func viewCandidates(text string, pieces []piece, tokenOnly bool, note string, b *budget) []candidate {
	if len(pieces) == 0 {
		return nil
	}
	v := newView(text, pieces)
	var out []candidate
	b.tokensOnly = tokenOnly
	defer func() { b.tokensOnly = false }()
	for _, c := range visibleCandidates(v.s, 0, b) {
		if c.allow || c.end <= c.start || tokenOnly && rules[c.rule].find != nil {
			continue
		}
		s, e := int(v.start[c.start]), int(v.end[c.end-1])
		if e-s == c.end-c.start {
			continue // nothing changed inside: the plain scan sees it
		}
		c.start, c.end = s, e
		c.note = note
		out = append(out, c)
	}
	return out
}

// maxSplitComment is the longest HTML comment taken out of a token.
const maxSplitComment = 64

// markupPieces are the Markdown marks that split a token and show
// nothing of it: "**", a backtick or a star between two bytes of a token,
// a bare HTML tag (<code>, </em>), an HTML comment of at most maxSplitComment bytes,
// and a hyphen that ends a line with the line break and the next line's
// indentation or quote marks.
func markupPieces(text string) []piece {
	var out []piece
	for i := 0; i < len(text); {
		switch {
		case strings.HasPrefix(text[i:], "**"):
			out = append(out, piece{i, i + 2, ""})
			i += 2
		case (text[i] == '`' || text[i] == '*') && i > 0 && i+1 < len(text) && isTokenByte(text[i-1]) && isTokenByte(text[i+1]):
			// Inline code or emphasis inside a token (ghp_`…`, ab*cd*ef)
			// shows the token whole.
			out = append(out, piece{i, i + 1, ""})
			i++
		case text[i] == '<' && inlineTag(text[i:]) > 0:
			// <code>, </em> and the like: what Markdown renders a token
			// inside code or emphasis with.
			n := inlineTag(text[i:])
			out = append(out, piece{i, i + n, ""})
			i += n
		case strings.HasPrefix(text[i:], "<!--"):
			j := strings.Index(text[i+4:min(len(text), i+maxSplitComment)], "-->")
			if j < 0 {
				i++
				continue
			}
			out = append(out, piece{i, i + 4 + j + 3, ""})
			i += 4 + j + 3
		case text[i] == '-' && i > 0 && isWordByte(text[i-1]) && (strings.HasPrefix(text[i+1:], "\n") || strings.HasPrefix(text[i+1:], "\r\n")):
			// a word broken at the line's end: not a rule (---) or a list
			j := i + 1 + strings.IndexByte(text[i+1:], '\n') + 1
			for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '>') {
				j++
			}
			if j < len(text) && isWordByte(text[j]) {
				out = append(out, piece{i, j, ""})
			}
			i = j
		default:
			i++
		}
	}
	return out
}

// decodedPieces are the characters that spell ASCII otherwise: %XX of a
// printable byte, the fullwidth forms of letters, digits, _ and - (the
// fullwidth punctuation of Chinese and Japanese prose is left), and what
// Markdown renders as one ASCII character: a backslash escape (ghp\_…,
// sk\-ant\-…) and an HTML character reference (&#95;, &#x2D;, &lowbar;).
func decodedPieces(text string) []piece {
	var out []piece
	for i := 0; i < len(text); {
		c := text[i]
		if c == '\\' && i+1 < len(text) && isASCIIPunct(text[i+1]) {
			out = append(out, piece{i, i + 2, text[i+1 : i+2]})
			i += 2
			continue
		}
		if c == '&' {
			if n, r := charRef(text[i:]); n > 0 {
				out = append(out, piece{i, i + n, r})
				i += n
				continue
			}
		}
		if c == '%' && i+2 < len(text) && isHexByte(text[i+1]) && isHexByte(text[i+2]) {
			if d := unhex(text[i+1])<<4 | unhex(text[i+2]); d > ' ' && d < 0x7f {
				out = append(out, piece{i, i + 3, string(rune(d))})
				i += 3
				continue
			}
		}
		if c == 0xEF { // the lead byte of U+FF00–U+FFFF
			r, n := utf8.DecodeRuneInString(text[i:])
			if r == 0xFF3F || r == 0xFF0D || 0xFF10 <= r && r <= 0xFF19 || 0xFF21 <= r && r <= 0xFF3A || 0xFF41 <= r && r <= 0xFF5A {
				out = append(out, piece{i, i + n, string(r - 0xFEE0)})
			}
			i += n
			continue
		}
		i++
	}
	return out
}

// isASCIIPunct reports the characters CommonMark lets a backslash escape.
func isASCIIPunct(c byte) bool {
	return c > ' ' && c < 0x7f && !isWordByte(c) || c == '_'
}

// maxCharRef is the longest character reference read: &#x0000005F; and
// the longest names of ASCII characters (&UnderBar;, &CenterDot; is not
// one) fit.
const maxCharRef = 12

// charRef reads an HTML character reference at the start of s (s[0] is
// '&') that stands for one printable ASCII character, and returns its
// length and the character; 0 when there is none. A reference to
// anything else is left: it cannot spell a token.
func charRef(s string) (int, string) {
	end := strings.IndexByte(s[:min(len(s), maxCharRef)], ';')
	if end < 2 {
		return 0, ""
	}
	ref := s[:end+1]
	for i := 1; i < end; i++ {
		if c := ref[i]; !isWordByte(c) && !(i == 1 && c == '#') {
			return 0, ""
		}
	}
	r := html.UnescapeString(ref)
	if len(r) != 1 || r[0] <= ' ' || r[0] >= 0x7f || r == ref {
		return 0, ""
	}
	return end + 1, r
}

// inlineTag returns the length of a bare HTML tag at the start of s, an
// opening or closing one with a name of letters and digits only (<b>,
// </code>), or 0.
func inlineTag(s string) int {
	i := 1
	if i < len(s) && s[i] == '/' {
		i++
	}
	start := i
	for i < len(s) && i < 12 && (isLetter(s[i]) || i > start && '0' <= s[i] && s[i] <= '9') {
		i++
	}
	if i == start || i >= len(s) || s[i] != '>' {
		return 0
	}
	return i + 1
}

func isHexByte(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// minHex is the shortest hex run decoded: 16 bytes, the shortest token.
const minHex = 32

// hexText returns the printable text a run of hex digits spells, or "".
func hexText(run string) string {
	if len(run) < minHex || len(run)%2 != 0 || len(run) > 2*maxBase64 {
		return ""
	}
	for i := 0; i < len(run); i++ {
		if !isHexByte(run[i]) {
			return ""
		}
	}
	b, err := hex.DecodeString(run)
	if err != nil || !printable(b) {
		return ""
	}
	return string(b)
}
