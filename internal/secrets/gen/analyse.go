package main

import (
	"regexp/syntax"
	"strings"
)

// literalRun reports whether a pattern requires six identical characters
// in a row: a literal run, or one character repeated six times or more.
func literalRun(pattern string) bool {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return false
	}
	var walk func(n *syntax.Regexp) bool
	walk = func(n *syntax.Regexp) bool {
		switch n.Op {
		case syntax.OpLiteral:
			run := 1
			for i := 1; i < len(n.Rune); i++ {
				if n.Rune[i] == n.Rune[i-1] {
					if run++; run >= 6 {
						return true
					}
				} else {
					run = 1
				}
			}
		case syntax.OpRepeat:
			if n.Min >= 6 && n.Sub[0].Op == syntax.OpLiteral && len(n.Sub[0].Rune) == 1 {
				return true
			}
		}
		for _, s := range n.Sub {
			if walk(s) {
				return true
			}
		}
		return false
	}
	return walk(re)
}

// leadingLiterals returns the literal texts, lower-cased, that every match
// of pattern starts with (nil when a match can start otherwise), and
// whether the pattern begins with \b.
func leadingLiterals(pattern string) (starts []string, boundary bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, false
	}
	re = re.Simplify()
	for re.Op == syntax.OpCapture || re.Op == syntax.OpConcat && len(re.Sub) > 0 && re.Sub[0].Op == syntax.OpWordBoundary {
		if re.Op == syntax.OpCapture {
			re = re.Sub[0]
			continue
		}
		boundary = true
		re = &syntax.Regexp{Op: syntax.OpConcat, Sub: re.Sub[1:], Flags: re.Flags}
	}
	starts, _ = literalPrefixes(re)
	for _, s := range starts {
		if s == "" {
			return nil, boundary
		}
	}
	return starts, boundary
}

// literalPrefixes returns the literal texts a match of n starts with, and
// whether they are the whole of n's match. It gives up (returns "") on
// anything but literals, captures, concatenations and alternations.
func literalPrefixes(n *syntax.Regexp) ([]string, bool) {
	switch n.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(n.Rune))}, true
	case syntax.OpCapture:
		return literalPrefixes(n.Sub[0])
	case syntax.OpAlternate:
		var out []string
		exact := true
		for _, s := range n.Sub {
			p, ex := literalPrefixes(s)
			out = append(out, p...)
			exact = exact && ex
		}
		return out, exact
	case syntax.OpConcat:
		acc := []string{""}
		for _, s := range n.Sub {
			p, ex := literalPrefixes(s)
			if len(acc)*len(p) > 64 {
				return acc, false
			}
			var next []string
			for _, a := range acc {
				for _, b := range p {
					next = append(next, a+b)
				}
			}
			acc = next
			if !ex {
				return acc, false
			}
		}
		return acc, true
	}
	return []string{""}, false
}
