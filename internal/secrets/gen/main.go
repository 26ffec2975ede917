// Command gen translates the pinned copy of gitleaks' default config
// (data/gitleaks.toml, gitleaks v8.30.1, MIT) into ocmem's generated
// provider rules:
//
//	go run ./gen -in data/gitleaks.toml -out rules_gitleaks.go -sources data/SOURCES.txt
//
// `go generate` in internal/secrets runs it. Every rule keeps its id,
// regexp, keywords, entropy threshold, secret group and the allowlists a
// memory can be tested against (regexps on the secret, the match or the
// line, and stopwords). A rule is left out, with its reason written to the
// generated file and SOURCES.txt, when it needs a file path (a memory has
// none), when ocmem has its own rule with a different policy for the same
// thing, or when its regexp does not compile with Go's regexp package.
// The output is deterministic: the same config gives the same bytes.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"go/format"
	"os"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
)

// version is the gitleaks release the pinned config comes from.
const version = "v8.30.1"

// ownRules are gitleaks rules that ocmem replaces with its own, whose
// policy differs.
var ownRules = map[string]string{
	"generic-api-key":   "ocmem's generic-secret rule covers assignments with its own policy (the key must name a secret, 3.0 bits over 8 bytes, Chinese keys, prose such as \"the API key is …\")",
	"private-key":       "ocmem's private-key rule covers PEM blocks with its own handling (real keys versus fillers, folded and quoted blocks, a body without its header)",
	"openai-api-key":    "ocmem's openai-api-key rule covers every sk- key, OpenAI's and those of the providers that copied its shape, of which gitleaks' pattern is a part",
	"mailchimp-api-key": "ocmem's mailchimp-api-key rule finds the key by its shape (32 hex digits, -us and a data centre) without the word mailchimp on the line, of which gitleaks' pattern is a part",
}

func main() {
	in := flag.String("in", "data/gitleaks.toml", "gitleaks' config/gitleaks.toml")
	out := flag.String("out", "rules_gitleaks.go", "Go file to write")
	sources := flag.String("sources", "data/SOURCES.txt", "summary of the input and of what was translated")
	flag.Parse()
	if err := run(*in, *out, *sources); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

type allow struct {
	target    string // "" (the secret), "match" or "line"
	regexes   []string
	stopwords []string
}

type rule struct {
	id, desc string
	re       string
	keywords []string
	entropy  float64
	group    int
	lines    int
	allows   []allow

	prefix, anyStart, runs bool
}

type skip struct{ id, reason string }

type result struct {
	sum           string
	total         int
	rules         []rule
	skipped       []skip
	global        allow
	droppedAllows int // allowlists that only name file paths
}

func run(in, out, sources string) error {
	src, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	res, err := translate(src)
	if err != nil {
		return err
	}
	code, err := render(res)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, code, 0o644); err != nil {
		return err
	}
	return os.WriteFile(sources, summary(res), 0o644)
}

func str(t table, key string) (string, error) {
	v, ok := t.keys[key]
	if !ok {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("gitleaks.toml:%d: %s is not a string", t.line, key)
	}
	return s, nil
}

func strs(t table, key string) ([]string, error) {
	v, ok := t.keys[key]
	if !ok {
		return nil, nil
	}
	s, ok := v.([]string)
	if !ok {
		return nil, fmt.Errorf("gitleaks.toml:%d: %s is not an array of strings", t.line, key)
	}
	return s, nil
}

func num(t table, key string) (float64, error) {
	v, ok := t.keys[key]
	if !ok {
		return 0, nil
	}
	f, ok := v.(float64)
	if !ok {
		return 0, fmt.Errorf("gitleaks.toml:%d: %s is not a number", t.line, key)
	}
	return f, nil
}

// known lists the keys each table may have; another key is an error.
var known = map[string][]string{
	"":                 {"title", "minVersion"},
	"allowlist":        {"description", "paths", "regexes", "stopwords"},
	"rules":            {"id", "description", "regex", "path", "entropy", "keywords", "secretGroup"},
	"rules.allowlists": {"description", "condition", "paths", "regexTarget", "regexes", "stopwords"},
}

