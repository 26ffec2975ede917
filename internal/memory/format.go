package memory

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// How Format writes a changed memory
//
// A person's file is the source of truth, so a rewrite must change as few
// bytes as it can: the engine bumping "updated" must show in git as a
// one-line diff, not as a reformatted frontmatter. Format therefore
//
//  1. returns the bytes as read when no known field changed;
//  2. otherwise splices: for each changed field it replaces (or deletes) only
//     the lines of that field, and appends a new field after the last line
//     of the frontmatter. Every other byte — comments, blank lines,
//     indentation, quoting, unknown fields, line ends — stays as read;
//  3. falls back to re-encoding the whole yaml.Node tree when it cannot
//     splice (a flow mapping "{id: …}", keys not in column 1, line breaks yaml
//     counts but a file does not). yaml.v3 keeps comments, key order and
//     styles but drops blank lines and re-indents.
//
// Whatever it writes is parsed again before it is returned: the known fields
// must read back as set and every unknown field must read back unchanged.
// yaml.v3's emitter writes a few values in a form its parser reads
// differently (a folded string with a more-indented line; a literal block
// ending in blank lines, spliced before a blank line, swallows it), so each
// step has a fallback, tried in order until one reads back right: splice;
// splice with the new values double-quoted, the one style that holds any
// string; re-encode; re-encode with every string value double-quoted;
// re-encode that way without comments.

// fields is the engine-owned part of the frontmatter.
type fields struct {
	ID, Kind, Summary, Highlight, Supersedes, SupersededBy, ProposedBy string
	Created, Updated                                                   int64
	LoadWhen, Anchors                                                  []string
	Pinned                                                             bool
	Verified                                                           Verified
	Outdated                                                           Outdated
}

func (m *Memory) fields() fields {
	return fields{
		ID: m.ID, Kind: string(m.Kind), Summary: m.Summary, Highlight: m.Highlight,
		Supersedes: m.Supersedes, SupersededBy: m.SupersededBy, ProposedBy: m.ProposedBy,
		Created: m.Created, Updated: m.Updated,
		LoadWhen: slices.Clone(m.LoadWhen), Pinned: m.Pinned,
		Anchors: slices.Clone(m.Anchors), Verified: m.Verified.clone(), Outdated: m.Outdated,
	}
}

func (f fields) equal(g fields) bool {
	return f.ID == g.ID && f.Kind == g.Kind && f.Summary == g.Summary && f.Highlight == g.Highlight &&
		f.Supersedes == g.Supersedes && f.SupersededBy == g.SupersededBy && f.ProposedBy == g.ProposedBy &&
		f.Created == g.Created && f.Updated == g.Updated && f.Pinned == g.Pinned &&
		slices.Equal(f.LoadWhen, g.LoadWhen) && slices.Equal(f.Anchors, g.Anchors) && f.Verified.equal(g.Verified) &&
		f.Outdated == g.Outdated
}

// writable returns the fields as a file can hold them: YAML text is UTF-8,
// so invalid bytes become U+FFFD, and triggers are normalized as Parse
// normalizes them.
func (f fields) writable() fields {
	s := func(p *string) { *p = strings.ToValidUTF8(*p, "\uFFFD") }
	s(&f.ID)
	s(&f.Kind)
	s(&f.Summary)
	s(&f.Highlight)
	s(&f.Supersedes)
	s(&f.SupersededBy)
	s(&f.ProposedBy)
	var t []string
	for _, v := range f.LoadWhen {
		t = appendTrigger(t, strings.ToValidUTF8(v, "\uFFFD"))
	}
	f.LoadWhen = t
	var a []string
	for _, v := range f.Anchors {
		a = appendTrigger(a, strings.ToValidUTF8(v, "\uFFFD"))
	}
	f.Anchors = a
	f.Verified = f.Verified.writable()
	f.Outdated = f.Outdated.writable()
	return f
}

