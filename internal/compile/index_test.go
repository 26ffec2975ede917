package compile_test

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/pathsafe"
)

// newMemory builds a memory the way Parse would from a file.
func newMemory(t testing.TB, id string, kind memory.Kind, summary string, loadWhen ...string) *memory.Memory {
	t.Helper()
	m := &memory.Memory{ID: id, Kind: kind, Summary: summary, LoadWhen: loadWhen}
	if err := m.Validate(id); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestIndexIDsRoundTrip(t *testing.T) {
	mems := []*memory.Memory{
		newMemory(t, "facts/a", memory.KindFact, "A."),
		newMemory(t, "facts/部署脚本", memory.KindFact, "中文摘要", "部署"),
		newMemory(t, "facts/sub/deeper/x", memory.KindFact, "Nested."),
		newMemory(t, "facts/v1.2-notes", memory.KindPitfall, "Dots and a kind."),
		newMemory(t, "facts/readme.md", memory.KindFact, "A slug ending in .md."),
		newMemory(t, "facts/(draft) notes", memory.KindFact, "Parens and a space."),
		newMemory(t, "facts/x.md)y", memory.KindFact, "A slug holding .md) before the link's end."),
		newMemory(t, "facts/a](b", memory.KindFact, "A slug holding ](."),
		newMemory(t, "facts/see [a](a.md)", memory.KindFact, "A slug that looks like a link."),
		newMemory(t, "facts/summary-links", memory.KindFact, "Mentions [other](other.md) and x.md) in the summary.", "see [y](y.md)"),
		newMemory(t, "rules/not-facts", memory.KindRule, "Another category: not in facts' index."),
	}
	old := newMemory(t, "facts/old", memory.KindFact, "Superseded.")
	old.SupersededBy = "facts/a"
	old.Pinned = true
	mems = append(mems, old)

	index := compile.Index("facts", mems)
	var want []string
	for _, m := range mems {
		if m.Category() == "facts" {
			want = append(want, m.ID)
		}
	}
	slices.Sort(want)
	for _, data := range [][]byte{index, toCRLF(index)} {
		ids, lines := compile.IndexIDs("facts", data)
		if !slices.Equal(ids, want) {
			t.Errorf("IndexIDs = %q\nwant %q\nindex:\n%s", ids, want, index)
		}
		for _, m := range mems {
			if m.Category() == "facts" && lines[m.ID] != compile.IndexLine(m) {
				t.Errorf("line for %s = %q, want %q", m.ID, lines[m.ID], compile.IndexLine(m))
			}
		}
	}
}

// Random slugs from an alphabet rich in the characters an index line is made
// of: every slug pathsafe accepts is read back.
func TestIndexIDsRandomSlugs(t *testing.T) {
	alphabet := []string{"a", "b", "-", ".", " ", "[", "]", "(", ")", "~", "md", ".md", ".md)", "](", "部", "/"}
	rng := rand.New(rand.NewPCG(3, 4))
	var mems []*memory.Memory
	seen := map[string]bool{}
	for len(mems) < 300 {
		var b strings.Builder
		for n := 1 + rng.IntN(8); n > 0; n-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		id := "facts/" + b.String()
		if seen[id] || pathsafe.Check(id+".md") != nil {
			continue
		}
		seen[id] = true
		mems = append(mems, newMemory(t, id, memory.KindFact, "s"))
	}
	ids, lines := compile.IndexIDs("facts", compile.Index("facts", mems))
	want := slices.Sorted(func(yield func(string) bool) {
		for id := range seen {
			if !yield(id) {
				return
			}
		}
	})
	if !slices.Equal(ids, want) {
		for i := range min(len(ids), len(want)) {
			if ids[i] != want[i] {
				t.Fatalf("IndexIDs read %q where Index wrote %q (and %d ids, want %d)", ids[i], want[i], len(ids), len(want))
			}
		}
		t.Fatalf("IndexIDs read %d ids, want %d", len(ids), len(want))
	}
	for _, m := range mems {
		if lines[m.ID] != compile.IndexLine(m) {
			t.Errorf("line for %q = %q, want %q", m.ID, lines[m.ID], compile.IndexLine(m))
		}
	}
}

// IndexIDs also reads lines a person edited, so drift can be reported line
// by line; lines that are not memory lines are skipped.
func TestIndexIDsHandEdited(t *testing.T) {
	data := []byte("# facts\n\n" +
		"- [a](a.md) — edited summary\n" +
		"- [A better name](b.md) — relabelled\n" +
		"- ~~[c](c.md)~~ — crossed out\n" +
		"* [d](d.md) — another bullet\n" +
		"- no link here\n" +
		"- [e](e.txt)\n" +
		"- [](.md)\n" +
		"  - [f](f.md) nested\n")
	ids, lines := compile.IndexIDs("facts", data)
	if want := []string{"facts/a", "facts/b", "facts/c"}; !slices.Equal(ids, want) {
		t.Errorf("IndexIDs = %q, want %q", ids, want)
	}
	if lines["facts/b"] != "- [A better name](b.md) — relabelled" {
		t.Errorf("line for facts/b = %q", lines["facts/b"])
	}
}

func TestIndexLine(t *testing.T) {
	m := newMemory(t, "pitfalls/x", memory.KindFact, "  A summary\nover\tlines. ", "a", " b\nc ")
	m.Pinned = true
	m.SupersededBy = "pitfalls/y"
	want := "- ~~[x](x.md)~~ (fact) (pinned) — A summary over lines. · when: a, b c · superseded by pitfalls/y"
	if got := compile.IndexLine(m); got != want {
		t.Errorf("IndexLine\n got %q\nwant %q", got, want)
	}
	if got := compile.IndexLine(newMemory(t, "pitfalls/z", memory.KindPitfall, "S.")); got != "- [z](z.md) — S." {
		t.Errorf("IndexLine of a plain pitfall = %q", got)
	}
}

func TestCategories(t *testing.T) {
	mems := []*memory.Memory{
		newMemory(t, "zeta/a", memory.KindFact, "s"),
		newMemory(t, "facts/a", memory.KindFact, "s"),
		newMemory(t, "alpha/a", memory.KindFact, "s"),
		newMemory(t, "zeta/b", memory.KindFact, "s"),
	}
	got := compile.Categories([]string{"rules", "facts", "rules"}, mems)
	if want := []string{"rules", "facts", "alpha", "zeta"}; !slices.Equal(got, want) {
		t.Errorf("Categories = %q, want %q", got, want)
	}
	if got := compile.Categories(nil, nil); len(got) != 0 {
		t.Errorf("Categories of nothing = %q", got)
	}
}

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"":                    "",
		"  a  b\n\tc\r\n":     "a b c",
		"中文\u3000全角空格":        "中文 全角空格",
		"line\u2028sep\u0085": "line sep",
	} {
		if got := compile.OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// Root never writes into the caller's slice, even where its capacity would
// allow appending in place.
func TestRootDoesNotModifyInput(t *testing.T) {
	mems := []*memory.Memory{newMemory(t, "facts/a", memory.KindFact, "s", "t")}
	for _, text := range []string{
		"# Memory\n\nno markers\n\n\n",
		"# Memory\r\n\r\nCRLF\r\n",
		"<!-- ocmem:begin registry -->\nx\n<!-- ocmem:end registry -->\n<!-- ocmem:begin routing -->\n<!-- ocmem:end routing -->\n",
		"",
	} {
		buf := make([]byte, len(text), len(text)+4096)
		copy(buf, text)
		spare := buf[len(text):cap(buf)]
		for i := range spare {
			spare[i] = 0xAA
		}
		out, err := compile.Root(buf, []string{"facts"}, mems)
		if err != nil {
			t.Fatal(err)
		}
		if string(buf) != text {
			t.Errorf("Root changed its input %q to %q", text, buf)
		}
		if bytes.Count(spare, []byte{0xAA}) != len(spare) {
			t.Errorf("Root wrote into the spare capacity of its input %q", text)
		}
		if len(out) == 0 {
			t.Errorf("Root(%q) gave nothing", text)
		}
	}
}

// An empty ROOT.md (not a missing one) gets the compiled sections only: the
// person emptied it on purpose.
func TestRootEmptyFile(t *testing.T) {
	out, err := compile.Root([]byte{}, []string{"facts"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "<!-- ocmem:begin registry -->\n") || strings.Contains(string(out), "## Goals") {
		t.Errorf("Root of an empty file:\n%s", out)
	}
	fresh, err := compile.Root(nil, []string{"facts"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(fresh), compile.Skeleton) {
		t.Errorf("Root of no file does not start with the skeleton:\n%s", fresh)
	}
}

// A summary or trigger cannot open or close an HTML comment in index.md,
// which would hide the memories listed after it from a person reading the
// file rendered; the links are still read back.
func TestIndexEscapesComments(t *testing.T) {
	mems := []*memory.Memory{
		newMemory(t, "facts/a", memory.KindFact, "Opens <!-- a comment", "x -->"),
		newMemory(t, "facts/b", memory.KindFact, "Hidden unless escaped."),
		newMemory(t, "facts/c", memory.KindFact, "Closes --> and <!-- again -->"),
	}
	out := string(compile.Index("facts", mems))
	// The header's own note is the one comment.
	if n := strings.Count(out, "<!--"); n != 1 {
		t.Errorf("%d comment openers, want 1 (the header's):\n%s", n, out)
	}
	if n := strings.Count(out, "-->"); n != 1 {
		t.Errorf("%d comment closers, want 1 (the header's):\n%s", n, out)
	}
	if !strings.Contains(out, "— Opens &lt;!-- a comment · when: x --&gt;") {
		t.Errorf("escaped line missing:\n%s", out)
	}
	if ids, _ := compile.IndexIDs("facts", []byte(out)); !slices.Equal(ids, []string{"facts/a", "facts/b", "facts/c"}) {
		t.Errorf("IndexIDs = %v", ids)
	}
}
