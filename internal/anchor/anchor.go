// Package anchor ties a memory to the code it is about and tells when that
// code has moved on: which paths and symbols a memory's text names, and
// whether each anchored file is still as it was where the memory was last
// verified.
//
//	a, err := anchor.Parse("internal/api/server.go#ListenPort")
//	results, err := anchor.Check(ctx, root, memories) // fresh, changed or gone
//
// An anchor is a path relative to the project root, with "/" between
// folders on every system so that one memory reads the same in every clone:
// a file, a folder, or a glob ("internal/*/server.go"), optionally followed
// by "#Symbol", an identifier that must still appear in the file.
package anchor

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode"
)

// Anchor is one parsed anchor.
type Anchor struct {
	Path   string // slash-separated, relative to the project root, cleaned
	Symbol string // "" when the anchor names no symbol
	Glob   bool   // Path holds a pattern (path.Match syntax)
}

// String writes the anchor as a memory holds it.
func (a Anchor) String() string {
	if a.Symbol == "" {
		return a.Path
	}
	return a.Path + "#" + a.Symbol
}

// Errors Parse returns, wrapped with the anchor, for callers that branch.
var (
	ErrEmpty     = errors.New("empty path")
	ErrAbsolute  = errors.New("absolute path: an anchor is relative to the project root")
	ErrOutside   = errors.New("path leaves the project root")
	ErrBackslash = errors.New(`backslash in the path: separate folders with "/"`)
	ErrBadGlob   = errors.New("bad glob pattern")
	ErrBadSymbol = errors.New("symbol is not an identifier")
)

// MaxLen bounds an anchor: a path, not a paragraph.
const MaxLen = 512

// MaxPerMemory bounds the anchors of one memory that are checked; Check
// leaves the rest out. A memory tied to more code than this is about no
// one part of it, and a file from a stranger must not make a refresh cost
// what it likes.
const MaxPerMemory = 100

// Parse reads an anchor. The error says what is wrong with it; a memory
// holding such an anchor still loads, and the anchor is left out of checks.
func Parse(s string) (Anchor, error) {
	fail := func(err error) (Anchor, error) { return Anchor{}, fmt.Errorf("anchor %q: %w", s, err) }
	if len(s) > MaxLen {
		return fail(fmt.Errorf("%d bytes, over the limit of %d", len(s), MaxLen))
	}
	p, sym, hasSym := strings.Cut(s, "#")
	// The path is not trimmed: ".. " is a folder name, ".." is not.
	switch {
	case p == "":
		return fail(ErrEmpty)
	case strings.Contains(p, `\`):
		return fail(ErrBackslash)
	case strings.HasPrefix(p, "/") || hasVolume(p):
		return fail(ErrAbsolute)
	}
	clean := path.Clean(p)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return fail(ErrOutside)
	}
	a := Anchor{Path: clean, Glob: strings.ContainsAny(clean, "*?[")}
	if a.Glob {
		if _, err := path.Match(clean, ""); err != nil {
			return fail(ErrBadGlob)
		}
	}
	if hasSym {
		sym = strings.TrimSpace(sym)
		if !isSymbol(sym) {
			return fail(ErrBadSymbol)
		}
		if a.Glob {
			return fail(errors.New("a symbol needs one file, not a glob"))
		}
		a.Symbol = sym
	}
	return a, nil
}

// hasVolume reports a Windows drive ("C:") at the start: absolute there,
// and never a path inside a project.
func hasVolume(p string) bool {
	return len(p) >= 2 && p[1] == ':' && (p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z')
}

// isSymbol accepts an identifier, or identifiers joined by dots
// ("Server.ListenPort"), as most languages write a name.
func isSymbol(s string) bool {
	if s == "" {
		return false
	}
	for _, part := range strings.Split(s, ".") {
		if part == "" {
			return false
		}
		for i, r := range part {
			if !isIdentRune(r) || i == 0 && unicode.IsDigit(r) {
				return false
			}
		}
	}
	return true
}

func isIdentRune(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
