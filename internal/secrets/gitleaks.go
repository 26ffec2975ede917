package secrets

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
)

//go:generate go run ./gen -in data/gitleaks.toml -out rules_gitleaks.go -sources data/SOURCES.txt

// The provider rules of gitleaks' default config, translated by ./gen from
// the pinned copy in data/gitleaks.toml into rules_gitleaks.go. Each keeps
// gitleaks' id, regexp, keywords (matched in any case), secret group and
// allowlists. On top of gitleaks' own entropy threshold, ocmem's filler
// tests apply as for every token rule: at least minTokenEntropy bits per
// character, and no "example", six-character run or keyboard run (see
// rules.go).

// gitleaksRule is one translated rule of the config.
type gitleaksRule struct {
	id, desc string
	re       string
	keywords []string // lower case, matched in any case
	entropy  float64  // gitleaks' threshold; 0 for none
	group    int      // secretGroup; 0 for the first group that matched
	lines    int      // lines after the keyword's that a match may span
	allows   []gitleaksAllow
}

// gitleaksAllow is an allowlist: a match is not reported when one of the
// regexes matches its target, or the secret contains a stopword (in any
// case). Allowlists that only name file paths are not translated.
type gitleaksAllow struct {
	target    string // "" for the secret, "match" or "line"
	regexes   []string
	stopwords []string
}

type compiledAllow struct {
	target    string
	regexes   []*regexp.Regexp
	stopwords []string
}

func compileAllow(a gitleaksAllow) compiledAllow {
	c := compiledAllow{target: a.target, stopwords: a.stopwords}
	for _, r := range a.regexes {
		c.regexes = append(c.regexes, regexp.MustCompile(r))
	}
	return c
}

func (c *compiledAllow) allows(secret, match, line string) bool {
	target := secret
	switch c.target {
	case "match":
		target = match
	case "line":
		target = line
	}
	for _, re := range c.regexes {
		if re.MatchString(target) {
			return true
		}
	}
	if len(c.stopwords) > 0 {
		l := strings.ToLower(secret)
		for _, w := range c.stopwords {
			if strings.Contains(l, w) {
				return true
			}
		}
	}
	return false
}

// generatedRules turns the translated config into rules.
func generatedRules() []rule {
	global := compileAllow(gitleaksGlobal)
	out := make([]rule, 0, len(gitleaksRules))
	for _, g := range gitleaksRules {
		allows := []compiledAllow{global}
		for _, a := range g.allows {
			allows = append(allows, compileAllow(a))
		}
		re := regexp.MustCompile(g.re)
		var example func(string) bool
		if literalRun(g.re) {
			// The format itself holds a run (Dropbox's AAAAAAAAAA, the
			// A{22} of a Twitter bearer token), so a run marks no filler.
			example = isExampleWord
		}
		// A pattern whose every match starts with one of its keywords is
		// tried once, anchored, at each keyword, rather than over the line.
		starts, boundary := leadingLiterals(g.re)
		prefix := g.lines == 0 && len(starts) > 0
		for _, p := range starts {
			if !slices.ContainsFunc(g.keywords, func(k string) bool { return strings.HasPrefix(p, k) }) {
				prefix = false
			}
		}
		out = append(out, rule{
			prefix:   prefix,
			anyStart: !boundary,
			example:  example,
			id:       g.id, desc: g.desc,
			keywords:   g.keywords,
			fold:       true,
			re:         re,
			minEntropy: max(g.entropy, minTokenEntropy),
			group:      g.group,
			lines:      g.lines,
			skip: func(secret, match, line string) bool {
				for i := range allows {
					if allows[i].allows(secret, match, line) {
						return true
					}
				}
				return false
			},
		})
	}
	return out
}

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

// isExampleWord is isExample without the test for runs: "example", or an
// alphabet or digit run.
func isExampleWord(s string) bool {
	l := asciiLower(s)
	return strings.Contains(l, "example") || strings.Contains(l, "abcdefgh") || strings.Contains(s, "12345678")
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
