package memory_test

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ocmem/ocmem/internal/memory"
)

// writable is what a file can hold of m's fields, as Format documents it:
// strings as valid UTF-8, triggers trimmed with empty ones dropped.
func writable(m *memory.Memory) decoded {
	d := decodedOf(m)
	for _, p := range []*string{&d.ID, &d.Kind, &d.Summary, &d.Highlight, &d.Supersedes, &d.SupersededBy, &d.ProposedBy} {
		*p = strings.ToValidUTF8(*p, "\uFFFD")
	}
	d.LoadWhen = []string{}
	for _, t := range m.LoadWhen {
		if t = strings.TrimSpace(strings.ToValidUTF8(t, "\uFFFD")); t != "" {
			d.LoadWhen = append(d.LoadWhen, t)
		}
	}
	d.Anchors = nil
	for _, a := range m.Anchors {
		if a = strings.TrimSpace(strings.ToValidUTF8(a, "\uFFFD")); a != "" {
			d.Anchors = append(d.Anchors, a)
		}
	}
	v := memory.WritableVerified(m.Verified)
	d.Verified = decodedOf(&memory.Memory{Verified: v}).Verified
	o := m.Outdated
	o.Commit, o.Reason = strings.ToValidUTF8(o.Commit, "\uFFFD"), strings.ToValidUTF8(o.Reason, "\uFFFD")
	d.Outdated = decodedOf(&memory.Memory{Outdated: o}).Outdated
	return d
}

// checkRoundTrip checks the properties every Format must have: its output
// parses back to the memory's fields, formatting that again changes nothing,
// formatting m again gives the same bytes, and a parsed memory keeps its
// unknown fields. It returns the output.
func checkRoundTrip(t testing.TB, m *memory.Memory) []byte {
	t.Helper()
	want := writable(m)
	out := m.Format()
	m2, err := memory.Parse(out)
	if err != nil {
		t.Fatalf("Parse(Format(m)): %v\nFormat(m):\n%q", err, out)
	}
	if got := decodedOf(m2); !got.equal(want) {
		t.Fatalf("Parse(Format(m)) fields:\n%s\nwant:\n%s\nFormat(m):\n%q", got, want, out)
	}
	if again := m2.Format(); !bytes.Equal(again, out) {
		t.Fatalf("Format is not idempotent:\nFormat(m):\n%q\nFormat(Parse(Format(m))):\n%q", out, again)
	}
	if again := m.Format(); !bytes.Equal(again, out) {
		t.Fatalf("Format(m) twice differs:\n%q\n%q", out, again)
	}
	if !memory.SameUnknownFields(m, m2) {
		t.Fatalf("Format lost or changed unknown fields:\nFormat(m):\n%q", out)
	}
	return out
}

// edits change a parsed memory in ways that exercise every path of Format:
// replacing, removing and appending fields, with values taken from the
// memory itself so that fuzzed input reaches the YAML emitter.
var edits = []struct {
	name  string
	apply func(m *memory.Memory)
}{
	{"bump", func(m *memory.Memory) {
		if m.Updated < math.MaxInt64 {
			m.Updated++
		} else {
			m.Updated--
		}
		m.Summary += " (edited)"
	}},
	{"clear", func(m *memory.Memory) {
		m.ID, m.Kind, m.Summary, m.Highlight = "", "", "", ""
		m.Created, m.Updated, m.LoadWhen, m.Pinned = 0, 0, nil, false
		m.Supersedes, m.SupersededBy = "", ""
		m.Anchors, m.Verified, m.Outdated = nil, memory.Verified{}, memory.Outdated{}
	}},
	{"scramble", func(m *memory.Memory) {
		body := m.Body
		if len(body) > 512 {
			body = body[:512]
		}
		m.ID, m.Summary, m.Highlight = m.Summary, body, " "+m.ID+" "
		m.Kind = "rule: #1"
		m.LoadWhen = append(m.LoadWhen, m.Highlight, "", "- x", body)
		m.Pinned = !m.Pinned
		m.Supersedes, m.SupersededBy = m.Highlight, "true"
		m.Created = m.Updated/2 + 1
		m.Anchors = append(m.Anchors, m.Summary, "x.go#F", "", " "+string(m.Kind))
		m.Verified = memory.Verified{Commit: m.Summary, Time: m.Updated/3 + 1, Digests: map[string]string{m.Highlight: "sha256:" + m.ID, "x.go": ""}}
		m.Outdated = memory.Outdated{Commit: m.Highlight, Time: m.Created + 1, Reason: body}
		m.Body += "\n"
	}},
	{"reverse", func(m *memory.Memory) {
		for i, j := 0, len(m.LoadWhen)-1; i < j; i, j = i+1, j-1 {
			m.LoadWhen[i], m.LoadWhen[j] = m.LoadWhen[j], m.LoadWhen[i]
		}
		if len(m.LoadWhen) > 1 {
			m.LoadWhen = m.LoadWhen[:len(m.LoadWhen)-1]
		}
		m.Kind, m.Highlight = memory.Kind(m.Highlight), string(m.Kind)
		m.Created, m.Updated = m.Updated, m.Created
		slices.Reverse(m.Anchors)
		m.Verified.Commit, m.Verified.Time = m.Verified.Commit+"0", 0
		m.Outdated.Reason, m.Outdated.Time = m.Outdated.Commit, 0
	}},
}

// rebuilt returns a memory with m's fields and no parsed tree, as the
// engine builds a new one.
func rebuilt(m *memory.Memory) *memory.Memory {
	return &memory.Memory{
		ID: m.ID, Kind: m.Kind, Summary: m.Summary, Highlight: m.Highlight,
		Created: m.Created, Updated: m.Updated, LoadWhen: append([]string(nil), m.LoadWhen...),
		Pinned: m.Pinned, Supersedes: m.Supersedes, SupersededBy: m.SupersededBy, ProposedBy: m.ProposedBy,
		Anchors: append([]string(nil), m.Anchors...), Verified: m.Verified, Outdated: m.Outdated, Body: m.Body,
	}
}

