package lexicon

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"unicode/utf8"
)

// The embedded tables share one format, a sorted string table read in place: nothing is decoded
// at start-up beyond a fixed header, so the first lookup costs a binary search, not a load.
//
//	table = magic "LXT2" | uvarint count | uvarint blockSize | uvarint valueWidth | uvarint blocks |
//	        blocks × uint32 LE offset (from the start of body) | body
//	body  = entry…   (count entries, keys strictly increasing in byte order)
//	entry = head | suffix | value       when valueWidth > 0 (every value has that many bytes)
//	entry = head | suffix | uvarint valueLen | value      when valueWidth = 0
//	head  = one byte shared<<4 | suffixLen when both are below 15, else 0xFF uvarint shared uvarint suffixLen
//
// Keys are front-coded: shared is the length of the prefix the key has in common with the previous
// key of its block; the first key of every block is stored whole (shared = 0), which is what the
// binary search over blocks compares. A lookup then reads one block of at most blockSize entries
// without building its keys (see scan), twice as fast as building and comparing each key
// (BenchmarkLookupScan against BenchmarkLookupSlow).
//
// Keys are stored in a compact code, not UTF-8 (see encodeKey): a Chinese character takes two
// bytes instead of three. Measured on the real data, the code and the one-byte head together took
// the three tables from 5.30 MB (3.32 MB of it the Chinese table) to 4.30 MB (2.59 MB).
//
// Blocks of 16: blocks of 8 made the tables 4.64 MB, of 32 4.20 MB, and a mix of the four
// lookups took about 6.9, 7.9 and 10 µs with 8, 16 and 32 (medians of 5 runs on a loaded machine).

const (
	tableMagic       = "LXT2"
	defaultBlockSize = 16
	maxKeyLen        = 255 // encoded key bytes; keys are words or short phrases
	longHead         = 0xFF
)

// The key code: an ASCII byte stands for itself; a character among the first 19,712 of the CJK
// Unified Ideographs block (U+4E00–U+9CFF, all but a few hundred rare characters and a few common
// ones such as 龙 and 黄) takes two bytes, a lead then the low byte of its offset in the block; any
// other character is its UTF-8 bytes. The 77 lead bytes are the ones that never start a UTF-8
// sequence (0x80–0xC1, 0xF5–0xFF), so a decoder tells the two apart by the first byte. The code is
// a bijection on valid UTF-8, so comparing codes is as good as comparing text for a sorted table;
// a string with invalid UTF-8 has no code.
const (
	cjkFirst   = 0x4E00
	cjkLowLead = 0x80 // leads 0x80–0xC1 stand for offsets 0x0000–0x41FF
	cjkLowN    = 0xC2 - cjkLowLead
	cjkHiLead  = 0xF5 // leads 0xF5–0xFF stand for offsets 0x4200–0x4CFF
	cjkCoded   = (cjkLowN + 0x100 - cjkHiLead) << 8
)

// encodeKey appends the code of s to dst; ok is false when s is not valid UTF-8.
func encodeKey(dst []byte, s string) (_ []byte, ok bool) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			return dst, false
		}
		if off := int(r) - cjkFirst; off >= 0 && off < cjkCoded {
			lead := off >> 8
			if lead < cjkLowN {
				lead += cjkLowLead
			} else {
				lead += cjkHiLead - cjkLowN
			}
			dst = append(dst, byte(lead), byte(off))
		} else {
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return dst, true
}

// decodeKey appends the UTF-8 text of the code k to dst; ok is false when k is not a valid code.
func decodeKey(dst []byte, k []byte) (_ []byte, ok bool) {
	for i := 0; i < len(k); {
		c := k[i]
		switch {
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		case c < cjkLowLead+cjkLowN || c >= cjkHiLead:
			if i+1 >= len(k) {
				return dst, false
			}
			hi := int(c) - cjkLowLead
			if c >= cjkHiLead {
				hi = int(c) - cjkHiLead + cjkLowN
			}
			dst = utf8.AppendRune(dst, rune(cjkFirst+hi<<8|int(k[i+1])))
			i += 2
		default:
			r, n := utf8.DecodeRune(k[i:])
			if r == utf8.RuneError && n <= 1 {
				return dst, false
			}
			if off := int(r) - cjkFirst; off >= 0 && off < cjkCoded {
				return dst, false // has a two-byte code: not canonical
			}
			dst = append(dst, k[i:i+n]...)
			i += n
		}
	}
	return dst, true
}

// entry is one key (UTF-8) and its value, as the builder takes them.
type entry struct {
	key   string
	value string
}

