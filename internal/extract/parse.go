package extract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ocmem/ocmem/internal/memory"
)

// Candidate is one memory the model proposes.
type Candidate struct {
	Category   string   `json:"category"`
	Kind       string   `json:"kind"`
	Summary    string   `json:"summary"`
	Highlight  string   `json:"highlight,omitempty"`
	LoadWhen   triggers `json:"load_when,omitempty"`
	Body       string   `json:"body,omitempty"`
	Supersedes string   `json:"supersedes,omitempty"`
	// Scope is "user" for the person's own preferences about how the agent
	// works (they go to the global root), "project" or none for the
	// project's; normalize makes it "global" or "".
	Scope string `json:"scope,omitempty"`
	// Enforce is, for a rule, the tool calls that break it (an enforce
	// block, as memory.ParseEnforce reads it); normalize reads it into
	// guards, and the rule is stored as a proposal whose guards stop
	// nothing until a person accepts it.
	Enforce json.RawMessage `json:"enforce,omitempty"`

	notes  []string // what normalize changed, for the log
	guards []memory.Guard
}

// triggers decodes load_when from a list of strings or, as small models
// sometimes write it, one comma-separated string. A list of pairs
// ([["deploy", "部署"]], one trigger in both languages) is flattened.
type triggers []string

func (t *triggers) UnmarshalJSON(b []byte) error {
	var list []any
	if err := json.Unmarshal(b, &list); err == nil {
		t.flatten(list, 0)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New("load_when is neither a list nor a string")
	}
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '，' || r == ';' || r == '；' || r == '\n' }) {
		*t = append(*t, p)
	}
	return nil
}

// flatten appends the strings of a list and of the lists in it, one level
// down: a trigger is never more nested than a pair.
func (t *triggers) flatten(list []any, depth int) {
	for _, v := range list {
		switch x := v.(type) {
		case string:
			*t = append(*t, x)
		case []any:
			if depth == 0 {
				t.flatten(x, depth+1)
			}
		}
	}
}

// parsed is what a model's reply held.
type parsed struct {
	Candidates []Candidate
	Invalid    []string // why each unusable element was dropped
	Partial    bool     // the JSON was cut off; the complete elements were kept
	Nothing    bool     // the model answered that nothing is worth remembering
}

var errNoJSON = errors.New("no JSON object with a memories list in the reply")

// maxStarts bounds the positions parseReply tries a JSON value at, so a
// long prose reply full of braces costs linear time, not quadratic.
const maxStarts = 64

// parseReply finds the model's answer in its reply. Small models think
// aloud, quote the empty answer while deciding, write a draft and then a
// corrected version, and write JSON by hand; so reasoning blocks are
// dropped, the last complete "memories" value is the answer, and a value
// that does not decode is repaired (trailing commas, raw control
// characters and unescaped quotes in strings) and, failing that, read one
// element at a time, so that a malformed element loses only itself. A
// reply cut off mid-list keeps its complete elements. A reply without
// JSON that says there is nothing to remember is an empty answer; any
// other is an error, and nothing is written.
func parseReply(text string) (parsed, error) {
	text = stripReasoning(strings.TrimPrefix(text, "\ufeff"))
	if strings.TrimSpace(text) == "[]" {
		return parsed{Nothing: true}, nil
	}
	if p, ok := lastMemories(text); ok {
		p.Nothing = len(p.Candidates) == 0 && len(p.Invalid) == 0 && !p.Partial
		return p, nil
	}
	// A bare list of objects, without the "memories" key.
	starts := 0
	for i := 0; i < len(text) && starts < maxStarts; i++ {
		if text[i] != '{' && text[i] != '[' {
			continue
		}
		starts++
		if p, ok := parseAt(text, i); ok {
			return p, nil
		}
	}
	if saysNothing(text) {
		return parsed{Nothing: true}, nil
	}
	return parsed{}, errNoJSON
}

// reasoningTags are the tags models wrap their thinking in.
var reasoningTags = []string{"think", "thinking", "thought", "reasoning", "reflection", "analysis"}

// stripReasoning removes reasoning blocks: what a model weighs on the way
// to its answer (often the empty answer, or a draft) is not the answer. A
// closing tag without its opening (providers that strip the opening one)
// drops everything before it; an opening tag never closed (a reply cut
// off while thinking) drops everything after it.
func stripReasoning(text string) string {
	for _, tag := range reasoningTags {
		text = stripTag(text, "<"+tag+">", "</"+tag+">")
	}
	return text
}