// checkInput checks the round-trip properties on a file that parses: as
// read, after each edit, and rebuilt from scratch.
func checkInput(t testing.TB, in []byte) {
	t.Helper()
	m, err := memory.Parse(in)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if out := checkRoundTrip(t, m); !bytes.Equal(out, in) {
		t.Fatalf("Format of an unedited memory:\n%q\nwant the input\n%q", out, in)
	}
	checkRoundTrip(t, rebuilt(m))
	for _, e := range edits {
		m, _ := memory.Parse(in)
		e.apply(m)
		checkRoundTrip(t, m)
		checkRoundTrip(t, rebuilt(m))
	}
}

func TestRoundTrip(t *testing.T) {
	for name, in := range validInputs(t) {
		t.Run(name, func(t *testing.T) { checkInput(t, in) })
	}
}

// Memories built in Go, as the engine builds new ones, with strings that
// need care in YAML.
func TestRoundTripFresh(t *testing.T) {
	tricky := []string{
		" leading", "trailing ", " both ", "a: b", "a:b", ":", "#", "a #b", "a# b", "- ", "- item", "-",
		"true", "false", "yes", "no", "null", "~", "123", "-1", "0x1f", "1e3", ".inf", "2024-01-02",
		"line\nbreak", "ends with newline\n", "\nstarts with newline", "two\n\nparagraphs\n\n",
		"crlf\r\nline", "lone\rcr", "tab\there", "\ttab first", "quote \" inside", "'single'", `back\slash`,
		"{flow}", "[list]", "*alias", "&anchor", "!tag", "%percent", "@at", "`tick`", "|", ">", "?", ",",
		"---", "...", "--- x", "中文摘要:分词", "部署脚本用", "emoji 🎉🚀", "ｆｕｌｌ　ｗｉｄｔｈ",
		"\u00a0nbsp", "zero\u200bwidth", "bom\ufeffinside", "nel\u0085", "ls\u2028ps\u2029", "bell\a",
		"nul\x00", "del\x7f", strings.Repeat("long ", 100),
	}
	var mems []*memory.Memory
	for i, s := range tricky {
		mems = append(mems, &memory.Memory{
			ID: "facts/" + s, Kind: memory.Kind(s), Summary: s, Highlight: s,
			Created: int64(i), Updated: 1791512014824 + int64(i),
			LoadWhen: []string{s, "", " ", "  padded  ", s + s},
			Pinned:   i%2 == 0, Supersedes: s, SupersededBy: s, ProposedBy: s, Body: s,
		})
	}
	mems = append(mems,
		&memory.Memory{},
		&memory.Memory{Body: "only a body\n"},
		&memory.Memory{LoadWhen: []string{"", "  "}},
		&memory.Memory{Created: math.MaxInt64, Updated: math.MaxInt64},
		&memory.Memory{
			ID: "pitfalls/sqlite-cjk-tokenizer", Kind: memory.KindPitfall,
			Summary: "unicode61 把整段中文当一个 token", Highlight: "实测: 查\"部署\"=0 命中",
			Created: 1791512014824, Updated: 1791512014824, LoadWhen: []string{"SQLite", "分词"},
			Pinned: true, Supersedes: "pitfalls/old-slug", Body: "Body.\n",
		},
	)
	for _, m := range mems {
		out := checkRoundTrip(t, m)
		if !utf8.Valid(out[:len(out)-len(m.Body)]) {
			t.Errorf("frontmatter of %q is not UTF-8", out)
		}
	}
}

// The canonical shape of a new memory: the spec's key order, empty fields
// left out, strings quoted only when they must be.
func TestFormatFresh(t *testing.T) {
	m := &memory.Memory{
		ID: "pitfalls/sqlite-cjk-tokenizer", Kind: memory.KindPitfall,
		Summary: "a: b", Highlight: "123", Created: 1791512014824, Updated: 1791512014825,
		LoadWhen: []string{"SQLite", " 分词 ", ""}, Pinned: true,
		Supersedes: "pitfalls/old-slug", Body: "Body.\n",
	}
	want := `---
id: pitfalls/sqlite-cjk-tokenizer
kind: pitfall
summary: 'a: b'
highlight: "123"
created: 1791512014824
updated: 1791512014825
load_when:
  - SQLite
  - 分词
pinned: true
supersedes: pitfalls/old-slug
---
Body.
`
	if got := string(m.Format()); got != want {
		t.Errorf("Format:\n%s\nwant:\n%s", got, want)
	}
	if got, want := string((&memory.Memory{}).Format()), "---\n---\n"; got != want {
		t.Errorf("Format of an empty memory: %q, want %q", got, want)
	}
}

// YAML text is UTF-8: invalid bytes in a field become U+FFFD rather than
// making Format panic or write a file that does not parse.
func TestFormatInvalidUTF8(t *testing.T) {
	m := &memory.Memory{ID: "facts/x", Kind: memory.KindFact, Summary: "cut \xe5\x88", LoadWhen: []string{"\xff"}, Body: "\xff body bytes stay\n"}
	out := checkRoundTrip(t, m)
	m2, _ := memory.Parse(out)
	if m2.Summary != "cut \uFFFD" || len(m2.LoadWhen) != 1 || m2.LoadWhen[0] != "\uFFFD" || m2.Body != m.Body {
		t.Errorf("Parse(Format(m)) = %q, %q, %q", m2.Summary, m2.LoadWhen, m2.Body)
	}
}
