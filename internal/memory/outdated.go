package memory

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// Outdated marks a memory judged no longer true by a model re-checking it
// against its changed code. The memory is kept, for history and for the
// person to judge: recall still finds it (ranked last, with the reason),
// injection leaves it out. A person clears the mark by verifying the
// memory, or edits or forgets it.
//
// In the frontmatter:
//
//	outdated:
//	  commit: 3f2a9c1e…       # HEAD when it was judged
//	  time: 1791512014824
//	  reason: the port is now read from PORT
//
// Fields of outdated the engine does not know are kept on a rewrite.
type Outdated struct {
	Commit string
	Time   int64 // Unix epoch milliseconds
	Reason string
}

// IsZero reports a memory not marked outdated.
func (o Outdated) IsZero() bool { return o.Commit == "" && o.Time == 0 && o.Reason == "" }

func (o Outdated) writable() Outdated {
	o.Commit = strings.ToValidUTF8(o.Commit, "\uFFFD")
	o.Reason = strings.ToValidUTF8(o.Reason, "\uFFFD")
	return o
}

const (
	keyOutdated = "outdated"
	subReason   = "reason"
)

// decodeOutdated reads outdated: a mapping, or null. It returns the nodes
// that are not of the right shape, with what each should be.
func decodeOutdated(v *yaml.Node) (Outdated, []badNode) {
	var out Outdated
	bad := eachField(v, keyOutdated, "commit, time and reason", func(k, val *yaml.Node) (bad []badNode) {
		switch k.Value {
		case subCommit, subReason:
			s, ok := decodeString(val)
			switch {
			case !ok:
				bad = append(bad, badNode{val, "outdated." + k.Value + ": want a string"})
			case k.Value == subCommit:
				out.Commit = s
			default:
				out.Reason = s
			}
		case subTime:
			if n, ok := decodeMillis(val); ok {
				out.Time = n
			} else {
				bad = append(bad, badNode{val, "outdated.time: want Unix epoch milliseconds"})
			}
		}
		return bad
	})
	return out, bad
}

// outdatedNode builds the outdated mapping from the parsed one (subMapping).
func (m *Memory) outdatedNode(o Outdated, quote bool) *yaml.Node {
	return m.subMapping(keyOutdated, []string{subCommit, subTime, subReason}, map[string]func(old *yaml.Node) *yaml.Node{
		subCommit: func(old *yaml.Node) *yaml.Node { return optString(o.Commit, old, quote) },
		subTime:   func(old *yaml.Node) *yaml.Node { return optMillis(o.Time, old) },
		subReason: func(old *yaml.Node) *yaml.Node { return optString(o.Reason, old, quote) },
	})
}