func stripTag(text, open, closing string) string {
	lower := strings.ToLower(text) // the tags are ASCII: offsets agree
	if len(lower) != len(text) || !strings.Contains(lower, open) && !strings.Contains(lower, closing) {
		return text
	}
	var b strings.Builder
	for {
		i := strings.Index(lower, open)
		if j := strings.Index(lower, closing); j >= 0 && (i < 0 || j < i) {
			// A closing tag first: everything before it was reasoning.
			text, lower = text[j+len(closing):], lower[j+len(closing):]
			b.Reset()
			continue
		}
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:i])
		j := strings.Index(lower[i:], closing)
		if j < 0 {
			return b.String()
		}
		text, lower = text[i+j+len(closing):], lower[i+j+len(closing):]
	}
}

// nothingRe matches a reply saying, in prose, that nothing is worth
// remembering.
var nothingRe = regexp.MustCompile(`(?i)\b(?:nothing|no (?:new |durable )?(?:memories|facts|information))\b[^.\n]{0,60}\b(?:worth|to|should be|needs? to be) (?:remember|keep|sav|stor|record)|\bnot? (?:find |see )?anything (?:\w+ )?worth (?:remember|keep|sav)|没有(?:什么|任何)?(?:值得|需要|可以)(?:记|保存|保留)`)

// maxNothingBytes bounds a prose reply read as "nothing to remember": a
// long one is more likely an answer gone wrong than a verdict.
const maxNothingBytes = 2000

func saysNothing(text string) bool { return len(text) < maxNothingBytes && nothingRe.MatchString(text) }

// lastMemories returns the last "memories" value of the text that reads
// complete, trying each object holding the key from the end; when none
// does, the complete elements of the last one (a reply cut off).
func lastMemories(text string) (parsed, bool) {
	var keys []int
	for i := 0; ; {
		j := strings.Index(text[i:], `"memories"`)
		if j < 0 {
			break
		}
		keys = append(keys, i+j)
		i += j + 1
	}
	if len(keys) > maxStarts {
		keys = keys[len(keys)-maxStarts:]
	}
	var partial *parsed
	for k := len(keys) - 1; k >= 0; k-- {
		open := strings.LastIndexByte(text[:keys[k]], '{')
		if open < 0 {
			continue
		}
		if p, ok := parseAt(text, open); ok {
			return p, true
		}
		fixed, _ := repair(text[open:])
		if p, ok := parseAt(fixed, 0); ok {
			return p, true
		}
		p, ok := elements(fixed)
		if ok && !p.Partial {
			return p, true
		}
		if ok && partial == nil {
			partial = &p
		}
	}
	if partial != nil {
		return *partial, true
	}
	return parsed{}, false
}

// parseAt decodes the JSON value at text[i:] (ignoring what follows it) and
// reads its list of memories.
func parseAt(text string, i int) (parsed, bool) {
	var raw json.RawMessage
	if json.NewDecoder(strings.NewReader(text[i:])).Decode(&raw) != nil {
		return parsed{}, false
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return parsed{}, false
	}
	list, ok := memoriesList(v, raw)
	if !ok {
		return parsed{}, false
	}
	var p parsed
	for _, raw := range list {
		p.add(raw)
	}
	return p, true
}

// memoriesList finds the list of memories in a decoded value v, whose
// text is raw: {"memories": [...]} or a bare [...] of objects. Each
// element is returned as written, so the keys of an object in it keep
// their order (an enforce block's patterns: the last match decides).
func memoriesList(v any, raw json.RawMessage) ([]json.RawMessage, bool) {
	var list []any
	switch x := v.(type) {
	case map[string]any:
		m, present := x["memories"]
		l, ok := m.([]any)
		if !ok && !(present && m == nil) { // "memories": null is an empty list
			return nil, false
		}
		list = l
	case []any:
		if len(x) == 0 {
			return nil, false // "[]" in prose says nothing
		}
		for _, e := range x {
			if _, ok := e.(map[string]any); !ok {
				return nil, false
			}
		}
		list = x
	default:
		return nil, false
	}
	var out []json.RawMessage
	if _, isList := v.([]any); isList {
		_ = json.Unmarshal(raw, &out) // decoded as any already: cannot fail
	} else {
		var obj map[string]json.RawMessage
		_ = json.Unmarshal(raw, &obj)
		_ = json.Unmarshal(obj["memories"], &out)
	}
	if len(out) != len(list) {
		return nil, false
	}
	return out, true
}

