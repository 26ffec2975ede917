package compile

import (
	"bytes"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/secrets"
)

// Tables is what one root's compiled files are made of, kept so that a
// write changes only the parts its memories touch: each category's lines,
// sorted by id, with its counts, and each trigger's row of the routing
// table. Index and Root render from it exactly what Index and Root render
// from every memory of the root (TestTablesEqualFullCompile).
//
//	t := compile.NewTables(configured)
//	t.Add(m) // for every memory of the root, or through Build
//	t.Remove(old); t.Add(m) // a write
//	idx := t.Index("pitfalls", lineOf)
//
// A category's lines are made on first use (Index), so a process that
// builds the tables of 100,000 memories to write one formats the lines of
// one category; the routing rows are rendered once and kept until a
// trigger of theirs changes.
//
// Remove must be given a memory as it was added: the tables keep no copy
// of the memories, only their lines and rows.
type Tables struct {
	// OneShot says the tables render ROOT.md once (a CLI command's
	// write): its routing rows are written into the file and not kept.
	OneShot bool
	// SumLines makes Build reckon each line's sum (LineSum) without
	// keeping the line, for Encode to write: the tables of the load
	// cache, read back by a process that writes once, then take the
	// lines of an index.md on disk that are as they would make them
	// (IndexOver) rather than make every line of its category.
	SumLines bool

	configured []string
	cats       map[string]*catTable
	routes     map[string]*route // by lower-cased trigger
	keys       []string          // the routes' keys, sorted; nil when to be made
	dirtyCats  map[string]bool
	dirtyRoot  bool

	// last is the ROOT.md the tables made last (rootInPlace, or Splice
	// and Join) when nothing they generated holds a '<' or a '\r' (so
	// its markers are where they were put, once each, and no conflict
	// marker or CRLF is in it); nil otherwise. Given last again, Splice
	// takes its unchanged rows from it in runs. lastReg and lastRows are
	// where the registry's and the rows' bytes lie in it.
	last              []byte
	lastReg, lastRows [2]int
}

type catTable struct {
	entries          []catEntry // sorted by id
	live, superseded int
}

type catEntry struct {
	id   string
	line string // IndexLine; "" until made
	// sum is LineSum of the line, when known without the line (read
	// back by ReadTables, or reckoned by a Build with SumLines); 0 when
	// not known.
	sum uint64
}

// LineSum is the 64-bit FNV-1a hash of a line of index.md (without its
// line end), never 0: how tables read back from the load cache know a
// line on disk to be the one they would make (IndexOver) without the
// memory it is made of. Two lines that differ have the same sum by
// chance once in 2^64.
func LineSum[T string | []byte](line T) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(line); i++ {
		h ^= uint64(line[i])
		h *= 1099511628211
	}
	return max(h, 1)
}

type route struct {
	refs []routeRef // sorted by id
	text string     // the row as routingTable writes it; "" until made
	// odd says text holds a '<' or a '\r' (an id that has one: labels
	// are escaped), which ROOT.md's checks for markers, conflicts and
	// line ends would have to look at.
	odd bool
	// end is where the row ends in Tables.last; 0 when it is not there
	// as text is.
	end int
}

// changed drops the route's row: its refs changed.
func (r *route) changed() { r.text, r.end = "", 0 }

// render makes the route's row if it has none.
func (r *route) render() {
	if r.text == "" {
		r.text = string(r.appendRow(nil))
		r.odd = strings.ContainsAny(r.text, "<\r")
	}
}

// routeRef is a memory in a route: its id and the trigger as it wrote it.
type routeRef struct{ id, label string }

// NewTables returns empty tables for a root with the configured categories.
func NewTables(configured []string) *Tables {
	return &Tables{configured: slices.Clone(configured), cats: map[string]*catTable{}, routes: map[string]*route{}, dirtyCats: map[string]bool{}}
}

// Build adds memories in bulk, faster than Add one at a time: each is
// appended and every category and route is sorted once at the end. each
// calls add for every memory; m need only be valid during the call, but
// its strings are kept. No memory may be in the tables already, nor twice.
// Build marks nothing changed.
func (t *Tables) Build(each func(add func(m *memory.Memory))) {
	t.collect(each)
	t.sortAll(1)
}

