package engine

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ocmem/ocmem/internal/index"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/store"
)

// The load cache lets a fresh process skip reading, parsing and tokenizing
// the memory files that did not change since the last load: for each file of
// a root it keeps the parsed frontmatter fields, the body and the analyzed
// terms, keyed by the file's size and modification time. Every load still
// stats every file, so the cache is never trusted over the files: a changed,
// added or removed file is noticed, and only it is read again. A cache that
// is missing, of another format version, for another root, or corrupt (CRC
// mismatch) is ignored and rewritten.
//
// It lives in the user's cache directory, not in the root, so it can never
// show up in git: <user cache dir>/ocmem/roots/<sha256 of the root path>.bin
// ($OCMEM_CACHE_DIR replaces <user cache dir>/ocmem).

const (
	cacheMagic   = "OCMEMLC\n"
	cacheVersion = 2 // 2: proposed_by
)

type cachedFile struct {
	file     *store.File
	analyzed index.Analyzed
}

func cachePath(root string) (string, error) {
	base := os.Getenv("OCMEM_CACHE_DIR")
	if base == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		base = filepath.Join(d, "ocmem")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(base, "roots", hex.EncodeToString(sum[:16])+".bin"), nil
}

// readCache returns the cached files of a root by relative path; nil when
// there is no usable cache.
func readCache(r store.Root) map[string]*cachedFile {
	p, err := cachePath(r.Dir)
	if err != nil {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	files, err := decodeCache(r, data)
	if err != nil {
		return nil
	}
	return files
}

// writeCache stores the files of a root. Failures are ignored: the cache is
// an optimisation, and the next load simply reads the files.
func writeCache(r store.Root, files []*store.File, analyzed []index.Analyzed) {
	p, err := cachePath(r.Dir)
	if err != nil {
		return
	}
	data := encodeCache(r, files, analyzed)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	tmp := fmt.Sprintf("%s.%d.tmp", p, os.Getpid())
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		os.Remove(tmp)
		return
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
	}
}

// The format: magic, then a CRC-32 of the rest, then (all integers
// varint-encoded) the version, the root path, a string table, and the
// files, every string an index into the table.

type cacheWriter struct {
	buf     bytes.Buffer
	strs    map[string]uint64
	strList []string
}

func (w *cacheWriter) uint(v uint64) { w.buf.Write(binary.AppendUvarint(nil, v)) }
func (w *cacheWriter) int(v int64)   { w.buf.Write(binary.AppendVarint(nil, v)) }
func (w *cacheWriter) str(s string) {
	i, ok := w.strs[s]
	if !ok {
		i = uint64(len(w.strList))
		w.strs[s] = i
		w.strList = append(w.strList, s)
	}
	w.uint(i)
}

func encodeCache(r store.Root, files []*store.File, analyzed []index.Analyzed) []byte {
	w := &cacheWriter{strs: map[string]uint64{}}
	w.uint(uint64(len(files)))
	for i, f := range files {
		m := f.Memory
		w.str(f.Rel)
		w.int(f.Size)
		w.int(f.ModTime.UnixNano())
		for _, s := range []string{m.ID, string(m.Kind), m.Summary, m.Highlight, m.Supersedes, m.SupersededBy, m.ProposedBy, m.Body} {
			w.str(s)
		}
		w.int(m.Created)
		w.int(m.Updated)
		if m.Pinned {
			w.uint(1)
		} else {
			w.uint(0)
		}
		w.uint(uint64(len(m.LoadWhen)))
		for _, t := range m.LoadWhen {
			w.str(t)
		}
		a := analyzed[i]
		for _, n := range a.Len {
			w.uint(uint64(n))
		}
		w.uint(uint64(len(a.Terms)))
		for _, tc := range a.Terms {
			w.str(tc.Term)
			w.buf.Write(tc.TF[:])
		}
	}
	var body bytes.Buffer
	body.Write(binary.AppendUvarint(nil, cacheVersion))
	abs, _ := filepath.Abs(r.Dir)
	body.Write(binary.AppendUvarint(nil, uint64(len(abs))))
	body.WriteString(abs)
	body.Write(binary.AppendUvarint(nil, uint64(len(w.strList))))
	for _, s := range w.strList {
		body.Write(binary.AppendUvarint(nil, uint64(len(s))))
		body.WriteString(s)
	}
	body.Write(w.buf.Bytes())
	out := []byte(cacheMagic)
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(body.Bytes()))
	return append(out, body.Bytes()...)
}

