package snapfile

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/ocmem/ocmem/internal/index"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/rank"
)

var testMemories = []*memory.Memory{
	{ID: "preferences/chinese", Kind: memory.KindPreference, Summary: "answer in Chinese", Body: "用中文", Created: 1, Updated: 2, Pinned: true},
	{ID: "facts/kafka", Kind: memory.KindFact, Summary: "kafka retention is seven days", Highlight: "seven",
		LoadWhen: []string{"kafka", "消息队列"}, Body: "三十天 retention", Supersedes: "facts/old", Created: -5, Updated: 1_830_000_000_000},
	{ID: "facts/old", Kind: memory.KindFact, Summary: "kafka retention is one day", SupersededBy: "facts/kafka", ProposedBy: "model"},
	{ID: "rules/push", Kind: memory.KindRule, Summary: "never force-push",
		Enforce:         []memory.Guard{{Tool: "bash", Pattern: "git push --force*", Action: memory.ActionDeny}, {Tool: "edit", Pattern: "dist/**", Action: memory.ActionAsk}},
		EnforceProblems: []memory.ParseError{{Line: 9, Err: errors.New("enforce: bash: a pattern must be a non-empty string")}}},
	{ID: "facts/port", Kind: memory.KindFact, Summary: "the server listens on 8080",
		Anchors: []string{"internal/api/server.go#ListenPort", "internal/store/"},
		Verified: memory.Verified{Commit: "3f2a9c1e0b7d4a5f6e8c9b0a1d2e3f4a5b6c7d8e", Time: 1_791_512_014_824,
			Digests: map[string]string{"internal/api/server.go": "sha256:9f86", "internal/store": "sha256:ab"}},
		Outdated: memory.Outdated{Commit: "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d", Time: 1_791_600_000_000, Reason: "the port is read from PORT now"}},
	{ID: "facts/outside-git", Kind: memory.KindFact, Summary: "digests alone", Verified: memory.Verified{Digests: map[string]string{"a.go": "sha256:1"}}},
}

// testContents is a snapshot of testMemories: the first is of the first
// root, the others of the second.
func testContents(t testing.TB) *Contents {
	t.Helper()
	c := &Contents{Roots: "/g\x00/p", Analysis: "an analysis", Global: 1, Tables: [2]string{"", "the project's tables"}}
	docs := make([]index.Doc, len(testMemories))
	metas := make([]rank.Meta, len(testMemories))
	for i, m := range testMemories {
		c.Rels = append(c.Rels, m.ID+".md")
		c.Sizes = append(c.Sizes, int64(100+i))
		c.Mtimes = append(c.Mtimes, int64(1e18)+int64(i))
		c.Stamps = append(c.Stamps, uint64(7*i))
		c.Records.Data = AppendRecord(c.Records.Data, m)
		c.Records.Ends = append(c.Records.Ends, uint32(len(c.Records.Data)))
		docs[i] = index.Doc{Fields: [index.NumFields]string{index.Summary: m.Summary, index.Highlight: m.Highlight, index.Body: m.Body}}
		scope := memory.Scope("project")
		if i < c.Global {
			scope = "global"
		}
		metas[i] = rank.Meta{ID: m.ID, Scope: scope, Updated: m.Updated, Pinned: m.Pinned, Superseded: m.SupersededBy != "",
			Supersedes: m.Supersedes, LoadWhen: m.LoadWhen}
	}
	c.Corpus = rank.NewCorpus(index.Build(docs), metas)
	return c
}

func writeFile(t testing.TB, c *Contents) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "snap.bin")
	if err := Write(p, c); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// What Open returns is what was written, and ranks as the corpus written.
