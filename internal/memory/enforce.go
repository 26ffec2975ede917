package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The enforce block: what a hard rule stops
//
// A kind: rule memory may say which tool calls break it, in the shape of
// OpenCode's own `permission` setting, so a person writes what they already
// know:
//
//	enforce:
//	  bash:
//	    "git push --force*": deny
//	  edit: { "dist/**": ask }
//	  webfetch: deny            # every call of the tool
//
// A tool maps to patterns and each pattern to an action, or straight to an
// action (the pattern "*"). The block is the person's: the engine never
// writes it, so a rewrite keeps it byte for byte like any field it does not
// own, and writes one only into a new file: a rule a model or extraction
// proposes with its guards (ParseEnforce reads them, by the same rules as
// a file's block). A block that is wrong does not make the file unreadable: the rule
// still reaches the model as text, the wrong entries are left out of what
// it enforces, and each is reported with its line (EnforceProblems), so a
// typo costs a guard, never the rule. A block on a memory of another kind
// enforces nothing and is reported too; a rule-proposal may carry one,
// which binds once a person accepts the proposal.

// Action is what a guard does with a call it matches.
type Action string

const (
	// ActionDeny stops the call.
	ActionDeny Action = "deny"
	// ActionAsk lets the person decide, where the OpenCode line can ask.
	ActionAsk Action = "ask"
	// ActionAllow lets a call through that an earlier pattern of the same
	// tool in the same rule would stop: the last matching pattern decides,
	// as in OpenCode's permission setting.
	ActionAllow Action = "allow"
)

// Guard is one pattern of an enforce block.
type Guard struct {
	Tool    string `json:"tool"`
	Pattern string `json:"pattern"`
	Action  Action `json:"action"`
}

// Limits of an enforce block: a rule guards a few commands and paths, and a
// block much larger than that is a mistake to report, not a policy to run
// on every tool call.
const (
	MaxGuards       = 64
	MaxGuardPattern = 512
)

const keyEnforce = "enforce"

// AllTools is the pattern of a tool given an action directly (`webfetch:
// deny`): every call.
const AllTools = "*"

// decodeEnforce reads the enforce block, if any, into m.Enforce and reports
// what it leaves out in m.EnforceProblems.
// line turns a node's line into the file's (0: no line to report).
func (m *Memory) decodeEnforce(line func(yamlLine int) int) {
	key, v := lookup(m.doc, keyEnforce)
	if v == nil {
		return
	}
	bad := func(n *yaml.Node, format string, args ...any) {
		m.EnforceProblems = append(m.EnforceProblems, ParseError{Line: line(n.Line), Err: fmt.Errorf("enforce: "+format, args...)})
	}
	switch {
	case isNull(v):
		return
	case m.Kind != KindRule && m.Kind != KindRuleProposal:
		bad(key, "only a kind: rule memory enforces; this %s stops nothing", kindOrNone(m.Kind))
		return
	case v.Kind != yaml.MappingNode:
		bad(v, "want a mapping of tool names to patterns (as OpenCode's permission setting)")
		return
	}
	tools := map[string]bool{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, pats := v.Content[i], v.Content[i+1]
		tool, ok := guardKey(k)
		switch {
		case !ok:
			bad(k, "a tool name must be a non-empty string")
			continue
		case tools[tool]:
			bad(k, "tool %q appears twice", tool)
			continue
		}
		tools[tool] = true
		if pats.Kind == yaml.ScalarNode && !isNull(pats) {
			m.addGuard(bad, pats, tool, AllTools, pats)
			continue
		}
		if pats.Kind != yaml.MappingNode {
			bad(pats, "%s: want an action (deny, ask, allow) or a mapping of patterns to actions", tool)
			continue
		}
		seen := map[string]bool{}
		for j := 0; j+1 < len(pats.Content); j += 2 {
			pk, act := pats.Content[j], pats.Content[j+1]
			pat, ok := guardKey(pk)
			switch {
			case !ok:
				bad(pk, "%s: a pattern must be a non-empty string", tool)
				continue
			case seen[pat]:
				bad(pk, "%s: pattern %q appears twice", tool, pat)
				continue
			}
			seen[pat] = true
			m.addGuard(bad, act, tool, pat, pk)
		}
	}
}

