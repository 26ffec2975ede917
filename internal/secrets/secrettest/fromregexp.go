package secrettest

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"unicode"
)

// FromRegexp returns a string that the regexp pattern matches, built at
// run time from g, so that a test can hold a secret of every generated
// rule's shape without the repository holding one. Character classes are
// drawn from printable ASCII (a class with none gives its first rune),
// an alternation takes a random branch, and a repetition takes its
// minimum, or 16 for + and {n,} when that is less: long enough for a
// token to carry its entropy. Optional parts and * are left out. Anchors
// and word boundaries produce nothing; the caller surrounds the string
// with spaces.
func FromRegexp(g *Gen, pattern string) (string, error) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := g.emit(&b, re.Simplify(), false); err != nil {
		return "", fmt.Errorf("%s: %w", pattern, err)
	}
	return b.String(), nil
}

func (g *Gen) emit(b *strings.Builder, re *syntax.Regexp, fold bool) error {
	fold = fold || re.Flags&syntax.FoldCase != 0
	switch re.Op {
	case syntax.OpNoMatch:
		return fmt.Errorf("pattern matches nothing")
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		b.WriteRune(g.classRune(re.Rune))
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b.WriteString(g.S(Alnum, 1))
	case syntax.OpCapture:
		return g.emit(b, re.Sub[0], fold)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if err := g.emit(b, s, fold); err != nil {
				return err
			}
		}
	case syntax.OpAlternate:
		return g.emit(b, re.Sub[g.r.IntN(len(re.Sub))], fold)
	case syntax.OpQuest, syntax.OpStar:
	case syntax.OpPlus:
		for range 16 {
			if err := g.emit(b, re.Sub[0], fold); err != nil {
				return err
			}
		}
	case syntax.OpRepeat:
		n := re.Min
		if re.Max < 0 && n < 16 {
			n = 16
		}
		for range n {
			if err := g.emit(b, re.Sub[0], fold); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("unsupported regexp operator %v", re.Op)
	}
	return nil
}

// classRune picks a rune of a class given as sorted ranges, from its
// printable ASCII part when it has one; spaces only when nothing else is
// in the class.
func (g *Gen) classRune(ranges []rune) rune {
	var ascii []rune
	space := false
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := max(ranges[i], 0x20); r <= min(ranges[i+1], 0x7e); r++ {
			if r == ' ' {
				space = true
				continue
			}
			ascii = append(ascii, r)
		}
	}
	if len(ascii) == 0 {
		if space {
			return ' '
		}
		if unicode.IsSpace(ranges[0]) || ranges[0] == '\n' {
			return ' '
		}
		return ranges[0]
	}
	return ascii[g.r.IntN(len(ascii))]
}
