package store_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/pathsafe"
	"github.com/ocmem/ocmem/internal/store"
)

// names lists the entries of dir, sorted.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

func lock(t *testing.T, r store.Root) {
	t.Helper()
	unlock, err := r.Lock()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unlock)
}

func TestLockCreatesRoot(t *testing.T) {
	dir := filepath.Join(tempDir(t), "a", "b", ".memory")
	r := store.Root{Scope: store.Project, Dir: dir}
	unlock, err := r.Lock()
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if got, want := strings.Join(names(t, dir), " "), ".gitattributes .gitignore .ocmem.lock"; got != want {
		t.Errorf("new root holds %s, want %s", got, want)
	}
	ignore, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"/.state.json", "/.ocmem.lock", ".*.tmp"} {
		if !strings.Contains("\n"+string(ignore), "\n"+line+"\n") {
			t.Errorf(".gitignore lacks a line %q:\n%s", line, ignore)
		}
	}
	attrs, err := os.ReadFile(filepath.Join(dir, ".gitattributes"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"*/index.md merge=union text eol=lf", "/ROOT.md merge=ocmem text eol=lf"} {
		if !strings.Contains("\n"+string(attrs), "\n"+line+"\n") {
			t.Errorf(".gitattributes lacks a line %q:\n%s", line, attrs)
		}
	}

	// What git itself makes of them, when git is here.
	if _, err := exec.LookPath("git"); err != nil {
		return
	}
	git(t, dir, "init", "-q")
	writeFile(t, filepath.Join(dir, ".state.json"), "{}")
	writeFile(t, filepath.Join(dir, "facts", ".a.md.123.tmp"), "")
	writeFile(t, filepath.Join(dir, "facts", "a.md"), mem("facts/a"))
	ignored := git(t, dir, "ls-files", "--others", "--ignored", "--exclude-standard")
	if got, want := strings.Fields(ignored), []string{".ocmem.lock", ".state.json", "facts/.a.md.123.tmp"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("git ignores %v, want %v", got, want)
	}
	out := git(t, dir, "check-attr", "merge", "eol", "--", "facts/index.md", "ROOT.md", "facts/ROOT.md", "facts/a.md", "a/b/index.md")
	for _, want := range []string{
		"facts/index.md: merge: union", "facts/index.md: eol: lf",
		"ROOT.md: merge: ocmem", "ROOT.md: eol: lf",
		"facts/ROOT.md: merge: unspecified",                              // only the root's own ROOT.md
		"facts/a.md: merge: unspecified", "facts/a.md: eol: unspecified", // memories merge as text
		"a/b/index.md: merge: unspecified",
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("git check-attr lacks %q:\n%s", want, out)
		}
	}
}

// lockOnce takes and releases a root's lock, as one write does.
func lockOnce(t *testing.T, r store.Root) {
	t.Helper()
	unlock, err := r.Lock()
	if err != nil {
		t.Fatal(err)
	}
	unlock()
}

func TestLockAppendsBlockToExistingGitFiles(t *testing.T) {
	dir := tempDir(t)
	mine := "# mine\n*.bak" // no final newline
	writeFile(t, filepath.Join(dir, ".gitignore"), mine)
	r := store.Root{Scope: store.Global, Dir: dir}

	// A state update (a recall) changes no tracked file.
	if err := r.UpdateState(func(s *store.State) { bump(s, "facts/a") }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".gitignore")); string(b) != mine {
		t.Errorf("UpdateState changed a person's .gitignore:\n%s", b)
	}

	// A write appends ocmem's block once, whatever number of writes follow.
	for range 3 {
		lockOnce(t, r)
	}
	got, _ := os.ReadFile(filepath.Join(dir, ".gitignore"))
	block := store.GitFiles()[".gitignore"]
	if want := mine + "\n\n" + block; string(got) != want {
		t.Errorf(".gitignore after writes:\n%s\nwant:\n%s", got, want)
	}

	// An outdated block is rewritten in place; the person's lines around it
	// are kept.
	old := strings.Replace(string(got), "/.ocmem.lock\n", "", 1) + "# after\n"
	writeFile(t, filepath.Join(dir, ".gitignore"), old)
	lockOnce(t, r)
	if got, _ := os.ReadFile(filepath.Join(dir, ".gitignore")); string(got) != mine+"\n\n"+block+"# after\n" {
		t.Errorf(".gitignore after updating its block:\n%s", got)
	}

	// A .gitattributes an earlier ocmem wrote whole is replaced.
	legacy := "# Written by ocmem: compiled files are regenerated, so a union merge is safe.\n*/index.md merge=union\n"
	writeFile(t, filepath.Join(dir, ".gitattributes"), legacy)
	lockOnce(t, r)
	if got, _ := os.ReadFile(filepath.Join(dir, ".gitattributes")); string(got) != store.GitFiles()[".gitattributes"] {
		t.Errorf("legacy .gitattributes became:\n%s", got)
	}

	// What git makes of it: the state file is ignored, the person's
	// pattern still works.
	if _, err := exec.LookPath("git"); err != nil {
		return
	}
	git(t, dir, "init", "-q")
	writeFile(t, filepath.Join(dir, "x.bak"), "")
	ignored := git(t, dir, "ls-files", "--others", "--ignored", "--exclude-standard")
	if got, want := strings.Fields(ignored), []string{".ocmem.lock", ".state.json", "x.bak"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("git ignores %v, want %v", got, want)
	}
}

