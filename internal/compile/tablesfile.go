package compile

import (
	"encoding/binary"
	"errors"
	"math"
	"sort"
	"strings"
)

// The tables as bytes, for a process that writes once (a CLI command's
// write) to start from the tables a previous load kept rather than build
// them from every memory: at 100,000 memories, building them (decoding
// 90,000 records, routing their triggers, sorting) is some 50 ms on two
// cores, and reading them back a fraction of it (docs/PERFORMANCE.md).
//
// The layout, every number a uvarint (but the sums) and every string its
// length then its bytes: the number of categories, and for each (by name)
// its name, its live and superseded counts and its ids (sorted), each
// followed by the sum of its line (LineSum, 8 bytes little-endian; 0 when
// not known); the number of routes
// and of their refs in all, and for each route (by key) its key and its
// refs (sorted by id), each an id and the trigger as it wrote it. The
// lines and rows are not kept: they are made on first use, as Build
// leaves them.

// errTables is returned by ReadTables for bytes Encode did not write.
var errTables = errors.New("compile: unusable tables")

// Encode returns the tables' memories as ReadTables reads them, in one
// allocation of their exact size (some 8 MB at 100,000 memories).
func (t *Tables) Encode() string {
	var e encoder
	t.encode(&e) // measures
	e.b.Grow(e.n)
	e.measured = true
	t.encode(&e)
	return e.b.String()
}

func (t *Tables) encode(e *encoder) {
	names := make([]string, 0, len(t.cats))
	for name := range t.cats {
		names = append(names, name)
	}
	sort.Strings(names)
	e.uvarint(uint64(len(names)))
	for _, name := range names {
		c := t.cats[name]
		e.str(name)
		e.uvarint(uint64(c.live))
		e.uvarint(uint64(c.superseded))
		e.uvarint(uint64(len(c.entries)))
		for _, x := range c.entries {
			e.str(x.id)
			sum := x.sum
			if x.line != "" {
				sum = LineSum(x.line)
			}
			e.u64(sum)
		}
	}
	t.sortKeys()
	refs := 0
	for _, k := range t.keys {
		refs += len(t.routes[k].refs)
	}
	e.uvarint(uint64(len(t.keys)))
	e.uvarint(uint64(refs))
	for _, k := range t.keys {
		r := t.routes[k]
		e.str(k)
		e.uvarint(uint64(len(r.refs)))
		for _, x := range r.refs {
			e.str(x.id)
			e.str(x.label)
		}
	}
}

// encoder measures what Encode writes (n), then, once measured, writes it.
type encoder struct {
	b        strings.Builder
	n        int
	measured bool
	scratch  [binary.MaxVarintLen64]byte
}

func (e *encoder) uvarint(x uint64) {
	v := binary.AppendUvarint(e.scratch[:0], x)
	if e.measured {
		e.b.Write(v)
	} else {
		e.n += len(v)
	}
}

func (e *encoder) u64(x uint64) {
	if e.measured {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], x)
		e.b.Write(b[:])
	} else {
		e.n += 8
	}
}

func (e *encoder) str(s string) {
	e.uvarint(uint64(len(s)))
	if e.measured {
		e.b.WriteString(s)
	} else {
		e.n += len(s)
	}
}

// ReadTables returns the tables Encode wrote into data, for a root
// with the configured categories, as Build would have left them: nothing
// marked changed, no line or row made. Their strings share data's memory.
// Bytes that are not such tables (counts that do not add up, ids or keys
// out of order) are an error; what ReadTables accepts, every method of
// Tables takes.
func ReadTables(configured []string, data string) (*Tables, error) {
	d := decoder{s: data}
	t := NewTables(configured)
	prev := ""
	for range d.count(1) {
		name := d.str()
		live, superseded, n := d.count(0), d.count(0), d.count(9)
		if d.bad || name <= prev || n == 0 || live+superseded != n {
			return nil, errTables
		}
		c := &catTable{entries: make([]catEntry, n), live: live, superseded: superseded}
		for i := range c.entries {
			c.entries[i].id, c.entries[i].sum = d.str(), d.u64()
			if d.bad || i > 0 && c.entries[i-1].id >= c.entries[i].id {
				return nil, errTables
			}
		}
		t.cats[name], prev = c, name
	}
	nroutes, nrefs := d.count(1), d.count(2)
	if d.bad {
		return nil, errTables
	}
	routes := make([]route, nroutes)
	refs := make([]routeRef, nrefs)
	t.routes = make(map[string]*route, nroutes)
	t.keys = make([]string, nroutes)
	for i := range routes {
		key := d.str()
		n := d.count(2)
		if d.bad || key == "" || n == 0 || n > len(refs) || i > 0 && t.keys[i-1] >= key {
			return nil, errTables
		}
		r := &routes[i]
		r.refs, refs = refs[:n:n], refs[n:]
		for j := range r.refs {
			r.refs[j] = routeRef{id: d.str(), label: d.str()}
			if d.bad || r.refs[j].label == "" || j > 0 && r.refs[j-1].id >= r.refs[j].id {
				return nil, errTables
			}
		}
		t.keys[i] = key
		t.routes[key] = r
	}
	if len(refs) != 0 || len(d.s) != 0 {
		return nil, errTables
	}
	return t, nil
}

// decoder reads Encode's numbers and strings; bad says one did not
// read, after which every read returns zero.
type decoder struct {
	s   string
	bad bool
}

func (d *decoder) uvarint() uint64 {
	if len(d.s) > 0 && d.s[0] < 0x80 { // nearly every number: a length
		x := d.s[0]
		d.s = d.s[1:]
		return uint64(x)
	}
	var x uint64
	for i := 0; i < len(d.s) && i < binary.MaxVarintLen64; i++ {
		c := d.s[i]
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			if c == 0 && i > 0 || i == binary.MaxVarintLen64-1 && c > 1 {
				break // not as AppendUvarint writes it
			}
			d.s = d.s[i+1:]
			return x
		}
	}
	d.bad = true
	d.s = ""
	return 0
}

// count reads a count of things each taking at least size bytes of what
// is left, so that no count allocates more than the data could hold.
func (d *decoder) count(size int) int {
	x := d.uvarint()
	if x > math.MaxInt32 || x*uint64(size) > uint64(len(d.s)) {
		d.bad, d.s = true, ""
		return 0
	}
	return int(x)
}

func (d *decoder) u64() uint64 {
	if len(d.s) < 8 {
		d.bad, d.s = true, ""
		return 0
	}
	var x uint64
	for i := 7; i >= 0; i-- {
		x = x<<8 | uint64(d.s[i])
	}
	d.s = d.s[8:]
	return x
}

func (d *decoder) str() string {
	if len(d.s) > 0 {
		// Nearly every string: shorter than 128 bytes, its length one byte.
		if n := int(d.s[0]); n < 0x80 && n < len(d.s) {
			s := d.s[1 : 1+n]
			d.s = d.s[1+n:]
			return s
		}
	}
	n := d.count(1)
	s := d.s[:n]
	d.s = d.s[n:]
	return s
}
