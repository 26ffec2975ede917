package engine

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/ocmem/ocmem/internal/index"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/rank"
	"github.com/ocmem/ocmem/internal/store"
)

// The load cache lets a fresh process skip reading, parsing, tokenizing and
// indexing the memory files that did not change since the last load. It is
// one file per pair of roots holding a whole snapshot as it lies in memory:
// every file's path, size, modification time and parsed fields, the
// inverted index (index.Parts) and the ranking columns (rank.Columns). The
// file is mapped into memory and used in place: opening it decodes nothing
// per memory, and a memory's fields are made into Go values only when asked
// for (Snapshot.File).
//
// Every load still lists every file (store.Root.Scan), so the cache is never
// trusted over the files: a file whose size, modification time or stamp
// (change time and inode on Unix, else a hash of its content: an edit by
// cp -p, rsync -t, tar or unzip keeps the first two) differs,
// an added file and a removed one are noticed, only those are read, and the
// index is renumbered around them (index.Index.Remap). A cache that is
// missing, of another format version, for other roots, written by a build
// that analyzes text differently (analysisStamp), or damaged (CRC mismatch,
// or tables that do not check out) is ignored and rewritten.
//
// It lives in the user's cache directory, not in a root, so it can never
// show up in git: <user cache dir>/ocmem/roots/<sha256 of the two roots>.bin
// ($OCMEM_CACHE_DIR replaces <user cache dir>/ocmem). The recall counters of
// .state.json are not in it; they are read at every load.

const (
	cacheMagic   = "OCMEMSEG"
	cacheVersion = 4 // 4: and each file's stamp; 3: the whole snapshot, mapped; 2: parsed fields and terms per file
)

// The format, all integers little-endian: the magic, then the version, a
// CRC-32 (IEEE) of everything after the header, the number of sections,
// and for each section its offset and length (uint64s). Each section starts
// at a multiple of 8, so the typed ones can be used in place.
const (
	secRoots   = iota // the two roots' absolute paths, separated by a NUL
	secCounts         // uint64: global files, all files
	secRels           // strtab: each file's Rel
	secSizes          // int64 per file
	secMtimes         // int64 per file: modification time, Unix ns
	secRecords        // strtab: each file's memory fields (encodeRecord)
	secTerms          // index.Parts
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
	secStamp      // analysisStamp() when the cache was written
	secFileStamps // uint64 per file: store.File.Stamp
	numSections
)

// analysisStamp is how this build of ocmem analyzes a text that exercises
// the tokenizer (CJK bigrams, stemming, identifier parts, stop words) and
// the triggers' encoding. A cache written by a build that analyzes text
// differently holds terms this one would not produce; its stamp differs,
// and it is rebuilt, although its format is the same.
var analysisStamp = sync.OnceValue(func() string {
	const text = "部署前要检查什么 Running the deployments' pnpm-lock.yaml, camelCaseName & snake_case_name 数据库连接池超时 v1.2.3 the of"
	var b strings.Builder
	for _, tc := range index.Analyze(index.Doc{Fields: [index.NumFields]string{text, text, text, text}}).Terms {
		fmt.Fprintf(&b, "%s%v ", tc.Term, tc.TF)
	}
	c := rank.NewCorpus(index.Build(make([]index.Doc, 1)), []rank.Meta{{LoadWhen: []string{text, "部署", "deploy", "缓存过期"}}})
	b.WriteString(c.Columns().Triggers[0])
	return b.String()
})

// littleEndian: the cache stores numbers as this machine lays them out, and
// is only used on little-endian machines (every platform OpenCode runs on).
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func cachePath(global, project string) (string, error) {
	base := os.Getenv("OCMEM_CACHE_DIR")
	if base == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		base = filepath.Join(d, "ocmem")
	}
	key, err := rootsKey(global, project)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(base, "roots", hex.EncodeToString(sum[:16])+".bin"), nil
}

func rootsKey(global, project string) (string, error) {
	var abs [2]string
	for i, d := range []string{global, project} {
		if d == "" {
			continue
		}
		a, err := filepath.Abs(d)
		if err != nil {
			return "", err
		}
		abs[i] = a
	}
	return abs[0] + "\x00" + abs[1], nil
}

// segment is an opened cache file.
type segment struct {
	data    []byte
	records strtab
	global  int // number of global files
}

var errCache = errors.New("unusable cache")

