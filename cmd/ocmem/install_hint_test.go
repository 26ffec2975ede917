package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/install"
)

// After `go install`, ocmem is in $(go env GOPATH)/bin, often not on PATH;
// install's hint then gives the full path and how to add it to PATH.
func TestDoctorHint(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "ocmem")
	os.WriteFile(exe, []byte("x"), 0o755)
	other := filepath.Join(t.TempDir(), "ocmem")
	os.WriteFile(other, []byte("y"), 0o755)
	for _, c := range []struct {
		name string
		look func(string) (string, error)
		want []string
	}{
		{"on PATH", func(string) (string, error) { return exe, nil }, []string{"`ocmem doctor` checks the setup"}},
		{"not on PATH", func(string) (string, error) { return "", errors.New("not found") },
			[]string{"`" + exe + " doctor` checks the setup", "ocmem is not on your PATH", dir}},
		{"another ocmem on PATH", func(string) (string, error) { return other, nil },
			[]string{"`" + exe + " doctor` checks the setup", "`ocmem` on your PATH is another binary (" + other + ")"}},
	} {
		got := doctorHint(exe, c.look)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: hint %q lacks %q", c.name, got, w)
			}
		}
	}
}

// From npm the hint goes through npx, or the launcher npm put on PATH;
// npx's cache is never offered for PATH.
func TestNpmDoctorHint(t *testing.T) {
	if got := npmDoctorHint(&install.NpmInstall{Version: "0.1.0", Npx: true}); got != "`npx ocmem@0.1.0 doctor` checks the setup" {
		t.Errorf("npx: %q", got)
	}
	if got := npmDoctorHint(&install.NpmInstall{Version: "0.1.0"}); got != "`ocmem doctor` (or `npx ocmem@0.1.0 doctor`) checks the setup" {
		t.Errorf("npm i -g: %q", got)
	}
}

// TestCommandFor: serve's notices name the command that runs this binary
// for the person: npx with the version for a binary of an npm platform
// package, `ocmem` when it is the one on PATH, else its full path.
func TestCommandFor(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "node_modules", "ocmem-"+install.NodePlatform())
	npmExe := filepath.Join(pkg, "bin", "ocmem")
	os.MkdirAll(filepath.Dir(npmExe), 0o755)
	os.WriteFile(npmExe, []byte("x"), 0o755)
	os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"ocmem-`+install.NodePlatform()+`","version":"1.2.3"}`), 0o644)
	exe := filepath.Join(dir, "ocmem")
	os.WriteFile(exe, []byte("y"), 0o755)
	notFound := func(string) (string, error) { return "", errors.New("not found") }
	for _, c := range []struct {
		name, exe string
		look      func(string) (string, error)
		want      string
	}{
		{"from npm", npmExe, func(string) (string, error) { return exe, nil }, "npx ocmem@1.2.3"},
		{"the one on PATH", exe, func(string) (string, error) { return exe, nil }, "ocmem"},
		{"not on PATH", exe, notFound, exe},
	} {
		if got := commandFor(c.exe, c.look); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
