package store

import (
	"slices"
	"strconv"
	"testing"
)

func TestParseBatch(t *testing.T) {
	mem := "---\nid: facts/kafka\nkind: fact\n# retention is per topic\nsummary: kafka retention\ncreated: 1700000000000" +
		"\nupdated: 1700000000000\nload_when: [kafka]\n---\nRetention is seven days.\n"
	tests := []struct {
		name    string
		res     string
		rels    []string
		want    map[string]bool // rel → parsed
		wantErr bool
	}{
		{"blob and missing", "abc blob " + strconv.Itoa(len(mem)) + "\n" + mem + "\nHEAD:x/y.md missing\n", []string{"facts/kafka.md", "x/y.md"}, map[string]bool{"facts/kafka.md": true}, false},
		{"does not parse at HEAD", "abc blob 4\n---\n\n", []string{"a/b.md"}, map[string]bool{"a/b.md": false}, false},
		{"empty blob", "abc blob 0\n\n", []string{"a/b.md"}, map[string]bool{"a/b.md": false}, false},
		{"short content", "abc blob 99\nshort\n", []string{"a/b.md"}, nil, true},
		{"negative size", "abc blob -1\n\n", []string{"a/b.md"}, nil, true},
		{"too few answers", "HEAD:a missing\n", []string{"a/b.md", "c/d.md"}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseBatch([]byte(tt.res), tt.rels)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if len(got) != len(tt.want) {
				t.Errorf("got %d files, want %d: %v", len(got), len(tt.want), got)
			}
			for rel, parsed := range tt.want {
				m, ok := got[rel]
				if !ok || (m != nil) != parsed {
					t.Errorf("%s: %v, %v; want tracked, parsed %v", rel, m, ok, parsed)
				}
			}
		})
	}
}

// FuzzParseBatch: any answer of git is read without a panic, and a file
// said to be tracked is one asked for.
func FuzzParseBatch(f *testing.F) {
	f.Add([]byte("abc blob 5\nhello\nHEAD:x missing\n"), 2)
	f.Add([]byte("abc blob 99999999999999999999\n"), 1)
	f.Add([]byte("abc tree 3\n"), 1)
	f.Fuzz(func(t *testing.T, res []byte, n int) {
		n = min(max(n, 0), 8)
		rels := make([]string, n)
		for i := range rels {
			rels[i] = "c/m" + strconv.Itoa(i) + ".md"
		}
		got, err := parseBatch(res, rels)
		if err != nil {
			return
		}
		for rel := range got {
			if !slices.Contains(rels, rel) {
				t.Errorf("tracked %q, not asked for", rel)
			}
		}
	})
}
