package engine

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// formattingRepo: memories anchored to files that then change only in
// formatting (gofmt; CRLF line ends and trailing spaces; the same not yet
// committed) and to files
// that change in more (a comment, a symbol removed), to a folder, and one
// verified at a commit this clone lacks.
func formattingRepo(t *testing.T) *codeRepo {
	x := newCodeRepo(t)
	x.write("srv/server.go", "package srv\nfunc ListenPort()int{ return 8080 }\n")
	x.write("srv/doc.go", "package srv\n\n// The port is 8080.\n")
	x.write("srv/old.go", "package srv\n\nfunc Old() {}\n")
	x.write("conf.yaml", "port: 8080\nhost: local\n")
	x.write("web/page.js", "let port = 8080;\n")
	x.write("run.sh", "serve --port 8080\n")
	x.commit("start")
	x.anchored("facts/gofmt", "kestrel listener port comes from ListenPort", "ListenPort returns it.", "srv/server.go#ListenPort")
	x.anchored("facts/crlf", "kestrel listener port is set in conf.yaml", "conf.yaml sets it.", "conf.yaml", "srv/server.go")
	x.anchored("facts/comment", "kestrel listener port is documented", "doc.go says it.", "srv/doc.go")
	x.anchored("facts/gone", "kestrel listener has an Old hook", "Old is called first.", "srv/old.go#Old")
	x.anchored("facts/folder", "kestrel listener web page", "The page knows the port.", "web")
	x.anchored("facts/dirty", "kestrel listener is started by run.sh", "run.sh starts it.", "run.sh")
	x.anchored("facts/foreign", "kestrel listener port in the page", "page.js has it.", "web/page.js")
	p := filepath.Join(x.memoryDir(), "facts", "foreign.md")
	m := readMemory(t, p)
	m.Verified.Commit = "0123456789abcdef0123456789abcdef01234567" // not in this clone: digests decide
	writeMemory(t, x.memoryDir(), m)
	x.write("srv/server.go", "package srv\n\nfunc ListenPort() int { return 8080 }\n")
	x.write("srv/doc.go", "package srv\n\n// The port is 8080 by default.\n")
	x.write("srv/old.go", "package srv\n\nfunc New() {}\n")
	x.write("web/page.js", "let port = 8080;  \n")
	x.write("conf.yaml", "port: 8080\r\nhost: local  \r\n\r\n")
	x.commit("gofmt, and other changes")
	x.write("run.sh", "serve --port 8080 \n")
	return x
}

// TestVerifyFormatting: the memories whose anchored files changed only in
// formatting are verified, through Verify (only verified changes), and
// every other stale memory is left, with why; a dry run writes nothing.
func TestVerifyFormatting(t *testing.T) {
	x := formattingRepo(t)
	head := x.git("rev-parse", "HEAD")
	e := x.engine()
	if _, err := e.Compile(); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	read := func() {
		ents, err := os.ReadDir(filepath.Join(x.memoryDir(), "facts"))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ents {
			files[d.Name()] = readString(t, filepath.Join(x.memoryDir(), "facts", d.Name()))
		}
	}
	read()
	before := maps.Clone(files)

	wantVerified := []string{"facts/crlf", "facts/gofmt"}
	wantLeft := []string{
		"facts/gone: gone (Old no longer appears in srv/old.go): a person checks it",
		"facts/comment: srv/doc.go changed in more than gofmt formatting",
		"facts/dirty: run.sh has uncommitted changes: commit them first",
		"facts/folder: web is a folder or a glob: only anchored files are compared",
		"facts/foreign: web/page.js: the verified commit is not in this clone, so what changed cannot be seen",
	}
	check := func(name string, verified, left []FormattingVerdict) {
		t.Helper()
		var v, l []string
		for _, x := range verified {
			v = append(v, x.ID)
		}
		for _, x := range left {
			l = append(l, x.ID+": "+x.Why)
		}
		slices.Sort(v)
		if !slices.Equal(v, wantVerified) || !slices.Equal(l, wantLeft) {
			t.Errorf("%s: verified %q, left\n%q\nwant verified %q, left\n%q", name, v, l, wantVerified, wantLeft)
		}
	}

	verified, left, err := e.VerifyFormatting(true)
	if err != nil {
		t.Fatal(err)
	}
	check("dry run", verified, left)
	read()
	for name, text := range before {
		if files[name] != text {
			t.Errorf("the dry run changed %s", name)
		}
	}

	if verified, left, err = e.VerifyFormatting(false); err != nil {
		t.Fatal(err)
	}
	check("run", verified, left)
	read()
	for name, text := range before {
		changed := files[name] != text
		if want := name == "crlf.md" || name == "gofmt.md"; changed != want {
			t.Errorf("%s changed: %v, want %v", name, changed, want)
		}
		if changed && withoutVerified(files[name]) != withoutVerified(text) {
			t.Errorf("%s: more than verified changed:\n%s\n---\n%s", name, text, files[name])
		}
		if changed {
			if m := readMemory(t, filepath.Join(x.memoryDir(), "facts", name)); m.Verified.Commit != head {
				t.Errorf("%s verified at %s, want HEAD %s", name, m.Verified.Commit, head)
			}
		}
	}
	list, err := e.Stale()
	if err != nil {
		t.Fatal(err)
	}
	var still []string
	for _, m := range list {
		still = append(still, m.ID)
	}
	slices.Sort(still)
	if want := []string{"facts/comment", "facts/dirty", "facts/folder", "facts/foreign", "facts/gone"}; !slices.Equal(still, want) {
		t.Errorf("stale after: %q, want %q", still, want)
	}
}

func TestVerifyFormattingNoCode(t *testing.T) {
	e := New(Config{ProjectDir: t.TempDir()})
	if _, _, err := e.VerifyFormatting(false); !errors.Is(err, ErrNoCode) {
		t.Errorf("without a worktree: %v, want ErrNoCode", err)
	}
}