// readCache returns the snapshot the cache of e's roots holds, without the
// recall counters, ROOT.md or problems; nil when there is no usable cache.
func (e *Engine) readCache() *Snapshot {
	if !littleEndian {
		return nil
	}
	p, err := cachePath(e.global.Dir, e.project.Dir)
	if err != nil {
		return nil
	}
	data, err := mapFile(p)
	if err != nil {
		return nil
	}
	s, err := e.openSegment(data)
	if err != nil {
		return nil
	}
	return s
}

func (e *Engine) openSegment(data []byte) (s *Snapshot, err error) {
	secs, err := cacheSections(data)
	if err != nil {
		return nil, err
	}
	key, err := rootsKey(e.global.Dir, e.project.Dir)
	if err != nil || string(secs[secRoots]) != key || string(secs[secStamp]) != analysisStamp() {
		return nil, errCache
	}
	counts, err := view[uint64](secs[secCounts])
	if err != nil || len(counts) != 2 || counts[0] > counts[1] || counts[1] > uint64(len(data)) {
		return nil, errCache
	}
	n := int(counts[1])
	seg := &segment{data: data, global: int(counts[0])}
	rels, err1 := readStrtab(secs[secRels])
	sizes, err2 := view[int64](secs[secSizes])
	mtimes, err3 := view[int64](secs[secMtimes])
	stamps, err5 := view[uint64](secs[secFileStamps])
	seg.records, err = readStrtab(secs[secRecords])
	if err := errors.Join(err1, err2, err3, err5, err); err != nil || rels.len() != n || len(sizes) != n || len(mtimes) != n || len(stamps) != n || seg.records.len() != n {
		return nil, errCache
	}
	corpus, err := cacheCorpus(secs, n)
	if err != nil {
		return nil, err
	}
	s = e.newSnapshot(n)
	s.nGlobal = seg.global
	s.rels = rels.strings()
	s.sizes, s.mtimes, s.stamps = sizes, mtimes, stamps
	s.seg = seg
	for i := range s.rec {
		s.rec[i] = int32(i)
	}
	for i := 1; i < n; i++ {
		if i != s.nGlobal && s.rels[i-1] >= s.rels[i] {
			return nil, errCache // find needs each root's files sorted
		}
	}
	s.Corpus = corpus
	return s, nil
}

// cacheSections checks a cache file's header (magic, version, section
// table, checksum) and returns its sections, each within the file.
func cacheSections(data []byte) ([][]byte, error) {
	if len(data) < 24 || string(data[:8]) != cacheMagic || binary.LittleEndian.Uint32(data[8:]) != cacheVersion {
		return nil, errCache
	}
	nsec := binary.LittleEndian.Uint32(data[16:])
	head := 24 + 16*int(nsec)
	if nsec != numSections || len(data) < head {
		return nil, errCache
	}
	if crc32.ChecksumIEEE(data[24:]) != binary.LittleEndian.Uint32(data[12:]) {
		return nil, errCache
	}
	secs := make([][]byte, nsec)
	for i := range secs {
		off := binary.LittleEndian.Uint64(data[24+16*i:])
		n := binary.LittleEndian.Uint64(data[32+16*i:])
		if off%8 != 0 || off < uint64(head) || off > uint64(len(data)) || n > uint64(len(data))-off {
			return nil, errCache
		}
		secs[i] = data[off : off+n : off+n]
	}
	return secs, nil
}

// cacheCorpus rebuilds the index and the ranking columns of n memories
// from a cache file's sections, in place; hits are read afresh later.
func cacheCorpus(secs [][]byte, n int) (*rank.Corpus, error) {
	var p index.Parts
	var err1, err2, err3, err4, err5 error
	p.Terms = unsafeString(secs[secTerms])
	p.TermEnd, err1 = view[uint32](secs[secTermEnd])
	p.PostEnd, err2 = view[uint32](secs[secPostEnd])
	p.Post, err3 = view[index.Posting](secs[secPost])
	p.Lengths, err4 = view[[index.NumFields]uint32](secs[secLengths])
	if err := errors.Join(err1, err2, err3, err4); err != nil || len(p.Lengths) != n {
		return nil, errCache
	}
	ix, err := index.FromParts(p)
	if err != nil {
		return nil, errCache
	}
	var c rank.Columns
	c.Flags = secs[secFlags]
	c.Updated, err1 = view[int64](secs[secUpdated])
	c.SameID, err2 = view[int32](secs[secSameID])
	ids, err3 := readStrtab(secs[secIDs])
	supers, err4 := readStrtab(secs[secSupers])
	triggers, err5 := readStrtab(secs[secTriggers])
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return nil, errCache
	}
	c.IDs, c.Supers, c.Triggers = ids.strings(), supers.strings(), triggers.strings()
	c.Hits = make([]int32, n)
	corpus, err := rank.FromColumns(ix, c)
	if err != nil {
		return nil, errCache
	}
	return corpus, nil
}

