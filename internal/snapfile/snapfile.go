// Package snapfile is the file format of a snapshot of ocmem's memories as
// it lies in memory: every file's path, size, modification time, stamp and
// parsed fields, each root's compiled tables as the writer encoded them,
// the inverted index (index.Parts) and the ranking columns (rank.Columns). A snapshot file is mapped into memory (Map) and used in
// place: Open decodes nothing per memory, checks every table it returns,
// and hands the index and the columns to index.FromParts and
// rank.FromColumns, which check them again; a memory's fields are made
// into Go values only when asked for (DecodeRecord).
//
// It is named for what the file holds, a snapshot, rather than for the one
// use ocmem makes of it, the engine's load cache: the package knows the
// byte layout (the header, the sections, their alignment and checksum, the
// string tables and the record of a memory's fields) and nothing of where
// such a file lives, whose roots it describes, or when it may be trusted
// over the memory files. The engine decides those (internal/engine's
// cache.go); Roots and Analysis are opaque to this package.
//
// The layout, all integers little-endian: the magic "OCMEMSEG", the format
// version (uint32), a CRC-32 (IEEE) of everything after the 32-byte header
// up to the tables' section (uint32), the number of sections (uint32), a
// CRC-32 of everything after the header up to the end of the files'
// sections (uint32), a CRC-32 of the tables' section (uint32), four zero
// bytes, and for each section its offset and length (uint64s). Each
// section starts at a multiple of 8, so the typed ones can be used in
// place. The sections are numbered below (secRoots …) and laid out in that
// order: the files' sections first, so that OpenFiles, for a process that
// needs the files and not the index (a write), checks and touches those
// alone, not the 60 MB of postings and columns of 100,000 memories; the
// compiled tables last, under a checksum of their own, so that neither
// Open nor OpenFiles reads their 10 MB: only a write that uses them does
// (Contents.OpenTables).
//
// Files:
//
//   - snapfile.go: Contents, Open and Write: the header and the sections.
//   - table.go: the string table (Table) and typed views of a section.
//   - record.go: a memory's fields as one record.
//   - map_unix.go, map_other.go: Map.
package snapfile

import (
	"bufio"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"unsafe"

	"github.com/ocmem/ocmem/internal/index"
	"github.com/ocmem/ocmem/internal/rank"
)

const (
	magic = "OCMEMSEG"
	// Version is the format's version; a file of another version does not
	// open. 10: each record's outdated; 9: each record's anchors and verified; 8: each record's enforce block; 7: the compiled tables last, with a CRC of their own, and each
	// index line's sum in them; 6: each root's compiled tables among the
	// files' sections;
	// 5: the files' sections first, with their own CRC; 4: and
	// each file's stamp; 3: the whole snapshot, mapped; 2: parsed fields
	// and terms per file.
	Version = 10
)

// headSize is the header's length, before the section table.
const headSize = 32

const (
	secRoots        = iota // Contents.Roots
	secCounts              // uint64: files of the first root, all files
	secRels                // table: each file's Rel
	secSizes               // int64 per file
	secMtimes              // int64 per file: modification time, Unix ns
	secFileStamps          // uint64 per file: store.File.Stamp
	secRecords             // table: each file's memory fields (AppendRecord)
	secStamp               // Contents.Analysis
	numFileSections        // the sections OpenFiles checks and returns
)

const (
	secTerms = numFileSections + iota // index.Parts
	secTermEnd
	secPostEnd
	secPost
	secLengths
	secFlags // rank.Columns
	secUpdated
	secSameID
	secIDs
	secSupers
	secTriggers
	secTables // table: Contents.Tables, under their own CRC
	numSections
)

// ErrUnusable is returned by Open for data that is not a snapshot file of
// this version, or whose tables do not check out.
var ErrUnusable = errors.New("unusable snapshot file")

// LittleEndian reports whether this machine lays numbers out as the format
// does. A snapshot file is used in place, so it is only written and read
// on little-endian machines (every platform OpenCode runs on).
var LittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// Contents is what a snapshot file holds. File i is document i of Corpus;
// files [0, Global) belong to the first root, the others to the second.
// What Open returns shares the file's memory, which must not change.
type Contents struct {
	// Roots names the roots the snapshot is of; Analysis names how the
	// text was analyzed. Both are the writer's, kept as given.
	Roots, Analysis string
	Global          int
	Rels            []string // per file: its path in its root
	Sizes, Mtimes   []int64  // per file: size, modification time (Unix ns)
	Stamps          []uint64 // per file: store.File.Stamp
	Records         Table    // per file: its memory's fields (AppendRecord)
	// Tables is, for each root, what the writer made of its memories'
	// compiled tables (compile.Tables.Encode), opaque to this
	// package; "" for none. Open and OpenFiles leave it empty: the
	// tables are checked and read by OpenTables.
	Tables [2]string
	// Corpus is the index and the ranking columns; Open's has every
	// recall counter at zero (rank.Columns.Hits are not stored).
	Corpus *rank.Corpus

	// tables is the tables' section as Open found it, not checked yet,
	// and tablesCRC what its checksum must be.
	tables    []byte
	tablesCRC uint32
}