func TestLockLeavesSymlinkedGitFiles(t *testing.T) {
	dir := tempDir(t)
	target := filepath.Join(tempDir(t), "shared-gitignore")
	writeFile(t, target, "*.bak\n")
	symlink(t, target, filepath.Join(dir, ".gitignore"))
	lockOnce(t, store.Root{Scope: store.Global, Dir: dir})
	if b, _ := os.ReadFile(target); string(b) != "*.bak\n" {
		t.Errorf("the symlinked .gitignore's target was changed:\n%s", b)
	}
	if info, err := os.Lstat(filepath.Join(dir, ".gitignore")); err != nil || info.Mode()&fs.ModeSymlink == 0 {
		t.Errorf(".gitignore is no longer a symlink: %v", err)
	}
}

func TestLockUnconfigured(t *testing.T) {
	if _, err := (store.Root{Scope: store.Global}).Lock(); err == nil {
		t.Error("Lock of a root without a directory: no error")
	}
	if _, err := (store.Root{Scope: store.Global}).WriteFile("facts/a.md", nil); err == nil {
		t.Error("WriteFile to a root without a directory: no error")
	}
}

func TestWriteFile(t *testing.T) {
	dir := filepath.Join(tempDir(t), "root")
	r := store.Root{Scope: store.Project, Dir: dir}
	lock(t, r)
	base := names(t, dir)

	changed, err := r.WriteFile("facts/deep/部署.md", []byte("one\n"))
	if err != nil || !changed {
		t.Fatalf("WriteFile of a new file = %v, %v", changed, err)
	}
	p := filepath.Join(dir, "facts", "deep", "部署.md")
	if b, _ := os.ReadFile(p); string(b) != "one\n" {
		t.Errorf("content %q", b)
	}
	if runtime.GOOS != "windows" {
		if info, _ := os.Stat(p); info.Mode().Perm() != 0o644 {
			t.Errorf("mode %v, want 0644 (a temp file's 0600 would hide it from git hooks and other users)", info.Mode().Perm())
		}
	}

	// Unchanged content is not rewritten: the mtime stays.
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	changed, err = r.WriteFile("facts/deep/部署.md", []byte("one\n"))
	if err != nil || changed {
		t.Fatalf("WriteFile of the same content = %v, %v; want false, nil", changed, err)
	}
	if info, _ := os.Stat(p); !info.ModTime().Equal(old) {
		t.Errorf("unchanged file rewritten: mtime %v, want %v", info.ModTime(), old)
	}

	changed, err = r.WriteFile("facts/deep/部署.md", []byte("two\n"))
	if err != nil || !changed {
		t.Fatalf("WriteFile of new content = %v, %v", changed, err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two\n" {
		t.Errorf("content %q, want two", b)
	}
	// An empty file is a write too.
	if changed, err := r.WriteFile("facts/deep/部署.md", nil); err != nil || !changed {
		t.Fatalf("WriteFile of nothing = %v, %v", changed, err)
	}
	if info, _ := os.Stat(p); info.Size() != 0 {
		t.Errorf("size %d after writing nothing", info.Size())
	}

	// No temp file is left anywhere.
	if got := strings.Join(names(t, filepath.Join(dir, "facts", "deep")), " "); got != "部署.md" {
		t.Errorf("facts/deep holds %s, want only 部署.md", got)
	}
	if got, want := strings.Join(names(t, dir), " "), strings.Join(append(base, "facts"), " "); got != want {
		t.Errorf("root holds %s, want %s", got, want)
	}
}

func TestWriteFileRefusesOutside(t *testing.T) {
	base := tempDir(t)
	dir := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	writeFile(t, filepath.Join(outside, "victim.md"), "keep\n")
	r := store.Root{Scope: store.Project, Dir: dir}
	lock(t, r)
	symlink(t, outside, filepath.Join(dir, "facts"))
	symlink(t, filepath.Join(outside, "victim.md"), filepath.Join(dir, "victim.md"))
	before, beforeOut := snapshot(t, dir), snapshot(t, outside)

	for _, rel := range []string{
		"../outside/victim.md", "/etc/x.md", "a/../../outside/victim.md", ".gitignore", ".gitattributes",
		".state.json", "facts/victim.md", "facts/new.md", "victim.md", `..\outside\victim.md`, "",
	} {
		if _, err := r.WriteFile(rel, []byte("pwned\n")); !errors.Is(err, pathsafe.ErrOutside) {
			t.Errorf("WriteFile(%q) = %v, want ErrOutside", rel, err)
		}
		if err := r.Remove(rel); !errors.Is(err, pathsafe.ErrOutside) {
			t.Errorf("Remove(%q) = %v, want ErrOutside", rel, err)
		}
	}
	compareSnapshots(t, "root", before, snapshot(t, dir))
	compareSnapshots(t, "outside", beforeOut, snapshot(t, outside))
}

func TestRemove(t *testing.T) {
	dir := tempDir(t)
	r := store.Root{Scope: store.Project, Dir: dir}
	lock(t, r)
	if _, err := r.WriteFile("facts/a.md", []byte("a")); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove("facts/a.md"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "facts", "a.md")); !os.IsNotExist(err) {
		t.Errorf("file still there: %v", err)
	}
	if err := r.Remove("facts/a.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Remove of a missing file = %v, want ErrNotExist", err)
	}
}

