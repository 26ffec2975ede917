package extract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
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
}

// triggers decodes load_when from a list of strings or, as small models
// sometimes write it, one comma-separated string.
type triggers []string

func (t *triggers) UnmarshalJSON(b []byte) error {
	var list []any
	if err := json.Unmarshal(b, &list); err == nil {
		for _, v := range list {
			if s, ok := v.(string); ok {
				*t = append(*t, s)
			}
		}
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

// parsed is what a model's reply held.
type parsed struct {
	Candidates []Candidate
	Invalid    []string // why each unusable element was dropped
	Partial    bool     // the JSON was cut off; the complete elements were kept
}

var errNoJSON = errors.New("no JSON object with a memories list in the reply")

// maxStarts bounds the positions parseReply tries a JSON value at, so a
// long prose reply full of braces costs linear time, not quadratic; past
// it, the "memories" key is looked for directly.
const maxStarts = 64

// parseReply reads the model's answer tolerantly: the JSON object may sit
// in a code fence or among prose, the list may come bare, and a reply cut
// off mid-list keeps its complete elements. Anything else is an error and
// nothing is written.
func parseReply(text string) (parsed, error) {
	text = strings.TrimPrefix(text, "\ufeff")
	if strings.TrimSpace(text) == "[]" {
		return parsed{}, nil
	}
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
	// Past maxStarts, or the object is cut off: go to the "memories" key.
	key := strings.Index(text, `"memories"`)
	if key < 0 {
		return parsed{}, errNoJSON
	}
	if open := strings.LastIndexByte(text[:key], '{'); open >= 0 {
		if p, ok := parseAt(text, open); ok {
			return p, nil
		}
	}
	if p, ok := salvage(text[key+len(`"memories"`):]); ok {
		return p, nil
	}
	return parsed{}, errNoJSON
}

// parseAt decodes the JSON value at text[i:] (ignoring what follows it) and
// reads its list of memories.
func parseAt(text string, i int) (parsed, bool) {
	var v any
	if json.NewDecoder(strings.NewReader(text[i:])).Decode(&v) != nil {
		return parsed{}, false
	}
	list, ok := memoriesList(v)
	if !ok {
		return parsed{}, false
	}
	var p parsed
	for _, raw := range list {
		p.add(raw)
	}
	return p, true
}

// memoriesList finds the list of memories in a decoded value:
// {"memories": [...]} or a bare [...] of objects.
func memoriesList(v any) ([]json.RawMessage, bool) {
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
	out := make([]json.RawMessage, len(list))
	for i, e := range list {
		b, _ := json.Marshal(e)
		out[i] = b
	}
	return out, true
}

// salvage reads the complete elements of a "memories" list that was cut
// off (a reply that hit the output limit); rest follows the key.
func salvage(rest string) (parsed, bool) {
	j := strings.IndexByte(rest, '[')
	if j < 0 || strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest[:j]), ":")) != "" {
		return parsed{}, false
	}
	dec := json.NewDecoder(strings.NewReader(rest[j:]))
	if _, err := dec.Token(); err != nil { // the '['
		return parsed{}, false
	}
	p := parsed{Partial: true}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			break
		}
		p.add(raw)
	}
	return p, len(p.Candidates)+len(p.Invalid) > 0
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
// or a short phrase, and a body past a few paragraphs belongs in docs.
const (
	maxTriggers     = 12
	maxTriggerRunes = 80
	maxBodyRunes    = 4000
)

// normalize checks a candidate and fills in what can be inferred: the kind
// in lower case, the category from the kind when the model's is not one of
// the configured categories, triggers trimmed, deduplicated and bounded.
func normalize(c Candidate, categories []string) (Candidate, error) {
	c.Summary = strings.Join(strings.Fields(c.Summary), " ")
	c.Highlight = strings.TrimSpace(c.Highlight)
	c.Body = strings.TrimSpace(c.Body)
	c.Supersedes = strings.TrimSpace(c.Supersedes)
	c.Kind = strings.ToLower(strings.TrimSpace(c.Kind))
	c.Category = strings.ToLower(strings.TrimSpace(c.Category))
	if c.Summary == "" {
		return c, errors.New("no summary")
	}
	if !memory.Kind(c.Kind).Valid() {
		return c, fmt.Errorf("kind %q is not one of rule, preference, decision, pitfall, fact", c.Kind)
	}
	if !slices.Contains(categories, c.Category) {
		def := kindCategory[memory.Kind(c.Kind)]
		if !slices.Contains(categories, def) {
			return c, fmt.Errorf("category %q is not one of %s", c.Category, strings.Join(categories, ", "))
		}
		c.Category = def
	}
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
	c.Body = clipRunes(c.Body, maxBodyRunes)
	return c, nil
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