// OpenTables checks the tables' section of an opened snapshot file
// against its own checksum and returns the tables, in place. It reads
// the section's pages, which Open and OpenFiles do not.
func (c *Contents) OpenTables() ([2]string, error) {
	var out [2]string
	if crc32.ChecksumIEEE(c.tables) != c.tablesCRC {
		return out, ErrUnusable
	}
	t, err := ReadTable(c.tables)
	if err != nil || t.Len() != len(out) {
		return out, ErrUnusable
	}
	for i := range out {
		out[i] = unsafeString(t.At(i))
	}
	return out, nil
}

// Len is the number of files.
func (c *Contents) Len() int { return len(c.Rels) }

// Open checks a snapshot file's header (magic, version, section table,
// checksum) and every table, and returns its contents, in place.
func Open(data []byte) (Contents, error) {
	secs, err := sections(data, false)
	if err != nil {
		return Contents{}, err
	}
	c, err := files(data, secs)
	if err != nil {
		return Contents{}, err
	}
	c.Corpus, err = corpus(secs, c.Len())
	if err != nil {
		return Contents{}, err
	}
	// The records (43 MB at 100,000 memories) and the postings (53 MB)
	// are most of the file, and a read (a recall, an injection) uses
	// the records of its hits and of the files changed since, and the
	// postings of its terms: their pages are given back as the checksum
	// passes them (sections), and the postings' again once
	// index.FromParts has checked them all, rather than held for the rest
	// of the process. A serve process's tiers read every record again,
	// from the page cache. OpenFiles keeps the records: a write's
	// duplicate check reads every one next.
	release(secs[secPost])
	return c, nil
}

// OpenFiles is Open for the files alone: it checks the header and the
// files' sections (their own CRC), and returns the contents without
// Corpus, reading none of the index's or the columns' bytes.
func OpenFiles(data []byte) (Contents, error) {
	secs, err := sections(data, true)
	if err != nil {
		return Contents{}, err
	}
	return files(data, secs)
}

// files returns the contents of the files' sections, and the tables'
// section unchecked.
func files(data []byte, secs [][]byte) (Contents, error) {
	size := len(data)
	counts, err := view[uint64](secs[secCounts])
	if err != nil || len(counts) != 2 || counts[0] > counts[1] || counts[1] > uint64(size) {
		return Contents{}, ErrUnusable
	}
	n := int(counts[1])
	c := Contents{Roots: unsafeString(secs[secRoots]), Analysis: unsafeString(secs[secStamp]), Global: int(counts[0])}
	rels, err1 := ReadTable(secs[secRels])
	sizes, err2 := view[int64](secs[secSizes])
	mtimes, err3 := view[int64](secs[secMtimes])
	stamps, err5 := view[uint64](secs[secFileStamps])
	records, err := ReadTable(secs[secRecords])
	if err := errors.Join(err1, err2, err3, err5, err); err != nil || rels.Len() != n || len(sizes) != n || len(mtimes) != n || len(stamps) != n || records.Len() != n {
		return Contents{}, ErrUnusable
	}
	c.tables, c.tablesCRC = tablesSection(data), binary.LittleEndian.Uint32(data[24:])
	c.Rels, c.Sizes, c.Mtimes, c.Stamps, c.Records = rels.Strings(), sizes, mtimes, stamps, records
	return c, nil
}

