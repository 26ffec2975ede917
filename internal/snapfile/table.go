package snapfile

import (
	"encoding/binary"
	"unsafe"
)

// Table is a table of strings as a section holds it: a uint64 count, the
// uint32 end offset of each string, padding to 8, then the strings' bytes
// (Data). Ends and Data are what a table is built from; a table of
// records is built by appending each record to Data and its end to Ends.
type Table struct {
	Ends []uint32
	Data []byte
}

// ReadTable checks a section as a table and returns it, sharing b.
func ReadTable(b []byte) (Table, error) {
	if len(b) < 8 {
		return Table{}, ErrUnusable
	}
	n := binary.LittleEndian.Uint64(b)
	if n > uint64(len(b)-8)/4 {
		return Table{}, ErrUnusable
	}
	endsLen := 4 * int(n)
	if align8(8+endsLen) > len(b) {
		return Table{}, ErrUnusable
	}
	ends, err := view[uint32](b[8 : 8+endsLen])
	if err != nil {
		return Table{}, err
	}
	data := b[align8(8+endsLen):]
	prev := uint32(0)
	for _, e := range ends {
		if e < prev || e > uint32(len(data)) {
			return Table{}, ErrUnusable
		}
		prev = e
	}
	if int(prev) != len(data) {
		return Table{}, ErrUnusable
	}
	return Table{ends, data}, nil
}

// Len is the number of strings.
func (t Table) Len() int { return len(t.Ends) }

// At is string i, sharing the table's memory.
func (t Table) At(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = t.Ends[i-1]
	}
	return t.Data[start:t.Ends[i]:t.Ends[i]]
}

// Strings returns every string of the table, sharing the table's memory.
func (t Table) Strings() []string {
	out := make([]string, len(t.Ends))
	for i := range out {
		out[i] = unsafeString(t.At(i))
	}
	return out
}

// head is the table's count and ends, padded: what precedes Data.
func (t Table) head() []byte {
	head := binary.LittleEndian.AppendUint64(nil, uint64(len(t.Ends)))
	head = append(head, bytesOf(t.Ends)...)
	return append(head, make([]byte, align8(len(head))-len(head))...)
}

// tableOf lays strings out as a table, in one slice.
func tableOf(ss []string) []byte {
	ends := make([]uint32, len(ss))
	size := 0
	for i, s := range ss {
		size += len(s)
		ends[i] = uint32(size)
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(ss)))
	out = append(out, bytesOf(ends)...)
	out = append(out, make([]byte, align8(len(out))-len(out))...)
	for _, s := range ss {
		out = append(out, s...)
	}
	return out
}

func align8(n int) int { return (n + 7) &^ 7 }

// bytesOf is the memory of a slice of fixed-size values, as bytes.
func bytesOf[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// view is the inverse of bytesOf, without copying: b must be aligned for T
// and a whole number of Ts long.
func view[T any](b []byte) ([]T, error) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if len(b)%size != 0 {
		return nil, ErrUnusable
	}
	if len(b) == 0 {
		return []T{}, nil
	}
	if uintptr(unsafe.Pointer(&b[0]))%unsafe.Alignof(zero) != 0 {
		return nil, ErrUnusable
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/size), nil
}

func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
