package compile_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/memory"
)

var update = flag.Bool("update", false, "rewrite the expected outputs in testdata/*.txt with what the code produces")

var defaultCategories = []string{"rules", "preferences", "decisions", "pitfalls", "facts"}

// A golden case is a txtar archive in testdata. Inputs:
//
//	memories/<category>/<slug>.md  a memory file, at its path in the root
//	ROOT.md                        the existing ROOT.md (absent: a new root)
//	categories                     configured categories, one a line (absent: the defaults)
//	crlf                           present: ROOT.md and want/ROOT.md are CRLF files
//	                               (written LF here, so git cannot alter them)
//
// Expected outputs:
//
//	index/<category>.md            <category>/index.md, for every category compiled
//	want/ROOT.md                   the compiled ROOT.md
//	error                          instead of want/ROOT.md: Root's error (ErrMarkers)
type goldenCase struct {
	path       string
	ar         *txtar.Archive
	categories []string
	mems       []*memory.Memory
	old        []byte // nil for a new root
	crlf       bool
}

func loadCase(t *testing.T, path string) *goldenCase {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := &goldenCase{path: path, ar: ar, categories: defaultCategories}
	for _, f := range ar.Files {
		switch {
		case strings.HasPrefix(f.Name, "memories/"):
			rel := strings.TrimPrefix(f.Name, "memories/")
			m, err := memory.Parse(f.Data)
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			if err := m.Validate(strings.TrimSuffix(rel, ".md")); err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			c.mems = append(c.mems, m)
		case f.Name == "ROOT.md":
			c.old = f.Data
		case f.Name == "categories":
			c.categories = strings.Fields(string(f.Data))
		case f.Name == "crlf":
			c.crlf = true
		case f.Name == "error", f.Name == "want/ROOT.md", strings.HasPrefix(f.Name, "index/"):
		default:
			t.Fatalf("unknown file %s in the archive", f.Name)
		}
	}
	if c.crlf && c.old != nil {
		c.old = toCRLF(c.old)
	}
	return c
}

