package reliability_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/store"
)

// A malformed store: a project root full of files a careless editor, a
// broken tool, a bad merge or a hostile repository could leave, beside
// good memories. Every bad file must be reported by inspect with its path,
// its line where it has one, and the reason; every good memory must still
// be served; and reading the store (inspect, inject, recall, serve) must
// change nothing at all.

// bad is one malformed input and what inspect must say about it.
type bad struct {
	name  string
	rel   string // the path inspect reports
	check string // the inspection check ("unparsable" if empty)
	line  int
	msg   string // a substring of the message
	// make creates the input under the root; it returns an error to skip
	// the case where the platform cannot make it (a FIFO on Windows).
	make func(root string) error
	// after, if set, runs once the store is compiled (a compile would
	// replace what it makes).
	after func(root string) error
}

// good is a memory that must stay served.
type good struct {
	rel, term string // term: a word only this memory holds, to recall it by
}

func memText(id, summary, body string) string {
	return "---\nid: " + id + "\nkind: fact\nsummary: " + summary + "\ncreated: 1785500000000\nupdated: 1785500000000\n---\n" + body
}

func put(root, rel, content string) error {
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}

func putFn(rel, content string) func(string) error {
	return func(root string) error { return put(root, rel, content) }
}

func deepDir(levels int, name string) string {
	parts := make([]string, levels)
	for i := range parts {
		parts[i] = fmt.Sprintf(name, i+1)
	}
	return strings.Join(parts, "/")
}

