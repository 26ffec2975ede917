package anchor_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/anchor"
	"github.com/rogpeppe/go-internal/txtar"
)

// White space the cases need at line ends is written as {SP}, {TAB} and
// {CR}, so that no editor or checkout drops it.
var ws = strings.NewReplacer("{SP}", " ", "{TAB}", "\t", "{CR}", "\r")

// TestFormattingOnly runs testdata/formatting: each archive commits its
// old/ files, writes its new/ files over them (a file missing from new/ is
// deleted) and says what FormattingOnly answers: "want: formatting", or a
// part of the reason it gives for a change.
func TestFormattingOnly(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("testdata", "formatting", "*.txtar"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, file := range cases {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			_, want, ok := strings.Cut(string(ar.Comment), "want: ")
			if !ok {
				t.Fatal("no want: line")
			}
			want, _, _ = strings.Cut(want, "\n")
			r := newRepo(t)
			var names []string
			news := map[string]string{}
			for _, f := range ar.Files {
				if name, ok := strings.CutPrefix(f.Name, "old/"); ok {
					r.write(name, ws.Replace(string(f.Data)))
					names = append(names, name)
				} else if name, ok := strings.CutPrefix(f.Name, "new/"); ok {
					news[name] = ws.Replace(string(f.Data))
				}
			}
			commit := r.commit("old")
			for _, name := range names {
				if text, ok := news[name]; ok {
					r.write(name, text)
				} else if err := os.Remove(filepath.Join(r.dir, filepath.FromSlash(name))); err != nil {
					t.Fatal(err)
				}
			}
			// Left uncommitted: the worktree is what is compared.
			for _, name := range names {
				ok, why := anchor.FormattingOnly(context.Background(), r.dir, commit, name)
				switch {
				case want == "formatting" && !ok:
					t.Errorf("%s: not formatting (%s), want formatting", name, why)
				case want != "formatting" && ok:
					t.Errorf("%s: formatting, want a change (%s)", name, want)
				case want != "formatting" && !strings.Contains(why, want):
					t.Errorf("%s: why %q, want it to say %q", name, why, want)
				}
			}
		})
	}
}

// TestFormattingOnlyNeedsCommit: without the verified commit's version
// there is nothing to compare, and a digest cannot say how a file
// changed, so the answer is no.
func TestFormattingOnlyNeedsCommit(t *testing.T) {
	r := newRepo(t)
	r.write("sub/a.txt", "x\n")
	head := r.commit("one")
	for _, tc := range []struct{ root, commit, path, want string }{
		{r.dir, "0123456789abcdef0123456789abcdef01234567", "sub/a.txt", "cannot be read here"},
		{r.dir, "", "sub/a.txt", "no commit"},
		{r.dir, "--output=x", "sub/a.txt", "no commit"},
		{r.dir, head, "../a.txt", "not a path inside the project"},
		{r.dir, head, "sub", "not a regular file"},
		// The project root below the repository's top: paths are the
		// project's.
		{filepath.Join(r.dir, "sub"), head, "b.txt", "was deleted"},
	} {
		ok, why := anchor.FormattingOnly(context.Background(), tc.root, tc.commit, tc.path)
		if ok || !strings.Contains(why, tc.want) {
			t.Errorf("FormattingOnly(%s, %q, %s) = %v, %q; want false, %q", tc.root, tc.commit, tc.path, ok, why, tc.want)
		}
	}
	if ok, why := anchor.FormattingOnly(context.Background(), filepath.Join(r.dir, "sub"), head, "a.txt"); !ok {
		t.Errorf("a.txt in a project below the repository's top: %s", why)
	}
}