func toCRLF(b []byte) []byte   { return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")) }
func fromCRLF(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")) }

func (c *goldenCase) file(name string) ([]byte, bool) {
	for _, f := range c.ar.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}

func TestGolden(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no golden files")
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			c := loadCase(t, path)
			cats := compile.Categories(c.categories, c.mems)
			outputs := map[string][]byte{}
			var order []string
			for _, cat := range cats {
				name := "index/" + cat + ".md"
				outputs[name] = compile.Index(cat, c.mems)
				order = append(order, name)
			}
			root, err := compile.Root(c.old, cats, c.mems)
			if err != nil {
				if !errors.Is(err, compile.ErrMarkers) {
					t.Errorf("Root: %v, want ErrMarkers or nothing", err)
				}
				if root != nil {
					t.Errorf("Root returned %d bytes with its error; want none", len(root))
				}
				outputs["error"] = []byte(err.Error() + "\n")
				order = append(order, "error")
			} else {
				if c.crlf {
					if n, m := bytes.Count(root, []byte("\n")), bytes.Count(root, []byte("\r\n")); n != m {
						t.Errorf("a CRLF ROOT.md came out with %d LF line ends among %d", n-m, n)
					}
					outputs["want/ROOT.md"] = fromCRLF(root)
				} else {
					outputs["want/ROOT.md"] = root
				}
				order = append(order, "want/ROOT.md")
				checkRootInvariants(t, c, cats, root)
			}
			for _, cat := range cats {
				checkIndexRoundTrip(t, cat, c.mems, outputs["index/"+cat+".md"])
			}

			if *update {
				var kept []txtar.File
				for _, f := range c.ar.Files {
					if f.Name != "error" && f.Name != "want/ROOT.md" && !strings.HasPrefix(f.Name, "index/") {
						kept = append(kept, f)
					}
				}
				for _, name := range order {
					kept = append(kept, txtar.File{Name: name, Data: outputs[name]})
				}
				c.ar.Files = kept
				if err := os.WriteFile(path, txtar.Format(c.ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}

			for _, name := range order {
				want, ok := c.file(name)
				if !ok {
					t.Errorf("%s: not in the archive; got:\n%s", name, outputs[name])
					continue
				}
				if got := outputs[name]; !bytes.Equal(got, want) {
					t.Errorf("%s differs (run go test -update and review the diff):\n%s", name, lineDiff(want, got))
				}
			}
			for _, f := range c.ar.Files {
				if (f.Name == "error" || f.Name == "want/ROOT.md" || strings.HasPrefix(f.Name, "index/")) && outputs[f.Name] == nil {
					t.Errorf("%s: expected, but not produced", f.Name)
				}
			}
		})
	}
}

// checkRootInvariants checks what must hold for every ROOT.md, whatever the
// golden says: a person's text is kept byte for byte, compiling again
// changes nothing, and the hard rules are untouched.
func checkRootInvariants(t *testing.T, c *goldenCase, cats []string, root []byte) {
	t.Helper()
	old := c.old
	if old == nil {
		old = []byte(compile.Skeleton)
	}
	if hasAllMarkers(old) {
		if a, b := outsideMarkers(old), outsideMarkers(root); a != b {
			t.Errorf("text outside the markers changed:\n%s", lineDiff([]byte(a), []byte(b)))
		}
	} else if !bytes.HasPrefix(root, bytes.TrimRight(old, "\r\n")) {
		t.Errorf("ROOT.md without markers: the person's text is not kept as the start of the file")
	}
	again, err := compile.Root(root, cats, c.mems)
	if err != nil || !bytes.Equal(again, root) {
		t.Errorf("compiling the result again: %v\n%s", err, lineDiff(root, again))
	}
	if a, b := compile.HardRules(old), compile.HardRules(root); a != b {
		t.Errorf("hard rules changed from %q to %q", a, b)
	}
}

var markers = [][2]string{
	{"<!-- ocmem:begin registry -->", "<!-- ocmem:end registry -->"},
	{"<!-- ocmem:begin routing -->", "<!-- ocmem:end routing -->"},
}

func hasAllMarkers(doc []byte) bool {
	for _, m := range markers {
		if !bytes.Contains(doc, []byte(m[0])) || !bytes.Contains(doc, []byte(m[1])) {
			return false
		}
	}
	return true
}

// outsideMarkers returns doc with each compiled section cut down to its
// name, leaving what a person wrote.
func outsideMarkers(doc []byte) string {
	s := string(doc)
	for _, m := range markers {
		i, j := strings.Index(s, m[0]), strings.Index(s, m[1])
		if i < 0 || j < i {
			return s
		}
		s = s[:i] + "[" + m[0] + "]" + s[j+len(m[1]):]
	}
	return s
}

// checkIndexRoundTrip checks that IndexIDs reads back what Index wrote.
func checkIndexRoundTrip(t *testing.T, cat string, mems []*memory.Memory, index []byte) {
	t.Helper()
	var want []string
	wantLines := map[string]string{}
	for _, m := range mems {
		if m.Category() == cat {
			want = append(want, m.ID)
			wantLines[m.ID] = compile.IndexLine(m)
		}
	}
	slices.Sort(want)
	for _, data := range [][]byte{index, toCRLF(index)} {
		ids, lines := compile.IndexIDs(cat, data)
		if !slices.Equal(ids, want) {
			t.Errorf("IndexIDs(%s) = %q, want %q", cat, ids, want)
		}
		for id, l := range wantLines {
			if lines[id] != l {
				t.Errorf("IndexIDs(%s) line for %s = %q, want %q", cat, id, lines[id], l)
			}
		}
	}
}

// lineDiff shows the first differing line of two texts, with context.
func lineDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl || i >= len(w) || i >= len(g) {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, wl, gl)
		}
	}
	return "(same lines; the bytes differ)"
}

// The same memories in any order give the same bytes.
func TestDeterministic(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, path := range paths {
		c := loadCase(t, path)
		if len(c.mems) < 2 {
			continue
		}
		cats := compile.Categories(c.categories, c.mems)
		wantRoot, wantErr := compile.Root(c.old, cats, c.mems)
		wantIndex := map[string][]byte{}
		for _, cat := range cats {
			wantIndex[cat] = compile.Index(cat, c.mems)
		}
		for range 8 {
			mems := slices.Clone(c.mems)
			rng.Shuffle(len(mems), func(i, j int) { mems[i], mems[j] = mems[j], mems[i] })
			shuffledCats := compile.Categories(c.categories, mems)
			if !slices.Equal(shuffledCats, cats) {
				t.Errorf("%s: categories %q, then %q", path, cats, shuffledCats)
			}
			root, err := compile.Root(c.old, shuffledCats, mems)
			if !bytes.Equal(root, wantRoot) || (err == nil) != (wantErr == nil) {
				t.Errorf("%s: ROOT.md depends on the memories' order:\n%s", path, lineDiff(wantRoot, root))
			}
			for _, cat := range cats {
				if got := compile.Index(cat, mems); !bytes.Equal(got, wantIndex[cat]) {
					t.Errorf("%s: %s/index.md depends on the memories' order:\n%s", path, cat, lineDiff(wantIndex[cat], got))
				}
			}
		}
	}
}
