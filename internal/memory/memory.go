// Package memory reads and writes ocmem memory files: Markdown with a YAML
// frontmatter block.
//
//	m, err := memory.Parse(data)   // data is the file's bytes
//	out := m.Format()              // rewrite, preserving what a person wrote
//
// A rewrite keeps everything the engine does not own: unknown frontmatter
// fields, comments, blank lines, key order, flow style, the body's bytes, a
// UTF-8 BOM and CRLF line ends. That is why the frontmatter's bytes and its
// yaml.Node tree are kept, and only the lines of the fields that changed are
// written again (see format.go).
package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Kind is what a memory is. Only people write KindRule; anything a model
// proposes as a rule is stored as KindRuleProposal until a person accepts it.
type Kind string

const (
	KindRule         Kind = "rule"
	KindPreference   Kind = "preference"
	KindDecision     Kind = "decision"
	KindPitfall      Kind = "pitfall"
	KindFact         Kind = "fact"
	KindRuleProposal Kind = "rule-proposal"
)

// Kinds lists every valid kind, in the order documentation shows them.
var Kinds = []Kind{KindRule, KindPreference, KindDecision, KindPitfall, KindFact, KindRuleProposal}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool {
	for _, v := range Kinds {
		if k == v {
			return true
		}
	}
	return false
}

// Memory is one parsed memory file.
//
// Parse trims each load_when trigger and each anchor and drops empty ones;
// Format writes LoadWhen and Anchors the same way, so Parse(Format(m))
// returns m's fields with those so normalized. An anchor that cannot be
// checked is not a parse error (see AnchorProblems).
type Memory struct {
	ID           string // "<category>/<slug>", equal to the file's path in its root without ".md"
	Kind         Kind
	Summary      string   // one sentence, shown in index.md and the outline
	Highlight    string   // the single most useful detail
	Created      int64    // Unix epoch milliseconds
	Updated      int64    // Unix epoch milliseconds
	LoadWhen     []string // triggers: the only source of ROOT.md's routing table
	Pinned       bool     // never decays, never superseded automatically
	Supersedes   string   // id of the memory this one replaces
	SupersededBy string   // set on a replaced memory; it is kept but never retrieved
	ProposedBy   string   // who proposed a rule-proposal ("model", "extraction"); kept when a person accepts it
	Anchors      []string // the code it is about: paths relative to the project root, "path#Symbol"
	Verified     Verified // where the anchors were last known true
	Outdated     Outdated // set when a model judged it no longer true; out of injection
	Body         string   // everything after the frontmatter, byte for byte

	// Enforce is the enforce block's guards (enforce.go), in the file's
	// order; EnforceProblems are the entries left out of it and why.
	// Format writes the guards only into a new file (a Memory built in Go
	// or a Fields copy); a parsed file keeps its block byte for byte.
	Enforce         []Guard
	EnforceProblems []ParseError

	// What Parse read, for faithful rewrites. Format never modifies it.
	root  *yaml.Node     // the frontmatter document
	doc   *yaml.Node     // its top-level mapping
	open  []byte         // the opening "---" line with its line end
	raw   []byte         // the frontmatter's bytes as read, line ends included
	close []byte         // the closing "---" or "..." line, with its line end if it had one
	orig  fields         // the known fields as read, to tell which ones a rewrite must write
	lines map[string]int // 1-based file line of each key, for error reports
	bom   bool
	crlf  bool // the opening line ends in CRLF: lines Format writes do too
}

// Category is the first element of the id.
func (m *Memory) Category() string {
	c, _, _ := strings.Cut(m.ID, "/")
	return c
}

// Slug is the id without its category.
func (m *Memory) Slug() string {
	_, s, _ := strings.Cut(m.ID, "/")
	return s
}

// Fields returns a copy of m with its fields only, without what Parse kept
// for a faithful rewrite and for line numbers (the YAML tree, the raw
// frontmatter): for a reader that holds many memories and rewrites none.
// Format on the copy writes a new file, as for a Memory built by hand, and
// Line reports 0.
func (m *Memory) Fields() *Memory {
	return &Memory{
		ID: m.ID, Kind: m.Kind, Summary: m.Summary, Highlight: m.Highlight, Created: m.Created, Updated: m.Updated,
		LoadWhen: m.LoadWhen, Pinned: m.Pinned, Supersedes: m.Supersedes, SupersededBy: m.SupersededBy,
		ProposedBy: m.ProposedBy, Anchors: m.Anchors, Verified: m.Verified, Outdated: m.Outdated, Body: m.Body, Enforce: m.Enforce, EnforceProblems: m.EnforceProblems,
	}
}

