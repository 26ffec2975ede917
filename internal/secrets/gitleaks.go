package secrets

import (
	"regexp"
	"strings"
	"sync"
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
	// What ./gen found in the pattern: every match starts with a keyword
	// (so it is tried anchored at each), not after \b (anyStart), and the
	// format itself holds a run of six identical characters.
	prefix, anyStart, runs bool
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
	global := &lazyAllow{src: []gitleaksAllow{gitleaksGlobal}}
	out := make([]rule, 0, len(gitleaksRules))
	for _, g := range gitleaksRules {
		own := &lazyAllow{src: g.allows}
		var example func(string) bool
		if g.runs {
			// The format itself holds a run (Dropbox's AAAAAAAAAA, the
			// A{22} of a Twitter bearer token), so a run marks no filler.
			example = isExampleWord
		}
		out = append(out, rule{
			id: g.id, desc: g.desc,
			keywords:   g.keywords,
			fold:       true,
			lazy:       &lazyRegexp{src: g.re},
			prefix:     g.prefix,
			anyStart:   g.anyStart,
			example:    example,
			minEntropy: max(g.entropy, minTokenEntropy),
			group:      g.group,
			lines:      g.lines,
			skip: func(secret, match, line string) bool {
				return global.allows(secret, match, line) || own.allows(secret, match, line)
			},
		})
	}
	return out
}

// lazyRegexp is a regexp compiled on first use: the generated rules'
// patterns cost a tenth of a second to compile, which a process that
// never scans (ocmem's hook, most commands) should not pay.
type lazyRegexp struct {
	once sync.Once
	src  string
	re   *regexp.Regexp
}

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

// lazyAllow is a set of allowlists compiled on first use.
type lazyAllow struct {
	once     sync.Once
	src      []gitleaksAllow
	compiled []compiledAllow
}

func (l *lazyAllow) allows(secret, match, line string) bool {
	l.once.Do(func() {
		for _, a := range l.src {
			l.compiled = append(l.compiled, compileAllow(a))
		}
	})
	for i := range l.compiled {
		if l.compiled[i].allows(secret, match, line) {
			return true
		}
	}
	return false
}

// isExampleWord is isExample without the test for runs: "example", or an
// alphabet or digit run.
func isExampleWord(s string) bool {
	l := asciiLower(s)
	return strings.Contains(l, "example") || strings.Contains(l, "abcdefgh") || strings.Contains(s, "12345678")
}