func translate(src []byte) (*result, error) {
	sum := sha256.Sum256(src)
	tables, err := parseTOML(string(src))
	if err != nil {
		return nil, err
	}
	res := &result{sum: hex.EncodeToString(sum[:])}
	var cur *rule
	var curSkipped bool
	for _, t := range tables {
		ks, ok := known[t.name]
		if !ok {
			return nil, fmt.Errorf("gitleaks.toml:%d: unknown table [%s]", t.line, t.name)
		}
		for k := range t.keys {
			if !slices.Contains(ks, k) {
				return nil, fmt.Errorf("gitleaks.toml:%d: unknown key %s in [%s]", t.line, k, t.name)
			}
		}
		switch t.name {
		case "allowlist":
			a, _, err := readAllow(t)
			if err != nil {
				return nil, err
			}
			res.global = a
		case "rules":
			res.total++
			cur, curSkipped = nil, true
			r, why, err := readRule(t)
			if err != nil {
				return nil, err
			}
			if why != "" {
				res.skipped = append(res.skipped, skip{r.id, why})
				continue
			}
			res.rules = append(res.rules, r)
			cur, curSkipped = &res.rules[len(res.rules)-1], false
		case "rules.allowlists":
			if cur == nil && !curSkipped {
				return nil, fmt.Errorf("gitleaks.toml:%d: allowlist before any rule", t.line)
			}
			if curSkipped {
				continue
			}
			a, keep, err := readAllow(t)
			if err != nil {
				return nil, err
			}
			if !keep {
				res.droppedAllows++
				continue
			}
			cur.allows = append(cur.allows, a)
		}
	}
	return res, nil
}

// readAllow reads an allowlist; keep is false when it can never apply to
// a memory (it only names file paths, or needs a path AND something else).
func readAllow(t table) (a allow, keep bool, err error) {
	if a.target, err = str(t, "regexTarget"); err != nil {
		return a, false, err
	}
	if a.target == "secret" {
		a.target = ""
	}
	if a.target != "" && a.target != "match" && a.target != "line" {
		return a, false, fmt.Errorf("gitleaks.toml:%d: unknown regexTarget %q", t.line, a.target)
	}
	if a.regexes, err = strs(t, "regexes"); err != nil {
		return a, false, err
	}
	for _, r := range a.regexes {
		if _, err := regexp.Compile(r); err != nil {
			return a, false, fmt.Errorf("gitleaks.toml:%d: allowlist regexp: %v", t.line, err)
		}
	}
	if a.stopwords, err = strs(t, "stopwords"); err != nil {
		return a, false, err
	}
	paths, err := strs(t, "paths")
	if err != nil {
		return a, false, err
	}
	cond, err := str(t, "condition")
	if err != nil {
		return a, false, err
	}
	switch strings.ToUpper(cond) {
	case "", "OR":
	case "AND":
		if len(paths) > 0 {
			return a, false, nil // a memory has no path, so the AND never holds
		}
	default:
		return a, false, fmt.Errorf("gitleaks.toml:%d: unknown condition %q", t.line, cond)
	}
	return a, len(a.regexes)+len(a.stopwords) > 0, nil
}

