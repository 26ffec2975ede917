package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeListsEveryCommand: the README's "Command line" block names
// every command `ocmem help` lists, on a line of its own that starts with
// `ocmem`, and no command that does not exist.
func TestReadmeListsEveryCommand(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "## Command line\n")
	if !ok {
		t.Fatal(`README has no "## Command line"`)
	}
	_, block, ok := strings.Cut(after, "```\n")
	if !ok {
		t.Fatal("no block after ## Command line")
	}
	block, _, _ = strings.Cut(block, "\n```")

	// A line names a command after `ocmem ` and after each ` | ` that
	// joins commands on one line (`ocmem rules | accept ID | reject ID`).
	named := map[string]bool{}
	word := regexp.MustCompile(`^[a-z][a-z-]*`)
	for _, line := range strings.Split(block, "\n") {
		rest, ok := strings.CutPrefix(line, "ocmem ")
		if !ok {
			continue
		}
		named[word.FindString(rest)] = true
		for _, alt := range strings.Split(rest, " | ")[1:] {
			if w := word.FindString(alt); w != "" && !strings.HasPrefix(alt, "--") {
				named[w] = true
			}
		}
	}
	for _, c := range commands {
		if !named[c.name] {
			t.Errorf("README's command list does not name `ocmem %s`", c.name)
		}
	}
	for name := range named {
		if _, err := lookup(name); err != nil {
			t.Errorf("README's command list names `ocmem %s`, which is no command", name)
		}
	}
}
