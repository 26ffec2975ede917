package compile

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
)

// layoutByMarkers is how rootInPlace told the usual ROOT.md before
// LayoutOf: each check a pass of its own.
func layoutByMarkers(old []byte) (at [4]int, ok bool) {
	if old == nil || bytes.Contains(old, []byte("<<<<<<<")) || bytes.Contains(old, []byte("\r\n")) {
		return at, false
	}
	for i, m := range []string{beginRegistry, endRegistry, beginRouting, endRouting} {
		at[i] = bytes.Index(old, []byte(m))
		if at[i] < 0 || bytes.Count(old, []byte(m)) != 1 || i > 0 && at[i] < at[i-1] {
			return at, false
		}
	}
	return at, true
}

// LayoutOf finds what the passes for each marker found.
func TestLayoutOfAgreesWithMarkers(t *testing.T) {
	usual := "# Memory\n\nmy text <b>\n" + beginRegistry + "\n| a |\n" + endRegistry + "\n\n" + beginRouting + "\n| x | [a](a.md) |\n" + endRouting + "\nafter\n"
	for _, old := range []string{
		usual, "", "# Memory\n",
		strings.Replace(usual, "\n", "\r\n", 1),
		strings.Replace(usual, "my text", "<<<<<<< HEAD", 1),
		strings.Replace(usual, "my text", "<<<<<<", 1),
		strings.Replace(usual, "my text", "<<<<<<<<", 1),
		usual + beginRouting,
		strings.Replace(usual, endRouting, "", 1),
		beginRouting + "\n" + strings.Replace(usual, beginRouting, "", 1),
		strings.Replace(strings.Replace(usual, beginRegistry, "@@", 1), endRegistry, beginRegistry, 1),
		strings.Replace(usual, "<b>", "<!-- ocmem:begin registr", 1),
		strings.Replace(usual, "<b>", "<<!-- ocmem:end routing -->", 1),
		"<",
	} {
		checkLayout(t, []byte(old))
	}
	checkLayout(t, nil)
}

func checkLayout(t *testing.T, old []byte) {
	t.Helper()
	l := LayoutOf(old)
	at, ok := layoutByMarkers(old)
	if l.plain != ok || ok && l.at != at || l.size != len(old) {
		t.Errorf("%q: LayoutOf = %+v, want %v %v", old, l, at, ok)
	}
}

func FuzzLayoutOf(f *testing.F) {
	f.Add([]byte("x" + beginRegistry + endRegistry + beginRouting + endRouting))
	f.Add([]byte(beginRegistry + "<<<<<<<" + endRegistry + beginRouting + endRouting + "\r\n"))
	f.Fuzz(func(t *testing.T, old []byte) { checkLayout(t, old) })
}

// rootInPlace makes ROOT.md in memory of its exact length: memory given
// it (RootOver's buf) of about the old file's size is then enough.
func TestRootInPlaceSizeIsExact(t *testing.T) {
	for _, oneShot := range []bool{false, true} {
		tb := NewTables([]string{"facts"})
		tb.OneShot = oneShot
		for i, when := range [][]string{{"deploy", "Deploy"}, nil, {"部署", "a|b", "<x"}, {"redis"}} {
			tb.Add(&memory.Memory{ID: "facts/m" + string(rune('a'+i)), Summary: "s", LoadWhen: when, Pinned: i == 1})
		}
		for _, old := range []string{"# Memory\n\nmine\n", ""} {
			first, err := tb.Root([]byte(old))
			if err != nil {
				t.Fatal(err)
			}
			tb.Add(&memory.Memory{ID: "facts/new" + old, Summary: "n", LoadWhen: []string{"kafka"}})
			out, ok := tb.rootInPlace(first, LayoutOf(first), nil)
			if !ok || len(out) != cap(out) {
				t.Errorf("one shot %v, over %q: in place %v, %d bytes in %d", oneShot, old, ok, len(out), cap(out))
			}
		}
	}
	tb := NewTables(nil)
	first, _ := tb.Root(nil)
	if out, ok := tb.rootInPlace(first, LayoutOf(first), nil); !ok || len(out) != cap(out) {
		t.Errorf("no routes: in place %v, %d bytes in %d", ok, len(out), cap(out))
	}
}