// elements reads the "memories" list of a repaired object one element at
// a time: an element that does not decode is reported and skipped, and a
// list cut off keeps its complete elements (Partial).
func elements(s string) (parsed, bool) {
	key := strings.Index(s, `"memories"`)
	if key < 0 {
		return parsed{}, false
	}
	rest := strings.TrimLeft(s[key+len(`"memories"`):], " \t\r\n")
	if !strings.HasPrefix(rest, ":") {
		return parsed{}, false
	}
	rest = strings.TrimLeft(rest[1:], " \t\r\n")
	if !strings.HasPrefix(rest, "[") {
		return parsed{}, false
	}
	var p parsed
	i := 1
	for {
		for i < len(rest) && strings.IndexByte(" \t\r\n,", rest[i]) >= 0 {
			i++
		}
		if i == len(rest) {
			p.Partial = true
			break
		}
		if rest[i] == ']' {
			break
		}
		end, ok := valueEnd(rest, i)
		if !ok {
			p.Partial = true
			break
		}
		if end == i {
			// A stray '}' left by the element before, which did not
			// decode: part of that element, not one of its own.
			i++
			continue
		}
		p.add(json.RawMessage(rest[i:end]))
		i = end
	}
	return p, len(p.Candidates)+len(p.Invalid) > 0 || !p.Partial
}

// valueEnd returns the end of the list element at s[i:]: the first ',' or
// ']' outside strings and brackets. ok is false when the text ends first.
func valueEnd(s string, i int) (int, bool) {
	depth := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
			if i >= len(s) {
				return 0, false
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i, true
			}
			depth--
		case ',':
			if depth == 0 {
				return i, true
			}
		}
	}
	return 0, false
}

func (p *parsed) add(raw json.RawMessage) {
	var c Candidate
	if err := json.Unmarshal(raw, &c); err != nil {
		p.Invalid = append(p.Invalid, fmt.Sprintf("%s: %v", clipRunes(string(raw), 80), err))
		return
	}
	p.Candidates = append(p.Candidates, c)
}

// Bounds on a candidate's fields. A memory is a note: a trigger is a word
// or a short phrase, and the prompt asks for a body of 2 to 5 sentences;
// maxBodyRunes leaves room for a command or two beside them, and a longer
// body is cut at the end of a sentence.
const (
	maxTriggers     = 12
	maxTriggerRunes = 80
	maxBodyRunes    = 1200
)

// kindSynonyms maps the kinds small models answer with, outside the five,
// to the nearest one. The prompt lists conventions as worth keeping, and a
// convention is a decision the project made.
var kindSynonyms = map[string]memory.Kind{
	"convention": memory.KindDecision, "conventions": memory.KindDecision, "practice": memory.KindDecision,
	"guideline": memory.KindDecision, "workflow": memory.KindDecision, "process": memory.KindDecision,
	"architecture": memory.KindDecision, "design": memory.KindDecision, "decisions": memory.KindDecision,
	"gotcha": memory.KindPitfall, "caveat": memory.KindPitfall, "bug": memory.KindPitfall, "lesson": memory.KindPitfall,
	"warning": memory.KindPitfall, "pitfalls": memory.KindPitfall, "issue": memory.KindPitfall,
	"preferences": memory.KindPreference, "user preference": memory.KindPreference, "style": memory.KindPreference,
	"habit": memory.KindPreference,
	"facts": memory.KindFact, "knowledge": memory.KindFact, "info": memory.KindFact, "note": memory.KindFact,
	"context": memory.KindFact, "setup": memory.KindFact,
	"rules": memory.KindRule, "constraint": memory.KindRule, "policy": memory.KindRule,
}

// explicitRule matches a summary that states a hard rule ("never …",
// "always …", "禁止…"): whatever kind the model gave it, it goes through a
// person's review as a rule proposal, as the prompt's "rule" would.
var explicitRule = regexp.MustCompile(`(?i)^(?:never|always|do not|don't|must not|must never|you must)\b|^(?:永远不要|永远不|绝不|禁止|不许|不准|严禁|一律|始终要|必须)`)

