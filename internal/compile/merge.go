package compile

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Merging compiled files
//
// Two devices that each write a memory both recompile ROOT.md, so a git
// merge sees both sides change its compiled tables: a count goes 1→2 on
// one side and 1→3 on the other, two routing rows land on the same line.
// Git's text merge calls that a conflict; it is not one, because the tables
// are derived. Two paths lead out of it:
//
//   - MergeRoot is the "ocmem" git merge driver's logic. It merges a
//     person's text the way git merge-file does, with the compiled sections
//     cut down to their markers (so they are stable context), and merges the
//     tables by meaning: a registry count becomes ours + theirs - base, a
//     routing link is kept unless one side removed it. The result has no
//     conflict markers in the tables; when the two sides added the same
//     memory, or the driver could not read a table, a table can be stale,
//     which inspect reports and the next compile or write rewrites.
//     The driver cannot regenerate the tables from the memory files: git
//     runs it before it writes the merged files to the working tree.
//   - ResolveCompiledConflicts is the path without the driver (a teammate
//     who never ran `ocmem install`): git's text merge leaves conflict
//     markers, and the next compile (`ocmem compile`, or any write) drops
//     every conflict that lies wholly in the compiled sections before
//     regenerating them.

// ErrConflict is returned, wrapped with where, when ROOT.md holds git
// conflict markers in a person's text: only a person can resolve those.
var ErrConflict = errors.New("ROOT.md holds git conflict markers in hand-written text; resolve them by hand, then run `ocmem compile`")

// TextMerge merges three versions of a text as `git merge-file` does,
// reporting whether conflict markers were left in.
type TextMerge func(base, ours, theirs []byte) (merged []byte, conflict bool, err error)

// conflictHunk is one block of git conflict markers, as line indexes: the
// "<<<<<<<" line, the "=======" line, the ">>>>>>>" line, and the "|||||||"
// line of the diff3 style (-1 without).
type conflictHunk struct{ begin, base, sep, end int }

// Conflict markers are seven characters; git's conflict-marker-size
// attribute can change that, which ocmem does not.
func isMarker(line, m string) bool {
	line = strings.TrimRight(line, "\r\n")
	return line == m || strings.HasPrefix(line, m+" ")
}

// findConflicts returns the conflict hunks among lines, and an error for a
// hunk that is not closed or is out of order. skip, when not nil, reports
// lines to ignore (inside a fenced code block).
func findConflicts(lines []string, skip func(i int) bool) ([]conflictHunk, error) {
	var hunks []conflictHunk
	cur := conflictHunk{-1, -1, -1, -1}
	for i, l := range lines {
		if skip != nil && skip(i) {
			continue
		}
		switch {
		case isMarker(l, "<<<<<<<"):
			if cur.begin >= 0 {
				return nil, fmt.Errorf("line %d: a conflict opened inside another one", i+1)
			}
			cur.begin = i
		case cur.begin < 0:
			if isMarker(l, ">>>>>>>") {
				return nil, fmt.Errorf("line %d: a conflict closed that was never opened", i+1)
			}
		case isMarker(l, "|||||||") && cur.sep < 0:
			cur.base = i
		case strings.TrimRight(l, "\r\n") == "=======" && cur.sep < 0:
			cur.sep = i
		case isMarker(l, ">>>>>>>"):
			if cur.sep < 0 {
				return nil, fmt.Errorf("line %d: a conflict without its ======= line", i+1)
			}
			cur.end = i
			hunks = append(hunks, cur)
			cur = conflictHunk{-1, -1, -1, -1}
		}
	}
	if cur.begin >= 0 {
		return nil, fmt.Errorf("line %d: a conflict that is never closed", cur.begin+1)
	}
	return hunks, nil
}

// splitLines splits a text into lines that keep their line ends.
func splitLines(b []byte) []string {
	return strings.SplitAfter(string(b), "\n")
}

// ConflictLine returns the 1-based line of the first git conflict marker in
// a text, or 0 when it has none (or only a stray, unbalanced marker line,
// which a person may have written on purpose). Lines in fenced code blocks
// are skipped when fences is set: a memory may quote a conflict as an
// example.
func ConflictLine(text []byte, fences bool) int {
	if !bytes.Contains(text, []byte("<<<<<<<")) {
		return 0
	}
	lines := splitLines(text)
	var skip func(int) bool
	if fences {
		in := fencedLines(lines)
		skip = func(i int) bool { return in[i] }
	}
	hunks, err := findConflicts(lines, skip)
	if err != nil || len(hunks) == 0 {
		return 0
	}
	return hunks[0].begin + 1
}