// ParseEnforce reads an enforce block given apart from a file — the JSON
// object a model passes for a rule it proposes — by the rules a file's
// block is read by, kind rule-proposal. Where a file keeps the rule and
// leaves a wrong entry out, a block given apart is all or nothing: every
// entry that would be left out is an error, joined, and no guard is
// returned. An empty or null block is no guards; text that is not JSON
// (YAML's anchors and aliases included) is refused.
func ParseEnforce(data []byte) ([]Guard, error) {
	if !json.Valid(data) {
		return nil, errors.New("enforce: not a JSON object")
	}
	var root yaml.Node // JSON is YAML: read by the file's rules
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("enforce: %w", err)
	}
	if len(root.Content) == 0 {
		return nil, nil
	}
	m := &Memory{Kind: KindRuleProposal, doc: &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{keyNode(keyEnforce, nil), root.Content[0]}}}
	m.decodeEnforce(func(int) int { return 0 }) // one line of JSON: a line says nothing
	if len(m.EnforceProblems) > 0 {
		errs := make([]error, len(m.EnforceProblems))
		for i := range m.EnforceProblems {
			errs[i] = &m.EnforceProblems[i]
		}
		return nil, errors.Join(errs...)
	}
	return m.Enforce, nil
}

// enforceNode is the enforce block of guards as Format writes it: one
// mapping of patterns per tool, in the order the tools first appear, each
// pattern double-quoted (a glob's "*" would start a YAML alias).
func enforceNode(gs []Guard) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	pats := map[string]*yaml.Node{}
	for _, g := range gs {
		p := pats[g.Tool]
		if p == nil {
			p = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			pats[g.Tool] = p
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: g.Tool}, p)
		}
		p.Content = append(p.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: g.Pattern, Style: yaml.DoubleQuotedStyle},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: string(g.Action)})
	}
	return n
}

// addGuard appends one guard whose action node is act; at locates the
// pattern for a report.
func (m *Memory) addGuard(bad func(*yaml.Node, string, ...any), act *yaml.Node, tool, pat string, at *yaml.Node) {
	a := Action("")
	if act.Kind == yaml.ScalarNode && act.Tag != "!!null" {
		a = Action(act.Value)
	}
	switch {
	case a != ActionDeny && a != ActionAsk && a != ActionAllow:
		bad(act, "%s %q: want deny, ask or allow, got %s", tool, pat, describeNode(act))
	case len(pat) > MaxGuardPattern:
		bad(at, "%s: a pattern of %d bytes is over the %d-byte limit", tool, len(pat), MaxGuardPattern)
	case len(m.Enforce) == MaxGuards:
		bad(at, "more than %d patterns; the rest are left out", MaxGuards)
	default:
		m.Enforce = append(m.Enforce, Guard{Tool: tool, Pattern: pat, Action: a})
	}
}

// guardKey reads a tool name or a pattern: a scalar of visible text.
func guardKey(k *yaml.Node) (string, bool) {
	if k.Kind != yaml.ScalarNode || isNull(k) {
		return "", false
	}
	s := k.Value
	return s, strings.TrimSpace(s) != "" && !strings.ContainsAny(s, "\n\r\x00")
}

func describeNode(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.ScalarNode && !isNull(n):
		return fmt.Sprintf("%q", n.Value)
	case n.Kind == yaml.AliasNode:
		return "an alias"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	}
	return "nothing"
}

func kindOrNone(k Kind) string {
	if k == "" {
		return "memory without a kind"
	}
	return string(k)
}