// encodeTable writes entries, which must be in code order (see sortByCode) without duplicates,
// in the table format. valueWidth > 0 says every value has exactly that many bytes.
func encodeTable(entries []entry, blockSize, valueWidth int) ([]byte, error) {
	if blockSize <= 0 {
		blockSize = defaultBlockSize
	}
	type coded struct {
		key   string
		value string
	}
	cs := make([]coded, len(entries))
	for i, e := range entries {
		k, ok := encodeKey(nil, e.key)
		if !ok || len(k) == 0 || len(k) > maxKeyLen {
			return nil, fmt.Errorf("table key %q: not UTF-8 of 1..%d code bytes", e.key, maxKeyLen)
		}
		if valueWidth > 0 && len(e.value) != valueWidth {
			return nil, fmt.Errorf("table key %q: value of %d bytes, want %d", e.key, len(e.value), valueWidth)
		}
		cs[i] = coded{string(k), e.value}
		if i > 0 && cs[i-1].key >= cs[i].key {
			return nil, fmt.Errorf("table keys not strictly increasing in code order: %q then %q", entries[i-1].key, e.key)
		}
	}
	var body []byte
	var offsets []uint32
	prev := ""
	for i, e := range cs {
		shared := 0
		if i%blockSize == 0 {
			offsets = append(offsets, uint32(len(body)))
		} else {
			shared = commonPrefix(prev, e.key)
		}
		sl := len(e.key) - shared
		if shared < 15 && sl < 15 {
			body = append(body, byte(shared<<4|sl))
		} else {
			body = append(body, longHead)
			body = binary.AppendUvarint(body, uint64(shared))
			body = binary.AppendUvarint(body, uint64(sl))
		}
		body = append(body, e.key[shared:]...)
		if valueWidth == 0 {
			body = binary.AppendUvarint(body, uint64(len(e.value)))
		}
		body = append(body, e.value...)
		prev = e.key
	}
	out := []byte(tableMagic)
	out = binary.AppendUvarint(out, uint64(len(cs)))
	out = binary.AppendUvarint(out, uint64(blockSize))
	out = binary.AppendUvarint(out, uint64(valueWidth))
	out = binary.AppendUvarint(out, uint64(len(offsets)))
	for _, o := range offsets {
		out = binary.LittleEndian.AppendUint32(out, o)
	}
	return append(out, body...), nil
}

// sortByCode sorts keys (valid UTF-8) in the order of their codes, the order of a table.
func sortByCode(keys []string) {
	codes := make(map[string]string, len(keys))
	for _, k := range keys {
		c, _ := encodeKey(nil, k)
		codes[k] = string(c)
	}
	sort.Slice(keys, func(i, j int) bool { return codes[keys[i]] < codes[keys[j]] })
}

// commonPrefix returns the length of the longest common byte prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// table reads a table in place. Its zero value is an empty table.
type table struct {
	count      int
	blockSize  int
	valueWidth int
	index      string // blocks × 4-byte offsets
	body       string
}

var errCorrupt = errors.New("lexicon: corrupt table")

// openTable checks the header of data and returns a reader over it. The entries are read lazily
// by lookups, which treat damage they meet as absence.
func openTable(data string) (table, error) {
	if len(data) < len(tableMagic) || data[:len(tableMagic)] != tableMagic {
		return table{}, errCorrupt
	}
	rest := data[len(tableMagic):]
	var hdr [4]uint64
	for i := range hdr {
		v, n := uvarint(rest)
		if n <= 0 {
			return table{}, errCorrupt
		}
		hdr[i], rest = v, rest[n:]
	}
	count, bs, vw, blocks := hdr[0], hdr[1], hdr[2], hdr[3]
	if bs == 0 || bs > 1<<16 || vw > 1<<16 || count > uint64(len(rest)) ||
		blocks != (count+bs-1)/bs || blocks*4 > uint64(len(rest)) {
		return table{}, errCorrupt
	}
	return table{
		count:      int(count),
		blockSize:  int(bs),
		valueWidth: int(vw),
		index:      rest[:blocks*4],
		body:       rest[blocks*4:],
	}, nil
}

// uvarint is binary.Uvarint for a string: n > 0 bytes read, 0 too short, < 0 overflow.
func uvarint(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		b := s[i]
		if b < 0x80 {
			if i == binary.MaxVarintLen64-1 && b > 1 {
				return 0, -1
			}
			return x | uint64(b)<<shift, i + 1
		}
		x |= uint64(b&0x7f) << shift
		shift += 7
	}
	return 0, 0
}

func (t *table) blocks() int { return len(t.index) / 4 }

// offset returns where block b starts in the body.
func (t *table) offset(b int) int {
	s := t.index[b*4 : b*4+4]
	return int(uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24)
}

// cursor walks the entries of one block; buf[:n] is the current key's code. It holds the key
// in an array, not a slice, so that a lookup does not allocate.
type cursor struct {
	rest       string
	buf        [maxKeyLen]byte
	n          int
	value      string
	left       int
	valueWidth int
}

func (c *cursor) key() []byte { return c.buf[:c.n] }

// seek puts c at the start of block b.
func (t *table) seek(c *cursor, b int) {
	c.n, c.value, c.left, c.valueWidth = 0, "", 0, t.valueWidth
	off := t.offset(b)
	if off > len(t.body) {
		c.rest = ""
		return
	}
	c.rest = t.body[off:]
	c.left = min(t.blockSize, t.count-b*t.blockSize)
}