// fencedLines marks the lines inside fenced code blocks (the fences too).
func fencedLines(lines []string) []bool {
	in := make([]bool, len(lines))
	fence := ""
	for i, l := range lines {
		l = strings.TrimRight(l, "\r\n")
		switch {
		case fence != "":
			in[i] = true
			if closesFence(l, fence) {
				fence = ""
			}
		case openFence(l) != "":
			fence = openFence(l)
			in[i] = true
		}
	}
	return in
}

// resolve returns the text with every conflict hunk replaced by one side.
func resolve(lines []string, hunks []conflictHunk, ours bool) string {
	var b strings.Builder
	next := 0
	for _, h := range hunks {
		for _, l := range lines[next:h.begin] {
			b.WriteString(l)
		}
		from, to := h.begin+1, h.sep // ours
		if h.base >= 0 {
			to = h.base
		}
		if !ours {
			from, to = h.sep+1, h.end
		}
		for _, l := range lines[from:to] {
			b.WriteString(l)
		}
		next = h.end + 1
	}
	for _, l := range lines[next:] {
		b.WriteString(l)
	}
	return b.String()
}

// ResolveCompiledConflicts removes the git conflicts a text merge left in
// ROOT.md when every one of them lies in the compiled sections: taking our
// side of each hunk and taking theirs then give the same hand-written text.
// The compiled sections are regenerated next, so which side's tables are
// kept does not matter. A conflict that touches a person's text returns
// ErrConflict, as does a conflict block that is not closed.
func ResolveCompiledConflicts(doc []byte) ([]byte, error) {
	if !bytes.Contains(doc, []byte("<<<<<<<")) {
		return doc, nil
	}
	lines := splitLines(doc)
	hunks, err := findConflicts(lines, nil)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrConflict, err)
	}
	if len(hunks) == 0 {
		return doc, nil
	}
	ours, theirs := resolve(lines, hunks, true), resolve(lines, hunks, false)
	ho, err1 := handWritten([]byte(ours))
	ht, err2 := handWritten([]byte(theirs))
	if err1 != nil || err2 != nil || !bytes.Equal(ho, ht) {
		return nil, fmt.Errorf("%w (line %d)", ErrConflict, hunks[0].begin+1)
	}
	return []byte(ours), nil
}

// compiledSections are the sections of ROOT.md that compile writes, in
// order.
var compiledSections = [][2]string{{beginRegistry, endRegistry}, {beginRouting, endRouting}}

// sectionSpan returns the offsets of a compiled section in doc, begin
// marker to end marker inclusive, or ok=false when it is absent; damaged
// markers are an error, as in Root.
func sectionSpan(doc []byte, begin, end string) (from, to int, ok bool, err error) {
	bi := bytes.Index(doc, []byte(begin))
	ei := bytes.Index(doc, []byte(end))
	switch {
	case bi < 0 && ei < 0:
		return 0, 0, false, nil
	case bi < 0 || ei < 0 || ei < bi || bytes.Count(doc, []byte(begin)) > 1 || bytes.Count(doc, []byte(end)) > 1:
		return 0, 0, false, ErrMarkers
	}
	return bi, ei + len(end), true, nil
}

// handWritten returns ROOT.md with the content of each compiled section
// cut out: the begin and end markers stay, as one line each, so they keep
// their place as context for a merge.
func handWritten(doc []byte) ([]byte, error) {
	out := doc
	for _, s := range compiledSections {
		from, to, ok, err := sectionSpan(out, s[0], s[1])
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		var b bytes.Buffer
		b.Write(out[:from])
		b.WriteString(s[0] + lineEnd(doc) + s[1])
		b.Write(out[to:])
		out = b.Bytes()
	}
	return out, nil
}

// sectionBody returns the text between a section's markers (after the
// begin marker's line end), "" when the section is absent.
func sectionBody(doc []byte, begin, end string) (string, error) {
	from, to, ok, err := sectionSpan(doc, begin, end)
	if err != nil || !ok {
		return "", err
	}
	body := string(doc[from+len(begin) : to-len(end)])
	body = strings.ReplaceAll(body, "\r\n", "\n")
	return strings.TrimPrefix(body, "\n"), nil
}

