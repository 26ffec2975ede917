package store_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/store"
)

// mem returns a valid memory file with the given id.
func mem(id string) string {
	return "---\nid: " + id + "\nkind: fact\nsummary: about " + id + "\n---\nBody of " + id + ".\n"
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t testing.TB, oldname, newname string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(newname), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(oldname, newname); err != nil {
		if runtime.GOOS == "windows" {
			t.Skipf("cannot create symlinks here: %v", err)
		}
		t.Fatal(err)
	}
}

// tempDir is t.TempDir with symlinks resolved (macOS's /var is one), so
// paths compare as the store reports them.
func tempDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// entry is what snapshot records of one file: enough to tell it was not
// rewritten, touched or replaced.
type entry struct {
	mode    fs.FileMode
	size    int64
	modTime time.Time
	data    string // regular files that can be read; symlinks' targets
}

// snapshot records every entry under dir, without following symlinks.
func snapshot(t testing.TB, dir string) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(path)
		if err != nil {
			return err
		}
		e := entry{mode: info.Mode(), size: info.Size(), modTime: info.ModTime()}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			e.data, _ = os.Readlink(path)
		case info.Mode().IsRegular():
			if b, err := os.ReadFile(path); err == nil {
				e.data = string(b)
			}
		case info.IsDir():
			e.modTime = time.Time{} // atime-like noise on some file systems; entries are compared anyway
		}
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func compareSnapshots(t *testing.T, what string, before, after map[string]entry) {
	t.Helper()
	for rel, b := range before {
		a, ok := after[rel]
		switch {
		case !ok:
			t.Errorf("%s: %s disappeared", what, rel)
		case a != b:
			t.Errorf("%s: %s changed: before %+v, after %+v", what, rel, b, a)
		}
	}
	for rel := range after {
		if _, ok := before[rel]; !ok {
			t.Errorf("%s: %s appeared", what, rel)
		}
	}
}

type wantProblem struct {
	rel  string
	line int
	msg  string // a substring of the error
}