func TestRoundTrip(t *testing.T) {
	want := testContents(t)
	for _, mapMin := range []int64{0, 1 << 40} {
		p := filepath.Join(t.TempDir(), "snap.bin")
		if err := Write(p, want); err != nil {
			t.Fatal(err)
		}
		old := MapMin
		MapMin = mapMin
		data, err := Map(p)
		MapMin = old
		if err != nil {
			t.Fatal(err)
		}
		got, err := Open(data)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		tables, err := got.OpenTables()
		if err != nil || tables != want.Tables {
			t.Fatalf("OpenTables: %q, %v; want %q", tables, err, want.Tables)
		}
		if got.Roots != want.Roots || got.Analysis != want.Analysis || got.Global != want.Global || got.Len() != want.Len() || got.Tables != [2]string{} ||
			!slices.Equal(got.Rels, want.Rels) || !slices.Equal(got.Sizes, want.Sizes) || !slices.Equal(got.Mtimes, want.Mtimes) || !slices.Equal(got.Stamps, want.Stamps) {
			t.Fatalf("got %+v\nwant %+v", got, want)
		}
		for i, m := range testMemories {
			r, err := DecodeRecord(got.Records.At(i))
			if err != nil || !reflect.DeepEqual(r, m) {
				t.Errorf("record %d: %+v, %v; want %+v", i, r, err, m)
			}
		}
		gc, wc := got.Corpus.Columns(), want.Corpus.Columns()
		if !slices.Equal(gc.Flags, wc.Flags) || !slices.Equal(gc.Updated, wc.Updated) || !slices.Equal(gc.SameID, wc.SameID) ||
			!slices.Equal(gc.IDs, wc.IDs) || !slices.Equal(gc.Supers, wc.Supers) || !slices.Equal(gc.Triggers, wc.Triggers) ||
			!slices.Equal(gc.Hits, make([]int32, len(testMemories))) {
			t.Errorf("columns %+v, want %+v (no hits)", gc, wc)
		}
		for _, q := range []string{"kafka retention", "中文", "seven days", "nothing here"} {
			a := rank.Rank(got.Corpus, q, rank.Params{Now: 1_830_000_000_000})
			b := rank.Rank(want.Corpus, q, rank.Params{Now: 1_830_000_000_000})
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%q: %+v, want %+v", q, a, b)
			}
		}
	}
}

// Write streams the sections; the file is laid out as the package doc says.
func TestLayout(t *testing.T) {
	data := writeFile(t, testContents(t))
	if string(data[:8]) != "OCMEMSEG" || binary.LittleEndian.Uint32(data[8:]) != Version || binary.LittleEndian.Uint32(data[16:]) != numSections ||
		binary.LittleEndian.Uint32(data[28:]) != 0 {
		t.Fatalf("header % x", data[:headSize])
	}
	tablesAt := sectionAt(data, secTables)
	if got, want := binary.LittleEndian.Uint32(data[12:]), crc32.ChecksumIEEE(data[headSize:tablesAt]); got != want {
		t.Errorf("checksum %x, want %x", got, want)
	}
	if got, want := binary.LittleEndian.Uint32(data[20:]), crc32.ChecksumIEEE(data[headSize:filesEnd(data)]); got != want {
		t.Errorf("the files' checksum %x, want %x", got, want)
	}
	if got, want := binary.LittleEndian.Uint32(data[24:]), crc32.ChecksumIEEE(data[tablesAt:]); got != want {
		t.Errorf("the tables' checksum %x, want %x", got, want)
	}
	end := uint64(headSize + 16*numSections)
	for i := range numSections {
		off, n := sectionAt(data, i), sectionLen(data, i)
		if off%8 != 0 || off < end || off-end >= 8 {
			t.Errorf("section %d at %d, after %d: not the next multiple of 8", i, off, end)
		}
		end = off + n
	}
	if end != uint64(len(data)) {
		t.Errorf("sections end at %d, the file at %d", end, len(data))
	}
}

// filesEnd is where the files' sections of a snapshot file end.
func filesEnd(b []byte) int {
	return int(sectionAt(b, numFileSections-1) + sectionLen(b, numFileSections-1))
}

// OpenFiles returns what Open does of the files, checks only their
// sections, and so opens a file whose index is damaged; damage to the
// files' sections it refuses.
func TestOpenFiles(t *testing.T) {
	good := writeFile(t, testContents(t))
	want, err := Open(good)
	if err != nil {
		t.Fatal(err)
	}
	got, err := OpenFiles(good)
	if err != nil || got.Corpus != nil {
		t.Fatalf("OpenFiles = %+v, %v", got, err)
	}
	want.Corpus = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("OpenFiles = %+v\nwant %+v", got, want)
	}
	postings := slices.Clone(good)
	postings[sectionAt(postings, secPost)] ^= 0x40
	if _, err := Open(postings); !errors.Is(err, ErrUnusable) {
		t.Errorf("Open of a damaged index: %v", err)
	}
	if _, err := OpenFiles(postings); err != nil {
		t.Errorf("OpenFiles of a damaged index: %v", err)
	}
	for name, at := range map[string]int{"section table": headSize + 16*secRecords, "records": filesEnd(good) - 1, "files' checksum": 20} {
		b := slices.Clone(good)
		b[at] ^= 0x40
		tablesAt := sectionAt(b, secTables)
		binary.LittleEndian.PutUint32(b[12:], crc32.ChecksumIEEE(b[headSize:tablesAt]))
		if _, err := OpenFiles(b); !errors.Is(err, ErrUnusable) {
			t.Errorf("%s damaged: OpenFiles = %v", name, err)
		}
	}
	for _, n := range []int{0, 23, headSize, filesEnd(good) - 1} {
		if _, err := OpenFiles(good[:n]); !errors.Is(err, ErrUnusable) {
			t.Errorf("%d bytes: OpenFiles = %v", n, err)
		}
	}
}

