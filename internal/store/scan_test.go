package store_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ocmem/ocmem/internal/store"
)

// TestScan lists a root holding every odd case Scan decides: each path of
// the table is an entry, a problem or nothing. The same root is scanned
// directly and through a symlink, and checked against the walk Scan
// replaced (store.WalkScan) and against what Load makes of it.
func TestScan(t *testing.T) {
	const (
		listed  = "listed"
		skipped = ""
	)
	type node struct {
		rel  string
		kind string // "file" (a valid memory), "text" (other content), "dir", "symlink", "fifo", "unreadable"
		to   string // a symlink's target, relative to its directory, or "outside/…"
		want string // listed, skipped, or a substring of the problem
	}
	tree := []node{
		{"facts/a.md", "file", "", listed},
		{"facts/index.md", "text", "", skipped},
		{"facts/notes.txt", "text", "", skipped},
		{"facts/.draft.md", "text", "", skipped},
		{"facts/con.md", "file", "", "reserved device name"},
		{"facts/empty.md", "text", "", listed}, // read, and reported, by Load
		{".git/x/y.md", "file", "", skipped},
		{".obsidian", "dir", "", skipped},
		{".state.json", "text", "", skipped},
		{"ROOT.md", "text", "", skipped},
		{"README.md", "text", "", skipped},
		{"loose.md", "file", "", skipped},
		{"deep/x/y/z/w.md", "file", "", listed},
		// Directory order is not Rel order: the folders a, a-x, a.md, a0 sort
		// as "a-x/" < "a.md/" < "a/" < "a0/", and in a,
		// "a/b-c.md" < "a/b.md" < "a/b/c.md" < "a/b0.md".
		{"a/b/c.md", "file", "", listed},
		{"a/b-c.md", "file", "", listed},
		{"a/b.md", "file", "", listed},
		{"a/b0.md", "file", "", listed},
		{"a/c.md", "file", "", listed},
		{"a-x/d.md", "file", "", listed},
		{"a0/f.md", "file", "", listed},
		{"a.md", "dir", "", "a directory named like a memory file"},
		{"a.md/e.md", "file", "", listed},
		{"pitfalls/dir.md", "dir", "", "a directory named like a memory file"},
		{"pitfalls/dir.md/inner.md", "file", "", listed},
		{"pitfalls/index.md", "dir", "", skipped},
		{"pitfalls/index.md/k.md", "file", "", listed},
		{"empty", "dir", "", skipped},
	}
	if runtime.GOOS != "windows" {
		tree = append(tree,
			node{".shared/alias.md", "file", "", skipped},
			node{"facts/alias.md", "symlink", "../.shared/alias.md", listed},
			node{"facts/out.md", "symlink", "outside/out.md", "not followed: a symlink leads outside the root"},
			node{"facts/dangling.md", "symlink", "nowhere.md", "not followed"},
			node{"facts/tofolder.md", "symlink", "../a", listed}, // reported by Load: a directory
			node{"facts/pipe.md", "fifo", "", "not a regular file: a named pipe (FIFO)"},
			node{"facts/pipe.txt", "fifo", "", skipped},
			node{"linked", "symlink", "outside/dir", "not followed: a symlink leads outside the root"},
			node{"facts/linked", "symlink", "../../outside/dir", "not followed"},
			node{"aliasdir", "symlink", "a", skipped}, // its files are listed where they are
			node{"loose-link.md", "symlink", "outside/out.md", skipped},
		)
		if os.Geteuid() != 0 { // root lists anything
			tree = append(tree, node{"secret", "unreadable", "", "permission denied"})
		}
	}

	base := tempDir(t)
	dir := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	writeFile(t, filepath.Join(outside, "out.md"), mem("outside/out"))
	writeFile(t, filepath.Join(outside, "dir", "x.md"), mem("dir/x"))
	for _, n := range tree {
		p := filepath.Join(dir, filepath.FromSlash(n.rel))
		switch n.kind {
		case "file":
			writeFile(t, p, mem(strings.TrimSuffix(n.rel, ".md")))
		case "text":
			writeFile(t, p, "")
		case "dir":
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		case "symlink":
			to := filepath.FromSlash(n.to)
			if strings.HasPrefix(n.to, "outside/") {
				to = filepath.Join(base, to)
			}
			symlink(t, to, p)
		case "fifo":
			mkfifo(t, p)
		case "unreadable":
			writeFile(t, filepath.Join(p, "hidden.md"), mem(n.rel+"/hidden"))
			if err := os.Chmod(p, 0); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(p, 0o755) })
		}
	}
	var wantRels []string
	wantProblems := map[string]string{}
	for _, n := range tree {
		switch n.want {
		case listed:
			wantRels = append(wantRels, n.rel)
		case skipped:
		default:
			wantProblems[n.rel] = n.want
		}
	}
	slices.Sort(wantRels)

	link := filepath.Join(base, "link")
	symlink(t, dir, link)
	for _, root := range []string{dir, link} {
		r := store.Root{Scope: store.Global, Dir: root}
		entries, problems, err := r.Scan()
		if err != nil {
			t.Fatal(err)
		}
		var rels []string
		for _, e := range entries {
			rels = append(rels, e.Rel)
			info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(e.Rel)))
			if err != nil {
				t.Fatal(err)
			}
			if e.Size != info.Size() || !e.ModTime.Equal(info.ModTime()) || e.Mode != info.Mode() {
				t.Errorf("%s: %d %v %v, lstat says %d %v %v", e.Rel, e.Size, e.ModTime, e.Mode, info.Size(), info.ModTime(), info.Mode())
			}
		}
		if !slices.Equal(rels, wantRels) {
			t.Errorf("Scan(%s) listed\n\t%s\nwant\n\t%s", root, strings.Join(rels, "\n\t"), strings.Join(wantRels, "\n\t"))
		}
		if !slices.IsSortedFunc(problems, func(a, b store.Problem) int { return strings.Compare(a.Rel, b.Rel) }) {
			t.Errorf("problems not sorted by Rel: %v", problems)
		}
		got := map[string]string{}
		for _, p := range problems {
			got[p.Rel] = p.Err.Error()
			if want := filepath.Join(root, filepath.FromSlash(p.Rel)); p.Path != want || p.Scope != store.Global {
				t.Errorf("problem %v: path %s scope %s, want %s global", p, p.Path, p.Scope, want)
			}
		}
		for rel, msg := range wantProblems {
			if !strings.Contains(got[rel], msg) {
				t.Errorf("%s: problem %q, want …%s…", rel, got[rel], msg)
			}
			delete(got, rel)
		}
		for rel, msg := range got {
			t.Errorf("%s: unexpected problem %q", rel, msg)
		}

		// The walk Scan replaced selects the same files, with the same
		// problems, in walk order rather than Rel order.
		oldEntries, oldProblems, err := store.WalkScan(r)
		if err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(oldEntries, func(a, b store.Entry) int { return strings.Compare(a.Rel, b.Rel) })
		slices.SortStableFunc(oldProblems, func(a, b store.Problem) int { return strings.Compare(a.Rel, b.Rel) })
		if !slices.EqualFunc(entries, oldEntries, func(a, b store.Entry) bool {
			return a.Rel == b.Rel && a.Size == b.Size && a.ModTime.Equal(b.ModTime) && a.Mode == b.Mode
		}) {
			t.Errorf("Scan(%s) = %v, the WalkDir walk %v", root, entries, oldEntries)
		}
		if !slices.EqualFunc(problems, oldProblems, func(a, b store.Problem) bool {
			return a.Rel == b.Rel && a.Path == b.Path && a.Err.Error() == b.Err.Error()
		}) {
			t.Errorf("Scan(%s) problems %v, the WalkDir walk %v", root, problems, oldProblems)
		}

		// Load reads what Scan lists and nothing else: each is loaded or
		// reported, and Scan's problems are Load's.
		files, loadProblems, err := r.Load()
		if err != nil {
			t.Fatal(err)
		}
		var loaded []string
		for _, f := range files {
			loaded = append(loaded, f.Rel)
		}
		unread := map[string]bool{}
		for _, p := range problems {
			unread[p.Rel] = true
		}
		for _, p := range loadProblems {
			if !unread[p.Rel] {
				loaded = append(loaded, p.Rel) // listed, read, and refused
			}
		}
		slices.Sort(loaded)
		if !slices.Equal(loaded, wantRels) {
			t.Errorf("Load(%s) loaded or reported\n\t%s\nwant Scan's\n\t%s", root, strings.Join(loaded, "\n\t"), strings.Join(wantRels, "\n\t"))
		}
	}
}