func malformedCorpus(outside string) []bad {
	var manyTriggers strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&manyTriggers, "  - t%d\n", i)
	}
	var hugeFM strings.Builder
	for i := 0; hugeFM.Len() < 300<<10; i++ {
		fmt.Fprintf(&hugeFM, "extra_%d: %s\n", i, strings.Repeat("y", 60))
	}
	tooDeep := "deep/" + deepDir(50, "level-%02d-xxx") + "/x.md" // 50 levels of 13 bytes: past pathsafe.MaxLen
	rng := rand.New(rand.NewPCG(1, 2))
	binary := []byte("\x89PNG\r\n\x1a\n")
	for range 4096 {
		binary = append(binary, byte(rng.IntN(256)))
	}
	return []bad{
		{name: "invalid YAML", rel: "facts/invalid-yaml.md", line: 4, msg: "invalid YAML: did not find expected ',' or ']'",
			make: putFn("facts/invalid-yaml.md", "---\nid: facts/invalid-yaml\nkind: fact\nsummary: [unclosed\n---\nbody\n")},
		{name: "no frontmatter", rel: "facts/no-frontmatter.md", line: 1, msg: "no frontmatter",
			make: putFn("facts/no-frontmatter.md", "# Just Markdown\n\nNo frontmatter here.\n")},
		{name: "unclosed frontmatter", rel: "facts/unclosed.md", line: 1, msg: "frontmatter is not closed",
			make: putFn("facts/unclosed.md", "---\nid: facts/unclosed\nkind: fact\nsummary: never closed\n")},
		{name: "empty file", rel: "facts/empty.md", line: 1, msg: "empty file", make: putFn("facts/empty.md", "")},
		{name: "binary", rel: "facts/binary.md", line: 1, msg: "column 1: byte 0x89 is not UTF-8", make: putFn("facts/binary.md", string(binary))},
		{name: "non-UTF-8", rel: "facts/latin1.md", line: 4, msg: "column 13: byte 0xe9 is not UTF-8",
			make: putFn("facts/latin1.md", "---\nid: facts/latin1\nkind: fact\nsummary: caf\xe9 au lait\n---\n")},
		{name: "20 MB file", rel: "facts/huge.md", msg: "file is 20971520 bytes, over the 262144-byte limit for a memory",
			make: func(root string) error {
				return put(root, "facts/huge.md", memText("facts/huge", "huge", strings.Repeat("z", 20<<20-len(memText("facts/huge", "huge", "")))))
			}},
		{name: "wrong id", rel: "facts/wrong-id.md", line: 2, msg: `id "facts/somewhere-else" does not match the file's path (want "facts/wrong-id")`,
			make: putFn("facts/wrong-id.md", memText("facts/somewhere-else", "misplaced", ""))},
		{name: "missing fields", rel: "facts/missing.md", msg: "id is missing", make: putFn("facts/missing.md", "---\ntitle: a note\n---\nbody\n")},
		{name: "bad kind", rel: "facts/bad-kind.md", line: 3, msg: `kind "opinion" is not one of`,
			make: putFn("facts/bad-kind.md", "---\nid: facts/bad-kind\nkind: opinion\nsummary: s\n---\n")},
		{name: "not a mapping", rel: "facts/list.md", line: 2, msg: "frontmatter is not a mapping of fields",
			make: putFn("facts/list.md", "---\n- a\n- b\n---\n")},
		{name: "duplicate key", rel: "facts/dup-key.md", line: 5, msg: `field "summary" appears twice`,
			make: putFn("facts/dup-key.md", "---\nid: facts/dup-key\nkind: fact\nsummary: one\nsummary: two\n---\n")},
		{name: "anchor on a known field", rel: "facts/anchor.md", line: 4, msg: "anchors are not allowed",
			make: putFn("facts/anchor.md", "---\nid: facts/anchor\nkind: fact\nsummary: &s text\nhighlight: *s\n---\n")},
		{name: "YAML nested 100,000 deep", rel: "facts/yaml-depth.md", line: 5, msg: "invalid YAML",
			make: putFn("facts/yaml-depth.md", "---\nid: facts/yaml-depth\nkind: fact\nsummary: s\nx: "+strings.Repeat("[", 100000)+"\n---\n")},
		{name: "huge frontmatter", rel: "facts/huge-frontmatter.md", msg: "over the 262144-byte limit",
			make: putFn("facts/huge-frontmatter.md", "---\nid: facts/huge-frontmatter\nkind: fact\nsummary: s\n"+hugeFM.String()+"---\n")},
		{name: "10,000 load_when triggers", rel: "facts/triggers.md", line: 5, msg: "load_when has 10000 triggers, over the limit of 100",
			make: putFn("facts/triggers.md", "---\nid: facts/triggers\nkind: fact\nsummary: s\nload_when:\n"+manyTriggers.String()+"---\n")},
		{name: "a trigger too long", rel: "facts/long-trigger.md", line: 5, msg: "a trigger of 300 bytes",
			make: putFn("facts/long-trigger.md", "---\nid: facts/long-trigger\nkind: fact\nsummary: s\nload_when: ["+strings.Repeat("w", 300)+"]\n---\n")},
		{name: "NUL bytes", rel: "facts/nul-bytes.md", line: 8, msg: "column 5: a NUL byte",
			make: putFn("facts/nul-bytes.md", memText("facts/nul-bytes", "has NULs", "body\x00\x00\n"))},
		{name: "terminal escape", rel: "facts/escape.md", line: 9, msg: "column 1: control character U+001B",
			make: putFn("facts/escape.md", memText("facts/escape", "colours", "log:\n\x1b]0;pwned\x07\n"))},
		{name: "bidi override", rel: "facts/bidi.md", line: 8, msg: "column 10: bidirectional control U+202E",
			make: putFn("facts/bidi.md", memText("facts/bidi", "looks harmless", "if admin \u202e} else {\u202c\n"))},
		{name: "tag characters", rel: "facts/tags.md", line: 4, msg: "Unicode tag character U+E0049",
			make: putFn("facts/tags.md", memText("facts/tags", "ok\U000E0049\U000E0067\U000E006E", ""))},
		{name: "conflict markers", rel: "facts/conflict.md", check: "merge-conflict", line: 4,
			make: putFn("facts/conflict.md", "---\nid: facts/conflict\nkind: fact\n<<<<<<< HEAD\nsummary: ours\n=======\nsummary: theirs\n>>>>>>> other\n---\n")},
		{name: "reserved name on Windows", rel: "facts/con.md", msg: "reserved device name", make: putFn("facts/con.md", memText("facts/con", "con", ""))},
		{name: "control character in the name", rel: "facts/a\x01b.md", msg: "control character",
			make: func(root string) error {
				if runtime.GOOS == "windows" {
					return errors.ErrUnsupported
				}
				return put(root, "facts/a\x01b.md", memText("facts/a\x01b", "s", ""))
			}},
		{name: "path too long (deep nesting)", rel: tooDeep, msg: "longer than 512 bytes",
			make: putFn(tooDeep, memText(strings.TrimSuffix(tooDeep, ".md"), "too deep", ""))},
		{name: "directory named x.md", rel: "facts/folder.md", msg: "a directory named like a memory file",
			make: func(root string) error { return os.MkdirAll(filepath.Join(root, "facts", "folder.md"), 0o755) }},
		{name: "FIFO named x.md", rel: "facts/pipe.md", msg: "not a regular file: a named pipe (FIFO)",
			make: func(root string) error { return mkfifo(filepath.Join(root, "facts", "pipe.md")) }},
		{name: "symlink to a FIFO", rel: "facts/to-pipe.md", msg: "not a regular file",
			make: func(root string) error {
				if err := mkfifo(filepath.Join(root, "facts", "pipe-target")); err != nil {
					return err
				}
				return os.Symlink("pipe-target", filepath.Join(root, "facts", "to-pipe.md"))
			}},
		{name: "symlink out of the root", rel: "facts/outside.md", msg: "not followed: a symlink leads outside the root",
			make: func(root string) error {
				return os.Symlink(filepath.Join(outside, "stolen.md"), filepath.Join(root, "facts", "outside.md"))
			}},
		{name: "symlinked folder out of the root", rel: "linked", msg: "not followed: a symlink leads outside the root",
			make: func(root string) error { return os.Symlink(outside, filepath.Join(root, "linked")) }},
		{name: "symlink loop", rel: "facts/loop.md", msg: "not followed: a symlink that cannot be resolved",
			make: func(root string) error { return os.Symlink("loop.md", filepath.Join(root, "facts", "loop.md")) }},
		{name: "dangling symlink", rel: "facts/dangling.md", msg: "not followed",
			make: func(root string) error { return os.Symlink("nowhere.md", filepath.Join(root, "facts", "dangling.md")) }},
		{name: "ROOT.md with hidden text", rel: store.RootFile, line: 5, msg: "Unicode tag character U+E0041",
			make: putFn(store.RootFile, "# Memory\n\n## Hard rules\n\n- Use pnpm.\U000E0041\U000E0042\n")},
		{name: "index.md that is a FIFO", rel: "notes/index.md", check: "index-drift", msg: "not a regular file: a named pipe",
			make: func(root string) error {
				if err := mkfifo(filepath.Join(root, "probe-fifo")); err != nil {
					return err
				}
				os.Remove(filepath.Join(root, "probe-fifo"))
				return put(root, "notes/n.md", memText("notes/n", "a note with an index that is a pipe", ""))
			},
			after: func(root string) error {
				os.Remove(filepath.Join(root, "notes", "index.md"))
				return mkfifo(filepath.Join(root, "notes", "index.md"))
			}},
	}
}