// BuildParallel is Build over parts of the memories, each on a core of
// its own, the parts' tables then put together: the same tables, in less
// time where the memories are many and decoded as they are added (a
// fresh process's write at 100,000 memories). Each part is called once;
// no memory may be in two.
func (t *Tables) BuildParallel(parts ...func(add func(m *memory.Memory))) {
	subs := make([]*Tables, len(parts))
	var wg sync.WaitGroup
	for i, each := range parts {
		subs[i] = NewTables(t.configured)
		subs[i].SumLines = t.SumLines
		wg.Go(func() { subs[i].collect(each) })
	}
	wg.Wait()
	for _, sub := range subs {
		for name, c := range sub.cats {
			tc := t.cat(name)
			tc.entries = append(tc.entries, c.entries...)
			tc.live, tc.superseded = tc.live+c.live, tc.superseded+c.superseded
		}
		for key, r := range sub.routes {
			if tr := t.routes[key]; tr != nil {
				tr.refs = append(tr.refs, r.refs...)
			} else {
				t.routes[key] = r
			}
		}
	}
	t.sortAll(len(parts))
}

// collect is Build's pass over the memories, leaving the lines and refs
// unsorted.
func (t *Tables) collect(each func(add func(m *memory.Memory))) {
	var keys []string // reused: one memory's distinct keys
	var line []byte   // reused: one memory's line, for its sum
	each(func(m *memory.Memory) {
		c := t.cat(m.Category())
		e := catEntry{id: m.ID}
		if t.SumLines {
			line = appendIndexLine(line[:0], m)
			e.sum = LineSum(line)
		}
		c.entries = append(c.entries, e)
		if m.SupersededBy != "" {
			c.superseded++
			return
		}
		c.live++
		keys = keys[:0]
		for _, tr := range m.LoadWhen {
			label, key, ok := triggerKey(tr)
			if !ok || slices.Contains(keys, key) {
				continue
			}
			keys = append(keys, key)
			r := t.routes[key]
			if r == nil {
				r = &route{}
				t.routes[key] = r
			}
			r.refs = append(r.refs, routeRef{id: m.ID, label: label})
		}
	})
}

// sortAll sorts every category's lines and every route's refs, as Build
// leaves them; with workers above 1, that many goroutines share the
// routes, each sorting whole routes.
func (t *Tables) sortAll(workers int) {
	for _, c := range t.cats {
		if !slices.IsSortedFunc(c.entries, byEntryID) {
			slices.SortFunc(c.entries, byEntryID)
		}
	}
	routes := make([]*route, 0, len(t.routes))
	for _, r := range t.routes {
		routes = append(routes, r)
	}
	sortRefs := func(rs []*route) {
		for _, r := range rs {
			if !slices.IsSortedFunc(r.refs, byRefID) {
				slices.SortFunc(r.refs, byRefID)
			}
			r.changed()
		}
	}
	if workers < 2 {
		sortRefs(routes)
	} else {
		var wg sync.WaitGroup
		for k := range workers {
			part := routes[len(routes)*k/workers : len(routes)*(k+1)/workers]
			wg.Go(func() { sortRefs(part) })
		}
		wg.Wait()
	}
	t.keys = nil
}

func byEntryID(a, b catEntry) int { return strings.Compare(a.id, b.id) }
func byRefID(a, b routeRef) int   { return strings.Compare(a.id, b.id) }

// triggerKey is a trigger as routing writes it and the key it is compared
// by; ok is false for a trigger routing leaves out (empty).
func triggerKey(tr string) (label, key string, ok bool) {
	label = OneLine(tr)
	if label == "" {
		return "", "", false
	}
	return label, strings.ToLower(label), true
}

func (t *Tables) cat(name string) *catTable {
	c := t.cats[name]
	if c == nil {
		c = &catTable{}
		t.cats[name] = c
	}
	return c
}

// Add puts a memory that is not in the tables in them.
func (t *Tables) Add(m *memory.Memory) {
	name := m.Category()
	c := t.cat(name)
	i, _ := slices.BinarySearchFunc(c.entries, m.ID, func(e catEntry, id string) int { return strings.Compare(e.id, id) })
	c.entries = slices.Insert(c.entries, i, catEntry{id: m.ID, line: IndexLine(m)})
	t.dirtyCats[name], t.dirtyRoot = true, true
	if m.SupersededBy != "" {
		c.superseded++
		return
	}
	c.live++
	t.eachKey(m, func(label, key string) {
		r := t.routes[key]
		if r == nil {
			r = &route{}
			t.routes[key] = r
			t.keys = nil
		}
		j, _ := slices.BinarySearchFunc(r.refs, m.ID, func(x routeRef, id string) int { return strings.Compare(x.id, id) })
		r.refs = slices.Insert(r.refs, j, routeRef{id: m.ID, label: label})
		r.changed()
	})
}