var errCache = errors.New("unusable cache")

type cacheReader struct {
	r    *bufio.Reader
	strs []string
	err  error
}

func (c *cacheReader) uint() uint64 {
	if c.err != nil {
		return 0
	}
	v, err := binary.ReadUvarint(c.r)
	c.err = err
	return v
}

func (c *cacheReader) int() int64 {
	if c.err != nil {
		return 0
	}
	v, err := binary.ReadVarint(c.r)
	c.err = err
	return v
}

func (c *cacheReader) str() string {
	i := c.uint()
	if c.err == nil && i >= uint64(len(c.strs)) {
		c.err = errCache
	}
	if c.err != nil {
		return ""
	}
	return c.strs[i]
}

// count reads a length and bounds it by what the rest of the data could
// hold, so a corrupt length cannot make a huge allocation.
func (c *cacheReader) count(limit int) int {
	n := c.uint()
	if c.err == nil && n > uint64(limit) {
		c.err = errCache
	}
	return int(n)
}

func decodeCache(r store.Root, data []byte) (map[string]*cachedFile, error) {
	if !bytes.HasPrefix(data, []byte(cacheMagic)) || len(data) < len(cacheMagic)+4 {
		return nil, errCache
	}
	data = data[len(cacheMagic):]
	body := data[4:]
	if crc32.ChecksumIEEE(body) != binary.BigEndian.Uint32(data) {
		return nil, errCache
	}
	c := &cacheReader{r: bufio.NewReader(bytes.NewReader(body))}
	limit := len(body)
	if c.uint() != cacheVersion {
		return nil, errCache
	}
	abs, _ := filepath.Abs(r.Dir)
	buf := make([]byte, c.count(limit))
	if c.err != nil {
		return nil, errCache
	}
	if _, err := io.ReadFull(c.r, buf); err != nil || string(buf) != abs {
		return nil, errCache
	}
	n := c.count(limit)
	c.strs = make([]string, 0, n)
	for range n {
		b := make([]byte, c.count(limit))
		if c.err != nil {
			return nil, errCache
		}
		if _, err := io.ReadFull(c.r, b); err != nil {
			return nil, errCache
		}
		c.strs = append(c.strs, string(b))
	}
	nf := c.count(limit)
	out := make(map[string]*cachedFile, nf)
	for range nf {
		f := &store.File{Scope: r.Scope}
		m := &memory.Memory{}
		f.Rel = c.str()
		f.Size = c.int()
		f.ModTime = time.Unix(0, c.int())
		m.ID, m.Kind, m.Summary, m.Highlight = c.str(), memory.Kind(c.str()), c.str(), c.str()
		m.Supersedes, m.SupersededBy, m.ProposedBy, m.Body = c.str(), c.str(), c.str(), c.str()
		m.Created, m.Updated = c.int(), c.int()
		m.Pinned = c.uint() == 1
		if k := c.count(limit); k > 0 {
			m.LoadWhen = make([]string, k)
			for j := range m.LoadWhen {
				m.LoadWhen[j] = c.str()
			}
		}
		var a index.Analyzed
		for j := range a.Len {
			a.Len[j] = uint32(c.uint())
		}
		a.Terms = make([]index.TermCount, c.count(limit))
		for j := range a.Terms {
			a.Terms[j].Term = c.str()
			if c.err == nil {
				_, c.err = io.ReadFull(c.r, a.Terms[j].TF[:])
			}
		}
		if c.err != nil {
			return nil, errCache
		}
		f.Path = filepath.Join(r.Dir, filepath.FromSlash(f.Rel))
		f.Memory = m
		out[f.Rel] = &cachedFile{file: f, analyzed: a}
	}
	return out, nil
}
