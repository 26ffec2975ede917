// Package compile generates the files of a memory root that are derived from
// the memories' frontmatter: each category's index.md and the directory
// registry and routing table inside ROOT.md. Output is deterministic: the same
// memories give the same bytes, with no timestamps and no map order, so the
// files diff cleanly, merge cleanly and can be checked for drift.
//
//	idx := compile.Index("pitfalls", mems)
//	root, err := compile.Root(oldRootMD, categories, mems)
package compile

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/secrets"
)

// indexNote heads every index.md: a person opening it learns it is derived.
const indexNote = "<!-- Compiled by ocmem from the memories' frontmatter; edits here are overwritten. Run `ocmem compile` to refresh. -->"

// Generated reports whether data is an index.md that compile wrote: its
// marker line, indexNote, is the third line, after the heading and a blank
// line. Only such a file is ever removed by ocmem: a folder's own
// index.md, written by a person or another tool, is not ocmem's.
func Generated(data []byte) bool {
	lines := strings.SplitN(string(data), "\n", 4)
	return len(lines) >= 3 && strings.HasPrefix(lines[0], "# ") && lines[1] == "" &&
		strings.TrimRight(lines[2], "\r") == indexNote
}

// Index renders <category>/index.md: one line per memory of the category,
// sorted by id. Superseded memories keep a line (crossed out, with their
// successor) so the history stays discoverable.
func Index(category string, mems []*memory.Memory) []byte {
	var own []*memory.Memory
	for _, m := range mems {
		if m.Category() == category {
			own = append(own, m)
		}
	}
	sort.Slice(own, func(i, j int) bool { return own[i].ID < own[j].ID })
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", category, indexNote)
	if len(own) == 0 {
		b.WriteString("_No memories yet._\n")
	}
	for _, m := range own {
		b.WriteString(IndexLine(m))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// IndexLine is the line index.md holds for a memory.
func IndexLine(m *memory.Memory) string {
	return string(appendIndexLine(make([]byte, 0, 2*len(m.ID)+len(m.Summary)+64), m))
}

// appendIndexLine appends IndexLine(m) to b.
func appendIndexLine(b []byte, m *memory.Memory) []byte {
	slug := m.Slug()
	b = append(b, "- "...)
	if m.SupersededBy != "" {
		b = append(b, "~~"...)
	}
	b = append(b, '[')
	b = append(b, slug...)
	b = append(b, "]("...)
	b = append(b, slug...)
	b = append(b, ".md)"...)
	if m.SupersededBy != "" {
		b = append(b, "~~"...)
	}
	if m.Kind != "" && m.Kind != defaultKind(m.Category()) {
		b = append(b, " ("...)
		b = append(b, m.Kind...)
		b = append(b, ')')
	}
	if m.Pinned {
		b = append(b, " (pinned)"...)
	}
	b = append(b, " — "...)
	b = append(b, noComment(shown(m.Summary))...)
	if len(m.LoadWhen) > 0 {
		b = append(b, " · when: "...)
		when := m.LoadWhen[0]
		if len(m.LoadWhen) > 1 {
			when = strings.Join(m.LoadWhen, ", ")
		}
		b = append(b, noComment(shown(when))...)
	}
	if m.SupersededBy != "" {
		b = append(b, " · superseded by "...)
		b = append(b, m.SupersededBy...)
	}
	return b
}

// shown is a summary or triggers on one line, as the compiled files hold
// them: every suspected secret masked as ocmem masks what it shows
// (secrets.MaskLine). index.md and ROOT.md are committed and read by
// anyone with the repository; a token a person wrote into a memory by hand
// stays in that file alone (which compile never rewrites), not copied into
// two more.
func shown(s string) string { return secrets.MaskLine(OneLine(s)) }

// noComment escapes what would open or close an HTML comment: a summary
// holding "<!--" would hide the rest of index.md (every later memory) from
// a person reading it rendered, as on a forge reviewing a pull request.
func noComment(s string) string {
	if !strings.Contains(s, "<!--") && !strings.Contains(s, "-->") {
		return s
	}
	return commentEscaper.Replace(s)
}

var commentEscaper = strings.NewReplacer("<!--", "&lt;!--", "-->", "--&gt;")

// defaultKind is the kind a memory in one of the default categories usually
// has; index lines name the kind only when it differs.
func defaultKind(category string) memory.Kind {
	switch category {
	case "rules":
		return memory.KindRule
	case "preferences":
		return memory.KindPreference
	case "decisions":
		return memory.KindDecision
	case "pitfalls":
		return memory.KindPitfall
	case "facts":
		return memory.KindFact
	}
	return ""
}

// OneLine folds whitespace runs (newlines included) into single spaces, so a
// field can sit on one Markdown line.
func OneLine(s string) string {
	if oneLineAlready(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// oneLineAlready reports whether OneLine(s) is s: words separated by
// single spaces, as nearly every summary and trigger is. false means "fold
// it".
func oneLineAlready(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return s == ""
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf:
			r, w := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				return false
			}
			i += w - 1
		case c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
			return false
		case c == ' ' && s[i+1] == ' ':
			return false
		}
	}
	return true
}

// IndexIDs returns the ids the memory lines of an index.md point at, in
// order, and the lines themselves, keyed by id. It reads what Index writes.
func IndexIDs(category string, data []byte) (ids []string, lines map[string]string) {
	lines = map[string]string{}
	for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		slug, ok := linkedSlug(line)
		if !ok {
			continue
		}
		id := category + "/" + slug
		ids = append(ids, id)
		lines[id] = line
	}
	return ids, lines
}

