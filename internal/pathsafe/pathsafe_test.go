package pathsafe_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/pathsafe"
)

func TestCheck(t *testing.T) {
	accepted := []string{
		"a",
		"pitfalls/sqlite-cjk-tokenizer.md",
		"pitfalls/部署脚本.md",
		"facts/pnpm-lock.yaml",
		"pnpm-lock.yaml",
		"facts/v1.2-notes.md",
		"facts/a..b.md",     // ".." inside a name is not a ".." element
		"facts/my notes.md", // an inner space is fine
		"facts/console.md",  // "console" is not "CON"
		"facts/com10.md",    // only COM0–COM9 and COM¹–COM³ are reserved
		"facts/com⁴.md",     // a superscript 4 is not a digit to Windows
		"facts/com¹x.md",
		"facts/conin.md", // CONIN$ is, with its dollar
		"facts/conout$x.md",
		"facts/nul-byte-pitfall.md",
		"a/b/c/d.md",
		"ROOT.md",
		"pitfalls/index.md",
		"facts/日本語のメモ.md",
		"facts/(draft) [x] {y}.md",
		strings.Repeat("a", pathsafe.MaxLen),
	}
	for _, rel := range accepted {
		if err := pathsafe.Check(rel); err != nil {
			t.Errorf("Check(%q) = %v, want accepted", rel, err)
		}
	}

	refused := []struct {
		rel, reason string
	}{
		{"", "empty"},
		{".", `"." element`},
		{"..", `".." element`},
		{"../x.md", `".." element`},
		{"a/../b", `".." element`},
		{"a/..", `".." element`},
		{"./a", `"." element`},
		{"a/./b", `"." element`},
		{"/x", "absolute"},
		{"/", "absolute"},
		{"//server/share", "absolute"},
		{`C:\x`, "backslash"},
		{"C:x", "drive letter"},
		{"C:/x", "drive letter"},
		{"c:", "drive letter"},
		{`\\server\share`, "backslash"},
		{`a\b`, "backslash"},
		{`..\x`, "backslash"},
		{"a\x00b", "control character"},
		{"a\nb", "control character"},
		{"a\rb", "control character"},
		{"a\tb", "control character"},
		{"a\x1bb", "control character"},
		{"a\x7fb", "control character"},
		{"a\u0085b", "control character"}, // NEL: a C1 control, a line break to YAML
		{"a//b", "empty element"},
		{"a/", "empty element"},
		{".git/x", "hidden"},
		{"a/.hidden.md", "hidden"},
		{".state.json", "hidden"},
		{".gitignore", "hidden"},
		{"a.", "ending in a dot"},
		{"facts/x.md.", "ending in a dot"},
		{"a /b", "ending in a dot or space"},
		{"facts/x.md ", "ending in a dot or space"},
		{"con.md", "reserved"},
		{"facts/con.md", "reserved"},
		{"NUL", "reserved"},
		{"facts/Aux.tar.gz", "reserved"},
		{"com1/x.md", "reserved"},
		{"facts/LPT9.md", "reserved"},
		{"facts/COM¹.md", "reserved"}, // Windows counts ¹ ² ³ as digits
		{"facts/com².md", "reserved"},
		{"LPT²", "reserved"},
		{"facts/lpt³.tar.gz", "reserved"},
		{"facts/COM0.md", "reserved"},
		{"facts/lpt0.md", "reserved"},
		{"facts/CONIN$.md", "reserved"}, // the console's input and output
		{"conout$", "reserved"},
		{"facts/CONOUT$.txt", "reserved"},
		{"facts/con .md", "reserved"}, // Windows drops the spaces before the dot
		{"facts/NUL  .md", "reserved"},
		{"prn", "reserved"},
		{"a:b", "drive letter"},
		{"facts/a:b.md", "forbids"}, // an NTFS alternate data stream
		{"facts:x/y.md", "forbids"},
		{"facts/a*b.md", "forbids"},
		{"facts/a?b.md", "forbids"},
		{`facts/a"b.md`, "forbids"},
		{"facts/a<b.md", "forbids"},
		{"facts/a>b.md", "forbids"},
		{"facts/a|b.md", "forbids"},
		{strings.Repeat("a", pathsafe.MaxLen+1), "longer than"},
		{strings.Repeat("abcd/", 120), "longer than"}, // 600 bytes
		{"\xff", "UTF-8"},
		{"facts/\xe9t\xe9.md", "UTF-8"}, // Latin-1 bytes
		{"facts/\xe9\x83.md", "UTF-8"},  // a truncated sequence
	}
	for _, tc := range refused {
		err := pathsafe.Check(tc.rel)
		if err == nil {
			t.Errorf("Check(%q) accepted, want refused (%s)", tc.rel, tc.reason)
			continue
		}
		if !errors.Is(err, pathsafe.ErrOutside) {
			t.Errorf("Check(%q) = %v, does not wrap ErrOutside", tc.rel, err)
		}
		var pe *pathsafe.Error
		if !errors.As(err, &pe) || pe.Path != tc.rel {
			t.Errorf("Check(%q) = %#v, want a *pathsafe.Error naming the path", tc.rel, err)
		}
		if !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("Check(%q) = %q, want the reason to mention %q", tc.rel, err, tc.reason)
		}
	}
}

// symlink creates a symlink or skips the test where the OS does not let us
// (Windows without developer mode or the privilege).
func symlink(t testing.TB, oldname, newname string) {
	t.Helper()
	if err := os.Symlink(oldname, newname); err != nil {
		if runtime.GOOS == "windows" {
			t.Skipf("cannot create symlinks here: %v", err)
		}
		t.Fatal(err)
	}
}

func mkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	mkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// layout builds a root with symlinks leading inside and outside it:
//
//	base/outside/secret.md
//	base/root/real/x.md
//	base/root/in      -> real              (relative, inside)
//	base/root/inabs   -> base/root/real    (absolute, inside)
//	base/root/out     -> base/outside      (a directory outside)
//	base/root/up      -> ..                (the root's parent)
//	base/root/f.md    -> base/outside/secret.md (a file outside)
//	base/root/g.md    -> real/x.md         (a file inside)
//	base/root/chain   -> in/hop, real/hop -> ../../outside (a chain that ends outside)
//	base/root/dangling -> nowhere
//	base/rootlink     -> root              (the root reached through a symlink)
func layout(t testing.TB) (base, root string) {
	t.Helper()
	base = t.TempDir()
	// t.TempDir may itself sit behind a symlink (macOS's /var); resolve it so
	// expectations compare like with like.
	base, err := filepath.EvalSymlinks(base)
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	writeFile(t, filepath.Join(outside, "secret.md"), "secret\n")
	writeFile(t, filepath.Join(root, "real", "x.md"), "x\n")
	symlink(t, "real", filepath.Join(root, "in"))
	symlink(t, filepath.Join(root, "real"), filepath.Join(root, "inabs"))
	symlink(t, outside, filepath.Join(root, "out"))
	symlink(t, "..", filepath.Join(root, "up"))
	symlink(t, filepath.Join(outside, "secret.md"), filepath.Join(root, "f.md"))
	symlink(t, filepath.Join("real", "x.md"), filepath.Join(root, "g.md"))
	symlink(t, filepath.Join("..", "..", "outside"), filepath.Join(root, "real", "hop"))
	symlink(t, filepath.Join("in", "hop"), filepath.Join(root, "chain"))
	symlink(t, "nowhere", filepath.Join(root, "dangling"))
	symlink(t, root, filepath.Join(base, "rootlink"))
	return base, root
}

func TestJoinSymlinks(t *testing.T) {
	base, root := layout(t)
	rootlink := filepath.Join(base, "rootlink")
	tests := []struct {
		root, rel string
		ok        bool
	}{
		{root, "real/x.md", true},
		{root, "real/new.md", true},
		{root, "new/dir/does/not/exist.md", true}, // parents created later
		{root, "in/x.md", true},
		{root, "in/new/y.md", true},
		{root, "inabs/x.md", true},
		{root, "g.md", true},
		{root, "out", false},
		{root, "out/secret.md", false},
		{root, "out/new.md", false}, // not there yet, but its parent leads out
		{root, "out/new/dir/y.md", false},
		{root, "up/outside/secret.md", false},
		{root, "up/root/real/x.md", true}, // out by way of the parent, but it ends inside
		{root, "f.md", false},
		{root, "chain", false},
		{root, "chain/secret.md", false},
		{root, "real/hop/secret.md", false},
		{root, "dangling", false}, // cannot tell where it leads
		// The root reached through a symlink: the same answers.
		{rootlink, "real/x.md", true},
		{rootlink, "in/x.md", true},
		{rootlink, "new/y.md", true},
		{rootlink, "g.md", true},
		{rootlink, "out/secret.md", false},
		{rootlink, "f.md", false},
		{rootlink, "up/outside/secret.md", false},
		// A root that does not exist yet holds no symlinks.
		{filepath.Join(base, "missing"), "facts/x.md", true},
		{filepath.Join(root, "missing"), "facts/x.md", true},
		// A root inside a directory that leads outside: the root is where
		// the user put it, and the file stays within it.
		{filepath.Join(root, "out"), "secret.md", true},
	}
	for _, tc := range tests {
		p, err := pathsafe.Join(tc.root, tc.rel)
		if !tc.ok {
			if err == nil {
				t.Errorf("Join(%s, %q) = %q, want refused", tc.root, tc.rel, p)
			} else if !errors.Is(err, pathsafe.ErrOutside) {
				t.Errorf("Join(%s, %q) = %v, does not wrap ErrOutside", tc.root, tc.rel, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Join(%s, %q) = %v, want accepted", tc.root, tc.rel, err)
			continue
		}
		if want := filepath.Join(tc.root, filepath.FromSlash(tc.rel)); p != want {
			t.Errorf("Join(%s, %q) = %q, want %q (the path as given, not resolved)", tc.root, tc.rel, p, want)
		}
	}
}

func TestJoinChecksFirst(t *testing.T) {
	root := t.TempDir()
	for _, rel := range []string{"../x", "", "/etc/passwd", ".git/config", `a\b`} {
		if p, err := pathsafe.Join(root, rel); err == nil {
			t.Errorf("Join(root, %q) = %q, want refused", rel, p)
		}
	}
}

func TestInside(t *testing.T) {
	base, root := layout(t)
	tests := []struct {
		p  string
		ok bool
	}{
		{root, true},
		{filepath.Join(root, "real", "x.md"), true},
		{filepath.Join(root, "not", "yet.md"), true},
		{filepath.Join(root, "in"), true},
		{filepath.Join(base, "outside", "secret.md"), false}, // lexically outside
		{base, false},
		{filepath.Join(root, "out", "secret.md"), false},
		{filepath.Join(root, "f.md"), false},
		{filepath.Join(root, "dangling"), false},
		{filepath.Join(root, "not", "there"), true},
	}
	for _, tc := range tests {
		err := pathsafe.Inside(root, tc.p)
		if (err == nil) != tc.ok {
			t.Errorf("Inside(root, %s) = %v, want ok=%v", tc.p, err, tc.ok)
		}
	}
}
