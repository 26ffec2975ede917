package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunOnFixture(t *testing.T) {
	out := t.TempDir()
	td := filepath.Join("..", "testdata")
	if err := run(filepath.Join(td, "jieba.dict.utf8"), filepath.Join(td, "scowl"), filepath.Join(td, "cedict.js"), out); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"english.lxt", "chinese.lxt", "bilingual.lxt"} {
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(data), "LXT2") {
			t.Errorf("%s does not start with the table magic", name)
		}
	}
	prov, err := os.ReadFile(filepath.Join(out, "SOURCES.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"jieba.dict.utf8 sha256 ", ": 10 words", "15 entries", "english-words.10 sha256 "} {
		if !strings.Contains(string(prov), want) {
			t.Errorf("SOURCES.txt lacks %q:\n%s", want, prov)
		}
	}
	if matches, _ := filepath.Glob(filepath.Join(out, "*.tmp*")); len(matches) > 0 {
		t.Errorf("temporary files left: %v", matches)
	}
}

func TestRunErrors(t *testing.T) {
	out := t.TempDir()
	td := filepath.Join("..", "testdata")
	for name, args := range map[string][3]string{
		"no flags":       {"", "", ""},
		"missing jieba":  {filepath.Join(td, "absent"), filepath.Join(td, "scowl"), filepath.Join(td, "cedict.js")},
		"scowl not dir":  {filepath.Join(td, "jieba.dict.utf8"), filepath.Join(td, "cedict.js"), filepath.Join(td, "cedict.js")},
		"cedict garbage": {filepath.Join(td, "jieba.dict.utf8"), filepath.Join(td, "scowl"), filepath.Join(td, "jieba.dict.utf8")},
	} {
		if err := run(args[0], args[1], args[2], out); err == nil {
			t.Errorf("%s: run succeeded", name)
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("a failed run wrote %d files", len(entries))
	}
}