// sections checks a snapshot file's header (magic, version, section
// table, checksum) and returns its sections, each within the file, but
// the tables' (tablesSection), which neither checksum covers; with
// filesOnly, only the files' checksum is checked, and only their
// sections are returned.
func sections(data []byte, filesOnly bool) ([][]byte, error) {
	if len(data) < headSize || string(data[:8]) != magic || binary.LittleEndian.Uint32(data[8:]) != Version {
		return nil, ErrUnusable
	}
	nsec := binary.LittleEndian.Uint32(data[16:])
	head := headSize + 16*int(nsec)
	if nsec != numSections || len(data) < head {
		return nil, ErrUnusable
	}
	// What is read from the section table before a checksum is checked
	// is only trusted to be within the file; each checksum covers the
	// section table.
	end := sectionAt(data, secTables)
	if filesOnly {
		at, n := sectionAt(data, numFileSections-1), sectionLen(data, numFileSections-1)
		if n > uint64(len(data))-min(at, uint64(len(data))) {
			return nil, ErrUnusable
		}
		end = at + n
	}
	if end < uint64(head) || end > uint64(len(data)) {
		return nil, ErrUnusable
	}
	crcAt := 12
	var give [][2]int // see Open
	if filesOnly {
		crcAt, nsec = 20, numFileSections
	} else {
		for _, i := range []int{secRecords, secPost} {
			at, n := sectionAt(data, i), sectionLen(data, i)
			give = append(give, [2]int{int(min(at, end)), int(min(at+n, end))})
		}
	}
	if checksum(data, headSize, int(end), give) != binary.LittleEndian.Uint32(data[crcAt:]) {
		return nil, ErrUnusable
	}
	secs := make([][]byte, nsec)
	for i := range secs {
		if i == secTables {
			continue
		}
		off, n := sectionAt(data, i), sectionLen(data, i)
		if off%8 != 0 || off < uint64(head) || off > end || n > end-off {
			return nil, ErrUnusable
		}
		secs[i] = data[off : off+n : off+n]
	}
	return secs, nil
}

// checksum is the CRC-32 of data[from:to]. The pages of the parts of
// data in give (offsets, within the file's bounds once clipped to them)
// are given back (release) as the checksum passes them, 4 MiB at a time,
// so that the bytes a read touches only for its checksum are never all
// held at once.
func checksum(data []byte, from, to int, give [][2]int) uint32 {
	const chunk = 4 << 20
	var crc uint32
	for at := from; at < to; at += chunk {
		b := data[at:min(at+chunk, to)]
		crc = crc32.Update(crc, crc32.IEEETable, b)
		for _, g := range give {
			lo, hi := max(g[0], at), min(g[1], at+len(b))
			if lo < hi {
				release(data[lo:hi])
			}
		}
	}
	return crc
}

// sectionAt and sectionLen read section i's offset and length from the
// section table.
func sectionAt(data []byte, i int) uint64 {
	return binary.LittleEndian.Uint64(data[headSize+16*i:])
}

func sectionLen(data []byte, i int) uint64 {
	return binary.LittleEndian.Uint64(data[headSize+8+16*i:])
}

// tablesSection returns the tables' section of a file whose header and
// section table sections checked, or nil when it does not lie after the
// others within the file.
func tablesSection(data []byte) []byte {
	off, n := sectionAt(data, secTables), sectionLen(data, secTables)
	if off%8 != 0 || off < uint64(headSize+16*numSections) || off > uint64(len(data)) || n > uint64(len(data))-off {
		return nil
	}
	return data[off : off+n : off+n]
}

// corpus rebuilds the index and the ranking columns of n memories from a
// snapshot file's sections, in place; the recall counters are zero.
func corpus(secs [][]byte, n int) (*rank.Corpus, error) {
	var p index.Parts
	var err1, err2, err3, err4, err5 error
	p.Terms = unsafeString(secs[secTerms])
	p.TermEnd, err1 = view[uint32](secs[secTermEnd])
	p.PostEnd, err2 = view[uint32](secs[secPostEnd])
	p.Post, err3 = view[index.Posting](secs[secPost])
	p.Lengths, err4 = view[[index.NumFields]uint32](secs[secLengths])
	if err := errors.Join(err1, err2, err3, err4); err != nil || len(p.Lengths) != n {
		return nil, ErrUnusable
	}
	ix, err := index.FromParts(p)
	if err != nil {
		return nil, ErrUnusable
	}
	var c rank.Columns
	c.Flags = secs[secFlags]
	c.Updated, err1 = view[int64](secs[secUpdated])
	c.SameID, err2 = view[int32](secs[secSameID])
	ids, err3 := ReadTable(secs[secIDs])
	supers, err4 := ReadTable(secs[secSupers])
	triggers, err5 := ReadTable(secs[secTriggers])
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return nil, ErrUnusable
	}
	c.IDs, c.Supers, c.Triggers = ids.Strings(), supers.Strings(), triggers.Strings()
	c.Hits = make([]int32, n)
	corpus, err := rank.FromColumns(ix, c)
	if err != nil {
		return nil, ErrUnusable
	}
	return corpus, nil
}

