package snapfile

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/rank"
)

// FuzzOpen feeds damaged snapshot files to Open, OpenFiles and
// OpenTables. The CRCs would turn away nearly every random change, so the
// fuzzer's input gets correct ones before decoding (Reseal): what is
// tested is that no table, however wrong, makes them (or a use of what
// they accepted) crash.
func FuzzOpen(f *testing.F) {
	f.Add(writeFile(f, testContents(f)))
	f.Fuzz(func(t *testing.T, data []byte) {
		data = slices.Clone(data)
		Reseal(data)
		openFiles(t, data)
		c, err := Open(data)
		if err != nil {
			return
		}
		if tables, err := c.OpenTables(); err == nil {
			for _, tb := range tables {
				_ = strings.Clone(tb) // within data
			}
		}
		if c.Global > c.Len() || len(c.Sizes) != c.Len() || len(c.Mtimes) != c.Len() || len(c.Stamps) != c.Len() ||
			c.Records.Len() != c.Len() || c.Corpus.Len() != c.Len() {
			t.Fatalf("opened inconsistent contents: %d files, %d global, %d sizes, %d mtimes, %d stamps, %d records, %d documents",
				c.Len(), c.Global, len(c.Sizes), len(c.Mtimes), len(c.Stamps), c.Records.Len(), c.Corpus.Len())
		}
		var m memory.Memory
		for i := range c.Len() {
			DecodeRecord(c.Records.At(i))
			DecodeRecordInto(c.Records.At(i), &m)
		}
		corpus := c.Corpus.WithHits(make([]int32, c.Len()))
		rank.Rank(corpus, "kafka retention 三十天", rank.Params{Limit: 4})
		rank.Rank(corpus, "中文 seven", rank.Params{Mode: rank.Inject, Explain: true})
	})
}

// FuzzReadTable: a table that reads is within its bytes, and writes back
// as the same strings.
func FuzzReadTable(f *testing.F) {
	f.Add(tableOf(nil))
	f.Add(tableOf([]string{"facts/a.md", "", "部署.md"}))
	f.Fuzz(func(t *testing.T, b []byte) {
		b = append(make([]byte, 0, len(b)+8), b...) // 8-aligned, as sections are
		tab, err := ReadTable(b)
		if err != nil {
			return
		}
		ss := tab.Strings()
		back, err := ReadTable(tableOf(ss))
		if err != nil || !slices.Equal(back.Strings(), ss) {
			t.Fatalf("%q written back: %q, %v", ss, back.Strings(), err)
		}
	})
}

// FuzzDecodeRecord: a record that decodes encodes to one that decodes to
// the same memory.
func FuzzDecodeRecord(f *testing.F) {
	for _, m := range testMemories {
		f.Add(AppendRecord(nil, m))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		RecordSummary(b)
		RecordLinks(b)
		m, err := DecodeRecord(b)
		if err != nil {
			return
		}
		again, err := DecodeRecord(AppendRecord(nil, m))
		if err != nil || !reflect.DeepEqual(again, m) {
			t.Fatalf("%+v encoded and decoded: %+v, %v", m, again, err)
		}
		if s, ok := RecordSummary(b); !ok || s != m.Summary {
			t.Fatalf("%+v: RecordSummary = %q, %v", m, s, ok)
		}
		if id, sup, by, ok := RecordLinks(b); !ok || id != m.ID || sup != m.Supersedes || by != m.SupersededBy {
			t.Fatalf("%+v: RecordLinks = %q, %q, %q, %v", m, id, sup, by, ok)
		}
	})
}

// openFiles is FuzzOpen's check of OpenFiles.
func openFiles(t *testing.T, data []byte) {
	c, err := OpenFiles(data)
	if err != nil {
		return
	}
	if c.Corpus != nil || c.Global > c.Len() || len(c.Sizes) != c.Len() || len(c.Mtimes) != c.Len() || len(c.Stamps) != c.Len() || c.Records.Len() != c.Len() {
		t.Fatalf("opened inconsistent files: %d files, %d global, %d sizes, %d mtimes, %d stamps, %d records",
			c.Len(), c.Global, len(c.Sizes), len(c.Mtimes), len(c.Stamps), c.Records.Len())
	}
	var m memory.Memory
	for i := range c.Len() {
		DecodeRecordInto(c.Records.At(i), &m)
	}
}