// linkedSlug reads the slug of an index line: "- [slug](slug.md)…", the link
// possibly crossed out. A link whose label and target agree is preferred, so
// a slug holding "](" or ".md)" is read back whole; a hand-edited label still
// yields its link's target.
func linkedSlug(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, "- ")
	if !ok {
		return "", false
	}
	if l, ok := strings.CutPrefix(strings.TrimPrefix(rest, "~~"), "["); ok {
		for k := strings.Index(l, "]("); k >= 0; {
			if slug := l[:k]; slug != "" && strings.HasPrefix(l[k+2:], slug+".md)") {
				return slug, true
			}
			i := strings.Index(l[k+1:], "](")
			if i < 0 {
				break
			}
			k += 1 + i
		}
	}
	i := strings.Index(rest, "](")
	if i < 0 {
		return "", false
	}
	j := strings.Index(rest[i+2:], ".md)")
	if j <= 0 {
		return "", false
	}
	return rest[i+2 : i+2+j], true
}

// Categories returns the configured categories plus any other category that
// holds memories, configured ones first in their order, then the rest sorted.
func Categories(configured []string, mems []*memory.Memory) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range configured {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	var extra []string
	for _, m := range mems {
		if c := m.Category(); !seen[c] {
			seen[c] = true
			extra = append(extra, c)
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}

// ROOT.md ----------------------------------------------------------------

// Markers around the compiled sections of ROOT.md. Everything outside them
// is a person's text and is kept byte for byte.
const (
	beginRegistry = "<!-- ocmem:begin registry -->"
	endRegistry   = "<!-- ocmem:end registry -->"
	beginRouting  = "<!-- ocmem:begin routing -->"
	endRouting    = "<!-- ocmem:end routing -->"
)

// Skeleton is the ROOT.md a new root starts with: headed places for the
// hand-written parts. The compiled sections are appended by Root.
const Skeleton = `# Memory

## Goals

<!-- What this memory serves, in your own words: the project's goals, what matters most. -->

## Hard rules

<!-- Rules every session must follow, one per line, e.g. "- Never force-push to main."
     Written by people only. In your global memory they apply on every turn as written.
     In a project they apply once you confirm them by running "ocmem trust" (the model can
     edit this file too), and again after every change to this section; until then the
     model sees them only as this repository's proposals. "ocmem rules" shows which apply. -->

`

// ErrMarkers is returned, wrapped with which marker is wrong, when ROOT.md's
// compiled markers are damaged (a begin marker without its end, the two out
// of order, or one twice). ROOT.md is then left alone: rewriting it could
// destroy a person's text.
var ErrMarkers = errors.New("ROOT.md: compiled-section markers are damaged; fix or remove them by hand")

// Root returns ROOT.md with its compiled sections regenerated. old is the
// current file (nil for a new root, which gets the Skeleton); text outside
// the markers is preserved byte for byte, and missing sections are appended.
// Git conflict markers that a merge left inside the compiled sections are
// resolved (the sections are regenerated anyway); conflict markers in a
// person's text return ErrConflict and leave the file to the person.
func Root(old []byte, categories []string, mems []*memory.Memory) ([]byte, error) {
	return rootWith(old, registry(categories, mems), routing(mems))
}

// rootWith is Root with the compiled sections' text given.
func rootWith(old []byte, registry, routing string) ([]byte, error) {
	if old == nil {
		old = []byte(Skeleton)
	}
	old, err := ResolveCompiledConflicts(old)
	if err != nil {
		return nil, err
	}
	// A ROOT.md with CRLF line ends (Windows, git's autocrlf) gets CRLF in
	// its compiled sections too, not a file of mixed line ends.
	nl := "\n"
	if i := bytes.IndexByte(old, '\n'); i > 0 && old[i-1] == '\r' {
		nl = "\r\n"
	}
	out, err := replaceSection(old, beginRegistry, endRegistry, registry, nl)
	if err != nil {
		return nil, err
	}
	return replaceSection(out, beginRouting, endRouting, routing, nl)
}

func replaceSection(doc []byte, begin, end, body, nl string) ([]byte, error) {
	section := begin + "\n" + body + end
	if nl != "\n" {
		section = strings.ReplaceAll(section, "\n", nl)
	}
	bi := bytes.Index(doc, []byte(begin))
	ei := bytes.Index(doc, []byte(end))
	switch {
	case bi < 0 && ei < 0:
		// A copy: appending to doc itself would write into the caller's
		// array past the trimmed end.
		out := bytes.Clone(bytes.TrimRight(doc, "\r\n"))
		if len(out) > 0 {
			out = append(out, nl+nl...)
		}
		return append(append(out, section...), nl...), nil
	case bi < 0:
		return nil, fmt.Errorf("%w: %s without %s", ErrMarkers, end, begin)
	case ei < 0:
		return nil, fmt.Errorf("%w: %s without %s", ErrMarkers, begin, end)
	case ei < bi:
		return nil, fmt.Errorf("%w: %s before %s", ErrMarkers, end, begin)
	case bytes.Count(doc, []byte(begin)) > 1:
		return nil, fmt.Errorf("%w: %s more than once", ErrMarkers, begin)
	case bytes.Count(doc, []byte(end)) > 1:
		return nil, fmt.Errorf("%w: %s more than once", ErrMarkers, end)
	}
	out := make([]byte, 0, bi+len(section)+len(doc)-ei-len(end))
	out = append(out, doc[:bi]...)
	out = append(out, section...)
	return append(out, doc[ei+len(end):]...), nil
}

// registryRow is one category's line in the directory registry.
type registryRow struct {
	category         string
	live, superseded int
}

func registry(categories []string, mems []*memory.Memory) string {
	count := map[string]int{}
	old := map[string]int{}
	for _, m := range mems {
		if m.SupersededBy != "" {
			old[m.Category()]++
		} else {
			count[m.Category()]++
		}
	}
	var rows []registryRow
	for _, c := range Categories(categories, mems) {
		rows = append(rows, registryRow{c, count[c], old[c]})
	}
	return registryTable(rows)
}

const registryHead = "## Directory registry\n\n| category | memories | superseded | index |\n|---|---:|---:|---|\n"

func registryTable(rows []registryRow) string {
	var b strings.Builder
	b.WriteString(registryHead)
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %d | %d | [%s/index.md](%s/index.md) |\n", r.category, r.live, r.superseded, r.category, r.category)
	}
	return b.String()
}

// routingRow is one trigger's line in the routing table: the trigger as
// the first memory (by id) names it, and the ids of the memories naming it,
// sorted.
type routingRow struct {
	label string
	ids   []string
}

// routing maps each trigger (load_when), compared case-insensitively, to the
// live memories that name it. Superseded memories are never routed to.
func routing(mems []*memory.Memory) string {
	rows := map[string]*routingRow{}
	sorted := append([]*memory.Memory(nil), mems...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	for _, m := range sorted {
		if m.SupersededBy != "" {
			continue
		}
		seen := map[string]bool{}
		for _, t := range m.LoadWhen {
			t = OneLine(t)
			key := strings.ToLower(t)
			if t == "" || seen[key] {
				continue
			}
			seen[key] = true
			r := rows[key]
			if r == nil {
				r = &routingRow{label: t}
				rows[key] = r
			}
			r.ids = append(r.ids, m.ID)
		}
	}
	return routingTable(rows)
}

const (
	routingHead  = "## Routing table\n\n"
	routingEmpty = "_No memory names a trigger (load_when) yet._\n"
	routingCols  = "| when | load |\n|---|---|\n"
)

// routingTable renders the rows, keyed by their lower-cased trigger, in
// key order.
func routingTable(rows map[string]*routingRow) string {
	keys := make([]string, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(routingHead)
	if len(keys) == 0 {
		b.WriteString(routingEmpty)
		return b.String()
	}
	b.WriteString(routingCols)
	for _, k := range keys {
		r := rows[k]
		links := make([]string, len(r.ids))
		for i, id := range r.ids {
			links[i] = fmt.Sprintf("[%s](%s.md)", id, id)
		}
		fmt.Fprintf(&b, "| %s | %s |\n", cell(secrets.MaskLine(r.label)), strings.Join(links, ", "))
	}
	return b.String()
}

// cell escapes a table cell: "|" would end the cell, and "<" could open an
// HTML comment or spell a compiled-section marker, which would damage
// ROOT.md from inside a memory's trigger.
func cell(s string) string {
	if !strings.ContainsAny(s, "|<") {
		return s
	}
	return cellEscaper.Replace(s)
}

// cellEscaper is built once: building a Replacer cost more than using it.
var cellEscaper = strings.NewReplacer("|", `\|`, "<", "&lt;")

// HardRules returns the text of ROOT.md's hard-rules section (a heading named
// "Hard rules", "铁规则" or "硬规则", up to the next heading of the same or a
// higher level or a compiled section), with HTML comments removed and
// surrounding blank lines trimmed. "" when there is none.
func HardRules(rootMD []byte) string {
	text, _ := HardRulesAt(rootMD)
	return text
}

// HardRulesAt is HardRules with the 1-based line of the section's heading
// in ROOT.md (0 when there is no section).
func HardRulesAt(rootMD []byte) (text string, line int) {
	text = strings.ReplaceAll(string(rootMD), "\r\n", "\n")
	text = strings.TrimPrefix(text, "\ufeff")
	lines := strings.Split(text, "\n")
	level, at := 0, 0
	fence := "" // the opening fence of the code block we are in: a "# x" there is not a heading
	// inComment: the line starts inside an HTML comment, where a heading is
	// no heading (a forge shows none of it).
	inComment := false
	var out []string
	for n, line := range lines {
		// The compiled tables end the section whatever comes before them:
		// Root splices them in wherever their markers are, fence or
		// comment, so a fence a person left open must not carry the
		// routing table's triggers, which models write, into the rules.
		if level > 0 && isMarkerLine(line) {
			return hardRulesAt(out, at)
		}
		wasInComment := inComment
		if fence == "" {
			inComment = endsInComment(line, inComment)
		}
		switch {
		case wasInComment:
		case fence != "":
			if closesFence(line, fence) {
				fence = ""
			}
		case openFence(line) != "":
			fence = openFence(line)
		default:
			if lv, title := heading(line); lv > 0 {
				if level > 0 && lv <= level {
					return hardRulesAt(out, at)
				}
				if level == 0 && isHardRulesTitle(title) {
					level = lv
					at = n + 1
					continue
				}
			}
		}
		if level > 0 {
			out = append(out, line)
		}
	}
	return hardRulesAt(out, at)
}

// isMarkerLine reports whether line holds one of the compiled sections'
// markers, where Root (replaceSection) finds them: anywhere.
func isMarkerLine(line string) bool {
	if !strings.Contains(line, "<!-- ocmem:") {
		return false
	}
	for _, m := range [...]string{beginRegistry, endRegistry, beginRouting, endRouting} {
		if strings.Contains(line, m) {
			return true
		}
	}
	return false
}

// UnclosedFence returns the 1-based line of a code fence in ROOT.md's
// hand-written text that is never closed (before the end of the file or
// the compiled tables), or 0. Markdown reads everything after such a fence
// as code: a heading after it is no heading, so a section a person wrote
// below it is not where they think it is.
func UnclosedFence(rootMD []byte) int {
	text := strings.TrimPrefix(strings.ReplaceAll(string(rootMD), "\r\n", "\n"), "\ufeff")
	fence, at, inComment := "", 0, false
	for n, line := range strings.Split(text, "\n") {
		if isMarkerLine(line) {
			if fence != "" {
				return at
			}
			inComment = false
			continue
		}
		wasInComment := inComment
		if fence == "" {
			inComment = endsInComment(line, inComment)
		}
		switch {
		case wasInComment:
		case fence != "":
			if closesFence(line, fence) {
				fence = ""
			}
		case openFence(line) != "":
			fence, at = openFence(line), n+1
		}
	}
	if fence != "" {
		return at
	}
	return 0
}

// hardRulesAt is the section's text and line, or "" and 0 when it is empty.
func hardRulesAt(lines []string, at int) (string, int) {
	if text := hardRulesText(lines); text != "" {
		return text, at
	}
	return "", 0
}

func hardRulesText(lines []string) string {
	return strings.TrimSpace(stripComments(strings.Join(lines, "\n")))
}

// openFence returns the fence ("```" or "~~~", as long as written) that line
// opens, or "". CommonMark allows up to three spaces of indentation.
func openFence(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || (t[0] == '`' && strings.Contains(t[n:], "`")) {
		return ""
	}
	return t[:n]
}

// closesFence reports whether line closes a code block opened by fence: the
// same character, at least as many, nothing else but spaces.
func closesFence(line, fence string) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return false
	}
	t = strings.TrimRight(t, " \t")
	return len(t) >= len(fence) && strings.Trim(t, fence[:1]) == ""
}

func heading(line string) (level int, title string) {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n >= len(line) || line[n] != ' ' {
		return 0, ""
	}
	return n, strings.TrimSpace(strings.Trim(strings.TrimSpace(line[n:]), "#"))
}

func isHardRulesTitle(t string) bool {
	switch strings.ToLower(t) {
	case "hard rules", "rules", "铁规则", "硬规则", "硬性规则":
		return true
	}
	return false
}

// endsInComment reports whether an HTML comment is open at the end of
// line, given whether one was at its start.
func endsInComment(line string, in bool) bool {
	for {
		if in {
			j := strings.Index(line, "-->")
			if j < 0 {
				return true
			}
			line, in = line[j+3:], false
			continue
		}
		i := strings.Index(line, "<!--")
		if i < 0 {
			return false
		}
		line, in = line[i+4:], true
	}
}

func stripComments(s string) string {
	for {
		i := strings.Index(s, "<!--")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], "-->")
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+3:]
	}
}
