package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestReadmeSetupCommand runs the README's "Set up and run" command as a
// person would paste it, in a fresh HOME with GOBIN set (where
// $(go env GOPATH)/bin is not where go install puts the binary), and
// checks that OpenCode's config then loads ocmem.
func TestReadmeSetupCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and installs ocmem")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the README's command is for a POSIX shell")
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := bytes.Cut(readme, []byte("**Set up and run**"))
	if !ok {
		t.Fatal(`README has no "**Set up and run**"`)
	}
	_, block, ok := bytes.Cut(after, []byte("```sh\n"))
	if !ok {
		t.Fatal("no sh block after **Set up and run**")
	}
	command, _, _ := bytes.Cut(block, []byte("\n```"))

	home := t.TempDir()
	gobin := filepath.Join(home, "gobin")
	goEnv := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	cmd := exec.Command("sh", "-c", string(command))
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "HOME="+home, "GOBIN="+gobin, "XDG_CONFIG_HOME=", "OPENCODE_CONFIG_DIR=",
		"GIT_CONFIG_GLOBAL="+filepath.Join(home, ".gitconfig"),
		// The caller's caches, so the build is not made again from nothing.
		"GOCACHE="+goEnv("GOCACHE"), "GOMODCACHE="+goEnv("GOMODCACHE"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", command, err, out)
	}
	if _, err := os.Stat(filepath.Join(gobin, "ocmem")); err != nil {
		t.Errorf("no ocmem in GOBIN: %v", err)
	}
	cfg, err := os.ReadFile(filepath.Join(home, ".config", "opencode", "opencode.json"))
	if err != nil || !bytes.Contains(cfg, []byte("ocmem")) {
		t.Errorf("OpenCode's config does not load ocmem (%v):\n%s\n%s", err, cfg, out)
	}
}