// TestScanMissingRoot: nothing to list is not an error; a root that is a
// file is.
func TestScanMissingRoot(t *testing.T) {
	base := tempDir(t)
	for _, r := range []store.Root{{Scope: store.Global}, {Scope: store.Global, Dir: filepath.Join(base, "missing")}} {
		if entries, problems, err := r.Scan(); entries != nil || problems != nil || err != nil {
			t.Errorf("Scan(%q) = %v, %v, %v; want nothing", r.Dir, entries, problems, err)
		}
	}
	file := filepath.Join(base, "file")
	writeFile(t, file, "x")
	if _, _, err := (store.Root{Scope: store.Project, Dir: file}).Scan(); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Scan of a root that is a file: %v, want an error", err)
	}
}

// TestScanLargeFolders lists folders of more names than one worker stats at
// a time, with subfolders whose names sort around the files' ("f1", "f1-",
// "f1.md" beside "f1.md", "f10.md"): Scan's order is Rel order, the walk's
// selection.
func TestScanLargeFolders(t *testing.T) {
	dir := tempDir(t)
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "f1-_.0"
	var wantRels []string
	folders := []string{"facts", "facts/f1", "facts/f1-", "facts/f1.md", "facts/f1/f", "facts-x"}
	for _, f := range folders {
		if err := os.MkdirAll(filepath.Join(dir, f), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 1400 { // 1,050 in facts
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			b.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		name := strings.TrimLeft(b.String(), ".")
		folder := folders[0] // more than one chunk of names
		if i%4 == 0 {
			folder = folders[1+i/4%(len(folders)-1)]
		}
		if strings.HasSuffix(name, ".") {
			name += "x"
		}
		rel := folder + "/" + name + fmt.Sprintf("%04d", i) + ".md"
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		wantRels = append(wantRels, rel)
	}
	slices.Sort(wantRels)
	r := store.Root{Scope: store.Project, Dir: dir}
	entries, problems, err := r.Scan()
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, e := range entries {
		rels = append(rels, e.Rel)
	}
	if !slices.Equal(rels, wantRels) {
		for i := range min(len(rels), len(wantRels)) {
			if rels[i] != wantRels[i] {
				t.Fatalf("Scan listed %d files, want %d; first difference at %d: %s, want %s", len(rels), len(wantRels), i, rels[i], wantRels[i])
			}
		}
		t.Fatalf("Scan listed %d files, want %d", len(rels), len(wantRels))
	}
	oldEntries, oldProblems, err := store.WalkScan(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(oldEntries) != len(entries) || len(oldProblems) != len(problems) || len(problems) != 1 || problems[0].Rel != "facts/f1.md" {
		t.Errorf("Scan: %d files, problems %v; the WalkDir walk: %d files, problems %v", len(entries), problems, len(oldEntries), oldProblems)
	}
}

// ScanWatching names every folder Scan lists, the root first, before
// listing it, and no folder it skips: one whose name starts with a dot,
// with what it holds, or a link to a folder.
func TestScanWatchingNamesEveryFolder(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"facts", "guides/deploy/staging/eu", "guides/ops", ".git/objects", "guides/.drafts/x"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "facts", "a.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "guides"), filepath.Join(dir, "facts", "link")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	var mu sync.Mutex
	var got []string
	first := ""
	entries, _, err := store.Root{Scope: store.Project, Dir: dir}.ScanWatching(func(d string) {
		mu.Lock()
		defer mu.Unlock()
		if first == "" {
			first = d
		}
		rel, err := filepath.Rel(dir, d)
		if err != nil {
			t.Error(err)
		}
		got = append(got, filepath.ToSlash(rel))
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := []string{".", "facts", "guides", "guides/deploy", "guides/deploy/staging", "guides/deploy/staging/eu", "guides/ops"}
	if !slices.Equal(got, want) || first != dir {
		t.Errorf("named %q (first %q), want %q (first the root)", got, first, want)
	}
	if len(entries) != 1 || entries[0].Rel != "facts/a.md" {
		t.Errorf("entries %+v, want facts/a.md", entries)
	}
}
