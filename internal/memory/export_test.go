package memory

import (
	"slices"

	"go.yaml.in/yaml/v3"
)

// SameUnknownFields reports whether two parsed memories hold the same
// fields the engine does not own, in the same order, whatever their style.
func SameUnknownFields(a, b *Memory) bool {
	if a.doc == nil || b.doc == nil {
		return a.doc == b.doc || len(unknownPairs(a.docOrEmpty())) == 0 && len(unknownPairs(b.docOrEmpty())) == 0
	}
	return slices.EqualFunc(unknownPairs(a.doc), unknownPairs(b.doc), sameNode)
}

func (m *Memory) docOrEmpty() *yaml.Node {
	if m.doc == nil {
		return &yaml.Node{Kind: yaml.MappingNode}
	}
	return m.doc
}

// WritableVerified is Verified as a file holds it.
func WritableVerified(v Verified) Verified { return v.writable() }
