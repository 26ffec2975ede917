package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/index"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/rank"
	"github.com/ocmem/ocmem/internal/snapfile"
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
// The file's format, its byte layout and its checks are internal/snapfile's;
// this file says what goes in it and when it is used.
//
// It lives in the user's cache directory, not in a root, so it can never
// show up in git: <user cache dir>/ocmem/roots/<sha256 of the two roots>.bin
// ($OCMEM_CACHE_DIR replaces <user cache dir>/ocmem). The recall counters of
// .state.json are not in it; they are read at every load.

// analysisStamp is how this build of ocmem analyzes a text that exercises
// the tokenizer (CJK bigrams, stemming, identifier parts, stop words) and
// the triggers' encoding. A cache written by a build that analyzes text
// differently holds terms this one would not produce; its stamp differs,
// and it is rebuilt, although its format is the same.
var analysisStamp = sync.OnceValue(func() string {
	const text = "部署前要检查什么 git reset --hard Running adding the deployments' pnpm-lock.yaml, camelCaseName & snake_case_name 数据库连接池超时 v1.2.3 the of"
	var b strings.Builder
	for _, tc := range index.Analyze(index.Doc{Fields: [index.NumFields]string{text, text, text, text}}).Terms {
		fmt.Fprintf(&b, "%s%v ", tc.Term, tc.TF)
	}
	c := rank.NewCorpus(index.Build(make([]index.Doc, 1)), []rank.Meta{{LoadWhen: []string{text, "部署", "deploy", "缓存过期", "adding a column or table"}, Kind: memory.KindPreference}})
	b.WriteString(c.Columns().Triggers[0])
	fmt.Fprintf(&b, " %d", c.Columns().Flags[0]) // the flags a memory's metadata gives
	// How the compiled tables the cache keeps route triggers.
	t := compile.NewTables(nil)
	t.Add(&memory.Memory{ID: "facts/部署-a", Summary: text, LoadWhen: []string{" Deploy  now|x ", "deploy now|X", "<!-- 部署", "", "a\tb\u3000c"}})
	t.Add(&memory.Memory{ID: "facts/b", Summary: text, SupersededBy: "facts/部署-a", LoadWhen: []string{"deploy"}})
	// How they write a summary that holds a suspected secret: a cache whose
	// line sums are of lines made before they were masked would keep such
	// a line of index.md as it is on disk.
	t.Add(&memory.Memory{ID: "facts/c", Summary: "reach it as shop:" + "w1nt3r-Sh0p@tcp(db.internal:3306)/shop"})
	fmt.Fprintf(&b, " %q", t.Encode())
	return b.String()
})

func (l *Loader) analysis() string {
	if l.Analysis != nil {
		return l.Analysis()
	}
	return analysisStamp()
}