// Write writes c to a new file at path, streaming the sections (with their
// checksum) rather than assembling the file in memory; most of them are
// c's own memory. The caller replaces the real file by renaming path over
// it, so a process that has the old one mapped keeps reading it.
func Write(path string, c *Contents) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	secs := c.sections()
	head := make([]byte, headSize+16*len(secs))
	copy(head, magic)
	binary.LittleEndian.PutUint32(head[8:], Version)
	binary.LittleEndian.PutUint32(head[16:], uint32(len(secs)))
	off := len(head)
	for i, pieces := range secs {
		n := 0
		for _, b := range pieces {
			n += len(b)
		}
		off = align8(off)
		binary.LittleEndian.PutUint64(head[headSize+16*i:], uint64(off))
		binary.LittleEndian.PutUint64(head[headSize+8+16*i:], uint64(n))
		off += n
	}
	crc := crc32.ChecksumIEEE(head[headSize:])
	var filesCRC, tablesCRC uint32
	w := bufio.NewWriterSize(f, 1<<20)
	// The header is written last, with the checksums: until then the file
	// has no magic, and a torn one does not open.
	w.Write(make([]byte, len(head)))
	pos := len(head)
	var pad [8]byte
	for i, pieces := range secs {
		gap := pad[:align8(pos)-pos]
		crc = crc32.Update(crc, crc32.IEEETable, gap)
		w.Write(gap)
		pos += len(gap)
		for _, b := range pieces {
			if i == secTables {
				tablesCRC = crc32.Update(tablesCRC, crc32.IEEETable, b)
			} else {
				crc = crc32.Update(crc, crc32.IEEETable, b)
			}
			w.Write(b)
			pos += len(b)
		}
		if i == numFileSections-1 {
			filesCRC = crc
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(head[12:], crc)
	binary.LittleEndian.PutUint32(head[20:], filesCRC)
	binary.LittleEndian.PutUint32(head[24:], tablesCRC)
	_, err = f.WriteAt(head, 0)
	return err
}

// sections lays c out as the format's sections, each made of pieces laid
// end to end.
func (c *Contents) sections() [][][]byte {
	p := c.Corpus.Index().Compact().Parts()
	cols := c.Corpus.Columns()
	secs := make([][][]byte, numSections)
	one := func(b []byte) [][]byte { return [][]byte{b} }
	secs[secRoots] = one([]byte(c.Roots))
	secs[secCounts] = one(bytesOf([]uint64{uint64(c.Global), uint64(c.Len())}))
	secs[secRels] = one(tableOf(c.Rels))
	secs[secSizes] = one(bytesOf(c.Sizes))
	secs[secMtimes] = one(bytesOf(c.Mtimes))
	secs[secFileStamps] = one(bytesOf(c.Stamps))
	secs[secRecords] = [][]byte{c.Records.head(), c.Records.Data}
	secs[secTerms] = one([]byte(p.Terms))
	secs[secTermEnd] = one(bytesOf(p.TermEnd))
	secs[secPostEnd] = one(bytesOf(p.PostEnd))
	secs[secPost] = one(bytesOf(p.Post))
	secs[secLengths] = one(bytesOf(p.Lengths))
	secs[secFlags] = one(cols.Flags)
	secs[secUpdated] = one(bytesOf(cols.Updated))
	secs[secSameID] = one(bytesOf(cols.SameID))
	secs[secIDs] = one(tableOf(cols.IDs))
	secs[secSupers] = one(tableOf(cols.Supers))
	secs[secTriggers] = one(tableOf(cols.Triggers))
	secs[secStamp] = one([]byte(c.Analysis))
	// The tables are megabytes each: written from where they lie.
	var tables Table
	secs[secTables] = [][]byte{nil}
	end := 0
	for _, t := range c.Tables {
		end += len(t)
		tables.Ends = append(tables.Ends, uint32(end))
		secs[secTables] = append(secs[secTables], unsafe.Slice(unsafe.StringData(t), len(t)))
	}
	secs[secTables][0] = tables.head()
	return secs
}

// Reseal sets the checksums in the header of data, a snapshot file, to
// those of its bytes, as far as its header and section table allow:
// for fuzzing the checks behind them, which the checksums would
// otherwise keep random changes from reaching.
func Reseal(data []byte) {
	if len(data) < headSize+16*numSections {
		return
	}
	put := func(at int, from, to uint64) {
		if from <= to && to <= uint64(len(data)) {
			binary.LittleEndian.PutUint32(data[at:], crc32.ChecksumIEEE(data[from:to]))
		}
	}
	put(12, headSize, sectionAt(data, secTables))
	last := numFileSections - 1
	if at, n := sectionAt(data, last), sectionLen(data, last); n <= uint64(len(data)) {
		put(20, headSize, at+n)
	}
	if at, n := sectionAt(data, secTables), sectionLen(data, secTables); n <= uint64(len(data)) {
		put(24, at, at+n)
	}
}