// A failed write leaves the old file and no temp file: here the target is a
// directory, so the final rename fails.
func TestWriteFileFailureLeavesNoTemp(t *testing.T) {
	dir := tempDir(t)
	r := store.Root{Scope: store.Project, Dir: dir}
	lock(t, r)
	if err := os.MkdirAll(filepath.Join(dir, "facts", "a.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := r.WriteFile("facts/a.md", []byte("x")); err == nil {
		t.Fatal("WriteFile over a directory: no error")
	}
	if got := strings.Join(names(t, filepath.Join(dir, "facts")), " "); got != "a.md" {
		t.Errorf("facts holds %s after a failed write, want only a.md", got)
	}
}

// Readers never see a torn file: every read while another goroutine rewrites
// the file returns one whole version.
func TestWriteFileAtomicForReaders(t *testing.T) {
	dir := tempDir(t)
	r := store.Root{Scope: store.Project, Dir: dir}
	lock(t, r)
	a := bytes.Repeat([]byte("a"), 256<<10)
	b := bytes.Repeat([]byte("b"), 200<<10)
	if _, err := r.WriteFile("facts/big.md", a); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "facts", "big.md")
	var wg sync.WaitGroup
	done, quit := make(chan struct{}), make(chan struct{})
	defer func() { close(quit); wg.Wait() }() // also when a read fails
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for i := 0; i < 40; i++ {
			data := a
			if i%2 == 0 {
				data = b
			}
			select {
			case <-quit:
				return
			default:
			}
			if _, err := r.WriteFile("facts/big.md", data); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	reads := 0
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true
		default:
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("read during rewrite: %v", err)
		}
		reads++
		if !bytes.Equal(got, a) && !bytes.Equal(got, b) {
			t.Fatalf("read %d bytes that are neither version (starts %q)", len(got), got[:min(len(got), 8)])
		}
	}
	if reads < 2 {
		t.Fatalf("only %d reads", reads)
	}
}

// WriteFileOver writes only what differs from the bytes it is given.
func TestWriteFileOver(t *testing.T) {
	dir := t.TempDir()
	r := store.Root{Scope: store.Project, Dir: dir}
	if changed, err := r.WriteFileOver("ROOT.md", nil, []byte("a\n")); err != nil || !changed {
		t.Fatalf("a new file: changed %v, %v", changed, err)
	}
	if changed, err := r.WriteFileOver("ROOT.md", []byte("a\n"), []byte("a\n")); err != nil || changed {
		t.Fatalf("the same bytes: changed %v, %v", changed, err)
	}
	if changed, err := r.WriteFileOver("ROOT.md", []byte("a\n"), []byte("b\n")); err != nil || !changed {
		t.Fatalf("other bytes: changed %v, %v", changed, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "ROOT.md")); string(b) != "b\n" {
		t.Fatalf("ROOT.md holds %q", b)
	}
}

// TestLockBoundsRepositoryGitFiles: a cloned repository controls its
// .memory/.gitignore and .gitattributes. A write read them whole to add
// ocmem's block (2 GiB: 42 s, 10 GB of memory) and wrote them back; one
// over the limit is now left as it is, unread.
func TestLockBoundsRepositoryGitFiles(t *testing.T) {
	const size = 8 << 20
	for _, name := range []string{".gitignore", ".gitattributes"} {
		t.Run(name, func(t *testing.T) {
			dir := tempDir(t)
			p := filepath.Join(dir, name)
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString("# big\n"); err != nil {
				t.Fatal(err)
			}
			if err := f.Truncate(size); err != nil { // sparse: no disk to speak of
				t.Fatal(err)
			}
			f.Close()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			lockOnce(t, store.Root{Scope: store.Project, Dir: dir})
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/4 {
				t.Errorf("a write allocated %d bytes beside a %d-byte %s", alloc, size, name)
			}
			info, err := os.Stat(p)
			if err != nil || info.Size() != size {
				t.Errorf("%s was rewritten: %v, %v", name, info, err)
			}
		})
	}
}