// next advances to the next entry; it reports false at the end of the block or on damage.
func (c *cursor) next() bool {
	if c.left <= 0 {
		return false
	}
	c.left--
	shared, sl, rest, ok := readHead(c.rest)
	c.rest = rest
	if !ok || shared > c.n || sl > len(c.rest) || shared+sl > maxKeyLen {
		c.left = 0
		return false
	}
	c.n = shared + copy(c.buf[shared:], c.rest[:sl])
	c.rest = c.rest[sl:]
	vl := c.valueWidth
	if vl == 0 {
		v, n := uvarint(c.rest)
		if n <= 0 || v > uint64(len(c.rest)-n) {
			c.left = 0
			return false
		}
		vl, c.rest = int(v), c.rest[n:]
	}
	if vl > len(c.rest) {
		c.left = 0
		return false
	}
	c.value, c.rest = c.rest[:vl], c.rest[vl:]
	return true
}

// readHead reads an entry's shared and suffix lengths from the start of s.
func readHead(s string) (shared, sl int, rest string, ok bool) {
	if len(s) == 0 {
		return 0, 0, "", false
	}
	h := s[0]
	s = s[1:]
	if h != longHead {
		return int(h >> 4), int(h & 15), s, true
	}
	v, n := uvarint(s)
	if n <= 0 || v > maxKeyLen {
		return 0, 0, "", false
	}
	s = s[n:]
	l, n := uvarint(s)
	if n <= 0 || l > maxKeyLen {
		return 0, 0, "", false
	}
	return int(v), int(l), s[n:], true
}

// firstKey returns the code of the first key of block b, sliced from the table without copying.
func (t *table) firstKey(b int) string {
	off := t.offset(b)
	if off > len(t.body) {
		return ""
	}
	shared, sl, rest, ok := readHead(t.body[off:])
	if !ok || shared != 0 || sl > len(rest) {
		return ""
	}
	return rest[:sl]
}

// lookup returns the value stored under key (UTF-8) and the entry's position in the table.
func (t *table) lookup(key string) (value string, pos int, ok bool) {
	if t.count == 0 || len(key) == 0 || len(key) > 2*maxKeyLen {
		return "", 0, false
	}
	var kbuf [2 * maxKeyLen]byte
	k, valid := encodeKey(kbuf[:0], key)
	if !valid || len(k) > maxKeyLen {
		return "", 0, false
	}
	// The last block whose first key is <= k holds k if any block does.
	b := sort.Search(t.blocks(), func(i int) bool { return t.firstKey(i) > string(k) }) - 1
	if b < 0 {
		return "", 0, false
	}
	return t.scan(b, string(k))
}

// scan looks for the code k in block b without building its keys. It keeps m, the length of the
// prefix k shares with the previous key, which is smaller than k: an entry that shares more than
// m bytes with the previous key is smaller than k as well, one that shares fewer is greater, and
// only one that shares exactly m bytes needs its suffix compared with k[m:].
func (t *table) scan(b int, k string) (value string, pos int, ok bool) {
	off := t.offset(b)
	if off > len(t.body) {
		return "", 0, false
	}
	rest := t.body[off:]
	m := 0
	n := min(t.blockSize, t.count-b*t.blockSize)
	for i := range n {
		shared, sl, r, ok := readHead(rest)
		if !ok || sl > len(r) || (i == 0 && shared != 0) {
			return "", 0, false
		}
		suffix := r[:sl]
		if value, rest, ok = t.readValue(r[sl:]); !ok {
			return "", 0, false
		}
		if shared > m {
			continue
		}
		if shared < m {
			return "", 0, false
		}
		j := commonPrefix(suffix, k[m:])
		switch {
		case j == len(suffix) && m+j == len(k):
			return value, b*t.blockSize + i, true
		case m+j == len(k):
			return "", 0, false // k is a proper prefix of this key: the key is greater
		case j < len(suffix) && suffix[j] > k[m+j]:
			return "", 0, false
		}
		m += j // the key is smaller than k and shares m+j bytes with it
	}
	return "", 0, false
}

// readValue reads an entry's value from the start of s.
func (t *table) readValue(s string) (value, rest string, ok bool) {
	vl := t.valueWidth
	if vl == 0 {
		v, n := uvarint(s)
		if n <= 0 || v > uint64(len(s)-n) {
			return "", "", false
		}
		vl, s = int(v), s[n:]
	}
	if vl > len(s) {
		return "", "", false
	}
	return s[:vl], s[vl:], true
}

// at returns the key (UTF-8, appended to dst) and value of the entry at position pos.
func (t *table) at(pos int, dst []byte) (key []byte, value string, ok bool) {
	if pos < 0 || pos >= t.count {
		return dst, "", false
	}
	var c cursor
	t.seek(&c, pos/t.blockSize)
	for i := 0; c.next(); i++ {
		if i == pos%t.blockSize {
			key, ok := decodeKey(dst, c.key())
			return key, c.value, ok
		}
	}
	return dst, "", false
}

// all calls f for every entry in table order until f returns false.
func (t *table) all(f func(key, value string) bool) {
	var c cursor
	var kb []byte
	for b := range t.blocks() {
		t.seek(&c, b)
		for c.next() {
			var ok bool
			kb, ok = decodeKey(kb[:0], c.key())
			if !ok || !f(string(kb), c.value) {
				return
			}
		}
	}
}