// Damaged tables do not keep the files or the index from opening, and do
// not open themselves; Open and OpenFiles do not read them.
func TestOpenTables(t *testing.T) {
	good := writeFile(t, testContents(t))
	for name, damage := range map[string]func(b []byte){
		"a byte flipped":      func(b []byte) { b[len(b)-1] ^= 0x40 },
		"their checksum":      func(b []byte) { b[24] ^= 1 },
		"cut short":           func(b []byte) { binary.LittleEndian.PutUint64(b[headSize+8+16*secTables:], 8) },
		"past the file's end": func(b []byte) { binary.LittleEndian.PutUint64(b[headSize+8+16*secTables:], uint64(len(b))) },
	} {
		b := slices.Clone(good)
		damage(b)
		// The section table is under the other checksums.
		binary.LittleEndian.PutUint32(b[12:], crc32.ChecksumIEEE(b[headSize:sectionAt(b, secTables)]))
		binary.LittleEndian.PutUint32(b[20:], crc32.ChecksumIEEE(b[headSize:filesEnd(b)]))
		for open, fn := range map[string]func([]byte) (Contents, error){"Open": Open, "OpenFiles": OpenFiles} {
			c, err := fn(b)
			if err != nil {
				t.Fatalf("%s: %s = %v", name, open, err)
			}
			if tables, err := c.OpenTables(); !errors.Is(err, ErrUnusable) {
				t.Errorf("%s: %s, then OpenTables = %q, %v", name, open, tables, err)
			}
		}
	}
	// Nothing of the tables is read by Open: a file whose tables' pages
	// are not there at all (cut off) opens, with only its tables refused.
	b := slices.Clone(good[:sectionAt(good, secTables)])
	c, err := Open(b)
	if err != nil {
		t.Fatalf("Open without the tables' bytes: %v", err)
	}
	if _, err := c.OpenTables(); !errors.Is(err, ErrUnusable) {
		t.Errorf("OpenTables without their bytes: %v", err)
	}
}

// A file that is damaged, of another version, or whose tables do not
// check out does not open, and nothing panics.
func TestOpenRefuses(t *testing.T) {
	good := writeFile(t, testContents(t))
	if _, err := Open(good); err != nil {
		t.Fatalf("the file written does not open: %v", err)
	}
	sec := func(b []byte, i int) (off, n uint64) { return sectionAt(b, i), sectionLen(b, i) }
	// edit changes a copy of good, then fixes its checksum, so that only
	// the tables' own checks can turn it away.
	edit := func(fn func(b []byte)) []byte {
		b := slices.Clone(good)
		fn(b)
		Reseal(b)
		return b
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"header only", good[:headSize]},
		{"truncated", good[:len(good)/2]},
		{"one byte flipped", func() []byte { b := slices.Clone(good); b[len(b)/3] ^= 0x40; return b }()},
		{"checksum wrong", func() []byte { b := slices.Clone(good); b[12] ^= 1; return b }()},
		{"other magic", edit(func(b []byte) { b[0] = 'X' })},
		{"other version", edit(func(b []byte) { b[8] = 2 })},
		{"format 2", []byte("OCMEMLC\ngarbage")},
		{"fewer sections", edit(func(b []byte) { binary.LittleEndian.PutUint32(b[16:], numSections-1) })},
		{"section not aligned", edit(func(b []byte) {
			off, _ := sec(b, secSizes)
			binary.LittleEndian.PutUint64(b[headSize+16*secSizes:], off+4)
		})},
		{"section past the end", edit(func(b []byte) { binary.LittleEndian.PutUint64(b[headSize+8+16*secPost:], uint64(len(b))) })},
		{"section in the header", edit(func(b []byte) { binary.LittleEndian.PutUint64(b[headSize+16*secRels:], 8) })},
		{"more global files than files", edit(func(b []byte) {
			off, _ := sec(b, secCounts)
			binary.LittleEndian.PutUint64(b[off:], uint64(len(testMemories)+1))
		})},
		{"one file more", edit(func(b []byte) {
			off, _ := sec(b, secCounts)
			binary.LittleEndian.PutUint64(b[off+8:], uint64(len(testMemories)+1))
		})},
		{"a size short", edit(func(b []byte) {
			binary.LittleEndian.PutUint64(b[headSize+8+16*secSizes:], 8*uint64(len(testMemories)-1))
		})},
		{"a stamp short", edit(func(b []byte) { binary.LittleEndian.PutUint64(b[headSize+8+16*secFileStamps:], 8) })},
		{"a table's ends decrease", edit(func(b []byte) {
			off, _ := sec(b, secRels)
			binary.LittleEndian.PutUint32(b[off+8:], 1000)
		})},
		{"a posting past the documents", edit(func(b []byte) {
			off, n := sec(b, secPost)
			for i := off; i < off+n; i++ {
				b[i] = 0xff
			}
		})},
		{"a link beyond the documents", edit(func(b []byte) {
			off, _ := sec(b, secSameID)
			binary.LittleEndian.PutUint32(b[off:], uint32(len(testMemories)))
		})},
		{"a link from a project memory", edit(func(b []byte) {
			off, _ := sec(b, secSameID)
			binary.LittleEndian.PutUint32(b[off+4:], 0)
		})},
	} {
		if c, err := Open(tc.data); !errors.Is(err, ErrUnusable) {
			t.Errorf("%s: Open = %+v, %v; want ErrUnusable", tc.name, c, err)
		}
		if len(tc.data) >= headSize+16*numSections && filesEnd(tc.data) >= headSize && filesEnd(tc.data) <= len(tc.data) {
			// The same damage with the files' checksum fixed: OpenFiles
			// may only open it when the damage is past the files.
			b := slices.Clone(tc.data)
			binary.LittleEndian.PutUint32(b[20:], crc32.ChecksumIEEE(b[headSize:filesEnd(b)]))
			if c, err := OpenFiles(b); err == nil && (c.Len() != len(testMemories) || c.Records.Len() != c.Len()) {
				t.Errorf("%s: OpenFiles = %+v", tc.name, c)
			}
		}
	}
}