// Format renders the memory as a file; see the comment at the top of this
// file for how little of a parsed file it changes. A memory built in Go gets
// its fields in the order of the spec, empty ones left out. The body is
// written byte for byte. Format does not modify m.
func (m *Memory) Format() []byte {
	want := m.fields().writable()
	var b bytes.Buffer
	if m.bom {
		b.Write(bomBytes)
	}
	if m.doc == nil {
		b.WriteString("---\n")
		b.Write(m.fresh(want))
		b.WriteString("---\n")
		b.WriteString(m.Body)
		return b.Bytes()
	}
	b.Write(m.open)
	if want.equal(m.orig) {
		b.Write(m.raw)
	} else {
		b.Write(m.rewrite(want))
	}
	b.Write(m.close)
	if m.Body != "" && !bytes.HasSuffix(m.close, []byte("\n")) {
		b.WriteString(m.nl()) // the closing line ended the file
	}
	b.WriteString(m.Body)
	return b.Bytes()
}

func (m *Memory) nl() string {
	if m.crlf {
		return "\r\n"
	}
	return "\n"
}

// change is a known field to write: v is its new value node, or nil to
// remove the key.
type change struct {
	key string
	v   *yaml.Node
}

// changes lists the known fields whose value differs from what was read, in
// the order new fields are written. With quote, strings are double-quoted.
func (m *Memory) changes(want fields, quote bool) []change {
	var cs []change
	str := func(key, old, val string) {
		if old == val {
			return
		}
		if val == "" {
			cs = append(cs, change{key, nil})
			return
		}
		cs = append(cs, change{key, m.stringNode(key, val, quote)})
	}
	num := func(key string, old, val int64) {
		switch {
		case old == val:
		case val == 0:
			cs = append(cs, change{key, nil})
		default:
			cs = append(cs, change{key, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(val, 10)}})
		}
	}
	o := m.orig
	str(keyID, o.ID, want.ID)
	str(keyKind, o.Kind, want.Kind)
	str(keyProposedBy, o.ProposedBy, want.ProposedBy)
	str(keySummary, o.Summary, want.Summary)
	str(keyHighlight, o.Highlight, want.Highlight)
	num(keyCreated, o.Created, want.Created)
	num(keyUpdated, o.Updated, want.Updated)
	if !slices.Equal(o.LoadWhen, want.LoadWhen) {
		if len(want.LoadWhen) == 0 {
			cs = append(cs, change{keyLoadWhen, nil})
		} else {
			cs = append(cs, change{keyLoadWhen, m.listNode(keyLoadWhen, want.LoadWhen, quote)})
		}
	}
	if o.Pinned != want.Pinned {
		// Unpinning writes "pinned: false" rather than dropping the key:
		// the person who pinned it sees that it was unpinned.
		cs = append(cs, change{keyPinned, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(want.Pinned)}})
	}
	str(keySupersedes, o.Supersedes, want.Supersedes)
	str(keySupersededBy, o.SupersededBy, want.SupersededBy)
	if !slices.Equal(o.Anchors, want.Anchors) {
		if len(want.Anchors) == 0 {
			cs = append(cs, change{keyAnchors, nil})
		} else {
			cs = append(cs, change{keyAnchors, m.listNode(keyAnchors, want.Anchors, quote)})
		}
	}
	if !o.Verified.equal(want.Verified) {
		if want.Verified.IsZero() && !m.hasUnknown(keyVerified, subCommit, subTime, subDigests) {
			cs = append(cs, change{keyVerified, nil})
		} else {
			cs = append(cs, change{keyVerified, m.verifiedNode(want.Verified, quote)})
		}
	}
	if o.Outdated != want.Outdated {
		if want.Outdated.IsZero() && !m.hasUnknown(keyOutdated, subCommit, subTime, subReason) {
			cs = append(cs, change{keyOutdated, nil})
		} else {
			cs = append(cs, change{keyOutdated, m.outdatedNode(want.Outdated, quote)})
		}
	}
	for _, c := range cs {
		// A comment at the end of the field's line stays with it.
		if old := m.old(c.key); c.v != nil && old != nil && c.v.LineComment == "" {
			c.v.LineComment = old.LineComment
		}
	}
	return cs
}

// old returns the parsed value node of key, or nil.
func (m *Memory) old(key string) *yaml.Node {
	if m.doc == nil {
		return nil
	}
	_, v := lookup(m.doc, key)
	return v
}