// Line returns the 1-based line of a frontmatter key in the parsed file, or 0.
func (m *Memory) Line(key string) int { return m.lines[key] }

// MaxFileSize bounds a memory file. A memory is a note, not a document; a
// larger file is reported and skipped rather than parsed into every prompt.
// The other limits are in limits.go.
const MaxFileSize = 256 << 10

// ErrNoFrontmatter is returned for a file that does not start with "---".
var ErrNoFrontmatter = errors.New("no frontmatter: a memory file starts with a line \"---\"")

// ParseError locates a problem in a memory file.
type ParseError struct {
	Line int // 1-based; 0 when the problem has no line
	Err  error
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %v", e.Line, e.Err)
	}
	return e.Err.Error()
}

func (e *ParseError) Unwrap() error { return e.Err }

var bomBytes = []byte("\xef\xbb\xbf")

// Parse parses a memory file. It checks the shape of every known field and
// reports all problems at once (joined); it does not check the id against a
// path, which only the caller knows (see Validate).
//
// The frontmatter sits between a line "---" and a line "---" or "..."
// (trailing spaces and tabs allowed, as Jekyll and Hugo allow them). Its
// first line is file line 2; every error carries the file's line.
func Parse(data []byte) (*Memory, error) {
	if len(data) > MaxFileSize {
		return nil, &ParseError{Err: fmt.Errorf("file is %d bytes, over the %d-byte limit for a memory", len(data), MaxFileSize)}
	}
	m := &Memory{lines: map[string]int{}}
	if bytes.HasPrefix(data, bomBytes) {
		m.bom = true
		data = data[len(bomBytes):]
	}
	s, err := split(data)
	if err != nil {
		return nil, err
	}
	m.open, m.raw, m.close = s.open, s.fm, s.close
	m.crlf = bytes.HasSuffix(s.open, []byte("\r\n"))
	// The body keeps its own bytes, CRLF included.
	m.Body = string(s.body)

	f, err := parseFrontmatter(m.raw)
	if err != nil {
		return nil, err
	}
	m.root, m.doc = f.root, f.doc
	if err := m.decode(f); err != nil {
		return nil, err
	}
	m.orig = m.fields()
	return m, nil
}

type parts struct{ open, fm, close, body []byte }

// split separates "---\n<frontmatter>---\n<body>".
func split(data []byte) (parts, error) {
	if len(data) == 0 {
		return parts{}, &ParseError{Line: 1, Err: errors.New("empty file")}
	}
	first, rest, _ := cutLine(data)
	if !isDelimiter(first, "---") {
		return parts{}, &ParseError{Line: 1, Err: ErrNoFrontmatter}
	}
	start := len(data) - len(rest)
	for off := start; off < len(data); {
		l, r, nl := cutLine(data[off:])
		next := len(data) - len(r)
		if !nl {
			next = len(data)
		}
		if isDelimiter(l, "---") || isDelimiter(l, "...") {
			return parts{open: data[:start], fm: data[start:off], close: data[off:next], body: data[next:]}, nil
		}
		off = next
	}
	return parts{}, &ParseError{Line: 1, Err: errors.New("frontmatter is not closed: no line \"---\" after the opening one")}
}

func isDelimiter(line []byte, d string) bool {
	return string(bytes.TrimRight(line, " \t")) == d
}

// cutLine returns the first line of b without its line end (LF or CRLF), the
// rest after it, and whether a line end was found.
func cutLine(b []byte) (line, rest []byte, found bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil, false
	}
	line = b[:i]
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, b[i+1:], true
}

// frontmatter is a parsed frontmatter: its tree, and how yaml's line numbers
// map to the file's.
type frontmatter struct {
	root, doc *yaml.Node
	norm      []byte // the frontmatter with CRLF line ends made LF, as yaml read it
}

