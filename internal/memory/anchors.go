package memory

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ocmem/ocmem/internal/anchor"
	"go.yaml.in/yaml/v3"
)

// Verified is where a memory's anchors were last known true. Commit is
// shared by every clone, so every clone agrees about the same memory;
// Digests stand in where there is no commit (a folder outside git, a clone
// that lacks the commit): each anchor's content digest as the anchor reads
// it ("sha256:<hex>").
//
// In the frontmatter:
//
//	verified:
//	  commit: 3f2a9c1e…
//	  time: 1791512014824
//	  digests:
//	    internal/api/server.go: sha256:…
//
// Fields of verified the engine does not know are kept on a rewrite.
type Verified struct {
	Commit  string
	Time    int64 // Unix epoch milliseconds
	Digests map[string]string
}

// IsZero reports a memory never verified.
func (v Verified) IsZero() bool { return v.Commit == "" && v.Time == 0 && len(v.Digests) == 0 }

func (v Verified) equal(w Verified) bool {
	return v.Commit == w.Commit && v.Time == w.Time && maps.Equal(v.Digests, w.Digests)
}

func (v Verified) clone() Verified {
	v.Digests = maps.Clone(v.Digests)
	return v
}

// writable returns v as a file can hold it: strings as valid UTF-8, empty
// digests dropped (a digest is written as a string, so an empty one would
// read back as a null).
func (v Verified) writable() Verified {
	v.Commit = strings.ToValidUTF8(v.Commit, "\uFFFD")
	var d map[string]string
	for k, s := range v.Digests {
		k, s = strings.ToValidUTF8(k, "\uFFFD"), strings.ToValidUTF8(s, "\uFFFD")
		if k == "" || s == "" {
			continue
		}
		if d == nil {
			d = map[string]string{}
		}
		if old, ok := d[k]; !ok || s < old { // two keys made one by U+FFFD: keep one, the same each time
			d[k] = s
		}
	}
	v.Digests = d
	return v
}

const (
	keyAnchors  = "anchors"
	keyVerified = "verified"

	subCommit  = "commit"
	subTime    = "time"
	subDigests = "digests"
)

// decodeVerified reads verified: a mapping, or null. It returns the nodes
// that are not of the right shape, with what each should be.
func decodeVerified(v *yaml.Node) (Verified, []badNode) {
	var out Verified
	bad := eachField(v, keyVerified, "commit, time and digests", func(k, val *yaml.Node) (bad []badNode) {
		switch k.Value {
		case subCommit:
			if s, ok := decodeString(val); ok {
				out.Commit = s
			} else {
				bad = append(bad, badNode{val, "verified.commit: want a string"})
			}
		case subTime:
			if n, ok := decodeMillis(val); ok {
				out.Time = n
			} else {
				bad = append(bad, badNode{val, "verified.time: want Unix epoch milliseconds"})
			}
		case subDigests:
			d, b := decodeDigests(val)
			out.Digests, bad = d, append(bad, b...)
		}
		return bad
	})
	return out, bad
}

// eachField calls f with each key and value of the mapping v, the
// frontmatter key name, once per key: a null v has none; v not a mapping
// (want says of what) and a key given twice are bad nodes, as are those f
// returns. Keys that are not scalars are left to the file's other checks.
func eachField(v *yaml.Node, name, want string, f func(k, val *yaml.Node) []badNode) []badNode {
	switch {
	case isNull(v):
		return nil
	case v.Kind != yaml.MappingNode:
		return []badNode{{v, name + ": want a mapping of " + want}}
	}
	var bad []badNode
	seen := map[string]bool{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if seen[k.Value] {
			bad = append(bad, badNode{k, fmt.Sprintf("%s.%s appears twice", name, k.Value)})
			continue
		}
		seen[k.Value] = true
		bad = append(bad, f(k, val)...)
	}
	return bad
}

func decodeDigests(v *yaml.Node) (map[string]string, []badNode) {
	if isNull(v) {
		return nil, nil
	}
	if v.Kind != yaml.MappingNode {
		return nil, []badNode{{v, "verified.digests: want a mapping of anchor to digest"}}
	}
	var d map[string]string
	var bad []badNode
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		key, okK := decodeString(k)
		s, okV := decodeString(val)
		switch {
		case k.Kind != yaml.ScalarNode || !okK:
			bad = append(bad, badNode{k, "verified.digests: each key must be an anchor"})
		case !okV:
			bad = append(bad, badNode{val, "verified.digests: each digest must be a string"})
		case key == "" || s == "":
		default:
			if _, dup := d[key]; dup {
				bad = append(bad, badNode{k, fmt.Sprintf("verified.digests: %q appears twice", key)})
				continue
			}
			if d == nil {
				d = map[string]string{}
			}
			d[key] = s
		}
	}
	return d, bad
}

type badNode struct {
	n   *yaml.Node
	why string
}