// readRule reads a rule, or says why it is not translated.
func readRule(t table) (r rule, why string, err error) {
	if r.id, err = str(t, "id"); err != nil {
		return r, "", err
	}
	if r.id == "" {
		return r, "", fmt.Errorf("gitleaks.toml:%d: rule without id", t.line)
	}
	desc, err := str(t, "description")
	if err != nil {
		return r, "", err
	}
	r.desc = shortDesc(r.id, desc)
	if r.re, err = str(t, "regex"); err != nil {
		return r, "", err
	}
	path, err := str(t, "path")
	if err != nil {
		return r, "", err
	}
	if r.keywords, err = strs(t, "keywords"); err != nil {
		return r, "", err
	}
	if r.entropy, err = num(t, "entropy"); err != nil {
		return r, "", err
	}
	g, err := num(t, "secretGroup")
	if err != nil {
		return r, "", err
	}
	r.group = int(g)
	switch {
	case ownRules[r.id] != "":
		return r, ownRules[r.id], nil
	case r.re == "" && path != "":
		return r, "matches a file name only (" + path + "); a memory is text without a file name", nil
	case path != "":
		return r, "applies only to files whose name matches " + path + "; a memory has no such name, and without it the pattern fires on ordinary assignments", nil
	case r.re == "":
		return r, "", fmt.Errorf("gitleaks.toml:%d: rule %s has neither regex nor path", t.line, r.id)
	}
	re, err := regexp.Compile(r.re)
	if err != nil {
		return r, "its regexp is not accepted by Go's regexp (RE2): " + err.Error(), nil
	}
	if r.group > re.NumSubexp() {
		return r, "", fmt.Errorf("gitleaks.toml:%d: rule %s: secretGroup %d of %d groups", t.line, r.id, r.group, re.NumSubexp())
	}
	if r.group == 0 && !firstGroupIsSecret(r.re) {
		// gitleaks reports the first group that matched; in these
		// patterns that is a repeated piece of a UUID or a fixed marker,
		// so the whole match is the secret.
		r.group = -1
	}
	r.runs = literalRun(r.re)
	// A pattern whose every match starts with one of its keywords is
	// tried once, anchored, at each keyword, rather than over the line.
	starts, boundary := leadingLiterals(r.re)
	r.prefix = len(starts) > 0
	for _, p := range starts {
		if !slices.ContainsFunc(r.keywords, func(k string) bool { return strings.HasPrefix(p, k) }) {
			r.prefix = false
		}
	}
	r.anyStart = r.prefix && !boundary
	if len(r.keywords) == 0 {
		return r, "has no keywords, so it would run its regexp over every line of every memory", nil
	}
	for _, k := range r.keywords {
		if len(k) < 2 || strings.ToLower(k) != k {
			return r, "", fmt.Errorf("gitleaks.toml:%d: rule %s: keyword %q is shorter than 2 bytes or not lower case", t.line, r.id, k)
		}
	}
	// A pattern that spans lines (curl's -H on a continuation line) is
	// tried over its keyword's line and the five after it, as gitleaks'
	// {1,5} continuation patterns allow.
	if strings.Contains(r.re, `\n`) || strings.Contains(r.re, `(?s`) {
		r.lines = 5
		r.prefix, r.anyStart = false, false
	}
	return r, "", nil
}

// descLead is the verb phrase gitleaks' descriptions start with.
var descLead = regexp.MustCompile(`^(?:Uncovered|Identified|Detected|Discovered|Found)\s+(?:an?\s+)?(?:possible\s+|potential\s+)?(?:pattern\s+(?:that\s+(?:may\s+indicate|resembles)|resembling)\s+(?:an?\s+)?)?`)

// shortDesc cuts a gitleaks description ("Uncovered a GitHub Personal
// Access Token, potentially leading to …") to the name of what was found,
// which ocmem's messages use ("GitHub Personal Access Token"). A
// description of another form gives the id in words.
func shortDesc(id, desc string) string {
	d, _, _ := strings.Cut(desc, ",")
	d = strings.TrimSuffix(strings.TrimSpace(d), ".")
	d = descLead.ReplaceAllString(d, "")
	if d == "" || strings.Contains(d, " is a ") || strings.Contains(d, " detected") {
		return strings.ReplaceAll(id, "-", " ")
	}
	return d
}

// firstGroupIsSecret reports whether a pattern's first capturing group
// can hold the secret: the pattern has no group (the whole match is taken
// anyway), or the group is not repeated and holds more than fixed text.
func firstGroupIsSecret(pattern string) bool {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return true
	}
	var first *syntax.Regexp
	repeated := false
	var walk func(n *syntax.Regexp, inRepeat bool) bool
	walk = func(n *syntax.Regexp, inRepeat bool) bool {
		if n.Op == syntax.OpCapture {
			first, repeated = n, inRepeat
			return true
		}
		rep := inRepeat || n.Op == syntax.OpStar || n.Op == syntax.OpPlus || n.Op == syntax.OpRepeat && n.Max != 1
		for _, s := range n.Sub {
			if walk(s, rep) {
				return true
			}
		}
		return false
	}
	if !walk(re, false) {
		return true
	}
	return !repeated && !fixedText(first.Sub[0])
}