// parseFrontmatter parses the bytes between the delimiter lines. It is also
// used by Format to check what it wrote.
func parseFrontmatter(raw []byte) (*frontmatter, error) {
	f := &frontmatter{norm: bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n"))}
	if bytes.HasPrefix(f.norm, []byte{0xff, 0xfe}) || bytes.HasPrefix(f.norm, []byte{0xfe, 0xff}) {
		// yaml would silently read the frontmatter as UTF-16.
		return nil, &ParseError{Line: 2, Err: errors.New("frontmatter is not UTF-8")}
	}
	dec := yaml.NewDecoder(bytes.NewReader(f.norm))
	var doc yaml.Node
	switch err := dec.Decode(&doc); {
	case errors.Is(err, io.EOF): // empty, or only comments
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	case err != nil:
		return nil, f.yamlError(err)
	}
	// A line such as "--- x" starts a second YAML document, which a rewrite
	// would drop; refuse it rather than read half the frontmatter.
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, f.yamlError(err)
	default:
		return nil, &ParseError{Line: f.line(next.Line), Err: errors.New("frontmatter holds a second YAML document (a line starting with \"---\" or \"...\")")}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		line := 2
		if len(doc.Content) > 0 {
			line = f.line(doc.Content[0].Line)
		}
		return nil, &ParseError{Line: line, Err: errors.New("frontmatter is not a mapping of fields")}
	}
	f.root, f.doc = &doc, doc.Content[0]
	return f, nil
}

// line turns a yaml line (1-based, counted from the frontmatter's first line)
// into a file line. yaml also breaks lines at a lone CR, NEL, LS and PS,
// which a file line does not, so those are counted out.
func (f *frontmatter) line(yamlLine int) int {
	if yamlLine <= 0 {
		return 2
	}
	fileLine, yl := 2, 1
	for i := 0; i < len(f.norm) && yl < yamlLine; {
		r, w := utf8.DecodeRune(f.norm[i:])
		switch r {
		case '\n':
			fileLine++
			yl++
		case '\r', '\u0085', '\u2028', '\u2029':
			yl++
		}
		i += w
	}
	return fileLine
}

// Messages of yaml's parser (as opposed to its scanner). yaml.v3 reports the
// line of a parser error 0-based and of a scanner error 1-based.
var yamlParserErrors = []string{
	"did not find expected <stream-start>",
	"did not find expected <document start>",
	"did not find expected node content",
	"did not find expected '-' indicator",
	"did not find expected key",
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"found undefined tag handle",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found duplicate %TAG directive",
}

// yamlError turns a yaml.v3 error into a ParseError with a file line.
func (f *frontmatter) yamlError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	yl := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, tail, ok := strings.Cut(rest, ": "); ok {
			if ln, convErr := strconv.Atoi(n); convErr == nil {
				yl, msg = ln, tail
				for _, p := range yamlParserErrors {
					if msg == p {
						yl++
						break
					}
				}
			}
		}
	}
	line := f.line(yl)
	if yl == 0 {
		// yaml gives no line for a problem on the first line, nor for a
		// character it cannot read (a control character, broken UTF-8).
		line = f.badCharLine()
	}
	return &ParseError{Line: line, Err: errors.New("invalid YAML: " + msg)}
}

// badCharLine returns the file line of the first character yaml refuses to
// read, or 2 (the frontmatter's first line) when there is none.
func (f *frontmatter) badCharLine() int {
	line := 2
	for i := 0; i < len(f.norm); {
		r, w := utf8.DecodeRune(f.norm[i:])
		if r == utf8.RuneError && w == 1 || !yamlReadable(r) {
			return line
		}
		if r == '\n' {
			line++
		}
		i += w
	}
	return 2
}

// yamlReadable reports whether yaml's reader accepts r (YAML 1.1's
// printable set).
func yamlReadable(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\r', r >= 0x20 && r <= 0x7e, r == 0x85:
		return true
	case r >= 0xa0 && r <= 0xd7ff, r >= 0xe000 && r <= 0xfffd, r >= 0x10000 && r <= 0x10ffff:
		return true
	}
	return false
}

// The known fields, in the order Format writes new ones.
const (
	keyID           = "id"
	keyKind         = "kind"
	keySummary      = "summary"
	keyHighlight    = "highlight"
	keyCreated      = "created"
	keyUpdated      = "updated"
	keyLoadWhen     = "load_when"
	keyPinned       = "pinned"
	keySupersedes   = "supersedes"
	keySupersededBy = "superseded_by"
	keyProposedBy   = "proposed_by"
)

