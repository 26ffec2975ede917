package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoticeCurrent fails when a module was added, removed or upgraded
// without NOTICE following: the shipped binary would then carry a licence
// it lacks the notice of.
func TestNoticeCurrent(t *testing.T) {
	if err := run(filepath.Join("..", ".."), true); err != nil {
		t.Fatal(err)
	}
}

func TestReplaceSection(t *testing.T) {
	section := rule + "\n" + heading + "\n---\nnew\n"
	for _, tc := range []struct{ name, notice, want string }{
		{"none yet", "works\n\n", "works\n\n" + section},
		{"no trailing newline", "works", "works\n\n" + section},
		{"replaced", "works\n\n" + rule + "\n" + heading + "\n---\nold\nmore\n", "works\n\n" + section},
		{"a work's rule above is kept", "a\n" + rule + "\nwork\n\n" + rule + "\n" + heading + "\nold\n",
			"a\n" + rule + "\nwork\n\n" + section},
	} {
		got := string(replaceSection([]byte(tc.notice), []byte(section)))
		if got != tc.want {
			t.Errorf("%s: got\n%q\nwant\n%q", tc.name, got, tc.want)
		}
		if again := string(replaceSection([]byte(got), []byte(section))); again != got {
			t.Errorf("%s: not idempotent:\n%q", tc.name, again)
		}
	}
}

func TestModuleWithoutLicenceIsRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("no licence here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := render([]module{{Path: "example.com/m", Version: "v1.0.0", Dir: dir}})
	if err == nil || !strings.Contains(err.Error(), "no licence file") {
		t.Fatalf("err = %v, want a module without a licence refused", err)
	}
}

func TestLicenceFiles(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"LICENSE": "MIT\r\ntext\r\n\r\n", "NOTICE.md": "n", "licenses.go": "x", "README": "r"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := licences(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || string(got[0]) != "MIT\ntext\n" || string(got[1]) != "n\n" {
		t.Fatalf("licences = %q, want LICENSE (CRLF folded) and NOTICE.md only", got)
	}
}
