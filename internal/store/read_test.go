package store_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/store"
)

// TestLoadChecksText: a memory, or ROOT.md, holding text that reads
// differently to people and to the model (memory.CheckText) is reported
// with its line, and the memory is not loaded.
func TestLoadChecksText(t *testing.T) {
	dir := tempDir(t)
	writeFile(t, filepath.Join(dir, "facts", "good.md"), mem("facts/good"))
	writeFile(t, filepath.Join(dir, "facts", "bidi.md"), mem("facts/bidi")+"access \u202eenimda\u202c\n")
	writeFile(t, filepath.Join(dir, "facts", "zero.md"), mem("facts/zero")+"a\x00b\n")
	writeFile(t, filepath.Join(dir, "facts", "latin1.md"), "---\nid: facts/latin1\nkind: fact\nsummary: caf\xe9\n---\n")
	writeFile(t, filepath.Join(dir, store.RootFile), "# Memory\n\n## Hard rules\n\n- Use pnpm.\U000E0041\n")
	r := store.Root{Scope: store.Project, Dir: dir}
	files, problems, err := r.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Rel != "facts/good.md" {
		t.Errorf("loaded %v, want facts/good.md only", files)
	}
	want := map[string]struct {
		line int
		msg  string
	}{
		"facts/bidi.md":   {7, "column 8: bidirectional control U+202E"},
		"facts/zero.md":   {7, "column 2: a NUL byte"},
		"facts/latin1.md": {4, "column 13: byte 0xe9 is not UTF-8"},
		store.RootFile:    {5, "column 12: Unicode tag character U+E0041"},
	}
	for _, p := range problems {
		w, ok := want[p.Rel]
		if !ok {
			t.Errorf("unexpected problem %v", p)
			continue
		}
		delete(want, p.Rel)
		if p.Line != w.line || !strings.Contains(p.Err.Error(), w.msg) {
			t.Errorf("%s: line %d, %v; want line %d, …%s…", p.Rel, p.Line, p.Err, w.line, w.msg)
		}
	}
	for rel := range want {
		t.Errorf("%s: not reported", rel)
	}
}

// ReadRootMDAs returns the held copy only when the file is those bytes.
func TestReadRootMDAs(t *testing.T) {
	r := store.Root{Scope: store.Project, Dir: t.TempDir()}
	p := filepath.Join(r.Dir, store.RootFile)
	big := bytes.Repeat([]byte("| trigger | [a](a.md) |\n"), 10000) // several read chunks
	for _, tc := range []struct {
		name       string
		disk, held []byte
	}{
		{"same", big, bytes.Clone(big)},
		{"same size, last byte differs", append(bytes.Clone(big[:len(big)-1]), 'x'), big},
		{"first byte differs", append([]byte("x"), big[1:]...), big},
		{"longer", append(bytes.Clone(big), 'x'), big},
		{"shorter", big[:len(big)-1], big},
		{"nothing held", big, nil},
		{"empty", []byte{}, []byte{}},
	} {
		if err := os.WriteFile(p, tc.disk, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := r.ReadRootMDAs(tc.held)
		if err != nil || !bytes.Equal(got, tc.disk) {
			t.Fatalf("%s: got %d bytes, %v; want the file's %d", tc.name, len(got), err, len(tc.disk))
		}
		if same := len(got) > 0 && len(tc.held) > 0 && &got[0] == &tc.held[0]; same != (tc.name == "same") {
			t.Errorf("%s: returned the held copy: %v", tc.name, same)
		}
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if got, err := r.ReadRootMDAs(big); got != nil || err != nil {
		t.Errorf("no ROOT.md: %d bytes, %v", len(got), err)
	}
}
