package snapfile

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/ocmem/ocmem/internal/index"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/rank"
)

// Open gives the pages of a mapped file's records and postings back once
// checked, and both still read as written; a file read rather than mapped
// keeps its bytes. Pages within margin of a section's ends are not
// counted: the page cache holds a file in folios of up to 2 MiB, and a
// read of the section beside one maps in the whole folio it falls in.
func TestOpenReleasesRecordPages(t *testing.T) {
	const margin = 2 << 20
	var mems []*memory.Memory
	c := &Contents{Roots: "/g\x00/p", Analysis: "an analysis"}
	var docs []index.Doc
	var metas []rank.Meta
	for i := range 6000 {
		m := &memory.Memory{ID: fmt.Sprintf("facts/m%04d", i), Kind: memory.KindFact, Summary: fmt.Sprintf("fact %d", i),
			Body: strings.Repeat(fmt.Sprintf("body of fact %d. ", i), 120), Updated: int64(i)}
		mems = append(mems, m)
		c.Rels = append(c.Rels, m.ID+".md")
		c.Sizes, c.Mtimes, c.Stamps = append(c.Sizes, 1), append(c.Mtimes, 1), append(c.Stamps, 1)
		c.Records.Data = AppendRecord(c.Records.Data, m)
		c.Records.Ends = append(c.Records.Ends, uint32(len(c.Records.Data)))
		var words []string
		for j := range 120 {
			words = append(words, fmt.Sprintf("w%d", (i*7+j)%5000))
		}
		docs = append(docs, index.Doc{Fields: [index.NumFields]string{index.Summary: m.Summary, index.Body: strings.Join(words, " ")}})
		metas = append(metas, rank.Meta{ID: m.ID, Scope: "project", Updated: m.Updated})
	}
	c.Corpus = rank.NewCorpus(index.Build(docs), metas)
	p := filepath.Join(t.TempDir(), "snap.bin")
	if err := Write(p, c); err != nil {
		t.Fatal(err)
	}
	records := len(c.Records.Data)
	postings := len(c.Corpus.Index().Parts().Post) * int(unsafe.Sizeof(index.Posting{}))
	if records < 3*margin || postings < 3*margin {
		t.Fatalf("records %d bytes, postings %d: too few to measure", records, postings)
	}

	old := MapMin
	MapMin = 0
	data, err := Map(p)
	MapMin = old
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, b := range data { // every page resident, as after a checksum
		sum += int(b)
	}
	if held, pages := residentPages(t, data); sum == 0 || held < pages*9/10 {
		t.Fatalf("the mapped file, read through: %d of %d pages held, bytes summing to %d", held, pages, sum)
	}
	got, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	post := got.Corpus.Index().Parts().Post
	for name, b := range map[string][]byte{
		"records":  got.Records.Data,
		"postings": unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(post))), postings),
	} {
		if held, pages := residentPages(t, b[margin:len(b)-margin]); held > pages/10 {
			t.Errorf("%d of the %d pages of the %s are held after Open", held, pages, name)
		}
	}
	for j := range 5000 {
		term := fmt.Sprintf("w%d", j)
		g, w := got.Corpus.Index().Postings(term), c.Corpus.Index().Postings(term)
		if len(w) == 0 {
			t.Fatalf("no postings of %s in the corpus written", term)
		}
		if !slices.Equal(g, w) {
			t.Fatalf("postings of %s after release: %v, want %v", term, g, w)
		}
	}
	for i, m := range mems {
		if r, err := DecodeRecord(got.Records.At(i)); err != nil || !reflect.DeepEqual(r, m) {
			t.Fatalf("record %d after release: %+v, %v", i, r, err)
		}
	}

	read, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err = Open(read)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range mems {
		if r, err := DecodeRecord(got.Records.At(i)); err != nil || !reflect.DeepEqual(r, m) {
			t.Fatalf("record %d of the file read: %+v, %v", i, r, err)
		}
	}
}

// residentPages counts the whole pages of b the process maps in, from
// /proc/self/pagemap (bit 63 of a page's entry: present).
func residentPages(t *testing.T, b []byte) (held, pages int) {
	t.Helper()
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	size := uintptr(os.Getpagesize())
	from, to := (addr(b)+size-1)&^(size-1), (addr(b)+uintptr(len(b)))&^(size-1)
	entry := make([]byte, 8)
	for p := from; p < to; p += size {
		if _, err := f.ReadAt(entry, int64(p/size*8)); err != nil {
			t.Fatal(err)
		}
		pages++
		if binary.LittleEndian.Uint64(entry)>>63 == 1 {
			held++
		}
	}
	return held, pages
}