// lineEnd is the line end a document uses: CRLF when its first line ends so.
func lineEnd(doc []byte) string {
	if i := bytes.IndexByte(doc, '\n'); i > 0 && doc[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// MergeRoot merges three versions of ROOT.md (base, ours, theirs; base is
// empty when both sides added the file) as the "ocmem" git merge driver:
// the hand-written text with text, the compiled tables by meaning. It
// reports whether conflict markers were left, which happens only in a
// person's text. When a side's compiled markers are damaged, the whole file
// is merged as text.
func MergeRoot(base, ours, theirs []byte, text TextMerge) (merged []byte, conflict bool, err error) {
	var hand [3][]byte
	for i, doc := range [][]byte{base, ours, theirs} {
		if hand[i], err = handWritten(doc); err != nil {
			return text(base, ours, theirs)
		}
	}
	merged, conflict, err = text(hand[0], hand[1], hand[2])
	if err != nil {
		return nil, false, err
	}
	nl := lineEnd(ours)
	tables := []string{mergeRegistry(base, ours, theirs), mergeRouting(base, ours, theirs)}
	for i, s := range compiledSections {
		section := []byte(strings.ReplaceAll(s[0]+"\n"+tables[i]+s[1], "\n", nl))
		// The placeholder kept the line end of the side it came from.
		// Inside a conflict it can appear once per side; each gets the
		// tables, so whichever side the person keeps is whole.
		for _, e := range []string{"\r\n", "\n"} {
			merged = bytes.ReplaceAll(merged, []byte(s[0]+e+s[1]), section)
		}
	}
	return merged, conflict, nil
}

// mergeRegistry merges the directory registry of three versions. A side
// whose table does not read back (hand-edited, or from another version of
// ocmem) makes the result our table as it is.
func mergeRegistry(base, ours, theirs []byte) string {
	var rows [3][]registryRow
	for i, doc := range [][]byte{base, ours, theirs} {
		body, err := sectionBody(doc, beginRegistry, endRegistry)
		r, ok := parseRegistry(body)
		if err != nil || !ok {
			body, _ := sectionBody(ours, beginRegistry, endRegistry)
			return body
		}
		rows[i] = r
	}
	// Rows by category, so the merge is linear in the rows: a search of
	// each side per row made 40,000 rows take a minute, long enough for a
	// hostile branch to hang `git pull`.
	var byCat [3]map[string]registryRow
	for i := range rows {
		byCat[i] = make(map[string]registryRow, len(rows[i]))
		for _, r := range rows[i] {
			if _, dup := byCat[i][r.category]; !dup {
				byCat[i][r.category] = r // the first row of a category, as a search found
			}
		}
	}
	find := func(i int, c string) (registryRow, bool) {
		if r, ok := byCat[i][c]; ok {
			return r, true
		}
		return registryRow{category: c}, false
	}
	var order []string
	seen := map[string]bool{}
	for _, r := range append(slices.Clone(rows[1]), rows[2]...) {
		if !seen[r.category] {
			seen[r.category] = true
			order = append(order, r.category)
		}
	}
	var out []registryRow
	for _, c := range order {
		b, inB := find(0, c)
		o, inO := find(1, c)
		t, inT := find(2, c)
		// A row one side removed and the other left alone stays removed.
		if inB && (!inO && t == b || !inT && o == b) {
			continue
		}
		m := registryRow{c, merge3(b.live, o.live, t.live), merge3(b.superseded, o.superseded, t.superseded)}
		if (!inO || !inT) && inB && m.live == 0 && m.superseded == 0 {
			continue
		}
		out = append(out, m)
	}
	return registryTable(out)
}

// merge3 merges a count changed on two sides: each side's change applies.
func merge3(b, o, t int) int {
	if n := o + t - b; n > 0 {
		return n
	}
	return 0
}

var registryRowRE = regexp.MustCompile(`^\| (.+) \| (\d+) \| (\d+) \| \[(.+)/index\.md\]\((.+)/index\.md\) \|$`)

// parseRegistry reads the rows of a registry section. It succeeds only when
// the rows render back to the same text, so a table it does not fully
// understand is never merged by guesswork. An absent section has no rows.
func parseRegistry(body string) ([]registryRow, bool) {
	if body == "" {
		return nil, true
	}
	rest, ok := strings.CutPrefix(body, registryHead)
	if !ok {
		return nil, false
	}
	var rows []registryRow
	for _, l := range strings.SplitAfter(rest, "\n") {
		if l == "" {
			continue
		}
		m := registryRowRE.FindStringSubmatch(strings.TrimSuffix(l, "\n"))
		if m == nil {
			return nil, false
		}
		live, _ := strconv.Atoi(m[2])
		old, _ := strconv.Atoi(m[3])
		rows = append(rows, registryRow{m[1], live, old})
	}
	return rows, registryTable(rows) == body
}

// mergeRouting merges the routing table of three versions: a (trigger,
// memory) link is in the result when both sides have it, or one side added
// it; it is dropped when one side removed it. A side whose table does not
// read back makes the result our table as it is.
func mergeRouting(base, ours, theirs []byte) string {
	var tables [3]map[string]*routingRow
	for i, doc := range [][]byte{base, ours, theirs} {
		body, err := sectionBody(doc, beginRouting, endRouting)
		rows, ok := parseRouting(body)
		if err != nil || !ok {
			body, _ := sectionBody(ours, beginRouting, endRouting)
			return body
		}
		tables[i] = rows
	}
	b, o, t := tables[0], tables[1], tables[2]
	// The links of each side as a set, so the merge is linear in them.
	type link struct{ key, id string }
	var links [3]map[link]bool
	for i, rows := range tables {
		links[i] = map[link]bool{}
		for key, r := range rows {
			for _, id := range r.ids {
				links[i][link{key, id}] = true
			}
		}
	}
	out := map[string]*routingRow{}
	added := map[link]bool{}
	for _, side := range []map[string]*routingRow{o, t} {
		for key, r := range side {
			for _, id := range r.ids {
				l := link{key, id}
				inB, inO, inT := links[0][l], links[1][l], links[2][l]
				if !(inO && inT || !inB) || added[l] {
					continue
				}
				m := out[key]
				if m == nil {
					m = &routingRow{label: mergeLabel(b[key], o[key], t[key])}
					out[key] = m
				}
				added[l] = true
				m.ids = append(m.ids, id)
			}
		}
	}
	for _, r := range out {
		sort.Strings(r.ids)
	}
	return routingTable(out)
}

// mergeLabel picks a trigger's spelling: theirs when only theirs changed
// it, else ours.
func mergeLabel(b, o, t *routingRow) string {
	switch {
	case o == nil:
		return t.label
	case t != nil && b != nil && o.label == b.label:
		return t.label
	}
	return o.label
}

// cellUnescaper undoes cell.
var cellUnescaper = strings.NewReplacer(`\|`, "|", "&lt;", "<")

var routingLinkRE = regexp.MustCompile(`\[([^\]]+)\]\(([^)]+)\.md\)`)

// parseRouting reads the rows of a routing section, keyed by lower-cased
// trigger; like parseRegistry, only when they render back to the same text.
func parseRouting(body string) (map[string]*routingRow, bool) {
	rows := map[string]*routingRow{}
	if body == "" {
		return rows, true
	}
	rest, ok := strings.CutPrefix(body, routingHead)
	if !ok {
		return nil, false
	}
	if rest == routingEmpty {
		return rows, true
	}
	rest, ok = strings.CutPrefix(rest, routingCols)
	if !ok {
		return nil, false
	}
	for _, l := range strings.SplitAfter(rest, "\n") {
		if l == "" {
			continue
		}
		inner, ok := strings.CutPrefix(strings.TrimSuffix(l, "\n"), "| ")
		if !ok {
			return nil, false
		}
		if inner, ok = strings.CutSuffix(inner, " |"); !ok {
			return nil, false
		}
		// The label is escaped by cell: a "|" in it is "\|", so the first
		// " | " ends it.
		cellText, links, ok := strings.Cut(inner, " | ")
		if !ok {
			return nil, false
		}
		label := cellUnescaper.Replace(cellText)
		r := &routingRow{label: label}
		for _, m := range routingLinkRE.FindAllStringSubmatch(links, -1) {
			r.ids = append(r.ids, m[1])
		}
		key := strings.ToLower(label)
		if len(r.ids) == 0 || rows[key] != nil {
			return nil, false
		}
		rows[key] = r
	}
	return rows, routingTable(rows) == body
}