func TestLoad(t *testing.T) {
	base := tempDir(t)
	dir := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	writeFile(t, filepath.Join(outside, "out.md"), mem("pitfalls/out"))
	writeFile(t, filepath.Join(outside, "facts", "linked.md"), mem("linked/linked"))

	// Loaded.
	writeFile(t, filepath.Join(dir, "pitfalls", "sqlite.md"), mem("pitfalls/sqlite"))
	writeFile(t, filepath.Join(dir, "facts", "部署.md"), mem("facts/部署"))
	writeFile(t, filepath.Join(dir, "decisions", "sub", "nested.md"), mem("decisions/sub/nested"))
	// A symlink inside the root to a file inside it (in a hidden folder,
	// which is not walked by itself): followed.
	writeFile(t, filepath.Join(dir, ".shared", "alias.md"), mem("pitfalls/alias"))
	symlink(t, filepath.Join("..", ".shared", "alias.md"), filepath.Join(dir, "pitfalls", "alias.md"))

	// Ignored without a word.
	writeFile(t, filepath.Join(dir, "ROOT.md"), "# Memory\n\nnot a memory\n")
	writeFile(t, filepath.Join(dir, "README.md"), "# Read me\n")
	writeFile(t, filepath.Join(dir, "loose.md"), mem("loose")) // no category
	writeFile(t, filepath.Join(dir, "pitfalls", "index.md"), "# pitfalls\n\n- [sqlite](sqlite.md)\n")
	writeFile(t, filepath.Join(dir, "facts", "notes.txt"), "not markdown\n")
	writeFile(t, filepath.Join(dir, "facts", "diagram.png"), "\x89PNG")
	writeFile(t, filepath.Join(dir, "facts", ".x.md.12345.tmp"), "half a write")
	writeFile(t, filepath.Join(dir, "facts", ".draft.md"), "---\nbroken: [\n")
	writeFile(t, filepath.Join(dir, ".git", "config"), "[core]\n")
	writeFile(t, filepath.Join(dir, ".git", "x", "y.md"), "---\nbroken: [\n")
	writeFile(t, filepath.Join(dir, ".obsidian", "w", "z.md"), "no frontmatter")
	writeFile(t, filepath.Join(dir, ".state.json"), "{}")
	writeFile(t, filepath.Join(dir, ".ocmem.lock"), "")

	// Reported.
	writeFile(t, filepath.Join(dir, "pitfalls", "broken.md"),
		"---\nid: pitfalls/broken\nkind: pitfall\nsummary: a: b\n---\nbody\n")
	writeFile(t, filepath.Join(dir, "facts", "mismatch.md"), mem("facts/other"))
	writeFile(t, filepath.Join(dir, "facts", "unclosed.md"), "---\nid: facts/unclosed\nkind: fact\n")
	writeFile(t, filepath.Join(dir, "facts", "empty.md"), "")
	writeFile(t, filepath.Join(dir, "facts", "big.md"), mem("facts/big")+strings.Repeat("x", memory.MaxFileSize))
	writeFile(t, filepath.Join(dir, "facts", "con.md"), mem("facts/con")) // a reserved name on Windows
	writeFile(t, filepath.Join(dir, "facts", "invalid.md"),
		"---\nid: facts/invalid\nkind: opinion\nsummary: \"\"\n---\n")
	symlink(t, filepath.Join(outside, "out.md"), filepath.Join(dir, "pitfalls", "out.md"))
	symlink(t, "nowhere.md", filepath.Join(dir, "pitfalls", "dangling.md"))
	symlink(t, filepath.Join(outside, "facts"), filepath.Join(dir, "linked"))
	if err := os.MkdirAll(filepath.Join(dir, "pitfalls", "dir.md"), 0o755); err != nil {
		t.Fatal(err) // a directory named like a memory is walked, not read, and reported
	}

	want := []wantProblem{
		{"facts/big.md", 0, "over the 262144-byte limit"},
		{"facts/con.md", 0, "reserved device name"},
		{"facts/empty.md", 1, "empty file"},
		{"facts/invalid.md", 3, `kind "opinion" is not one of`},
		{"facts/mismatch.md", 2, `id "facts/other" does not match the file's path (want "facts/mismatch")`},
		{"facts/unclosed.md", 1, "frontmatter is not closed"},
		{"linked", 0, "not followed"},
		{"pitfalls/broken.md", 4, "invalid YAML: mapping values are not allowed"},
		{"pitfalls/dangling.md", 0, "not followed"},
		{"pitfalls/dir.md", 0, "a directory named like a memory file"},
		{"pitfalls/out.md", 0, "not followed: a symlink leads outside the root"},
	}
	if runtime.GOOS != "windows" {
		p := filepath.Join(dir, "secret", "unreadable.md")
		writeFile(t, p, mem("secret/unreadable"))
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(p, 0o644) })
		if os.Geteuid() != 0 { // root reads anything: the file would load
			want = append(want, wantProblem{"secret/unreadable.md", 0, "permission denied"})
		}
	}

	before, beforeOut := snapshot(t, dir), snapshot(t, outside)
	r := store.Root{Scope: store.Project, Dir: dir}
	files, problems, err := r.Load()
	if err != nil {
		t.Fatal(err)
	}

	wantFiles := []string{"decisions/sub/nested.md", "facts/部署.md", "pitfalls/alias.md", "pitfalls/sqlite.md"}
	if runtime.GOOS != "windows" && os.Geteuid() == 0 {
		wantFiles = append(wantFiles, "secret/unreadable.md")
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Rel)
		if f.Scope != store.Project {
			t.Errorf("%s: scope %q", f.Rel, f.Scope)
		}
		if wantPath := filepath.Join(dir, filepath.FromSlash(f.Rel)); f.Path != wantPath {
			t.Errorf("%s: Path = %s, want %s", f.Rel, f.Path, wantPath)
		}
		if f.Memory == nil || f.Memory.ID != store.IDOf(f.Rel) {
			t.Errorf("%s: memory %+v, want id %s", f.Rel, f.Memory, store.IDOf(f.Rel))
			continue
		}
		data, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if f.Size != int64(len(data)) {
			t.Errorf("%s: Size = %d, want %d", f.Rel, f.Size, len(data))
		}
		if f.ModTime.IsZero() {
			t.Errorf("%s: no ModTime", f.Rel)
		}
		if wantBody := "Body of " + f.Memory.ID + ".\n"; f.Memory.Body != wantBody {
			t.Errorf("%s: body %q, want %q", f.Rel, f.Memory.Body, wantBody)
		}
	}
	if strings.Join(got, "\n") != strings.Join(wantFiles, "\n") {
		t.Errorf("loaded:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantFiles, "\n"))
	}

	sort.Slice(problems, func(i, j int) bool { return problems[i].Rel < problems[j].Rel })
	for i := 0; i < len(problems) || i < len(want); i++ {
		switch {
		case i >= len(want):
			t.Errorf("unexpected problem: %s (rel %s, line %d)", problems[i].Error(), problems[i].Rel, problems[i].Line)
			continue
		case i >= len(problems):
			t.Errorf("missing problem: %s line %d: %s", want[i].rel, want[i].line, want[i].msg)
			continue
		}
		p, w := problems[i], want[i]
		if p.Rel != w.rel || p.Line != w.line || p.Err == nil || !strings.Contains(p.Err.Error(), w.msg) {
			t.Errorf("problem %d = %s (rel %s, line %d), want %s line %d: …%s…", i, p.Error(), p.Rel, p.Line, w.rel, w.line, w.msg)
		}
		if wantPath := filepath.Join(dir, filepath.FromSlash(p.Rel)); p.Path != wantPath {
			t.Errorf("problem %s: Path = %s, want %s", p.Rel, p.Path, wantPath)
		}
		if p.Scope != store.Project {
			t.Errorf("problem %s: scope %q", p.Rel, p.Scope)
		}
		if p.Line > 0 && !strings.HasPrefix(p.Error(), p.Path+":"+strconv.Itoa(p.Line)+": ") {
			t.Errorf("problem %s: Error() = %q, want it to start with path:line", p.Rel, p.Error())
		}
	}

	compareSnapshots(t, "root", before, snapshot(t, dir))
	compareSnapshots(t, "outside", beforeOut, snapshot(t, outside))
}

