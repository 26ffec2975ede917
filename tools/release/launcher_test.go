package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// launcherPackage lays out node_modules as npm installs the main package
// and this machine's platform package, with the launcher as shipped and a
// real ocmem built for the test, and returns the launcher's path.
func launcherPackage(t *testing.T, version string) string {
	t.Helper()
	host := hostPlatform()
	if host == "" {
		t.Skipf("%s/%s is not a release platform", runtime.GOOS, runtime.GOARCH)
	}
	plats, _ := parsePlatforms(host)
	p := plats[0]
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	nm := filepath.Join(t.TempDir(), "node_modules")
	bin := filepath.Join(nm, packageName(p), "bin", p.exe())
	if err := goBuild(context.Background(), root, version, p, bin); err != nil {
		t.Fatal(err)
	}
	write := func(rel, data string, mode os.FileMode) {
		path := filepath.Join(nm, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("ocmem/package.json", `{"name":"ocmem","version":"`+version+`","type":"module"}`, 0o644)
	write("ocmem/bin/ocmem.js", string(launcher), 0o755)
	write(packageName(p)+"/package.json", `{"name":"`+packageName(p)+`","version":"`+version+`"}`, 0o644)
	return filepath.Join(nm, "ocmem", "bin", "ocmem.js")
}

func needNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH")
	}
	return node
}

// launcherEnv keeps the binary away from the real HOME, log and roots.
func launcherEnv(t *testing.T) []string {
	d := t.TempDir()
	return append(os.Environ(), "HOME="+d, "XDG_CONFIG_HOME="+filepath.Join(d, "config"), "XDG_CACHE_HOME="+filepath.Join(d, "cache"),
		"OCMEM_GLOBAL="+filepath.Join(d, "global"), "OCMEM_PROJECT=", "OCMEM_LOG="+filepath.Join(d, "ocmem.log"), "OPENCODE_CONFIG_DIR=")
}

// TestLauncherExitStatus: what the binary prints and its exit status come
// through the launcher unchanged.
func TestLauncherExitStatus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ocmem")
	}
	node := needNode(t)
	const version = "0.0.0-launcher"
	js := launcherPackage(t, version)
	for _, tt := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"version"}, 0, "ocmem " + version},
		{[]string{"no-such-command"}, 2, ""},
		{[]string{"forget", "facts/nothing-here"}, 1, ""},
	} {
		cmd := exec.Command(node, append([]string{js}, tt.args...)...)
		cmd.Env = launcherEnv(t)
		out, err := cmd.Output()
		code := 0
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tt.code || !strings.Contains(string(out), tt.out) {
			t.Errorf("ocmem %s through the launcher: exit %d, stdout %q; want exit %d and %q", strings.Join(tt.args, " "), code, out, tt.code, tt.out)
		}
	}
}

// TestLauncherWithoutPlatformPackage: without its platform package the
// launcher says how to get the binary for the way it was installed, with
// the version, and fails.
func TestLauncherWithoutPlatformPackage(t *testing.T) {
	node := needNode(t)
	dir := filepath.Join(t.TempDir(), "node_modules", "ocmem")
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"ocmem","version":"1.2.3","type":"module"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "bin", "ocmem.js"), launcher, 0o755)
	cmd := exec.Command(node, filepath.Join(dir, "bin", "ocmem.js"), "version")
	cmd.Env = launcherEnv(t)
	out, err := cmd.CombinedOutput()
	if ee, ok := errors.AsType[*exec.ExitError](err); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v\n%s", err, out)
	}
	for _, want := range []string{"the package ocmem-", "`npm i -g ocmem@1.2.3 --include=optional`", "run `npx ocmem@1.2.3` again"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the launcher said:\n%s\nwant %q", out, want)
		}
	}
}