// stringNode builds a string value, keeping the quoting a person chose.
func (m *Memory) stringNode(key, val string, quote bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: val}
	if old := m.old(key); old != nil && old.Kind == yaml.ScalarNode {
		switch {
		case old.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0:
			n.Style = old.Style
		case old.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 && strings.Contains(val, "\n"):
			// Literal, even for a folded original: yaml.v3 writes some
			// folded strings back wrong (a line starting with a space
			// gains a blank line before it).
			n.Style = yaml.LiteralStyle
		}
	}
	if quote {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

// listNode builds a list of strings. A flow list [a, b] stays a flow list,
// and an item that stays keeps its node, comments and quoting included.
func (m *Memory) listNode(key string, vals []string, quote bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	var items []*yaml.Node
	if old := m.old(key); old != nil && old.Kind == yaml.SequenceNode {
		n.Style = old.Style & yaml.FlowStyle
		items = old.Content
	}
	used := make([]bool, len(items))
	for _, v := range vals {
		var it *yaml.Node
		for i, o := range items {
			if !used[i] && o.Kind == yaml.ScalarNode && !isNull(o) && strings.TrimSpace(o.Value) == v {
				used[i] = true
				c := *o
				c.FootComment = "" // a trailing comment stays where it is in the file
				it = &c
				break
			}
		}
		if it == nil {
			it = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
		}
		if quote {
			it.Style = yaml.DoubleQuotedStyle
		}
		n.Content = append(n.Content, it)
	}
	return n
}

// fresh writes the frontmatter of a memory built in Go, its guards last.
func (m *Memory) fresh(want fields) []byte {
	var out []byte
	for _, quote := range []bool{false, true} {
		doc := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, c := range m.changes(want, quote) {
			if c.v != nil {
				doc.Content = append(doc.Content, keyNode(c.key, nil), c.v)
			}
		}
		if len(m.Enforce) > 0 {
			doc.Content = append(doc.Content, keyNode(keyEnforce, nil), enforceNode(m.Enforce))
		}
		if len(doc.Content) == 0 {
			return nil
		}
		out = encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{doc}}, 2, false)
		if m.verify(out, want, nil) {
			break
		}
	}
	return out
}

// rewrite writes the frontmatter of a parsed memory whose fields changed.
func (m *Memory) rewrite(want fields) []byte {
	var last []byte
	for _, quote := range []bool{false, true} {
		if out, ok := m.splice(m.changes(want, quote)); ok {
			if m.verify(out, want, m.doc) {
				return out
			}
		}
	}
	for _, level := range []reencodeLevel{asRead, quoted, bare} {
		last = m.reencode(m.changes(want, level != asRead), level)
		if m.verify(last, want, m.doc) {
			break
		}
	}
	return last
}

// verify reports whether the frontmatter fm reads back as want, with the
// unknown fields of old (if not nil) unchanged and in order.
func (m *Memory) verify(fm []byte, want fields, old *yaml.Node) bool {
	f, err := parseFrontmatter(fm)
	if err != nil {
		return false
	}
	got := &Memory{doc: f.doc, lines: map[string]int{}}
	if got.decode(f) != nil || !got.fields().equal(want) {
		return false
	}
	if old == nil {
		return len(got.EnforceProblems) == 0 && slices.Equal(got.Enforce, m.Enforce)
	}
	a, b := unknownPairs(old), unknownPairs(f.doc)
	return slices.EqualFunc(a, b, sameNode)
}

// unknownPairs lists the keys and values of the fields the engine does not
// own, in order.
func unknownPairs(doc *yaml.Node) []*yaml.Node {
	var out []*yaml.Node
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if k := doc.Content[i]; k.Kind != yaml.ScalarNode || !isKnown(k.Value) {
			out = append(out, k, doc.Content[i+1])
		}
	}
	return out
}

// sameNode reports whether two nodes hold the same data, whatever their
// style, position and comments.
func sameNode(a, b *yaml.Node) bool {
	if a.Kind != b.Kind || a.ShortTag() != b.ShortTag() || a.Anchor != b.Anchor || len(a.Content) != len(b.Content) {
		return false
	}
	if a.Value != b.Value && a.ShortTag() != "!!null" { // "", "~" and "null" are one null
		return false
	}
	for i := range a.Content {
		if !sameNode(a.Content[i], b.Content[i]) {
			return false
		}
	}
	return true
}