var knownKeys = []string{keyID, keyKind, keySummary, keyHighlight, keyCreated, keyUpdated, keyLoadWhen, keyPinned, keySupersedes, keySupersededBy, keyProposedBy, keyAnchors, keyVerified, keyOutdated}

func isKnown(key string) bool {
	for _, k := range knownKeys {
		if k == key {
			return true
		}
	}
	return false
}

// lookup returns the key and value nodes of a top-level field.
func lookup(doc *yaml.Node, key string) (k, v *yaml.Node) {
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if k := doc.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
			return k, doc.Content[i+1]
		}
	}
	return nil, nil
}

// decode reads the known fields from the tree, reporting every problem.
func (m *Memory) decode(f *frontmatter) error {
	var errs []error
	bad := func(n *yaml.Node, format string, args ...any) {
		errs = append(errs, &ParseError{Line: f.line(n.Line), Err: fmt.Errorf(format, args...)})
	}
	for i := 0; i+1 < len(m.doc.Content); i += 2 {
		k := m.doc.Content[i]
		if k.Kind != yaml.ScalarNode {
			continue // a complex key is never a known field
		}
		if _, ok := m.lines[k.Value]; ok {
			bad(k, "field %q appears twice", k.Value)
			continue
		}
		m.lines[k.Value] = f.line(k.Line)
		if isKnown(k.Value) {
			// The engine rewrites known fields; an anchor there would leave
			// its aliases dangling or silently change them.
			if v := m.doc.Content[i+1]; k.Anchor != "" || hasAnchor(v) {
				bad(k, "%s: anchors are not allowed on fields the engine writes", k.Value)
			}
		}
	}
	str := func(key string, dst *string) {
		_, v := lookup(m.doc, key)
		if s, ok := decodeString(v); ok {
			*dst = s
		} else {
			bad(v, "%s: want a string", key)
		}
	}
	millis := func(key string, dst *int64) {
		_, v := lookup(m.doc, key)
		if n, ok := decodeMillis(v); ok {
			*dst = n
		} else if v.Kind == yaml.ScalarNode {
			bad(v, "%s: want Unix epoch milliseconds, got %q", key, v.Value)
		} else {
			bad(v, "%s: want Unix epoch milliseconds", key)
		}
	}
	var kind string
	str(keyID, &m.ID)
	str(keyKind, &kind)
	m.Kind = Kind(kind)
	str(keySummary, &m.Summary)
	str(keyHighlight, &m.Highlight)
	millis(keyCreated, &m.Created)
	millis(keyUpdated, &m.Updated)
	if _, v := lookup(m.doc, keyLoadWhen); v != nil {
		t, bads := decodeTriggers(v)
		m.LoadWhen = t
		for _, b := range bads {
			if b == v {
				bad(b, "load_when: want a list of strings")
			} else {
				bad(b, "load_when: each trigger must be a string")
			}
		}
	}
	if _, v := lookup(m.doc, keyPinned); v != nil {
		if p, ok := decodeBool(v); ok {
			m.Pinned = p
		} else if v.Kind == yaml.ScalarNode {
			bad(v, "pinned: want true or false, got %q", v.Value)
		} else {
			bad(v, "pinned: want true or false")
		}
	}
	str(keySupersedes, &m.Supersedes)
	str(keySupersededBy, &m.SupersededBy)
	str(keyProposedBy, &m.ProposedBy)
	if _, v := lookup(m.doc, keyAnchors); v != nil {
		a, bads := decodeTriggers(v)
		m.Anchors = a
		for _, b := range bads {
			if b == v {
				bad(b, "anchors: want a list of paths")
			} else {
				bad(b, "anchors: each anchor must be a string")
			}
		}
	}
	if _, v := lookup(m.doc, keyVerified); v != nil {
		var bads []badNode
		m.Verified, bads = decodeVerified(v)
		for _, b := range bads {
			bad(b.n, "%s", b.why)
		}
	}
	if _, v := lookup(m.doc, keyOutdated); v != nil {
		var bads []badNode
		m.Outdated, bads = decodeOutdated(v)
		for _, b := range bads {
			bad(b.n, "%s", b.why)
		}
	}
	if len(errs) == 0 {
		m.decodeEnforce(f.line)
	}
	// Fields are checked in the spec's order; report in the file's.
	slices.SortStableFunc(errs, func(a, b error) int {
		return a.(*ParseError).Line - b.(*ParseError).Line
	})
	return errors.Join(errs...)
}