// CachePath is where the load cache of a pair of roots lives.
func CachePath(global, project string) (string, error) {
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

// segment is where a snapshot's files not yet made come from: an opened
// cache file (data), or the records a build encoded.
type segment struct {
	data    []byte
	records snapfile.Table
	// For an opened cache file: base is the snapshot openSegment made of
	// it, and contents what snapfile opened, whose tables (each root's
	// compiled tables as the cache holds them, made of base's memories)
	// are checked and read on first use (tables).
	base       *Snapshot
	contents   snapfile.Contents
	tablesOnce sync.Once
	tablesData [2]string
}

// tables returns a root's compiled tables as the cache holds them
// (compile.Tables.Encode), "" for none or when they do not check out:
// their 10 MB at 100,000 memories are read only by a write, or a load
// that writes the cache, never by a read.
func (g *segment) tables(ri int) string {
	g.tablesOnce.Do(func() {
		if t, err := g.contents.OpenTables(); err == nil {
			g.tablesData = t
		}
	})
	return g.tablesData[ri]
}

// errCache turns away a cache file that is sound but not this loader's.
var errCache = errors.New("unusable cache")

// readCache returns the snapshot the cache of the loader's roots holds, without the
// recall counters, ROOT.md or problems; nil when there is no usable cache.
// With filesOnly it holds the files without the corpus, and of the cache
// only the files' part is checked and read (snapfile.OpenFiles): a write
// needs no index, and leaves the pages of the postings unread.
func (l *Loader) readCache(filesOnly bool) *Snapshot {
	if !snapfile.LittleEndian {
		return nil
	}
	p, err := CachePath(l.Global.Dir, l.Project.Dir)
	if err != nil {
		return nil
	}
	data, err := snapfile.Map(p)
	if err != nil {
		return nil
	}
	s, err := l.OpenSegment(data, filesOnly)
	if err != nil {
		return nil
	}
	return s
}

// OpenSegment makes a snapshot of a cache file's contents, when the file
// is of the loader's roots and of this build's analysis; with filesOnly,
// of its files alone, without the corpus.
func (l *Loader) OpenSegment(data []byte, filesOnly bool) (s *Snapshot, err error) {
	open := snapfile.Open
	if filesOnly {
		open = snapfile.OpenFiles
	}
	c, err := open(data)
	if err != nil {
		return nil, err
	}
	key, err := rootsKey(l.Global.Dir, l.Project.Dir)
	if err != nil || c.Roots != key || c.Analysis != l.analysis() {
		return nil, errCache
	}
	n := c.Len()
	s = New(l.Global, l.Project, n)
	s.nGlobal = c.Global
	s.rels = c.Rels
	s.sizes, s.mtimes, s.stamps = c.Sizes, c.Mtimes, c.Stamps
	s.seg = &segment{data: data, records: c.Records, base: s, contents: c}
	for i := range s.rec {
		s.rec[i] = int32(i)
	}
	for i := 1; i < n; i++ {
		if i != s.nGlobal && s.rels[i-1] >= s.rels[i] {
			return nil, errCache // find needs each root's files sorted
		}
	}
	s.Corpus = c.Corpus
	return s, nil
}

// file makes record i into a file of the given root.
func (g *segment) file(i int, r store.Root, rel string, size, mtime int64) *store.File {
	f := &store.File{Scope: r.Scope, Rel: rel, Size: size, ModTime: time.Unix(0, mtime)}
	f.Path = filepath.Join(r.Dir, filepath.FromSlash(rel))
	m, err := snapfile.DecodeRecord(g.records.At(i))
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
// optimisation, and the next load simply reads the files. It is written
// without atomicfile's syncs, which would cost every load that writes it
// more than a lost cache does: a file torn by a crash fails snapfile's
// checks (its header, sizes and checksum) and is rebuilt.
func (l *Loader) writeCache(s *Snapshot) {
	if !snapfile.LittleEndian {
		return
	}
	p, err := CachePath(l.Global.Dir, l.Project.Dir)
	if err != nil {
		return
	}
	c, err := l.Contents(s)
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	tmp := fmt.Sprintf("%s.%d.tmp", p, os.Getpid())
	if err := snapfile.Write(tmp, c); err != nil {
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

// Contents is what the cache file of a snapshot holds; most of it is the
// snapshot's own memory.
func (l *Loader) Contents(s *Snapshot) (*snapfile.Contents, error) {
	key, err := rootsKey(l.Global.Dir, l.Project.Dir)
	if err != nil {
		return nil, err
	}
	return &snapfile.Contents{
		Roots: key, Analysis: l.analysis(), Global: s.nGlobal,
		Rels: s.rels, Sizes: s.sizes, Mtimes: s.mtimes, Stamps: s.stamps,
		Records: s.records(), Corpus: s.Corpus, Tables: l.tablesOf(s),
	}, nil
}

// tablesOf encodes each root's compiled tables as s holds its memories,
// for a process that writes once to start from (CachedTables). At 100,000
// memories they are some 10 MB. A load that started from the cache takes
// the cache's tables and patches them, as a write does (Loader.Kept); a
// cold load builds them, on one core, not two as a write builds them: it
// writes the cache at its peak of memory, which the parts' tables would
// raise.
func (l *Loader) tablesOf(s *Snapshot) (out [2]string) {
	for _, r := range []store.Root{l.Global, l.Project} {
		var t *compile.Tables
		if l.Kept != nil {
			t = l.Kept(r, s)
		}
		if t == nil {
			t = compile.NewTables(l.Categories)
			t.SumLines = true
			l.buildCacheTables(t, s, r.Scope)
		}
		out[ScopeIndex(r.Scope)] = t.Encode()
	}
	return out
}

// buildCacheTables builds the tables of a root's memories in s, collecting the
// garbage at the build's target rather than Go's default (when the loader
// may tune it): the tables are garbage once encoded, beside a live heap of
// the whole snapshot.
func (l *Loader) buildCacheTables(t *compile.Tables, s *Snapshot, scope store.Scope) {
	if l.TuneGC {
		defer TuneGC(buildGCPercent, NoLimit)()
	}
	t.Build(func(add func(*memory.Memory)) {
		s.Each(scope, func(_ int, m *memory.Memory) { add(m) })
	})
}

// records returns the records table: the snapshot's records table itself
// when it holds every file in order (a store just built), else a new table
// made of the records of the files taken from a cache, copied as they are,
// and of the other files, encoded.
func (s *Snapshot) records() snapfile.Table {
	n := s.Len()
	own := s.seg != nil && s.seg.records.Len() == n
	for i := 0; own && i < n; i++ {
		own = s.rec[i] == int32(i)
	}
	if own {
		return s.seg.records
	}
	t := snapfile.Table{Ends: make([]uint32, n)}
	for i := range n {
		if s.rec[i] >= 0 {
			t.Data = append(t.Data, s.seg.records.At(int(s.rec[i]))...)
		} else {
			t.Data = snapfile.AppendRecord(t.Data, s.File(i).Memory)
		}
		t.Ends[i] = uint32(len(t.Data))
	}
	return t
}

// CachedTables returns a root's compiled tables as the cache this snapshot
// started from holds them (compile.Tables.Encode), with what changed since:
// the positions in s of the root's files read since (read), and the
// cache's records of the files gone since (gone, for CachedMemory). ok is
// false when s has no such cache, or the cache holds no tables for the
// root or tables that do not check out.
func (s *Snapshot) CachedTables(scope store.Scope) (data string, read, gone []int, ok bool) {
	g := s.seg
	if g == nil || g.base == nil || len(s.rec) != s.Len() {
		return "", nil, nil, false
	}
	if data = g.tables(ScopeIndex(scope)); data == "" {
		return "", nil, nil, false
	}
	// Position i of s holds record rec[i] of the cache, which is the
	// cache's file at that position (OpenSegment), or was read (-1).
	lo, hi := s.Span(scope)
	blo, bhi := g.base.Span(scope)
	taken := make([]bool, bhi-blo)
	for i := lo; i < hi; i++ {
		if j := int(s.rec[i]); j >= blo && j < bhi {
			taken[j-blo] = true
		} else {
			read = append(read, i)
		}
	}
	for j, ok := range taken {
		if !ok {
			gone = append(gone, blo+j)
		}
	}
	return data, read, gone, true
}

// CachedMemory decodes record j of the cache the snapshot started from
// (CachedTables): the memory as the cache holds it.
func (s *Snapshot) CachedMemory(j int) (*memory.Memory, error) {
	return snapfile.DecodeRecord(s.seg.records.At(j))
}