func keyNode(key string, old *yaml.Node) *yaml.Node {
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}
	if old != nil {
		k.Style, k.LineComment = old.Style, old.LineComment
	}
	return k
}

// encode writes a document. indent is the indentation of a block list under
// its key; compact writes such a list's dashes in the key's column.
func encode(root *yaml.Node, indent int, compact bool) []byte {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(indent)
	if compact {
		enc.CompactSeqIndent()
	}
	if err := enc.Encode(root); err != nil {
		// The tree came from yaml's decoder or from the builders above,
		// with valid UTF-8 only: a failure is a bug, not bad input.
		panic("memory: encode frontmatter: " + err.Error())
	}
	enc.Close()
	out := b.Bytes()
	if bytes.Equal(out, []byte("{}\n")) {
		return nil
	}
	return out
}

// splice applies the changes to the frontmatter's bytes line by line. It
// reports false when the frontmatter's shape does not allow it.
func (m *Memory) splice(cs []change) ([]byte, bool) {
	if m.doc.Style&yaml.FlowStyle != 0 {
		return nil, false
	}
	norm := bytes.ReplaceAll(m.raw, []byte("\r\n"), []byte("\n"))
	if bytes.ContainsAny(norm, "\r\u0085\u2028\u2029") {
		return nil, false // yaml's line numbers would not be line indexes
	}
	lines := bytes.SplitAfter(m.raw, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	// Each top-level key starts a line; its field runs to the next key.
	n := len(m.doc.Content) / 2
	starts := make([]int, n+1)
	for i := 0; i < n; i++ {
		k := m.doc.Content[2*i]
		starts[i] = k.Line - 1
		if k.Column != 1 || k.Line < 1 || i > 0 && starts[i] <= starts[i-1] {
			return nil, false
		}
	}
	starts[n] = len(lines)
	if n > 0 && starts[n-1] >= len(lines) {
		return nil, false
	}

	type edit struct {
		start, end int
		text       []byte
	}
	var edits []edit
	var tail []byte
	for _, c := range cs {
		i := -1
		for j := 0; j < n; j++ {
			if k := m.doc.Content[2*j]; k.Kind == yaml.ScalarNode && k.Value == c.key {
				i = j
				break
			}
		}
		var text []byte
		if c.v != nil {
			var oldKey, oldVal *yaml.Node
			if i >= 0 {
				oldKey, oldVal = m.doc.Content[2*i], m.doc.Content[2*i+1]
			}
			text = m.entry(c.key, oldKey, oldVal, c.v)
		}
		if i < 0 {
			tail = append(tail, text...)
			continue
		}
		start := starts[i]
		end := m.fieldEnd(lines, start, starts[i+1], c.key, m.doc.Content[2*i+1])
		edits = append(edits, edit{start, end, text})
	}
	slices.SortFunc(edits, func(a, b edit) int { return a.start - b.start })

	var out []byte
	at := 0
	for _, e := range edits {
		out = append(out, bytes.Join(lines[at:e.start], nil)...)
		out = append(out, e.text...)
		at = e.end
	}
	out = append(out, bytes.Join(lines[at:], nil)...)
	out = append(out, tail...)
	return out, true
}

// fieldEnd returns the end (exclusive line index) of the field starting at
// line start, before the next key at limit. Blank and comment lines at its
// end belong to what follows (a head comment, a foot comment) and stay,
// unless the field's value needs them (a block scalar keeping its trailing
// newlines, a quoted string whose last line starts with "#"). Which lines the
// value needs is decided by parsing the field alone and comparing values.
func (m *Memory) fieldEnd(lines [][]byte, start, limit int, key string, v *yaml.Node) int {
	same := func(end int) bool {
		f, err := parseFrontmatter(bytes.Join(lines[start:end], nil))
		if err != nil {
			return false
		}
		_, pv := lookup(f.doc, key)
		return pv != nil && sameNode(v, pv)
	}
	shortest := limit
	for shortest-1 > start && blankOrComment(lines[shortest-1]) {
		shortest--
	}
	if shortest == limit || same(shortest) {
		return shortest // the usual case, one parse
	}
	// Give back trailing lines one at a time, while the value stays the
	// same. The bound keeps a pathological file from costing a parse per
	// line; past it the lines are replaced with the field, and Format's
	// check still holds.
	end := limit
	for i := 0; i < 64 && end-1 > shortest && same(end-1); i++ {
		end--
	}
	return end
}

func blankOrComment(line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	t = bytes.TrimRight(t, " \t\r\n")
	return len(t) == 0 || t[0] == '#'
}

// entry renders one "key: value" field in the file's line ends, its list
// indented as the old one was.
func (m *Memory) entry(key string, oldKey, oldVal, v *yaml.Node) []byte {
	indent, compact := 2, false
	if oldVal != nil && oldVal.Kind == yaml.SequenceNode && oldVal.Style&yaml.FlowStyle == 0 && len(oldVal.Content) > 0 {
		// A block list's column is its first dash's. yaml.v3 writes the
		// dashes indent spaces in, or indent-2 when compact.
		switch spaces := oldVal.Column - 1; {
		case spaces < 2:
			indent, compact = spaces+2, true
		case spaces <= 9:
			indent = spaces
		}
	}
	doc := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{keyNode(key, oldKey), v}}
	out := encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{doc}}, indent, compact)
	if m.crlf {
		out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
	}
	return out
}

