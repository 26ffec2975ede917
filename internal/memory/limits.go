package memory

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// Limits on a memory file. Memory files arrive from strangers too (a cloned
// repository's .memory/ is read into every prompt), so every limit is
// checked before the file is used, and a file over one is reported and
// skipped, never cut. The development corpus (125 memories) peaks at 886
// bytes, 5 triggers and 27 bytes per trigger; each limit is far above what a
// person writes and far below what would hurt.
//
//   - MaxFileSize (256 KiB): the whole file. The store checks it against
//     the file's size before reading a byte, and again while reading.
//   - MaxTriggers (100) and MaxTriggerLen (200 bytes): load_when feeds the
//     routing table of ROOT.md and the outline line of every prompt; a list
//     of 10,000 triggers would be a memory that matches every message.
//   - CheckText: a memory is UTF-8 text without control characters (a
//     carriage return only in a CRLF), bidirectional formatting controls,
//     line separators or Unicode tag characters.
const (
	MaxTriggers   = 100
	MaxTriggerLen = 200
)

// CheckText reports why data is not text a memory may hold, or nil. It
// refuses, with the 1-based line and byte column of the first offence:
//
//   - invalid UTF-8: a file in another encoding reads as garbage to the
//     model and to every tool;
//   - NUL and the other C0 and C1 control characters except tab and line
//     feed, and DEL: a NUL makes git treat the file as binary, and an
//     escape sequence printed by `ocmem recall` or `ocmem inject` would be
//     run by the user's terminal;
//   - a carriage return that does not end a CRLF line: a terminal goes back
//     to the start of the line and draws what follows over what came
//     before, so a person reviewing a rule would read only its second half
//     while the model reads both (a CRLF file, normal on Windows, passes);
//   - the line and paragraph separators U+2028 and U+2029 and the
//     interlinear annotation characters U+FFF9–U+FFFB: a line break to a
//     YAML parser and a browser, none to git or an editor; text a renderer
//     may leave out;
//   - bidirectional formatting controls (U+202A–U+202E, U+2066–U+2069):
//     they make a line read differently in an editor than to the model
//     ("Trojan Source"), so a person reviewing a repository's rules could
//     approve text they never saw;
//   - Unicode tag characters (U+E0000–U+E007F): invisible in every editor,
//     yet read by language models as ASCII, they are a known way to smuggle
//     instructions into a prompt.
//
// A UTF-8 byte order mark at the very start is allowed (Parse strips it).
func CheckText(data []byte) error {
	for i := 0; i < len(data); {
		// Printable ASCII, tab and line feed, most of any file, are
		// passed over a byte at a time: a 10 MB ROOT.md (100,000
		// memories) is checked in a few milliseconds. The position of an
		// offence is counted only when there is one.
		if c := data[i]; c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			i++
			continue
		}
		r, w := utf8.DecodeRune(data[i:])
		why := unfit(data, i, r, w)
		if why != "" {
			line := 1 + bytes.Count(data[:i], []byte{'\n'})
			col := i - bytes.LastIndexByte(data[:i], '\n')
			return &ParseError{Line: line, Err: fmt.Errorf("column %d: %s", col, why)}
		}
		i += w
	}
	return nil
}

// unfit says why the rune r, w bytes at offset i of data, may not be in a
// memory, or "".
func unfit(data []byte, i int, r rune, w int) string {
	switch {
	case r == utf8.RuneError && w <= 1:
		return fmt.Sprintf("byte 0x%02x is not UTF-8", data[i])
	case r == '\r' && i+1 < len(data) && data[i+1] == '\n':
		return ""
	case r == '\r':
		return "a carriage return that does not end a line (a terminal draws what follows it over the start of the line)"
	case r == 0:
		return "a NUL byte (a memory is text, not binary)"
	case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
		return fmt.Sprintf("control character %U (terminals run escape sequences)", r)
	case r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
		return fmt.Sprintf("bidirectional control %U (it makes text read differently to people and to the model)", r)
	case r == 0x2028 || r == 0x2029:
		return fmt.Sprintf("line or paragraph separator %U (a line break to some readers and not to others)", r)
	case r >= 0xfff9 && r <= 0xfffb:
		return fmt.Sprintf("interlinear annotation character %U (renderers may hide the text it marks)", r)
	case r >= 0xe0000 && r <= 0xe007f:
		return fmt.Sprintf("Unicode tag character %U (invisible to people, read by models)", r)
	case r == 0xfeff && i > 0:
		return "a byte order mark after the start of the file"
	}
	return ""
}

// triggerProblems reports load_when lists over the limits.
func (m *Memory) triggerProblems() []error {
	var errs []error
	if len(m.LoadWhen) > MaxTriggers {
		errs = append(errs, fmt.Errorf("load_when has %d triggers, over the limit of %d", len(m.LoadWhen), MaxTriggers))
	}
	for _, t := range m.LoadWhen {
		if len(t) > MaxTriggerLen {
			errs = append(errs, fmt.Errorf("load_when: a trigger of %d bytes, over the limit of %d (%.40q…)", len(t), MaxTriggerLen, t))
			break
		}
	}
	return errs
}
