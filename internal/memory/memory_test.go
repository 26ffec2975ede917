package memory_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// A test case is a txtar archive under testdata/<dir>. Its comment may hold
// a line "flags: ..." that turns the archive's plain text into the bytes a
// test needs, so that no testdata file holds invisible characters:
//
//	crlf            every LF in input.md and output.md becomes CRLF
//	bom             input.md and output.md start with a UTF-8 BOM
//	nofinalnewline  input.md and output.md lose their last LF
type testCase struct {
	path  string
	ar    *archive
	flags map[string]bool
}

var knownFlags = map[string]bool{"crlf": true, "bom": true, "nofinalnewline": true}

func loadCases(t testing.TB, dir string) []*testCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no test cases in testdata/%s (%v)", dir, err)
	}
	var cases []*testCase
	for _, p := range paths {
		ar, err := readArchive(p)
		if err != nil {
			t.Fatal(err)
		}
		c := &testCase{path: p, ar: ar, flags: map[string]bool{}}
		for _, line := range strings.Split(string(ar.Comment), "\n") {
			if rest, ok := strings.CutPrefix(line, "flags:"); ok {
				for _, f := range strings.Fields(rest) {
					if !knownFlags[f] {
						t.Fatalf("%s: unknown flag %q", p, f)
					}
					c.flags[f] = true
				}
			}
		}
		cases = append(cases, c)
	}
	return cases
}

func (c *testCase) name() string { return strings.TrimSuffix(filepath.Base(c.path), ".txt") }

// bytesOf returns a file of the archive as the test uses it: flags applied
// to input.md and output.md.
func (c *testCase) bytesOf(t testing.TB, name string) []byte {
	t.Helper()
	data, ok := c.ar.file(name)
	if !ok {
		t.Fatalf("%s: no file %s", c.path, name)
	}
	if name != "input.md" && name != "output.md" {
		return data
	}
	data = bytes.Clone(data)
	if c.flags["nofinalnewline"] {
		data = bytes.TrimSuffix(data, []byte("\n"))
	}
	if c.flags["crlf"] {
		data = bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
	}
	if c.flags["bom"] {
		data = append([]byte("\ufeff"), data...)
	}
	return data
}

// setBytes stores real bytes as the archive's text, undoing the flags.
func (c *testCase) setBytes(t testing.TB, name string, data []byte) {
	t.Helper()
	if c.flags["bom"] {
		var ok bool
		if data, ok = bytes.CutPrefix(data, []byte("\ufeff")); !ok {
			t.Fatalf("%s: %s has no BOM, but the archive's flags say it has", c.path, name)
		}
	}
	if c.flags["crlf"] {
		data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	}
	if c.flags["nofinalnewline"] {
		data = append(bytes.Clone(data), '\n')
	}
	c.ar.set(name, data)
}

