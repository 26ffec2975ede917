package extract

import (
	"fmt"
	"strings"
)

// repair rewrites the JSON value at the start of s ('{' or '[') as a small
// model meant it, and returns it with whether it was closed before the
// text ended. What follows the value is left out. It repairs:
//
//   - a trailing comma before '}' or ']' (dropped);
//   - a raw control character in a string (escaped: "line one⏎line two");
//   - an invalid escape in a string (its backslash escaped: "C:\dir");
//   - a quote inside a string value that cannot end it (escaped). A value
//     ends at a quote followed by the end of the text, by '}' or ']' and
//     then ',', '}', ']' or the end, or by a ',' and then what may start
//     the next key or value; any other quote is
//     the body's own: `"body": "POST {"id": 1} to /users"` keeps
//     `POST {"id": 1} to /users`. A body quoting `"a", "b"` stays
//     ambiguous and is not repaired: its element fails alone.
//
// Keys end at their first quote: models do not put quotes in keys.
func repair(s string) (string, bool) {
	var b strings.Builder
	b.Grow(len(s) + 16)
	var stack []byte
	expectKey := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			key := len(stack) > 0 && stack[len(stack)-1] == '{' && expectKey
			end, ok := repairString(&b, s, i, key)
			if !ok {
				return b.String(), false
			}
			i = end
			if key {
				expectKey = false
			}
			continue
		case '{', '[':
			stack = append(stack, c)
			expectKey = c == '{'
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			b.WriteByte(c)
			if len(stack) == 0 {
				return b.String(), true
			}
			continue
		case ',':
			if k := skipSpace(s, i+1); k < len(s) && (s[k] == '}' || s[k] == ']') {
				continue
			}
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
		case ':':
			expectKey = false
		}
		b.WriteByte(c)
	}
	return b.String(), false
}

// repairString writes the string starting at s[i] (a quote) to b, repaired,
// and returns the index of its closing quote; ok is false when the text
// ends inside it.
func repairString(b *strings.Builder, s string, i int, key bool) (int, bool) {
	b.WriteByte('"')
	for i++; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 < len(s) && strings.IndexByte(`"\/bfnrtu`, s[i+1]) >= 0 && (s[i+1] != 'u' || isHex4(s[i+2:])) {
				b.WriteString(s[i : i+2])
				i++
				continue
			}
			b.WriteString(`\\`)
		case c == '"':
			if key || endsValue(s, i+1) {
				b.WriteByte('"')
				return i, true
			}
			b.WriteString(`\"`)
		case c < 0x20:
			switch c {
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			default:
				fmt.Fprintf(b, `\u%04x`, c)
			}
		default:
			b.WriteByte(c)
		}
	}
	return i, false
}

// endsValue reports whether a quote followed by s[i:] can end a string
// value.
func endsValue(s string, i int) bool {
	k := skipSpace(s, i)
	if k == len(s) {
		return true
	}
	switch s[k] {
	case '}', ']':
		// The bracket must close something too: `"x"} to /users"` is
		// still the body.
		n := skipSpace(s, k+1)
		return n == len(s) || strings.IndexByte(",}]", s[n]) >= 0
	case ',':
		n := skipSpace(s, k+1)
		return n == len(s) || strings.IndexByte(`"{[]}-0123456789tfn`, s[n]) >= 0
	}
	return false
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

func isHex4(s string) bool {
	if len(s) < 4 {
		return false
	}
	for _, c := range []byte(s[:4]) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