// file makes record i into a file of the given root.
func (g *segment) file(i int, r store.Root, rel string, size, mtime int64) *store.File {
	f := &store.File{Scope: r.Scope, Rel: rel, Size: size, ModTime: time.Unix(0, mtime)}
	f.Path = filepath.Join(r.Dir, filepath.FromSlash(rel))
	m, err := decodeRecord(g.records.at(i))
	if err != nil {
		// The CRC matched, so this is a bug rather than a damaged file;
		// the file itself is the truth either way.
		if lf, err := r.LoadFile(rel); err == nil {
			return lf
		}
		m = &memory.Memory{ID: store.IDOf(rel)}
	}
	f.Memory = m
	return f
}

// writeCache stores a snapshot. Failures are ignored: the cache is an
// optimisation, and the next load simply reads the files.
func (e *Engine) writeCache(s *Snapshot) {
	if !littleEndian {
		return
	}
	p, err := cachePath(e.global.Dir, e.project.Dir)
	if err != nil {
		return
	}
	secs, err := e.segmentSections(s)
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	tmp := fmt.Sprintf("%s.%d.tmp", p, os.Getpid())
	if err := writeSegment(tmp, secs); err != nil {
		os.Remove(tmp)
		return
	}
	// Replacing by rename, never writing in place: a process that has the
	// old file mapped keeps reading the old file.
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
	}
	// Another process's temp file, left when it was killed mid-write.
	store.RemoveStaleTemp(filepath.Dir(p), cacheTempName, time.Now(), store.TempMaxAge)
}

// cacheTempName matches writeCache's temp files: the cache file's name,
// the writer's process id, ".tmp".
var cacheTempName = regexp.MustCompile(`^[0-9a-f]{32}\.bin\.[0-9]+\.tmp$`)

// segmentSections lays a snapshot out as the cache's sections; most of them
// are the snapshot's own memory.
func (e *Engine) segmentSections(s *Snapshot) ([][][]byte, error) {
	n := s.Len()
	key, err := rootsKey(e.global.Dir, e.project.Dir)
	if err != nil {
		return nil, err
	}
	p := s.Corpus.Index().Compact().Parts()
	c := s.Corpus.Columns()
	secs := make([][][]byte, numSections)
	one := func(b []byte) [][]byte { return [][]byte{b} }
	secs[secRoots] = one([]byte(key))
	secs[secCounts] = one(bytesOf([]uint64{uint64(s.nGlobal), uint64(n)}))
	secs[secRels] = one(writeStrtab(s.rels))
	secs[secSizes] = one(bytesOf(s.sizes))
	secs[secMtimes] = one(bytesOf(s.mtimes))
	secs[secFileStamps] = one(bytesOf(s.stamps))
	secs[secRecords] = s.records()
	secs[secTerms] = one([]byte(p.Terms))
	secs[secTermEnd] = one(bytesOf(p.TermEnd))
	secs[secPostEnd] = one(bytesOf(p.PostEnd))
	secs[secPost] = one(bytesOf(p.Post))
	secs[secLengths] = one(bytesOf(p.Lengths))
	secs[secFlags] = one(c.Flags)
	secs[secUpdated] = one(bytesOf(c.Updated))
	secs[secSameID] = one(bytesOf(c.SameID))
	secs[secIDs] = one(writeStrtab(c.IDs))
	secs[secSupers] = one(writeStrtab(c.Supers))
	secs[secTriggers] = one(writeStrtab(c.Triggers))
	secs[secStamp] = one([]byte(analysisStamp()))
	return secs, nil
}

// writeSegment writes sections, each made of pieces laid end to end, to a
// new file as the cache's format, streaming them (with their CRC) rather
// than assembling the file in memory.
func writeSegment(path string, secs [][][]byte) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	head := make([]byte, 24+16*len(secs))
	copy(head, cacheMagic)
	binary.LittleEndian.PutUint32(head[8:], cacheVersion)
	binary.LittleEndian.PutUint32(head[16:], uint32(len(secs)))
	off := len(head)
	for i, pieces := range secs {
		n := 0
		for _, b := range pieces {
			n += len(b)
		}
		off = align8(off)
		binary.LittleEndian.PutUint64(head[24+16*i:], uint64(off))
		binary.LittleEndian.PutUint64(head[32+16*i:], uint64(n))
		off += n
	}
	crc := crc32.ChecksumIEEE(head[24:])
	w := bufio.NewWriterSize(f, 1<<20)
	w.Write(head)
	pos := len(head)
	var pad [8]byte
	for _, pieces := range secs {
		gap := pad[:align8(pos)-pos]
		crc = crc32.Update(crc, crc32.IEEETable, gap)
		w.Write(gap)
		pos += len(gap)
		for _, b := range pieces {
			crc = crc32.Update(crc, crc32.IEEETable, b)
			w.Write(b)
			pos += len(b)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], crc)
	_, err = f.WriteAt(sum[:], 12)
	return err
}