func TestReadTable(t *testing.T) {
	for _, ss := range [][]string{nil, {""}, {"a"}, {"facts/a.md", "", "部署.md"}, {"x", "y", "z", "w", "v"}} {
		b := tableOf(ss)
		tab, err := ReadTable(b)
		if err != nil {
			t.Fatalf("%q: %v", ss, err)
		}
		if got := tab.Strings(); tab.Len() != len(ss) || !slices.Equal(got, append([]string{}, ss...)) {
			t.Errorf("%q: read back %q", ss, got)
		}
		if h := tab.head(); !slices.Equal(append(h, tab.Data...), b) {
			t.Errorf("%q: head and data are not the table", ss)
		}
	}
	good := tableOf([]string{"ab", "c", "d"})
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"count only, short", good[:4]},
		{"count beyond the bytes", func() []byte { b := slices.Clone(good); b[0] = 200; return b }()},
		{"data missing", good[:len(good)-1]},
		{"data left over", append(slices.Clone(good), 'x')},
		{"ends decrease", func() []byte { b := slices.Clone(good); binary.LittleEndian.PutUint32(b[12:], 1); return b }()},
		{"an end past the data", func() []byte { b := slices.Clone(good); binary.LittleEndian.PutUint32(b[12:], 5); return b }()},
	} {
		if _, err := ReadTable(tc.b); !errors.Is(err, ErrUnusable) {
			t.Errorf("%s: %v, want ErrUnusable", tc.name, err)
		}
	}
}

func TestRecord(t *testing.T) {
	var b []byte
	for _, m := range append(testMemories, &memory.Memory{}) {
		b = AppendRecord(b[:0], m)
		got, err := DecodeRecord(b)
		if err != nil || !reflect.DeepEqual(got, m) {
			t.Errorf("%+v: decoded %+v, %v", m, got, err)
		}
		// Into a value that held more triggers: none left over.
		reused := memory.Memory{LoadWhen: []string{"a", "b", "c"}, Pinned: true}
		if err := DecodeRecordInto(b, &reused); err != nil || !reflect.DeepEqual(&reused, m) {
			t.Errorf("%+v: decoded into a used value %+v, %v", m, reused, err)
		}
		for n := range len(b) {
			if _, err := DecodeRecord(b[:n]); err == nil {
				t.Errorf("%+v: %d of %d bytes decoded", m, n, len(b))
			}
		}
		if _, err := DecodeRecord(append(slices.Clone(b), 0)); err == nil {
			t.Errorf("%+v: a byte left over decoded", m)
		}
	}
}