func TestLoadMissingRoot(t *testing.T) {
	base := tempDir(t)
	for _, r := range []store.Root{
		{Scope: store.Global},
		{Scope: store.Global, Dir: filepath.Join(base, "missing")},
		{Scope: store.Project, Dir: filepath.Join(base, "missing", "deeper")},
	} {
		files, problems, err := r.Load()
		if files != nil || problems != nil || err != nil {
			t.Errorf("Load(%q) = %v, %v, %v; want nothing", r.Dir, files, problems, err)
		}
	}
	if _, err := os.Stat(filepath.Join(base, "missing")); !os.IsNotExist(err) {
		t.Errorf("Load created the missing root: %v", err)
	}

	file := filepath.Join(base, "file")
	writeFile(t, file, "x")
	if _, _, err := (store.Root{Scope: store.Project, Dir: file}).Load(); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Load of a root that is a file: %v, want an error", err)
	}
}

// A root reached through a symlink (.memory linked to a dotfiles checkout)
// loads, and reports paths under the root as configured.
func TestLoadSymlinkedRoot(t *testing.T) {
	base := tempDir(t)
	real := filepath.Join(base, "dotfiles", "memory")
	writeFile(t, filepath.Join(real, "facts", "a.md"), mem("facts/a"))
	writeFile(t, filepath.Join(real, "facts", "bad.md"), mem("facts/other"))
	writeFile(t, filepath.Join(real, "facts", "inside.md"), mem("facts/inside"))
	link := filepath.Join(base, "project", ".memory")
	symlink(t, real, link)
	files, problems, err := store.Root{Scope: store.Project, Dir: link}.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Rel != "facts/a.md" || files[1].Rel != "facts/inside.md" {
		t.Fatalf("files = %v, want facts/a.md and facts/inside.md", files)
	}
	if want := filepath.Join(link, "facts", "a.md"); files[0].Path != want {
		t.Errorf("Path = %s, want %s", files[0].Path, want)
	}
	if len(problems) != 1 || problems[0].Rel != "facts/bad.md" || problems[0].Path != filepath.Join(link, "facts", "bad.md") {
		t.Errorf("problems = %v, want one for facts/bad.md under the link", problems)
	}
}

func TestReadFile(t *testing.T) {
	base := tempDir(t)
	dir := filepath.Join(base, "root")
	writeFile(t, filepath.Join(dir, "ROOT.md"), "# Memory\n")
	writeFile(t, filepath.Join(base, "secret"), "secret")
	symlink(t, filepath.Join(base, "secret"), filepath.Join(dir, "facts", "leak.md"))
	r := store.Root{Scope: store.Project, Dir: dir}

	if b, err := r.ReadRootMD(); err != nil || string(b) != "# Memory\n" {
		t.Errorf("ReadRootMD = %q, %v", b, err)
	}
	if b, err := r.ReadFile("facts/none.md"); b != nil || err != nil {
		t.Errorf("ReadFile of a missing file = %q, %v; want nil, nil", b, err)
	}
	for _, rel := range []string{"../secret", "facts/leak.md", "/etc/passwd"} {
		if b, err := r.ReadFile(rel); err == nil || b != nil {
			t.Errorf("ReadFile(%q) = %q, %v; want refused", rel, b, err)
		}
	}
	if b, err := (store.Root{Scope: store.Global}).ReadRootMD(); b != nil || err != nil {
		t.Errorf("ReadRootMD of an unconfigured root = %q, %v", b, err)
	}
	if _, err := (store.Root{Scope: store.Global}).ReadFile("facts/x.md"); err == nil {
		t.Error("ReadFile of an unconfigured root: no error")
	}
	if !r.Exists("ROOT.md") || r.Exists("facts/none.md") || r.Exists("../secret") || r.Exists("facts/leak.md") {
		t.Error("Exists: wrong answer for ROOT.md, a missing file, or a path leaving the root")
	}
}

func TestParseScope(t *testing.T) {
	for _, s := range []store.Scope{store.Global, store.Project} {
		if got, err := store.ParseScope(string(s)); got != s || err != nil {
			t.Errorf("ParseScope(%q) = %q, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "Global", "local"} {
		if _, err := store.ParseScope(s); err == nil {
			t.Errorf("ParseScope(%q) accepted", s)
		}
	}
}

func TestIDOf(t *testing.T) {
	for rel, want := range map[string]string{"facts/a.md": "facts/a", "facts/a.md.md": "facts/a.md", "x": "x"} {
		if got := store.IDOf(rel); got != want {
			t.Errorf("IDOf(%q) = %q, want %q", rel, got, want)
		}
	}
}