// goodFiles writes the memories that must stay served, including inputs
// that look odd and are fine.
func goodFiles(t *testing.T, root string) []good {
	t.Helper()
	var goods []good
	add := func(rel, content, term string) {
		if err := put(root, rel, content); err != nil {
			t.Fatal(err)
		}
		goods = append(goods, good{rel, term})
	}
	for i, term := range []string{"zeppelin", "xylophone", "quokka", "部署脚本"} {
		add(fmt.Sprintf("facts/good-%d.md", i), memText(fmt.Sprintf("facts/good-%d", i), "good memory about "+term, "Body about "+term+".\n"), term)
	}
	add("facts/bom-crlf.md", strings.ReplaceAll("\ufeff"+memText("facts/bom-crlf", "a BOM and CRLF file about walrus", "Walrus body.\n"), "\n", "\r\n"), "walrus")
	deep := "deep/" + deepDir(50, "d%02d") + "/x.md"
	add(deep, memText(strings.TrimSuffix(deep, ".md"), "a memory fifty folders down about narwhal", ""), "narwhal")
	// Aliases in a field the engine does not own are kept as written, never
	// expanded: a "billion laughs" costs nothing.
	bomb := "lol0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
	for i := 1; i < 9; i++ {
		bomb += fmt.Sprintf("lol%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	add("facts/alias-bomb.md", "---\nid: facts/alias-bomb\nkind: fact\nsummary: aliases about okapi\n"+bomb+"---\n", "okapi")
	add("facts/long-line.md", memText("facts/long-line", "one long line about axolotl", strings.Repeat("axolotl ", 25000)+"\n"), "axolotl")
	// Both spellings load (Linux keeps both files); inspect reports the
	// pair, which would be one file on macOS and Windows.
	if caseSensitive(t, root) {
		add("facts/Dup.md", memText("facts/Dup", "upper-case duplicate about ibex", ""), "ibex")
		add("facts/dup.md", memText("facts/dup", "lower-case duplicate about ibex", ""), "")
	}
	return goods
}

func caseSensitive(t *testing.T, dir string) bool {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "CaseProbe")
	os.WriteFile(p, nil, 0o644)
	defer os.Remove(p)
	_, err := os.Stat(filepath.Join(dir, "caseprobe"))
	return err != nil
}

func TestMalformedStore(t *testing.T) {
	w := newWorld(t)
	root := w.project
	outside := filepath.Join(filepath.Dir(root), "outside") // in the repository, outside its memory root
	if err := put(outside, "stolen.md", memText("facts/outside", "a file outside the root about pangolin", "")); err != nil {
		t.Fatal(err)
	}
	goods := goodFiles(t, root)
	var cases []bad
	for _, c := range malformedCorpus(outside) {
		if err := c.make(root); err != nil {
			if errors.Is(err, errors.ErrUnsupported) {
				t.Logf("skipped %q: not possible on %s", c.name, runtime.GOOS)
				continue
			}
			t.Fatalf("%s: %v", c.name, err)
		}
		cases = append(cases, c)
	}
	if caseSensitive(t, root) {
		cases = append(cases, bad{name: "duplicate id (case)", rel: "facts/dup.md", check: "duplicate-id", msg: "id facts/dup collides with facts/Dup"})
	}
	// An unreadable file: reported, unless the tests run as root, who
	// reads it anyway (CI does): then it must simply load.
	unreadable := "facts/unreadable.md"
	if err := put(root, unreadable, memText("facts/unreadable", "unreadable memory about tapir", "")); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(root, unreadable), 0)
	t.Cleanup(func() { os.Chmod(filepath.Join(root, unreadable), 0o644) })
	if f, err := os.Open(filepath.Join(root, unreadable)); err == nil {
		f.Close()
		t.Logf("chmod 000 does not stop this user (uid %d) from reading %s: the case checks that it loads", os.Getuid(), unreadable)
		goods = append(goods, good{unreadable, "tapir"})
	} else {
		cases = append(cases, bad{name: "unreadable file", rel: unreadable, msg: "permission denied"})
	}
	if n := len(cases); n < 25 {
		t.Fatalf("only %d malformed inputs on this platform", n)
	}
	t.Logf("%d malformed inputs, %d good memories", len(cases), len(goods))

	e := engine.New(engine.Config{ProjectDir: root, GlobalDir: w.global})
	// Compile once so the compiled files are in place; from here on,
	// reading must change nothing.
	watchdog(t, time.Minute, "compile", func() {
		if _, err := e.Compile(); err != nil {
			t.Fatal(err)
		}
	})
	for _, c := range cases {
		if c.after != nil {
			if err := c.after(root); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
	}
	tree := filepath.Dir(root) // the repository: .memory/ and all
	before := hashTree(t, tree)

	var rep *engine.Report
	watchdog(t, time.Minute, "inspect", func() {
		var err error
		if rep, err = e.Inspect(); err != nil {
			t.Fatal(err)
		}
	})
	checkReport(t, root, rep, cases, goods)

	// The same through the binary, as a person runs it.
	r := w.ocmem(t, "", "inspect", "--json")
	if r.code != 1 {
		t.Errorf("ocmem inspect exited %d, want 1 (problems found)\n%s", r.code, r.stderr)
	}
	var cliRep engine.Report
	if err := json.Unmarshal([]byte(r.stdout), &cliRep); err != nil {
		t.Fatalf("ocmem inspect --json: %v\n%s", err, r.stdout)
	}
	if got, want := issueKeys(root, cliRep.Issues), issueKeys(root, rep.Issues); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("ocmem inspect reports differ from the engine's:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Every good memory is served: recalled by its term, injected as a body.
	watchdog(t, time.Minute, "recall and inject", func() {
		for _, g := range goods {
			if g.term == "" {
				continue
			}
			id := store.IDOf(g.rel)
			hits, err := e.Recall(g.term, engine.RecallOptions{Limit: 3})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 || hits[0].ID != id {
				t.Errorf("recall %q: %v, want %s first", g.term, hitIDs(hits), id)
			}
			inj, err := e.Inject("tell me about "+g.term, engine.InjectOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(inj.Bodies, fmt.Sprintf("<memory id=%q", id)) {
				t.Errorf("inject %q does not give %s", g.term, id)
			}
		}
		// ROOT.md's hidden text never reaches the prompt.
		inj, _ := e.Stable()
		if strings.Contains(inj.Rules, "Use pnpm") {
			t.Errorf("ROOT.md's hard rules with hidden text were injected:\n%s", inj.Rules)
		}
	})
	for _, args := range [][]string{{"inject", "tell me about zeppelin"}, {"recall", "--no-count", "zeppelin"}} {
		if r := w.ocmem(t, "", args...); r.code != 0 || !strings.Contains(r.stdout, "good-0") {
			t.Errorf("ocmem %s: exit %d\n%s%s", args[0], r.code, r.stdout, r.stderr)
		}
	}
	serveOnce(t, w, "zeppelin", "facts/good-0")

	if d := treeDiff(before, hashTree(t, tree)); len(d) > 0 {
		t.Errorf("reading the store changed it:\n%s", strings.Join(d, "\n"))
	}

	// A compile rewrites compiled files only: no bad file is touched.
	if _, err := e.Compile(); err != nil {
		t.Fatal(err)
	}
	for _, d := range treeDiff(before, hashTree(t, tree)) {
		if !strings.HasSuffix(d, "/"+store.IndexFile) && !strings.HasSuffix(d, store.RootFile) {
			t.Errorf("compile touched more than compiled files: %s", d)
		}
	}
}

func hitIDs(hits []engine.Hit) []string {
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	return ids
}

// checkReport matches the report against the corpus: each bad input has
// its issue (path, line, reason), no other file is reported unparsable,
// and every good memory is listed.
func checkReport(t *testing.T, root string, rep *engine.Report, cases []bad, goods []good) {
	t.Helper()
	used := make([]bool, len(rep.Issues))
	for _, c := range cases {
		check := c.check
		if check == "" {
			check = "unparsable"
		}
		path := filepath.Join(root, filepath.FromSlash(c.rel))
		found := false
		for i, is := range rep.Issues {
			if is.Path == path && is.Check == check && is.Line == c.line && strings.Contains(is.Message, c.msg) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			var near []string
			for _, is := range rep.Issues {
				if is.Path == path {
					near = append(near, is.String())
				}
			}
			t.Errorf("%s: no %s issue for %s line %d saying …%s…; issues for that path: %q", c.name, check, c.rel, c.line, c.msg, near)
		}
	}
	for i, is := range rep.Issues {
		if !used[i] && (is.Check == "unparsable" || is.Check == "merge-conflict" || is.Check == "duplicate-id") {
			t.Errorf("unexpected issue: %s", is)
		}
	}
	listed := map[string]bool{}
	for _, m := range rep.Memories {
		listed[m.Path] = true
	}
	for _, g := range goods {
		if !listed[filepath.Join(root, filepath.FromSlash(g.rel))] {
			t.Errorf("good memory %s is not listed", g.rel)
		}
	}
}

func issueKeys(root string, issues []engine.Issue) []string {
	var out []string
	for _, is := range issues {
		rel, _ := filepath.Rel(root, is.Path)
		out = append(out, fmt.Sprintf("%s %s:%d", is.Check, filepath.ToSlash(rel), is.Line))
	}
	sort.Strings(out)
	return out
}

// serveOnce asks a real `ocmem serve` for the stable tiers and the bodies
// of one message, and wants id among them.
func serveOnce(t *testing.T, w *world, message, id string) {
	t.Helper()
	sp := startServe(t, w)
	defer sp.close(t)
	if r := sp.call(t, "system", map[string]any{}); r.Error != nil || !strings.Contains(r.Result.Text, "Memory outline") {
		t.Errorf("serve system: %+v %q", r.Error, r.Result.Text)
	}
	r := sp.call(t, "message", map[string]any{"sessionID": "ses_malformed", "messageID": "m1", "text": message})
	if r.Error != nil || !strings.Contains(r.Result.Text, fmt.Sprintf("<memory id=%q", id)) {
		t.Errorf("serve message %q: %+v %q", message, r.Error, r.Result.Text)
	}
}

// TestFileChangingDuringLoad rewrites a memory file in place, in pieces,
// while the store is loaded again and again: every load either serves a
// whole version of it or reports it, never panics, never hangs.
func TestFileChangingDuringLoad(t *testing.T) {
	w := newWorld(t)
	root := w.project
	if err := put(root, "facts/stable.md", memText("facts/stable", "a stable memory", "")); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "facts", "moving.md")
	versions := []string{
		memText("facts/moving", "version one", "short\n"),
		memText("facts/moving", "version two", strings.Repeat("a much longer body line\n", 400)),
		"---\nid: facts/moving\nkind: fact\nsummary: [broken\n---\n",
		"",
	}
	if err := os.WriteFile(p, []byte(versions[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan int)
	go func() {
		writes := 0
		defer func() { done <- writes }()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			// Truncate, then write in chunks: a reader can see any prefix.
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				t.Error(err)
				return
			}
			v := []byte(versions[i%len(versions)])
			for len(v) > 0 {
				n := min(len(v), 97)
				f.Write(v[:n])
				v = v[n:]
			}
			f.Close()
			writes++
		}
	}()
	r := store.Root{Scope: store.Project, Dir: root}
	loads, served, reported := 0, 0, 0
	watchdog(t, time.Minute, "loads during writes", func() {
		deadline := time.Now().Add(2 * time.Second)
		for time.Now().Before(deadline) {
			files, problems, err := r.Load()
			if err != nil {
				t.Fatal(err)
			}
			loads++
			var moving *store.File
			for _, f := range files {
				if f.Rel == "facts/moving.md" {
					moving = f
				}
			}
			stable := false
			for _, f := range files {
				stable = stable || f.Rel == "facts/stable.md"
			}
			if !stable {
				t.Fatalf("the stable memory was lost: %v", files)
			}
			switch {
			case moving != nil:
				served++
				if s := moving.Memory.Summary; s != "version one" && s != "version two" {
					t.Fatalf("served a memory that was never written whole: %q", s)
				}
			case len(problems) == 1 && problems[0].Rel == "facts/moving.md":
				reported++
			default:
				t.Fatalf("the moving file was neither served nor reported: %v", problems)
			}
		}
	})
	close(stop)
	writes := <-done
	t.Logf("%d loads during %d rewrites: served %d times, reported %d times", loads, writes, served, reported)
	if loads < 10 || writes < 10 {
		t.Errorf("too few loads (%d) or writes (%d) to mean anything", loads, writes)
	}
}
