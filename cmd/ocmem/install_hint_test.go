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
