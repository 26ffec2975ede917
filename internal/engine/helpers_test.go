package engine

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/store"
)

// testNow is the fixed clock of the engine tests.
var testNow = time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)

type roots struct{ global, project string }

// newRoots returns two fresh, not yet created, root directories.
func newRoots(t *testing.T) roots {
	t.Helper()
	d := t.TempDir()
	return roots{filepath.Join(d, "global"), filepath.Join(d, "project")}
}

func (r roots) engine(opts options.Options) *Engine {
	return New(Config{GlobalDir: r.global, ProjectDir: r.project, Options: opts, Now: func() time.Time { return testNow }})
}

func (r roots) dir(s store.Scope) string {
	if s == store.Global {
		return r.global
	}
	return r.project
}

// mustRemember writes a memory a person asks for, failing the test on error.
func mustRemember(t *testing.T, e *Engine, req RememberRequest) *Written {
	t.Helper()
	if req.Body == "" {
		// A memory without a body is refused
		// (TestRememberRefusesEmptyBody); tests about something else
		// get one.
		req.Body = "Body of: " + req.Summary
	}
	w, err := e.Remember(req)
	if err != nil {
		t.Fatalf("Remember(%q): %v", req.Summary, err)
	}
	return w
}

// readMemory parses a memory file back from disk.
func readMemory(t *testing.T, path string) *memory.Memory {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := memory.Parse(data)
	if err != nil {
		t.Fatalf("%s does not parse: %v\n%s", path, err, data)
	}
	return m
}

func readString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func writeString(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeMemory writes a memory file directly, bypassing the engine (as a
// person or a git pull would); the caller compiles when it wants to.
func writeMemory(t *testing.T, root string, m *memory.Memory) {
	t.Helper()
	writeString(t, filepath.Join(root, filepath.FromSlash(m.ID)+".md"), string(m.Format()))
}

// tree lists every file under dir with its content, so a test can tell
// that nothing at all changed. A missing dir is an empty tree.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p == dir {
				return fs.SkipAll
			}
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[filepath.ToSlash(rel)+"/"] = ""
			return nil
		}
		if d.Name() == store.LockFile {
			// Its content counts the root's writes, refused ones too
			// (store/generation.go); no person reads it.
			out[filepath.ToSlash(rel)] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func treeDiff(before, after map[string]string) []string {
	var diff []string
	for k, v := range before {
		if w, ok := after[k]; !ok {
			diff = append(diff, "removed "+k)
		} else if w != v {
			diff = append(diff, "changed "+k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			diff = append(diff, "added "+k)
		}
	}
	sort.Strings(diff)
	return diff
}

// fakeGitHubToken builds a value shaped like a GitHub personal access token
// at run time, so no token-looking literal sits in the repository for
// scanners to flag.
func fakeGitHubToken(seed uint64) string {
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var b strings.Builder
	b.WriteString("gh" + "p_")
	for range 36 {
		b.WriteByte(alnum[r.IntN(len(alnum))])
	}
	return b.String()
}

// indexLines returns the memory lines of a category's index.md.
func indexLines(t *testing.T, root, category string) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(readString(t, filepath.Join(root, category, store.IndexFile)), "\n") {
		if strings.HasPrefix(l, "- ") {
			out = append(out, l)
		}
	}
	return out
}

// issueStrings renders inspection issues as "severity check scope/rel[:line]".
func issueStrings(t *testing.T, rep *Report) []string {
	t.Helper()
	var out []string
	for _, i := range rep.Issues {
		rel, err := filepath.Rel(rep.Roots[i.Scope], i.Path)
		if err != nil {
			rel = i.Path
		}
		s := string(i.Severity) + " " + i.Check + " " + string(i.Scope) + "/" + filepath.ToSlash(rel)
		if i.Line > 0 {
			s += ":" + strconv.Itoa(i.Line)
		}
		out = append(out, s)
	}
	return out
}

func mustInspectClean(t *testing.T, e *Engine, allowed ...string) *Report {
	t.Helper()
	rep, err := e.Inspect()
	if err != nil {
		t.Fatal(err)
	}
	rep.Issues = slices.DeleteFunc(rep.Issues, func(i Issue) bool { return i.Severity == SevWarning && slices.Contains(allowed, i.Check) })
	if len(rep.Issues) > 0 {
		t.Fatalf("Inspect found problems:\n%s", strings.Join(issueStrings(t, rep), "\n"))
	}
	return rep
}

// nonBlankLines are a text's lines that are not blank, in order (as
// tiers reads a ROOT.md section's lines).
func nonBlankLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}