// records returns the records section: the snapshot's records table itself
// when it holds every file in order (a store just built), else a new table
// made of the records of the files taken from a cache, copied as they are,
// and of the other files, encoded.
func (s *Snapshot) records() [][]byte {
	n := s.Len()
	own := s.seg != nil && s.seg.records.len() == n
	for i := 0; own && i < n; i++ {
		own = s.rec[i] == int32(i)
	}
	var ends []uint32
	var data []byte
	if own {
		ends, data = s.seg.records.ends, s.seg.records.data
	} else {
		ends = make([]uint32, n)
		for i := range n {
			if s.rec[i] >= 0 {
				data = append(data, s.seg.records.at(int(s.rec[i]))...)
			} else {
				data = encodeRecord(data, s.File(i).Memory)
			}
			ends[i] = uint32(len(data))
		}
	}
	head := binary.LittleEndian.AppendUint64(nil, uint64(n))
	head = append(head, bytesOf(ends)...)
	head = append(head, make([]byte, align8(len(head))-len(head))...)
	return [][]byte{head, data}
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
		return nil, errCache
	}
	if len(b) == 0 {
		return []T{}, nil
	}
	if uintptr(unsafe.Pointer(&b[0]))%unsafe.Alignof(zero) != 0 {
		return nil, errCache
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/size), nil
}

func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// strtab is a table of strings: a uint64 count, the uint32 end offset of
// each string, padding to 8, then the strings' bytes.
type strtab struct {
	ends []uint32
	data []byte
}

func writeStrtab(ss []string) []byte {
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

func readStrtab(b []byte) (strtab, error) {
	if len(b) < 8 {
		return strtab{}, errCache
	}
	n := binary.LittleEndian.Uint64(b)
	if n > uint64(len(b)-8)/4 {
		return strtab{}, errCache
	}
	endsLen := 4 * int(n)
	if align8(8+endsLen) > len(b) {
		return strtab{}, errCache
	}
	ends, err := view[uint32](b[8 : 8+endsLen])
	if err != nil {
		return strtab{}, err
	}
	data := b[align8(8+endsLen):]
	prev := uint32(0)
	for _, e := range ends {
		if e < prev || e > uint32(len(data)) {
			return strtab{}, errCache
		}
		prev = e
	}
	if int(prev) != len(data) {
		return strtab{}, errCache
	}
	return strtab{ends, data}, nil
}

func (t strtab) len() int { return len(t.ends) }

func (t strtab) at(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = t.ends[i-1]
	}
	return t.data[start:t.ends[i]:t.ends[i]]
}

// strings returns every string of the table, sharing the table's memory.
func (t strtab) strings() []string {
	out := make([]string, len(t.ends))
	for i := range out {
		out[i] = unsafeString(t.at(i))
	}
	return out
}

// A record holds a memory's fields: eight strings (each a uvarint length
// and its bytes), created and updated (varints), pinned (a byte), and the
// triggers (a uvarint count, then strings).
func encodeRecord(b []byte, m *memory.Memory) []byte {
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
	return b
}

// decodeRecord reads a record; its strings share b's memory.
func decodeRecord(b []byte) (*memory.Memory, error) {
	m := &memory.Memory{}
	if err := decodeRecordInto(b, m); err != nil {
		return nil, err
	}
	return m, nil
}

// decodeRecordInto reads a record into m, reusing m.LoadWhen's array.
func decodeRecordInto(b []byte, m *memory.Memory) error {
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
		r.err = errCache
	}
	if len(m.LoadWhen) == 0 {
		m.LoadWhen = nil
	}
	if r.err != nil || len(r.b) != 0 {
		return errCache
	}
	return nil
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
		r.err = errCache
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
		r.err = errCache
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recordReader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = errCache
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *recordReader) str() string {
	n := r.uvarint()
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = errCache
		return ""
	}
	s := unsafeString(r.b[:n])
	r.b = r.b[n:]
	return s
}
