package main

import (
	"fmt"
	"strconv"
	"strings"
)

// The subset of TOML that gitleaks' config uses: comments, [table] and
// [[array.of.tables]] headers, bare keys, strings ('…', '''…''', "…"),
// numbers and arrays of strings. Anything else is an error, so a new
// construct in a future config is noticed instead of misread.

// table is one header's keys; arrays of tables repeat.
type table struct {
	name string // "", "allowlist", "rules", "rules.allowlists"
	line int
	keys map[string]any // string, float64 or []string
}

type tomlParser struct {
	src  string
	pos  int
	line int
}

func parseTOML(src string) ([]table, error) {
	p := &tomlParser{src: src, line: 1}
	tables := []table{{name: "", line: 1, keys: map[string]any{}}}
	for {
		p.skipBlank()
		if p.pos >= len(p.src) {
			return tables, nil
		}
		switch {
		case strings.HasPrefix(p.src[p.pos:], "[["):
			end := strings.Index(p.src[p.pos:], "]]")
			if end < 0 {
				return nil, p.errorf("unterminated [[header]]")
			}
			name := strings.TrimSpace(p.src[p.pos+2 : p.pos+end])
			p.pos += end + 2
			tables = append(tables, table{name: name, line: p.line, keys: map[string]any{}})
		case p.src[p.pos] == '[':
			end := strings.IndexByte(p.src[p.pos:], ']')
			if end < 0 {
				return nil, p.errorf("unterminated [header]")
			}
			name := strings.TrimSpace(p.src[p.pos+1 : p.pos+end])
			p.pos += end + 1
			tables = append(tables, table{name: name, line: p.line, keys: map[string]any{}})
		default:
			key := p.bareKey()
			if key == "" {
				return nil, p.errorf("expected a key, found %q", p.peekLine())
			}
			p.skipSpace()
			if p.pos >= len(p.src) || p.src[p.pos] != '=' {
				return nil, p.errorf("expected = after %s", key)
			}
			p.pos++
			p.skipSpace()
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			t := &tables[len(tables)-1]
			if _, dup := t.keys[key]; dup {
				return nil, p.errorf("duplicate key %s", key)
			}
			t.keys[key] = v
			p.skipSpace()
			if p.pos < len(p.src) && p.src[p.pos] != '\n' && p.src[p.pos] != '\r' && p.src[p.pos] != '#' {
				return nil, p.errorf("unexpected %q after the value of %s", p.peekLine(), key)
			}
		}
	}
}

func (p *tomlParser) errorf(format string, args ...any) error {
	return fmt.Errorf("gitleaks.toml:%d: %s", p.line, fmt.Sprintf(format, args...))
}

func (p *tomlParser) peekLine() string {
	rest := p.src[p.pos:]
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// skipBlank skips spaces, newlines and comments.
func (p *tomlParser) skipBlank() {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; c {
		case ' ', '\t', '\r':
			p.pos++
		case '\n':
			p.pos++
			p.line++
		case '#':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

func (p *tomlParser) skipSpace() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
}

func (p *tomlParser) bareKey() string {
	s := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' {
			p.pos++
			continue
		}
		break
	}
	return p.src[s:p.pos]
}

func (p *tomlParser) value() (any, error) {
	if p.pos >= len(p.src) {
		return nil, p.errorf("missing value")
	}
	switch c := p.src[p.pos]; {
	case c == '[':
		return p.array()
	case strings.HasPrefix(p.src[p.pos:], "'''"):
		p.pos += 3
		if strings.HasPrefix(p.src[p.pos:], "\n") { // TOML trims a newline right after the opener
			p.pos++
			p.line++
		}
		end := strings.Index(p.src[p.pos:], "'''")
		if end < 0 {
			return nil, p.errorf("unterminated '''string")
		}
		s := p.src[p.pos : p.pos+end]
		p.line += strings.Count(s, "\n")
		p.pos += end + 3
		return s, nil
	case c == '\'':
		end := strings.IndexByte(p.src[p.pos+1:], '\'')
		if end < 0 || strings.Contains(p.src[p.pos+1:p.pos+1+end], "\n") {
			return nil, p.errorf("unterminated 'string")
		}
		s := p.src[p.pos+1 : p.pos+1+end]
		p.pos += end + 2
		return s, nil
	case c == '"':
		return p.basicString()
	case '0' <= c && c <= '9' || c == '-' || c == '+':
		s := p.pos
		for p.pos < len(p.src) && strings.IndexByte("0123456789.+-eE_", p.src[p.pos]) >= 0 {
			p.pos++
		}
		f, err := strconv.ParseFloat(strings.ReplaceAll(p.src[s:p.pos], "_", ""), 64)
		if err != nil {
			return nil, p.errorf("bad number %q", p.src[s:p.pos])
		}
		return f, nil
	}
	return nil, p.errorf("unsupported value %q", p.peekLine())
}

// array reads an array of strings, the one kind of array the config has.
func (p *tomlParser) array() (any, error) {
	p.pos++
	var out []string
	for {
		p.skipBlank()
		if p.pos >= len(p.src) {
			return nil, p.errorf("unterminated array")
		}
		if p.src[p.pos] == ']' {
			p.pos++
			return out, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		s, ok := v.(string)
		if !ok {
			return nil, p.errorf("only arrays of strings are supported")
		}
		out = append(out, s)
		p.skipBlank()
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
		}
	}
}

// basicString reads a one-line "string" with its escapes.
func (p *tomlParser) basicString() (any, error) {
	if strings.HasPrefix(p.src[p.pos:], `"""`) {
		return nil, p.errorf(`multi-line "strings are not supported`)
	}
	i := p.pos + 1
	for i < len(p.src) && p.src[i] != '"' && p.src[i] != '\n' {
		if p.src[i] == '\\' {
			i++
		}
		i++
	}
	if i >= len(p.src) || p.src[i] != '"' {
		return nil, p.errorf("unterminated \"string")
	}
	s, err := strconv.Unquote(p.src[p.pos : i+1])
	if err != nil {
		return nil, p.errorf("bad string %s: %v", p.src[p.pos:i+1], err)
	}
	p.pos = i + 1
	return s, nil
}