func (c *testCase) save(t testing.TB) {
	t.Helper()
	if err := os.WriteFile(c.path, c.ar.format(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// decoded is what want.json holds: every known field, and the body.
type decoded struct {
	ID           string   `json:"id"`
	Kind         string   `json:"kind"`
	Summary      string   `json:"summary"`
	Highlight    string   `json:"highlight"`
	Created      int64    `json:"created"`
	Updated      int64    `json:"updated"`
	LoadWhen     []string `json:"load_when"`
	Pinned       bool     `json:"pinned"`
	Supersedes   string   `json:"supersedes"`
	SupersededBy string   `json:"superseded_by"`
	ProposedBy   string   `json:"proposed_by,omitempty"`
	Anchors      []string `json:"anchors,omitempty"`
	Verified     *struct {
		Commit  string            `json:"commit,omitempty"`
		Time    int64             `json:"time,omitempty"`
		Digests map[string]string `json:"digests,omitempty"`
	} `json:"verified,omitempty"`
	Outdated *outdatedJSON `json:"outdated,omitempty"`
	Body     string        `json:"body"`
	// The enforce block, when the input has one: its guards, and each
	// entry left out as "line N: why".
	Enforce         []memory.Guard `json:"enforce,omitempty"`
	EnforceProblems []string       `json:"enforce_problems,omitempty"`
}

func decodedOf(m *memory.Memory) decoded {
	d := decoded{
		ID: m.ID, Kind: string(m.Kind), Summary: m.Summary, Highlight: m.Highlight,
		Created: m.Created, Updated: m.Updated, LoadWhen: append([]string{}, m.LoadWhen...),
		Pinned: m.Pinned, Supersedes: m.Supersedes, SupersededBy: m.SupersededBy, ProposedBy: m.ProposedBy,
		Anchors: append([]string(nil), m.Anchors...), Body: m.Body,
	}
	if !m.Verified.IsZero() {
		d.Verified = &struct {
			Commit  string            `json:"commit,omitempty"`
			Time    int64             `json:"time,omitempty"`
			Digests map[string]string `json:"digests,omitempty"`
		}{m.Verified.Commit, m.Verified.Time, m.Verified.Digests}
	}
	if !m.Outdated.IsZero() {
		d.Outdated = &outdatedJSON{m.Outdated.Commit, m.Outdated.Time, m.Outdated.Reason}
	}
	return d
}

type outdatedJSON struct {
	Commit string `json:"commit,omitempty"`
	Time   int64  `json:"time,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// parsedOf is decodedOf with what Parse reads of the enforce block, which
// follows from the block and the kind rather than being set: a round trip
// compares decodedOf, TestParse this.
func parsedOf(m *memory.Memory) decoded {
	d := decodedOf(m)
	d.Enforce = m.Enforce
	for _, p := range m.EnforceProblems {
		d.EnforceProblems = append(d.EnforceProblems, p.Error())
	}
	return d
}

func (d decoded) String() string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		panic(err)
	}
	return b.String()
}

func (d decoded) equal(e decoded) bool { return d.String() == e.String() }

// leafErrors flattens errors.Join.
func leafErrors(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, leafErrors(e)...)
		}
		return out
	}
	return []error{err}
}

// checkParseError checks that every problem Parse reports is a ParseError
// on a line of the file, and says so in its text.
func checkParseError(t testing.TB, err error, input []byte) {
	t.Helper()
	lines := bytes.Count(input, []byte("\n")) + 1
	for _, e := range leafErrors(err) {
		var pe *memory.ParseError
		if !errors.As(e, &pe) {
			t.Errorf("error %q (%T) is not a *memory.ParseError", e, e)
			continue
		}
		if pe.Line < 1 || pe.Line > lines {
			t.Errorf("error %q: line %d is not a line of the %d-line file", e, pe.Line, lines)
		}
		if !strings.HasPrefix(e.Error(), fmt.Sprintf("line %d: ", pe.Line)) {
			t.Errorf("error %q does not start with its line", e)
		}
	}
}

func TestParse(t *testing.T) {
	for _, c := range loadCases(t, "parse") {
		t.Run(c.name(), func(t *testing.T) {
			in := c.bytesOf(t, "input.md")
			m, err := memory.Parse(in)
			name, other, got := "want.json", "error", ""
			if err != nil {
				name, other, got = "error", "want.json", err.Error()+"\n"
				checkParseError(t, err, in)
			} else {
				got = parsedOf(m).String()
			}
			if *update {
				c.ar.set(name, []byte(got))
				c.ar.remove(other)
				c.save(t)
				return
			}
			if _, ok := c.ar.file(other); ok {
				t.Fatalf("Parse wrote %s:\n%s\nbut the archive expects %s", name, got, other)
			}
			if want := c.bytesOf(t, name); got != string(want) {
				t.Errorf("Parse: %s\ngot:\n%s\nwant:\n%s", name, got, want)
			}
		})
	}
}

func TestParseOversize(t *testing.T) {
	head := "---\nid: facts/big\nkind: fact\nsummary: a large file\n---\n"
	fits := head + strings.Repeat("x", memory.MaxFileSize-len(head))
	if _, err := memory.Parse([]byte(fits)); err != nil {
		t.Fatalf("Parse of a file of exactly MaxFileSize bytes: %v", err)
	}
	_, err := memory.Parse([]byte(fits + "x"))
	want := fmt.Sprintf("file is %d bytes, over the %d-byte limit for a memory", memory.MaxFileSize+1, memory.MaxFileSize)
	var pe *memory.ParseError
	if !errors.As(err, &pe) || pe.Line != 0 || err.Error() != want {
		t.Errorf("Parse of MaxFileSize+1 bytes: got %v (%T), want ParseError without a line: %s", err, err, want)
	}
}

// Errors whose input holds characters no testdata file should: the line of
// each must still be the file's.
func TestParseErrorLine(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"control character", "---\nid: a/b\nkind: fact\nsummary: bell \x07\n---\n", "line 4: invalid YAML: control characters are not allowed"},
		{"broken UTF-8", "---\nid: a/b\nsummary: \xff\xfe\n---\n", "line 3: invalid YAML: invalid leading UTF-8 octet"},
		{"UTF-16 frontmatter", "---\n\xff\xfei\x00d\x00\n---\n", "line 2: frontmatter is not UTF-8"},
		{"tab indentation", "---\nid: a/b\nload_when:\n\t- a\n---\n", "line 4: invalid YAML: found character that cannot start any token"},
		{"first frontmatter line", "---\n: x\n---\n", "line 2: invalid YAML: did not find expected key"},
		{"CRLF and BOM", "\ufeff---\r\nid: a/b\r\nkind: fact\r\nsummary: a: b\r\n---\r\n", "line 4: invalid YAML: mapping values are not allowed in this context"},
		// yaml breaks lines at a lone CR and at U+2028; a file line does not.
		{"lone CR before", "---\nnote: \"a\rb\"\nid: a/b\nsummary: a: b\n---\n", "line 4: invalid YAML: mapping values are not allowed in this context"},
		{"LS before", "---\nnote: \"a\u2028b\"\nid: a/b\npinned: maybe\n---\n", `line 4: pinned: want true or false, got "maybe"`},
		{"parser error line", "---\nid: a/b\nkind: fact\nload_when: [a, b\nsummary: s\n---\n", "line 4: invalid YAML: did not find expected ',' or ']'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := memory.Parse([]byte(tt.in))
			if err == nil {
				t.Fatalf("Parse(%q) succeeded, want %q", tt.in, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Parse(%q):\ngot  %s\nwant %s", tt.in, err, tt.want)
			}
			checkParseError(t, err, []byte(tt.in))
		})
	}
}

func TestLine(t *testing.T) {
	m, err := memory.Parse([]byte("\ufeff---\r\n# c\r\nid: a/b\r\n\r\nkind: fact\r\n---\r\nbody\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]int{"id": 3, "kind": 5, "summary": 0} {
		if got := m.Line(key); got != want {
			t.Errorf("Line(%q) = %d, want %d", key, got, want)
		}
	}
}

func TestRewrite(t *testing.T) {
	for _, c := range loadCases(t, "rewrite") {
		t.Run(c.name(), func(t *testing.T) {
			in := c.bytesOf(t, "input.md")
			m, err := memory.Parse(in)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if out := m.Format(); !bytes.Equal(out, in) {
				t.Fatalf("Format before any edit changed the file:\n%q\nwant\n%q", out, in)
			}
			applyScript(t, m, string(c.bytesOf(t, "edit")))
			got := m.Format()
			if *update {
				c.setBytes(t, "output.md", got)
				c.save(t)
			} else if want := c.bytesOf(t, "output.md"); !bytes.Equal(got, want) {
				t.Errorf("Format after the edit:\n%s\nwant:\n%s\n(quoted: %q\nwant    %q)", got, want, got, want)
			}
			checkRoundTrip(t, m)
		})
	}
}

// applyScript applies an edit script to m, one command a line:
//
//	set <field> <value>   a value in double quotes is a Go string literal;
//	                      load_when and anchors take a comma-separated list;
//	                      verified.digest takes anchor=digest ("anchor=" drops it)
//	clear <field>
//
// Fields are the frontmatter's keys, and "body".
func applyScript(t testing.TB, m *memory.Memory, script string) {
	t.Helper()
	for _, line := range strings.Split(script, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cmd, rest, _ := strings.Cut(line, " ")
		field, val, _ := strings.Cut(rest, " ")
		switch cmd {
		case "set":
			if strings.HasPrefix(val, `"`) {
				u, err := strconv.Unquote(val)
				if err != nil {
					t.Fatalf("edit %q: %v", line, err)
				}
				val = u
			}
		case "clear":
			if val != "" {
				t.Fatalf("edit %q: clear takes no value", line)
			}
			val = ""
		default:
			t.Fatalf("edit %q: unknown command %q", line, cmd)
		}
		num := func() int64 {
			if val == "" {
				return 0
			}
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				t.Fatalf("edit %q: %v", line, err)
			}
			return n
		}
		switch field {
		case "id":
			m.ID = val
		case "kind":
			m.Kind = memory.Kind(val)
		case "summary":
			m.Summary = val
		case "highlight":
			m.Highlight = val
		case "created":
			m.Created = num()
		case "updated":
			m.Updated = num()
		case "load_when":
			m.LoadWhen = nil
			if val != "" {
				m.LoadWhen = strings.Split(val, ",")
			}
		case "pinned":
			m.Pinned = val == "true"
		case "supersedes":
			m.Supersedes = val
		case "superseded_by":
			m.SupersededBy = val
		case "proposed_by":
			m.ProposedBy = val
		case "anchors":
			m.Anchors = nil
			if val != "" {
				m.Anchors = strings.Split(val, ",")
			}
		case "verified.commit":
			m.Verified.Commit = val
		case "verified.time":
			m.Verified.Time = num()
		case "verified.digest":
			// "set verified.digest path=sha256:…", or "path=" to drop one
			k, d, _ := strings.Cut(val, "=")
			digests := map[string]string{}
			for kk, vv := range m.Verified.Digests {
				digests[kk] = vv
			}
			if d == "" {
				delete(digests, k)
			} else {
				digests[k] = d
			}
			m.Verified.Digests = digests
		case "outdated.commit":
			m.Outdated.Commit = val
		case "outdated.time":
			m.Outdated.Time = num()
		case "outdated.reason":
			m.Outdated.Reason = val
		case "body":
			m.Body = val
		default:
			t.Fatalf("edit %q: unknown field %q", line, field)
		}
	}
}