// How much of a tree's style reencode gives up to write it back faithfully.
type reencodeLevel int

const (
	asRead reencodeLevel = iota // styles and comments as read
	quoted                      // every string double-quoted: yaml.v3 writes some folded ones back wrong
	bare                        // quoted, and no comments: the last resort
)

// reencode applies the changes to a copy of the tree and encodes it whole.
func (m *Memory) reencode(cs []change, level reencodeLevel) []byte {
	root := cloneNode(m.root)
	doc := root.Content[0]
	for _, c := range cs {
		i := -1
		for j := 0; j+1 < len(doc.Content); j += 2 {
			if k := doc.Content[j]; k.Kind == yaml.ScalarNode && k.Value == c.key {
				i = j
				break
			}
		}
		switch {
		case i < 0 && c.v != nil:
			doc.Content = append(doc.Content, keyNode(c.key, nil), c.v)
		case i >= 0 && c.v == nil:
			doc.Content = slices.Delete(doc.Content, i, i+2)
		case i >= 0:
			old := doc.Content[i+1]
			c.v.HeadComment, c.v.FootComment = old.HeadComment, old.FootComment
			doc.Content[i+1] = c.v
		}
	}
	fixNulls(root, false, false)
	if level >= quoted {
		walk(root, false, func(n *yaml.Node, isKey bool) {
			if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && (!isKey || level >= bare) {
				n.Style = yaml.DoubleQuotedStyle
			}
			if level >= bare {
				n.HeadComment, n.LineComment, n.FootComment = "", "", ""
			}
		})
	}
	out := encode(root, 2, false)
	if m.crlf {
		out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
	}
	return out
}

func cloneNode(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, ch := range n.Content {
		c.Content[i] = cloneNode(ch)
	}
	return &c
}

// walk calls fn on n and every node below it, telling mapping keys apart.
func walk(n *yaml.Node, isKey bool, fn func(n *yaml.Node, isKey bool)) {
	fn(n, isKey)
	for i, c := range n.Content {
		walk(c, n.Kind == yaml.MappingNode && i%2 == 0, fn)
	}
}

// fixNulls spells out the empty nulls yaml.v3 cannot write back: as a key,
// or inside a flow collection ("{a: }"), it writes them as an empty quoted
// string, turning a null into a string.
func fixNulls(n *yaml.Node, inFlow, isKey bool) {
	if (inFlow || isKey) && n.Kind == yaml.ScalarNode && n.Value == "" && n.ShortTag() == "!!null" {
		n.Value = "null"
	}
	inFlow = inFlow || n.Style&yaml.FlowStyle != 0
	for i, c := range n.Content {
		fixNulls(c, inFlow, n.Kind == yaml.MappingNode && i%2 == 0)
	}
}