// Remove takes out of the tables a memory that is in them, as it was added.
func (t *Tables) Remove(m *memory.Memory) {
	name := m.Category()
	c := t.cats[name]
	if c == nil {
		return
	}
	i, found := slices.BinarySearchFunc(c.entries, m.ID, func(e catEntry, id string) int { return strings.Compare(e.id, id) })
	if !found {
		return
	}
	c.entries = slices.Delete(c.entries, i, i+1)
	t.dirtyCats[name], t.dirtyRoot = true, true
	if m.SupersededBy != "" {
		c.superseded--
	} else {
		c.live--
		t.eachKey(m, func(_, key string) {
			r := t.routes[key]
			if r == nil {
				return
			}
			j, found := slices.BinarySearchFunc(r.refs, m.ID, func(x routeRef, id string) int { return strings.Compare(x.id, id) })
			if !found {
				return
			}
			r.refs = slices.Delete(r.refs, j, j+1)
			r.changed()
			if len(r.refs) == 0 {
				delete(t.routes, key)
				t.keys = nil
			}
		})
	}
	if len(c.entries) == 0 {
		delete(t.cats, name)
	}
}

// eachKey calls fn for each distinct routed trigger of a live memory.
func (t *Tables) eachKey(m *memory.Memory, fn func(label, key string)) {
	var seen []string
	for _, tr := range m.LoadWhen {
		label, key, ok := triggerKey(tr)
		if !ok || slices.Contains(seen, key) {
			continue
		}
		seen = append(seen, key)
		fn(label, key)
	}
}