// The decoders below read one field's value node; a nil node (no such key)
// and a null decode to the zero value. Format uses them too, to tell whether
// a node already holds a value.

func isNull(v *yaml.Node) bool {
	return v == nil || v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null"
}

func decodeString(v *yaml.Node) (string, bool) {
	switch {
	case isNull(v):
		return "", true
	case v.Kind == yaml.ScalarNode:
		return v.Value, true
	}
	return "", false
}

func decodeMillis(v *yaml.Node) (int64, bool) {
	if isNull(v) {
		return 0, true
	}
	if v.Kind != yaml.ScalarNode {
		return 0, false
	}
	n, err := strconv.ParseInt(v.Value, 10, 64)
	return n, err == nil && n >= 0
}

func decodeBool(v *yaml.Node) (bool, bool) {
	if isNull(v) {
		return false, true
	}
	if v.Kind == yaml.ScalarNode {
		switch v.Value { // YAML 1.2's booleans
		case "true", "True", "TRUE":
			return true, true
		case "false", "False", "FALSE":
			return false, true
		}
	}
	return false, false
}

// decodeTriggers reads load_when: a list of strings, or a single string
// written inline. Triggers are trimmed; empty and null ones are dropped. It
// returns the nodes that are not strings.
func decodeTriggers(v *yaml.Node) (triggers []string, bad []*yaml.Node) {
	switch {
	case isNull(v):
	case v.Kind == yaml.ScalarNode:
		triggers = appendTrigger(nil, v.Value)
	case v.Kind == yaml.SequenceNode:
		for _, it := range v.Content {
			switch {
			case isNull(it):
			case it.Kind == yaml.ScalarNode:
				triggers = appendTrigger(triggers, it.Value)
			default:
				bad = append(bad, it)
			}
		}
	default:
		bad = append(bad, v)
	}
	return triggers, bad
}

func appendTrigger(list []string, t string) []string {
	if t = strings.TrimSpace(t); t != "" {
		list = append(list, t)
	}
	return list
}

func hasAnchor(n *yaml.Node) bool {
	if n.Anchor != "" {
		return true
	}
	for _, c := range n.Content {
		if hasAnchor(c) {
			return true
		}
	}
	return false
}

// Validate checks the fields a memory must have. wantID is the id the file's
// path implies ("" skips that check). Every problem is reported, joined, with
// the line of its key when the memory was parsed.
func (m *Memory) Validate(wantID string) error {
	var errs []error
	bad := func(key string, err error) {
		errs = append(errs, &ParseError{Line: m.lines[key], Err: err})
	}
	if m.ID == "" {
		bad(keyID, errors.New("id is missing"))
	} else {
		if c, s, ok := strings.Cut(m.ID, "/"); !ok || c == "" || s == "" {
			bad(keyID, fmt.Errorf("id %q is not <category>/<slug>", m.ID))
		}
		if wantID != "" && m.ID != wantID {
			bad(keyID, fmt.Errorf("id %q does not match the file's path (want %q)", m.ID, wantID))
		}
	}
	switch {
	case m.Kind == "":
		bad(keyKind, errors.New("kind is missing"))
	case !m.Kind.Valid():
		bad(keyKind, fmt.Errorf("kind %q is not one of %s", m.Kind, kindList()))
	}
	if strings.TrimSpace(m.Summary) == "" {
		bad(keySummary, errors.New("summary is missing"))
	}
	// Parse refuses these; a memory built in Go could still hold them, and
	// Format would write a file that does not parse.
	if m.Created < 0 {
		bad(keyCreated, fmt.Errorf("created is negative (%d)", m.Created))
	}
	if m.Updated < 0 {
		bad(keyUpdated, fmt.Errorf("updated is negative (%d)", m.Updated))
	}
	if m.Supersedes != "" && m.Supersedes == m.ID {
		bad(keySupersedes, errors.New("supersedes names the memory itself"))
	}
	if m.SupersededBy != "" && m.SupersededBy == m.ID {
		bad(keySupersededBy, errors.New("superseded_by names the memory itself"))
	}
	for _, err := range m.triggerProblems() {
		bad(keyLoadWhen, err)
	}
	return errors.Join(errs...)
}

func kindList() string {
	s := make([]string, len(Kinds))
	for i, k := range Kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}
