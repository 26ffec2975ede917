package memory_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
)

// FuzzParse checks that Parse never panics, reports every problem on a line
// of the file, and that whatever it accepts survives Format unchanged, after
// every edit in edits, and rebuilt from scratch (see checkInput). The seeds
// are every testdata input; crashers go to testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"parse", "rewrite"} {
		for _, c := range loadCases(f, dir) {
			f.Add(c.bytesOf(f, "input.md"))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := memory.Parse(data)
		if err != nil {
			if len(data) <= memory.MaxFileSize {
				checkParseError(t, err, data)
			}
			return
		}
		if len(data) > memory.MaxFileSize-8<<10 {
			return // the edits grow a file; keep the output under the limit
		}
		checkInput(t, data)
	})
}

func BenchmarkParse(b *testing.B) {
	paths, err := filepath.Glob("testdata/parse/fixture-*.txt")
	if err != nil || len(paths) == 0 {
		b.Fatalf("no fixtures (%v)", err)
	}
	for _, p := range paths {
		ar, err := readArchive(p)
		if err != nil {
			b.Fatal(err)
		}
		in, ok := ar.file("input.md")
		if !ok {
			b.Fatalf("%s: no input.md", p)
		}
		b.Run(filepath.Base(p), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := memory.Parse(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFormatEdit measures a rewrite: splicing one changed field and
// checking the result parses back.
func BenchmarkFormatEdit(b *testing.B) {
	in, err := os.ReadFile("testdata/parse/fixture-pitfall-sqlite-cjk-tokenizer.txt")
	if err != nil {
		b.Fatal(err)
	}
	data, _ := parseArchive(in).file("input.md")
	m, err := memory.Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	m.Updated++
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		m.Format()
	}
}
