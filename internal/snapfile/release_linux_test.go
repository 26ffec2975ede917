package snapfile

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/index"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/rank"
)

// Open gives the pages of a mapped file's records back once checked, and
// the records still read as written; a file read rather than mapped keeps
// its bytes.
func TestOpenReleasesRecordPages(t *testing.T) {
	var mems []*memory.Memory
	c := &Contents{Roots: "/g\x00/p", Analysis: "an analysis"}
	var docs []index.Doc
	var metas []rank.Meta
	for i := range 2000 {
		m := &memory.Memory{ID: fmt.Sprintf("facts/m%04d", i), Kind: memory.KindFact, Summary: fmt.Sprintf("fact %d", i),
			Body: strings.Repeat(fmt.Sprintf("body of fact %d. ", i), 120), Updated: int64(i)}
		mems = append(mems, m)
		c.Rels = append(c.Rels, m.ID+".md")
		c.Sizes, c.Mtimes, c.Stamps = append(c.Sizes, 1), append(c.Mtimes, 1), append(c.Stamps, 1)
		c.Records.Data = AppendRecord(c.Records.Data, m)
		c.Records.Ends = append(c.Records.Ends, uint32(len(c.Records.Data)))
		docs = append(docs, index.Doc{Fields: [index.NumFields]string{index.Summary: m.Summary}})
		metas = append(metas, rank.Meta{ID: m.ID, Scope: "project", Updated: m.Updated})
	}
	c.Corpus = rank.NewCorpus(index.Build(docs), metas)
	p := filepath.Join(t.TempDir(), "snap.bin")
	if err := Write(p, c); err != nil {
		t.Fatal(err)
	}
	records := len(c.Records.Data)
	if records < 4<<20 {
		t.Fatalf("records %d bytes: too few to measure", records)
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
	if sum == 0 {
		t.Fatal("the mapped file reads as zeros")
	}
	before := mappingRss(t, data)
	got, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	after := mappingRss(t, data)
	if before-after < records*3/4 {
		t.Errorf("the mapping holds %d KiB after Open, %d before: want the records' %d KiB given back", after>>10, before>>10, records>>10)
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

// mappingRss is the resident size of the mapping holding b, from
// /proc/self/smaps.
func mappingRss(t *testing.T, b []byte) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	at := addr(b)
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = lo <= at && at < hi
			continue
		}
		var kb int
		if in {
			if n, _ := fmt.Sscanf(line, "Rss: %d kB", &kb); n == 1 {
				return kb << 10
			}
		}
	}
	t.Fatal("the mapping is not in /proc/self/smaps")
	return 0
}
