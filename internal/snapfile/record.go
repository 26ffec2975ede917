package snapfile

import (
	"encoding/binary"
	"errors"
	"maps"
	"slices"

	"github.com/ocmem/ocmem/internal/memory"
)

// A record holds a memory's fields: eight strings (each a uvarint length
// and its bytes), created and updated (varints), pinned (a byte), and the
// triggers (a uvarint count, then strings), the enforce block's guards (a
// uvarint count, then tool, pattern and action of each) and its problems
// (a uvarint count, then a varint line and a message each), the anchors
// (a uvarint count, then strings), and verified: its commit (a string), its
// time (a varint) and its digests (a uvarint count, then path and digest
// of each, sorted by path so that the same memory writes the same bytes),
// then outdated: its commit (a string), its time (a varint) and its reason
// (a string).

// AppendRecord appends m's record to b.
func AppendRecord(b []byte, m *memory.Memory) []byte {
	for _, s := range []string{m.ID, string(m.Kind), m.Summary, m.Highlight, m.Supersedes, m.SupersededBy, m.ProposedBy, m.Body} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendVarint(b, m.Created)
	b = binary.AppendVarint(b, m.Updated)
	pinned := byte(0)
	if m.Pinned {
		pinned = 1
	}
	b = append(b, pinned)
	b = binary.AppendUvarint(b, uint64(len(m.LoadWhen)))
	for _, t := range m.LoadWhen {
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
	}
	b = binary.AppendUvarint(b, uint64(len(m.Enforce)))
	for _, g := range m.Enforce {
		for _, s := range []string{g.Tool, g.Pattern, string(g.Action)} {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(m.EnforceProblems)))
	for _, p := range m.EnforceProblems {
		b = binary.AppendVarint(b, int64(p.Line))
		msg := p.Err.Error()
		b = binary.AppendUvarint(b, uint64(len(msg)))
		b = append(b, msg...)
	}
	b = binary.AppendUvarint(b, uint64(len(m.Anchors)))
	for _, a := range m.Anchors {
		b = appendString(b, a)
	}
	b = appendString(b, m.Verified.Commit)
	b = binary.AppendVarint(b, m.Verified.Time)
	b = binary.AppendUvarint(b, uint64(len(m.Verified.Digests)))
	for _, k := range slices.Sorted(maps.Keys(m.Verified.Digests)) {
		b = appendString(b, k)
		b = appendString(b, m.Verified.Digests[k])
	}
	b = appendString(b, m.Outdated.Commit)
	b = binary.AppendVarint(b, m.Outdated.Time)
	return appendString(b, m.Outdated.Reason)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// DecodeRecord reads a record; its strings share b's memory.
func DecodeRecord(b []byte) (*memory.Memory, error) {
	m := &memory.Memory{}
	if err := DecodeRecordInto(b, m); err != nil {
		return nil, err
	}
	return m, nil
}

// DecodeRecordInto reads a record into m, reusing m.LoadWhen's array.
func DecodeRecordInto(b []byte, m *memory.Memory) error {
	r := recordReader{b: b}
	*m = memory.Memory{LoadWhen: m.LoadWhen[:0]}
	m.ID, m.Kind, m.Summary, m.Highlight = r.str(), memory.Kind(r.str()), r.str(), r.str()
	m.Supersedes, m.SupersededBy, m.ProposedBy, m.Body = r.str(), r.str(), r.str(), r.str()
	m.Created, m.Updated = r.varint(), r.varint()
	m.Pinned = r.byte() == 1
	if n := r.uvarint(); n <= uint64(len(r.b)) {
		for range n {
			m.LoadWhen = append(m.LoadWhen, r.str())
		}
	} else {
		r.err = ErrUnusable
	}
	if len(m.LoadWhen) == 0 {
		m.LoadWhen = nil
	}
	// Each guard takes three bytes at least, each problem two: a count
	// over what is left is a damaged record, not an allocation to make.
	if n := r.uvarint(); n > 0 && n <= uint64(len(r.b))/3 {
		m.Enforce = make([]memory.Guard, n)
		for i := range m.Enforce {
			m.Enforce[i] = memory.Guard{Tool: r.str(), Pattern: r.str(), Action: memory.Action(r.str())}
		}
	} else if n > 0 {
		r.err = ErrUnusable
	}
	if n := r.uvarint(); n > 0 && n <= uint64(len(r.b))/2 {
		m.EnforceProblems = make([]memory.ParseError, n)
		for i := range m.EnforceProblems {
			line := r.varint()
			m.EnforceProblems[i] = memory.ParseError{Line: int(line), Err: errors.New(r.str())}
		}
	} else if n > 0 {
		r.err = ErrUnusable
	}
	r.anchors(m)
	if r.err != nil || len(r.b) != 0 {
		return ErrUnusable
	}
	return nil
}

// RecordSummary reads a record's summary alone, without the rest of its
// fields, as a scan for a memory of a given summary does; ok is false for
// a record that does not read as far, which DecodeRecord refuses too.
func RecordSummary(b []byte) (summary string, ok bool) {
	r := recordReader{b: b}
	r.str() // the id
	r.str() // the kind
	summary = r.str()
	return summary, r.err == nil
}

// RecordLinks reads a record's id and supersede links alone, without the
// rest of its fields, as a look for the memories that name one does; ok is
// false for a record that does not read as far, which DecodeRecord
// refuses too.
func RecordLinks(b []byte) (id, supersedes, supersededBy string, ok bool) {
	r := recordReader{b: b}
	id = r.str()
	r.str() // the kind
	r.str() // the summary
	r.str() // the highlight
	supersedes, supersededBy = r.str(), r.str()
	return id, supersedes, supersededBy, r.err == nil
}

// anchors reads the anchors, verified and outdated. A string takes one byte at
// least, a digest two: a count over what is left is a damaged record.
func (r *recordReader) anchors(m *memory.Memory) {
	if n := r.uvarint(); n > 0 && n <= uint64(len(r.b)) {
		m.Anchors = make([]string, n)
		for i := range m.Anchors {
			m.Anchors[i] = r.str()
		}
	} else if n > 0 {
		r.err = ErrUnusable
	}
	m.Verified.Commit = r.str()
	m.Verified.Time = r.varint()
	if n := r.uvarint(); n > 0 && n <= uint64(len(r.b))/2 {
		m.Verified.Digests = make(map[string]string, n)
		for range n {
			k := r.str()
			if _, dup := m.Verified.Digests[k]; dup {
				r.err = ErrUnusable // AppendRecord writes each path once
			}
			m.Verified.Digests[k] = r.str()
		}
	} else if n > 0 {
		r.err = ErrUnusable
	}
	m.Outdated.Commit = r.str()
	m.Outdated.Time = r.varint()
	m.Outdated.Reason = r.str()
}

type recordReader struct {
	b   []byte
	err error
}

func (r *recordReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = ErrUnusable
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recordReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = ErrUnusable
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recordReader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = ErrUnusable
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *recordReader) str() string {
	if r.err == nil && len(r.b) > 0 {
		// Most strings: shorter than 128 bytes, their length one byte.
		if n := int(r.b[0]); n < 0x80 && n < len(r.b) {
			s := unsafeString(r.b[1 : 1+n])
			r.b = r.b[1+n:]
			return s
		}
	}
	n := r.uvarint()
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = ErrUnusable
		return ""
	}
	s := unsafeString(r.b[:n])
	r.b = r.b[n:]
	return s
}
