package pathsafe_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/pathsafe"
)

// seeds are the inputs every fuzz target starts from: the cases of
// TestCheck and the layout of TestJoinSymlinks, plus shapes that have broken
// path checks elsewhere.
var seeds = []string{
	"a", "pitfalls/x.md", "pitfalls/部署脚本.md", "pnpm-lock.yaml", "a..b", "..", ".", "../x",
	"a/../b", "a/..", "./a", "/x", `C:\x`, "C:x", `\\server\share`, "//server/share", `a\b`,
	"a\x00b", "a\nb", "a//b", "a/", ".git/x", "a.", "a ", "con.md", "NUL", "a:b", "\xff",
	"out", "out/secret.md", "in/x.md", "up/outside/secret.md", "f.md", "chain/secret.md",
	"real/x.md", "real/hop", "dangling", "...", "a/.../b", " ", "\u3000/x", "a/\u2028b",
	"COM1.md", "com¹.md", "x/y/z/../../..", "LPT².md", "CONIN$", "conout$.md", "con .md", "com⁴.md",
}

// escapes reports why rel, joined lexically to root, is not strictly inside
// root, or "" when it is.
func escapes(root, rel string) string {
	p := filepath.Join(root, filepath.FromSlash(rel))
	r, err := filepath.Rel(root, p)
	switch {
	case err != nil:
		return err.Error()
	case r == "." || r == "..":
		return "joins to " + r
	case strings.HasPrefix(r, ".."+string(filepath.Separator)):
		return "leaves the root: " + r
	case filepath.IsAbs(r) || filepath.VolumeName(r) != "":
		return "absolute: " + r
	}
	return ""
}

func FuzzCheck(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	root := filepath.Join(f.TempDir(), "root")
	f.Fuzz(func(t *testing.T, rel string) {
		err := pathsafe.Check(rel)
		if err != nil {
			if !errors.Is(err, pathsafe.ErrOutside) {
				t.Fatalf("Check(%q) = %v, does not wrap ErrOutside", rel, err)
			}
			return
		}
		if why := escapes(root, rel); why != "" {
			t.Fatalf("Check(%q) accepted a path that %s", rel, why)
		}
		// What Check accepts is already clean: joining does not rewrite it.
		if c := filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel))); c != rel {
			t.Fatalf("Check(%q) accepted a path that cleans to %q", rel, c)
		}
	})
}

func FuzzJoin(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	_, root := layout(f)
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		p, err := pathsafe.Join(root, rel)
		if err != nil {
			if !errors.Is(err, pathsafe.ErrOutside) {
				t.Fatalf("Join(%q) = %v, does not wrap ErrOutside", rel, err)
			}
			return
		}
		if pathsafe.Check(rel) != nil {
			t.Fatalf("Join(%q) accepted what Check refuses", rel)
		}
		if why := escapes(root, rel); why != "" {
			t.Fatalf("Join(%q) = %q, a path that %s", rel, p, why)
		}
		if want := filepath.Join(root, filepath.FromSlash(rel)); p != want {
			t.Fatalf("Join(%q) = %q, want %q", rel, p, want)
		}
		// Resolve what exists of p: it must lie in the resolved root.
		existing, rest := p, ""
		for {
			if _, err := os.Lstat(existing); err == nil {
				break
			}
			rest = filepath.Join(filepath.Base(existing), rest)
			existing = filepath.Dir(existing)
		}
		real, err := filepath.EvalSymlinks(existing)
		if err != nil {
			t.Fatalf("Join(%q) accepted a path through %s, which does not resolve: %v", rel, existing, err)
		}
		resolved := filepath.Join(real, rest)
		r, err := filepath.Rel(realRoot, resolved)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
			t.Fatalf("Join(%q) = %q, which resolves to %s, outside %s", rel, p, resolved, realRoot)
		}
	})
}