// normalize checks a candidate and fills in what can be inferred: the kind
// in lower case (or the nearest of the five, noted), the category from the
// kind when the model's is not one of the configured categories, triggers
// trimmed, deduplicated and bounded, the scope, the body cut to bounds.
// c.notes says what was changed, for the log.
func normalize(c Candidate, categories []string) (Candidate, error) {
	c.Summary = strings.Join(strings.Fields(c.Summary), " ")
	c.Highlight = strings.TrimSpace(c.Highlight)
	c.Body = strings.TrimSpace(c.Body)
	c.Supersedes = strings.TrimSpace(c.Supersedes)
	c.Kind = strings.ToLower(strings.TrimSpace(c.Kind))
	c.Category = strings.ToLower(strings.TrimSpace(c.Category))
	c.notes = nil
	if c.Summary == "" {
		return c, errors.New("no summary")
	}
	if k, ok := kindSynonyms[c.Kind]; ok {
		c.notes = append(c.notes, fmt.Sprintf("kind %q read as %q", c.Kind, k))
		c.Kind = string(k)
	}
	if !memory.Kind(c.Kind).Valid() {
		return c, fmt.Errorf("kind %q is not one of rule, preference, decision, pitfall, fact", c.Kind)
	}
	if (c.Kind == string(memory.KindFact) || c.Kind == string(memory.KindDecision)) && explicitRule.MatchString(c.Summary) {
		c.notes = append(c.notes, fmt.Sprintf("kind %q read as \"rule\": the summary states a hard rule, which a person reviews", c.Kind))
		c.Kind, c.Category = string(memory.KindRule), ""
	}
	if err := c.readGuards(); err != nil {
		return c, err
	}
	if !slices.Contains(categories, c.Category) {
		def := kindCategory[memory.Kind(c.Kind)]
		if !slices.Contains(categories, def) {
			return c, fmt.Errorf("category %q is not one of %s", c.Category, strings.Join(categories, ", "))
		}
		c.Category = def
	}
	scope, err := candidateScope(c.Scope)
	if err != nil {
		c.notes = append(c.notes, err.Error())
	}
	c.Scope = scope
	var ts []string
	for _, t := range c.LoadWhen {
		t = strings.Join(strings.Fields(t), " ")
		if t == "" || utf8.RuneCountInString(t) > maxTriggerRunes || slices.ContainsFunc(ts, func(x string) bool { return strings.EqualFold(x, t) }) {
			continue
		}
		ts = append(ts, t)
		if len(ts) == maxTriggers {
			break
		}
	}
	c.LoadWhen = ts
	if n := utf8.RuneCountInString(c.Body); n > maxBodyRunes {
		c.Body = clipSentences(c.Body, maxBodyRunes)
		c.notes = append(c.notes, fmt.Sprintf("body of %d characters cut to %d", n, utf8.RuneCountInString(c.Body)))
	}
	return c, nil
}

// readGuards reads the candidate's enforce block into c.guards: only a
// rule carries one, and a block with any entry a file would leave out is
// refused whole, as the model's memory_remember refuses it.
func (c *Candidate) readGuards() error {
	c.guards = nil
	if len(c.Enforce) == 0 || string(c.Enforce) == "null" {
		return nil
	}
	if c.Kind != string(memory.KindRule) {
		return fmt.Errorf("enforce is for a rule only: a %s stops nothing", c.Kind)
	}
	gs, err := memory.ParseEnforce(c.Enforce)
	if err != nil {
		return err
	}
	c.guards = gs
	return nil
}

// candidateScope reads the answer's scope: "user" (or "global", "personal")
// is the person's own global root, "project" (or none) the project's. An
// unknown value is read as none, and said.
func candidateScope(s string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "user", "global", "personal":
		return "global", nil
	case "project", "":
		return "", nil
	}
	return "", fmt.Errorf("scope %q is not user or project; read as project", clipRunes(s, 20))
}

// clipSentences cuts s to at most n runes, at the end of its last sentence
// that fits, or mid-sentence with an ellipsis when none does.
func clipSentences(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	for i := n - 1; i > n/3; i-- {
		switch r[i] {
		case '。', '！', '？', '\n':
			return strings.TrimSpace(string(r[:i+1]))
		case '.', '!', '?':
			if i+1 < len(r) && unicode.IsSpace(r[i+1]) {
				return strings.TrimSpace(string(r[:i+1]))
			}
		}
	}
	return string(r[:n]) + "…"
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// compactJSON is v on one line, for the log.
func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(b.String())
}