// verifiedNode builds the verified mapping from the parsed one (subMapping).
func (m *Memory) verifiedNode(v Verified, quote bool) *yaml.Node {
	str := func(s string, old *yaml.Node) *yaml.Node { return subString(s, old, quote) }
	return m.subMapping(keyVerified, []string{subCommit, subTime, subDigests}, map[string]func(old *yaml.Node) *yaml.Node{
		subCommit: func(old *yaml.Node) *yaml.Node { return optString(v.Commit, old, quote) },
		subTime:   func(old *yaml.Node) *yaml.Node { return optMillis(v.Time, old) },
		subDigests: func(old *yaml.Node) *yaml.Node {
			if len(v.Digests) == 0 {
				return nil
			}
			return digestsNode(v.Digests, old, str)
		},
	})
}

// subString is a string value of a sub-key: it keeps the quoting and the
// line comment of the value it replaces.
func subString(s string, old *yaml.Node, quote bool) *yaml.Node {
	node := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if old != nil && old.Kind == yaml.ScalarNode && old.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 {
		node.Style = old.Style
	}
	if quote {
		node.Style = yaml.DoubleQuotedStyle
	}
	if old != nil {
		node.LineComment = old.LineComment
	}
	return node
}

// optString is subString, or nil (the key goes) for an empty string.
func optString(s string, old *yaml.Node, quote bool) *yaml.Node {
	if s == "" {
		return nil
	}
	return subString(s, old, quote)
}

// optMillis is a time value of a sub-key, or nil for none.
func optMillis(t int64, old *yaml.Node) *yaml.Node {
	if t == 0 {
		return nil
	}
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(t, 10)}
	if old != nil {
		n.LineComment = old.LineComment
	}
	return n
}

// subMapping builds a mapping field the engine writes (verified,
// outdated) from the parsed one: every key keeps its place and comments,
// keys the engine does not own stay as they are, a known key whose value
// is now empty goes (values returns nil), and a new one is added at the
// end, in order.
func (m *Memory) subMapping(key string, order []string, values map[string]func(old *yaml.Node) *yaml.Node) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	done := map[string]bool{}
	if old := m.old(key); old != nil && old.Kind == yaml.MappingNode {
		n.Style = old.Style & yaml.FlowStyle
		for i := 0; i+1 < len(old.Content); i += 2 {
			k, val := old.Content[i], old.Content[i+1]
			build, known := values[k.Value]
			if k.Kind != yaml.ScalarNode || !known || done[k.Value] {
				n.Content = append(n.Content, cloneNode(k), cloneNode(val))
				continue
			}
			done[k.Value] = true
			if nv := build(val); nv != nil {
				n.Content = append(n.Content, cloneNode(k), nv)
			}
		}
	}
	for _, sub := range order {
		if done[sub] {
			continue
		}
		if nv := values[sub](nil); nv != nil {
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: sub}, nv)
		}
	}
	return n
}

// digestsNode builds the digests mapping: the keys as read first, in their
// order and with their comments, then new keys sorted.
func digestsNode(d map[string]string, old *yaml.Node, str func(string, *yaml.Node) *yaml.Node) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	seen := map[string]bool{}
	if old != nil && old.Kind == yaml.MappingNode {
		n.Style = old.Style & yaml.FlowStyle
		for i := 0; i+1 < len(old.Content); i += 2 {
			k := old.Content[i]
			if s, ok := d[k.Value]; ok && k.Kind == yaml.ScalarNode && !seen[k.Value] && s != "" {
				seen[k.Value] = true
				kc := cloneNode(k)
				kc.Tag = "!!str"
				n.Content = append(n.Content, kc, str(s, old.Content[i+1]))
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(d)) {
		if !seen[k] {
			n.Content = append(n.Content, str(k, nil), str(d[k], nil))
		}
	}
	return n
}

// AnchorProblems reports each anchor that cannot be checked: absolute, out
// of the project root, a bad glob or symbol, past anchor.MaxPerMemory. Unlike Validate's problems
// these do not keep a memory from loading: it is still true, only its
// anchors are left out of the staleness check.
func (m *Memory) AnchorProblems() []error {
	var errs []error
	if n := len(m.Anchors); n > anchor.MaxPerMemory {
		errs = append(errs, &ParseError{Line: m.lines[keyAnchors],
			Err: fmt.Errorf("anchors has %d anchors, over the limit of %d: the rest are not checked", n, anchor.MaxPerMemory)})
	}
	for _, a := range m.Anchors {
		if _, err := anchor.Parse(a); err != nil {
			errs = append(errs, &ParseError{Line: m.lines[keyAnchors], Err: err})
		}
	}
	for a := range m.Verified.Digests {
		if _, err := anchor.Parse(a); err != nil {
			errs = append(errs, &ParseError{Line: m.lines[keyVerified], Err: fmt.Errorf("verified.digests: %w", err)})
		}
	}
	slices.SortStableFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errs
}

// hasUnknown reports fields of the mapping key the engine does not own
// (any but known), which clearing the field must not drop with it.
func (m *Memory) hasUnknown(key string, known ...string) bool {
	v := m.old(key)
	if v == nil || v.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		if k := v.Content[i]; k.Kind != yaml.ScalarNode || !slices.Contains(known, k.Value) {
			return true
		}
	}
	return false
}