// validInputs returns every testdata input that parses, by name.
func validInputs(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, dir := range []string{"parse", "rewrite"} {
		for _, c := range loadCases(t, dir) {
			in := c.bytesOf(t, "input.md")
			if _, err := memory.Parse(in); err == nil {
				out[dir+"/"+c.name()] = in
			}
		}
	}
	if len(out) < 20 {
		t.Fatalf("only %d valid inputs in testdata", len(out))
	}
	return out
}

// Format of a memory nobody changed gives back the file, byte for byte.
func TestFormatUnchanged(t *testing.T) {
	for name, in := range validInputs(t) {
		m, _ := memory.Parse(in)
		if out := m.Format(); !bytes.Equal(out, in) {
			t.Errorf("%s: Format changed an unedited memory:\n%q\nwant\n%q", name, out, in)
		}
	}
}

// Lines Format writes into a file take the line end of its opening line;
// lines it does not write keep theirs, and the body keeps its own.
func TestFormatMixedLineEnds(t *testing.T) {
	tests := []struct{ in, want string }{
		{
			"---\nid: a/b\nupdated: 1\n---\r\nbody\r\n",
			"---\nid: a/b\nupdated: 2\n---\r\nbody\r\n",
		},
		{
			"---\r\nid: a/b\nupdated: 1\r\n---\r\nbody\n",
			"---\r\nid: a/b\nupdated: 2\r\n---\r\nbody\n",
		},
		{
			"---\r\nid: a/b\n---\n",
			"---\r\nid: a/b\nupdated: 2\r\n---\n",
		},
	}
	for _, tt := range tests {
		m, err := memory.Parse([]byte(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		m.Updated = 2
		if got := string(m.Format()); got != tt.want {
			t.Errorf("Format after setting updated of %q:\ngot  %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// Format reads the memory; it must not change it, nor answer differently
// the second time.
func TestFormatDoesNotModify(t *testing.T) {
	in := []byte("---\nid: a/b\nkind: fact\nload_when: [x]\n---\nbody\n")
	m, err := memory.Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	m.LoadWhen = []string{" y ", ""}
	m.Summary = "new"
	before := decodedOf(m)
	first := m.Format()
	second := m.Format()
	if !bytes.Equal(first, second) {
		t.Errorf("Format twice:\n%q\n%q", first, second)
	}
	if after := decodedOf(m); !after.equal(before) {
		t.Errorf("Format modified the memory:\n%s\nwant\n%s", after, before)
	}
	m.Summary = ""
	if got, want := string(m.Format()), "---\nid: a/b\nkind: fact\nload_when: [y]\n---\nbody\n"; got != want {
		t.Errorf("Format after a second edit:\ngot  %q\nwant %q", got, want)
	}
}

func TestValidate(t *testing.T) {
	const valid = "---\nid: pitfalls/x\nkind: pitfall\nsummary: s\n---\n"
	tests := []struct {
		name   string
		in     string // a file, or "" for mem
		mem    *memory.Memory
		wantID string
		want   string // "" for no error
	}{
		{name: "valid", in: valid, wantID: "pitfalls/x"},
		{name: "valid without a path", in: valid},
		{name: "missing everything", in: "---\nx: 1\n---\n", wantID: "pitfalls/x",
			want: "id is missing\nkind is missing\nsummary is missing"},
		{name: "empty values", in: "---\nid: \"\"\nkind:\nsummary: \"  \"\n---\n",
			want: "line 2: id is missing\nline 3: kind is missing\nline 4: summary is missing"},
		{name: "bad kind", in: "---\nid: pitfalls/x\nsummary: s\nkind: gotcha\n---\n",
			want: `line 4: kind "gotcha" is not one of rule, preference, decision, pitfall, fact, rule-proposal`},
		{name: "id does not match the path", in: valid, wantID: "pitfalls/y",
			want: `line 2: id "pitfalls/x" does not match the file's path (want "pitfalls/y")`},
		{name: "id without a slash", in: "---\nkind: fact\nsummary: s\nid: x\n---\n",
			want: `line 4: id "x" is not <category>/<slug>`},
		{name: "id without a category", in: "---\nid: /x\nkind: fact\nsummary: s\n---\n",
			want: `line 2: id "/x" is not <category>/<slug>`},
		{name: "id without a slug", in: "---\nid: facts/\nkind: fact\nsummary: s\n---\n",
			want: `line 2: id "facts/" is not <category>/<slug>`},
		{name: "supersedes itself", in: "---\nid: facts/x\nkind: fact\nsummary: s\nsupersedes: facts/x\nsuperseded_by: facts/x\n---\n",
			want: "line 5: supersedes names the memory itself\nline 6: superseded_by names the memory itself"},
		{name: "every problem at once", wantID: "facts/y",
			in: "---\nid: x\nkind: gotcha\nsummary:\nsupersedes: x\n---\n",
			want: `line 2: id "x" is not <category>/<slug>` + "\n" +
				`line 2: id "x" does not match the file's path (want "facts/y")` + "\n" +
				`line 3: kind "gotcha" is not one of rule, preference, decision, pitfall, fact, rule-proposal` + "\n" +
				"line 4: summary is missing\n" +
				"line 5: supersedes names the memory itself"},
		{name: "built in Go", mem: &memory.Memory{ID: "facts/x", Kind: memory.KindFact, Summary: "s", Created: -1, Updated: -2},
			want: "created is negative (-1)\nupdated is negative (-2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.mem
			if m == nil {
				var err error
				if m, err = memory.Parse([]byte(tt.in)); err != nil {
					t.Fatalf("Parse: %v", err)
				}
			}
			err := m.Validate(tt.wantID)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("Validate(%q):\ngot:\n%s\nwant:\n%s", tt.wantID, got, tt.want)
			}
			if err == nil {
				return
			}
			for _, e := range leafErrors(err) {
				if !errors.As(e, new(*memory.ParseError)) {
					t.Errorf("error %q (%T) is not a *memory.ParseError", e, e)
				}
			}
		})
	}
}

var lineRE = regexp.MustCompile(`^line \d+: `)

// A parse golden is reviewed by hand; this keeps the reviewer honest about
// one thing a glance can miss.
func TestParseGoldenErrorsHaveLines(t *testing.T) {
	n := 0
	for _, c := range loadCases(t, "parse") {
		data, ok := c.ar.file("error")
		if !ok {
			continue
		}
		n++
		for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			if !lineRE.MatchString(line) {
				t.Errorf("%s: error %q has no line", c.path, line)
			}
		}
	}
	if n == 0 {
		t.Error("no parse test case expects an error")
	}
}

// Anchors that cannot be checked are reported with their line, and the
// memory still parses and validates.
func TestAnchorProblems(t *testing.T) {
	tests := []struct {
		name, anchors string
		want          string
	}{
		{"valid", "[a.go, 'internal/api/server.go#ListenPort', docs, 'internal/*/x.go', 'x.go#Server.Port']", ""},
		{"absolute", "[/etc/passwd]", `line 5: anchor "/etc/passwd": absolute path: an anchor is relative to the project root`},
		{"windows drive", "['C:/x.go']", `line 5: anchor "C:/x.go": absolute path: an anchor is relative to the project root`},
		{"leaves the root", "[../other/x.go, a/../../b]", `line 5: anchor "../other/x.go": path leaves the project root` + "\n" +
			`line 5: anchor "a/../../b": path leaves the project root`},
		{"bad glob", "['src/[a-.go']", `line 5: anchor "src/[a-.go": bad glob pattern`},
		{"bad symbol", "['x.go#List Port', 'x.go#']", `line 5: anchor "x.go#": symbol is not an identifier` + "\n" +
			`line 5: anchor "x.go#List Port": symbol is not an identifier`},
		{"backslash", `['internal\x.go']`, `line 5: anchor "internal\\x.go": backslash in the path: separate folders with "/"`},
		{"too many", "[" + strings.Repeat("a.go, ", 100) + "b.go]", "line 5: anchors has 101 anchors, over the limit of 100: the rest are not checked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := "---\nid: facts/x\nkind: fact\nsummary: s\nanchors: " + tt.anchors + "\n---\n"
			m, err := memory.Parse([]byte(in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if err := m.Validate("facts/x"); err != nil {
				t.Errorf("Validate: %v", err)
			}
			var got []string
			for _, e := range m.AnchorProblems() {
				got = append(got, e.Error())
			}
			if g := strings.Join(got, "\n"); g != tt.want {
				t.Errorf("AnchorProblems:\ngot:\n%s\nwant:\n%s", g, tt.want)
			}
		})
	}
}