// Categories is Categories over the memories in the tables.
func (t *Tables) Categories() []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range t.configured {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	var extra []string
	for c := range t.cats {
		if !seen[c] {
			extra = append(extra, c)
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}

// Changed returns the categories whose index.md and whether ROOT.md's
// tables changed since the last Clean, in no order; a category that has
// no memories left is among them.
func (t *Tables) Changed() (categories []string, root bool) {
	for c := range t.dirtyCats {
		categories = append(categories, c)
	}
	sort.Strings(categories)
	return categories, t.dirtyRoot
}

// Touch marks a category changed ("": ROOT.md only), as when its
// index.md may be stale on disk for a reason the tables do not hold.
func (t *Tables) Touch(category string) {
	if category != "" {
		t.dirtyCats[category] = true
	}
	t.dirtyRoot = true
}

// TouchAll marks every category changed, and ROOT.md.
func (t *Tables) TouchAll() {
	for _, c := range t.Categories() {
		t.dirtyCats[c] = true
	}
	t.dirtyRoot = true
}

// Clean marks everything written: what changes next is what Changed says.
func (t *Tables) Clean() {
	clear(t.dirtyCats)
	t.dirtyRoot = false
}

// Index is Index over the memories in the tables. lineOf returns the
// memory of an id that Build added, for the lines not made yet; it is
// called only for those, once each.
func (t *Tables) Index(category string, lineOf func(id string) *memory.Memory) []byte {
	return t.IndexOver(category, nil, lineOf)
}

// IndexOver is Index given the category's index.md as it is on disk
// (old; nil for none): a line not made yet whose sum is known is taken
// from old when old has the line of that id with that sum, and lineOf is
// called only for the others. What it returns is what Index returns.
// At 100,000 memories a category of 20,000 lines is 1.75 MB: finding
// them in old costs a fraction of decoding 20,000 memories to make them.
func (t *Tables) IndexOver(category string, old []byte, lineOf func(id string) *memory.Memory) []byte {
	c := t.cats[category]
	size := len(category) + len(indexNote) + 32
	if c != nil {
		for i := range c.entries {
			e := &c.entries[i]
			if e.line == "" && (e.sum == 0 || old == nil) {
				e.line = IndexLine(lineOf(e.id))
			}
			if e.line != "" {
				size += len(e.line) + 1
			}
		}
	}
	b := make([]byte, 0, size+len(old))
	b = append(b, "# "...)
	b = append(b, category...)
	b = append(b, "\n\n"+indexNote+"\n\n"...)
	if c == nil || len(c.entries) == 0 {
		return append(b, "_No memories yet._\n"...)
	}
	rest := old // the lines of old not passed yet
	for i := range c.entries {
		e := &c.entries[i]
		if e.line == "" {
			var line []byte
			if line, rest = lineIn(rest, e.id); line != nil && LineSum(line) == e.sum {
				b = append(b, line...)
				b = append(b, '\n')
				continue
			}
			e.line = IndexLine(lineOf(e.id))
		}
		b = append(b, e.line...)
		b = append(b, '\n')
	}
	return b
}

// lineIn looks in the lines of an index.md, rest, for the line of the
// memory id, passing the lines of ids sorting before it: it returns that
// line (nil when there is none) and the lines after it. Lines that are
// not a memory's are passed over.
func lineIn(rest []byte, id string) (line, after []byte) {
	_, slug, _ := strings.Cut(id, "/")
	for len(rest) > 0 {
		l, next, _ := bytes.Cut(rest, []byte{'\n'})
		s, ok := lineSlug(l)
		switch {
		case !ok || s < slug:
			rest = next
		case s == slug:
			return l, next
		default:
			return nil, rest
		}
	}
	return nil, nil
}

// lineSlug returns the slug a line of index.md links to, as IndexLine
// writes it: "- [slug](slug.md)", the link struck through for a
// superseded memory.
func lineSlug(line []byte) (string, bool) {
	l, ok := bytes.CutPrefix(line, []byte("- "))
	if !ok {
		return "", false
	}
	l, _ = bytes.CutPrefix(l, []byte("~~"))
	l, ok = bytes.CutPrefix(l, []byte("["))
	if !ok {
		return "", false
	}
	slug, _, ok := bytes.Cut(l, []byte("]("))
	return string(slug), ok
}

// Root is Root over the memories in the tables.
func (t *Tables) Root(old []byte) ([]byte, error) { return t.RootOver(old, nil, nil) }

// RootOver is Root given where old's markers lie, as LayoutOf(old) found
// them (nil: found here when needed), and memory to make the file in
// (buf, used when its capacity is enough), which a caller may have found
// and touched on another core as it read old: filling 10 MB of fresh
// memory costs 6–8 ms on the test machine, where pages already touched
// cost 1–2.
func (t *Tables) RootOver(old []byte, l *RootLayout, buf []byte) ([]byte, error) {
	if sp, ok := t.Splice(old); ok {
		return sp.Join(), nil
	}
	if l == nil || l.size != len(old) {
		found := LayoutOf(old)
		l = &found
	}
	if out, ok := t.rootInPlace(old, *l, buf); ok {
		return out, nil
	}
	t.last = nil
	return rootWith(old, t.registry(), t.routing())
}

// Splice is Root for old being the ROOT.md Root (or Splice) made last:
// the same bytes, not a copy, as a serve process's next write starts
// from. It reads nothing of old: the person's text and the rows that did
// not change are taken from it in runs, the registry and the changed rows
// put between them. rootInPlace given old would find the markers where
// the last render put them, pass every check, and write the same bytes
// (TestTablesSpliceEqualsFull). ok is false when Splice cannot be used;
// Root can.
//
// The result is pieces: written one after another (WriteTo) they are the
// file, so a write need not join 10 MB before writing it. Join makes the
// one slice Root would have returned and keeps it as the last render. No
// other call on the tables but Index may come between Splice and Join.
func (t *Tables) Splice(old []byte) (sp *Spliced, ok bool) {
	last := t.last
	if last == nil || t.OneShot || len(old) != len(last) || len(old) == 0 || &old[0] != &last[0] {
		return nil, false
	}
	registry := t.registry()
	t.sortKeys()
	if len(t.keys) == 0 || strings.ContainsAny(registry, "<\r") {
		return nil, false
	}
	for _, k := range t.keys {
		r := t.routes[k]
		r.render()
		if r.odd {
			return nil, false
		}
	}
	head, mid, tail := last[:t.lastReg[0]], last[t.lastReg[1]:t.lastRows[0]], last[t.lastRows[1]:]
	sp = &Spliced{t: t}
	sp.add(head, "")
	sp.add(nil, registry)
	sp.reg = [2]int{len(head), sp.size}
	sp.add(mid, "")
	rowsAt := sp.size
	// from, to: a run of rows of last not taken yet.
	from, to := 0, 0
	for _, k := range t.keys {
		r := t.routes[k]
		if at := r.end - len(r.text); r.end > 0 && at == to && to > from {
			to = r.end
		} else {
			sp.add(last[from:to], "")
			from, to = 0, 0
			if r.end > 0 {
				from, to = at, r.end
			} else {
				sp.add(nil, r.text)
			}
		}
		r.end = sp.size + to - from
	}
	sp.add(last[from:to], "")
	sp.rows = [2]int{rowsAt, sp.size}
	sp.add(tail, "")
	t.last = nil // until Join
	return sp, true
}

// Spliced is a ROOT.md as Splice made it: pieces, each bytes or a string.
type Spliced struct {
	t         *Tables
	parts     []piece
	size      int
	reg, rows [2]int
}

type piece struct {
	b []byte
	s string
}

func (sp *Spliced) add(b []byte, s string) {
	if len(b)+len(s) > 0 {
		sp.parts = append(sp.parts, piece{b, s})
		sp.size += len(b) + len(s)
	}
}

// Len is the file's length.
func (sp *Spliced) Len() int { return sp.size }

// WriteTo writes the pieces to w, one after another.
func (sp *Spliced) WriteTo(w io.Writer) (n int64, err error) {
	for _, p := range sp.parts {
		var k int
		if p.b != nil {
			k, err = w.Write(p.b)
		} else {
			k, err = io.WriteString(w, p.s)
		}
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Equal reports whether the file is b.
func (sp *Spliced) Equal(b []byte) bool {
	if len(b) != sp.size {
		return false
	}
	for _, p := range sp.parts {
		n := len(p.b) + len(p.s)
		if p.b != nil && !bytes.Equal(b[:n], p.b) || p.b == nil && string(b[:n]) != p.s {
			return false
		}
		b = b[n:]
	}
	return true
}

// Join returns the file as one slice, and keeps it as the tables' last
// render (see Splice).
func (sp *Spliced) Join() []byte {
	out := make([]byte, 0, sp.size)
	for _, p := range sp.parts {
		out = append(out, p.b...)
		out = append(out, p.s...)
	}
	t := sp.t
	t.last, t.lastReg, t.lastRows = out, sp.reg, sp.rows
	return out
}

// RootLayout is where the markers of a ROOT.md's compiled sections lie,
// when it is the usual ROOT.md: of LF line ends, without conflict
// markers, each compiled section's markers present once and the registry
// first.
type RootLayout struct {
	size  int    // the file's length
	at    [4]int // where beginRegistry, endRegistry, beginRouting, endRouting start
	plain bool   // the file is the usual ROOT.md
}

// LayoutOf finds the layout of a ROOT.md in one pass over its '<' bytes
// and one for a CR, where looking for each marker and counting it passed
// over the 10 MB of a ROOT.md of 100,000 memories ten times.
func LayoutOf(old []byte) RootLayout {
	l := RootLayout{size: len(old)}
	if old == nil || bytes.Contains(old, []byte("\r\n")) {
		return l
	}
	markers := [4]string{beginRegistry, endRegistry, beginRouting, endRouting}
	at := [4]int{-1, -1, -1, -1}
	for i := 0; i < len(old); i++ {
		j := bytes.IndexByte(old[i:], '<')
		if j < 0 {
			break
		}
		i += j
		rest := old[i:]
		if bytes.HasPrefix(rest, []byte("<<<<<<<")) {
			return l
		}
		for k, m := range markers {
			if bytes.HasPrefix(rest, []byte(m)) {
				if at[k] >= 0 {
					return l // twice: no marker holds another
				}
				at[k] = i
			}
		}
	}
	for k := range at {
		if at[k] < 0 || k > 0 && at[k] < at[k-1] {
			return l
		}
	}
	l.at, l.plain = at, true
	return l
}

// rootInPlace is Root for the usual ROOT.md (l is its layout): the new
// file is assembled in one allocation from the person's text and the
// routing rows as they are kept, where rootWith copies a ROOT.md of
// 100,000 memories (10 MB, nearly all routing table) five times. ok is
// false for any other ROOT.md, which rootWith handles.
func (t *Tables) rootInPlace(old []byte, l RootLayout, buf []byte) (out []byte, ok bool) {
	if old == nil || !l.plain {
		return nil, false
	}
	at := l.at
	registry := t.registry()
	rows := t.rowsLen() // makes the keys
	cols := routingCols
	if len(t.keys) == 0 {
		cols = routingEmpty
	}
	// The file's length, exactly.
	size := at[0] + len(beginRegistry) + 1 + len(registry) + at[2] + len(beginRouting) - at[1] + 1 +
		len(routingHead) + len(cols) + rows + len(old) - at[3]
	if out = buf[:0]; cap(buf) < size {
		out = make([]byte, 0, size)
	}
	out = append(out, old[:at[0]+len(beginRegistry)]...)
	out = append(out, '\n')
	reg := [2]int{len(out), 0}
	out = append(out, registry...)
	reg[1] = len(out)
	out = append(out, old[at[1]:at[2]+len(beginRouting)]...)
	out = append(out, '\n')
	out = append(out, routingHead...)
	// Kept for splice when every generated byte is plain.
	keep := !t.OneShot && len(t.keys) > 0 && !strings.ContainsAny(registry, "<\r")
	out = append(out, cols...)
	rowsAt := len(out)
	for _, k := range t.keys {
		r := t.routes[k]
		if r.text == "" && t.OneShot {
			out = r.appendRow(out)
			continue
		}
		r.render()
		out = append(out, r.text...)
		r.end = len(out)
		keep = keep && !r.odd
	}
	t.last = nil
	if keep {
		t.lastReg, t.lastRows = reg, [2]int{rowsAt, len(out)}
	}
	out = append(out, old[at[3]:]...)
	if keep {
		t.last = out
	}
	return out, true
}

// rowsLen makes the sorted keys and returns the rows' length, each
// measured without rendering it.
func (t *Tables) rowsLen() int {
	t.sortKeys()
	size := 0
	for _, k := range t.keys {
		size += t.routes[k].rowLen()
	}
	return size
}

func (t *Tables) sortKeys() {
	if t.keys == nil {
		t.keys = make([]string, 0, len(t.routes))
		for k := range t.routes {
			t.keys = append(t.keys, k)
		}
		sort.Strings(t.keys)
	}
}

func (t *Tables) registry() string {
	cats := t.Categories()
	rows := make([]registryRow, len(cats))
	for i, name := range cats {
		rows[i] = registryRow{category: name}
		if c := t.cats[name]; c != nil {
			rows[i].live, rows[i].superseded = c.live, c.superseded
		}
	}
	return registryTable(rows)
}

func (t *Tables) routing() string {
	if len(t.routes) == 0 {
		return routingHead + routingEmpty
	}
	var b strings.Builder
	b.Grow(len(routingHead) + len(routingCols) + t.rows())
	b.WriteString(routingHead)
	b.WriteString(routingCols)
	for _, k := range t.keys {
		b.WriteString(t.routes[k].text)
	}
	return b.String()
}

// rows makes the sorted keys and the text of every route that has none,
// and returns the rows' length.
func (t *Tables) rows() int {
	t.sortKeys()
	size := 0
	for _, k := range t.keys {
		r := t.routes[k]
		r.render()
		size += len(r.text)
	}
	return size
}

// rowLen is the length of the route's row.
func (r *route) rowLen() int {
	if r.text != "" {
		return len(r.text)
	}
	n := len("| ") + len(r.cellText()) + len(" | ") + len(" |\n") + 2*(len(r.refs)-1)
	for _, x := range r.refs {
		n += 2*len(x.id) + len("[](.md)")
	}
	return n
}

// cellText is the route's trigger as its row's first cell holds it, its
// suspected secrets masked (see shown). It is masked when the row is
// made, not when the memory is added: building the tables of 100,000
// memories routes every trigger, and most rows are kept once made.
func (r *route) cellText() string { return cell(secrets.MaskLine(r.refs[0].label)) }

// appendRow appends the route's row as routingTable renders it.
func (r *route) appendRow(b []byte) []byte {
	b = append(b, "| "...)
	b = append(b, r.cellText()...)
	b = append(b, " | "...)
	for i, x := range r.refs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '[')
		b = append(b, x.id...)
		b = append(b, "]("...)
		b = append(b, x.id...)
		b = append(b, ".md)"...)
	}
	return append(b, " |\n"...)
}