// fixedText reports whether a pattern matches only literal text, no class
// or repetition.
func fixedText(n *syntax.Regexp) bool {
	switch n.Op {
	case syntax.OpLiteral, syntax.OpEmptyMatch:
		return true
	case syntax.OpConcat, syntax.OpAlternate, syntax.OpCapture:
		for _, s := range n.Sub {
			if !fixedText(s) {
				return false
			}
		}
		return true
	}
	return false
}

func quote(s string) string {
	if !strings.ContainsAny(s, "`\r\n") && strconv.CanBackquote(s) {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = quote(s)
	}
	return "[]string{" + strings.Join(q, ", ") + "}"
}

func renderAllow(b *bytes.Buffer, a allow) {
	b.WriteString("{")
	if a.target != "" {
		fmt.Fprintf(b, "target: %q, ", a.target)
	}
	if len(a.regexes) > 0 {
		fmt.Fprintf(b, "regexes: %s, ", quoteList(a.regexes))
	}
	if len(a.stopwords) > 0 {
		fmt.Fprintf(b, "stopwords: %s, ", quoteList(a.stopwords))
	}
	b.WriteString("}")
}

func render(res *result) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by internal/secrets/gen from data/gitleaks.toml; DO NOT EDIT.\n\n")
	b.WriteString("package secrets\n\n")
	fmt.Fprintf(&b, "// gitleaksVersion is the gitleaks release of data/gitleaks.toml (MIT, see\n// data/gitleaks.LICENSE and NOTICE), and gitleaksSHA256 the hash of that file.\n")
	fmt.Fprintf(&b, "const (\n\tgitleaksVersion = %q\n\tgitleaksSHA256 = %q\n\tgitleaksTotal = %d\n)\n\n", version, res.sum, res.total)
	fmt.Fprintf(&b, "// gitleaksGlobal is the config's global allowlist.\nvar gitleaksGlobal = gitleaksAllow")
	renderAllow(&b, res.global)
	b.WriteString("\n\n")
	fmt.Fprintf(&b, "// gitleaksRules are the %d rules translated, in the config's order.\nvar gitleaksRules = []gitleaksRule{\n", len(res.rules))
	for _, r := range res.rules {
		fmt.Fprintf(&b, "{\nid: %q, desc: %q,\nre: %s,\nkeywords: %s,\n", r.id, r.desc, quote(r.re), quoteList(r.keywords))
		if r.entropy != 0 {
			fmt.Fprintf(&b, "entropy: %s,\n", strconv.FormatFloat(r.entropy, 'g', -1, 64))
		}
		if r.group != 0 {
			fmt.Fprintf(&b, "group: %d,\n", r.group)
		}
		if r.lines != 0 {
			fmt.Fprintf(&b, "lines: %d,\n", r.lines)
		}
		if r.prefix {
			fmt.Fprintf(&b, "prefix: true,\n")
		}
		if r.anyStart {
			fmt.Fprintf(&b, "anyStart: true,\n")
		}
		if r.runs {
			fmt.Fprintf(&b, "runs: true,\n")
		}
		if len(r.allows) > 0 {
			b.WriteString("allows: []gitleaksAllow{\n")
			for _, a := range r.allows {
				renderAllow(&b, a)
				b.WriteString(",\n")
			}
			b.WriteString("},\n")
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n\n")
	fmt.Fprintf(&b, "// gitleaksSkipped are the %d rules not translated, and why.\nvar gitleaksSkipped = []struct{ id, reason string }{\n", len(res.skipped))
	for _, s := range res.skipped {
		fmt.Fprintf(&b, "{%q, %q},\n", s.id, s.reason)
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}

func summary(res *result) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Generated by internal/secrets/gen; do not edit. Input and what was translated:\n")
	fmt.Fprintf(&b, "gitleaks.toml sha256 %s: config/gitleaks.toml of the Go module github.com/zricethezav/gitleaks/v8 %s (MIT, gitleaks.LICENSE)\n", res.sum, version)
	fmt.Fprintf(&b, "rules: %d, translated: %d, not translated: %d\n", res.total, len(res.rules), len(res.skipped))
	fmt.Fprintf(&b, "allowlists that only name file paths, dropped: %d\n", res.droppedAllows)
	for _, s := range res.skipped {
		fmt.Fprintf(&b, "not translated: %s: %s\n", s.id, s.reason)
	}
	return b.Bytes()
}
