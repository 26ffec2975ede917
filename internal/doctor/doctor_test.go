package doctor

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/install"
)

func TestScanLog(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ocmem.log")
	os.WriteFile(p, []byte(`{"time":"t1","level":"INFO","msg":"bodies injected","session":"s1","given":"project:a/b","chars":120}
not json
{"time":"t2","level":"WARN","msg":"remember refused","err":"secret"}
{"time":"t3","level":"INFO","msg":"bodies injected","session":"s2","given":"global:c/d","chars":80}
`), 0o644)
	inj, lastErr := scanLog(p)
	if !strings.Contains(inj, "s2") || !strings.Contains(inj, "global:c/d") {
		t.Errorf("last injection = %q", inj)
	}
	if !strings.Contains(lastErr, "remember refused") || !strings.Contains(lastErr, "secret") {
		t.Errorf("last error = %q", lastErr)
	}
}

// TestRun builds the real binary, installs it into a private config dir and
// expects every check to pass; then breaks the registration and expects the
// doctor to say so.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "ocmem")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/ocmem/ocmem/cmd/ocmem").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cfg := filepath.Join(dir, "config")
	t.Setenv("OPENCODE_CONFIG_DIR", cfg)
	t.Setenv("HOME", dir)
	if _, err := install.Install(install.Options{ConfigDir: cfg, Bin: bin}); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	version := strings.TrimPrefix(strings.TrimSpace(string(out)), "ocmem ")
	c := Config{Version: version, GlobalDir: filepath.Join(cfg, "memory"), Bin: bin}
	rep := Run(c)
	if !rep.OK() {
		t.Fatalf("want all checks to pass:\n%s", rep)
	}
	if !strings.Contains(rep.String(), "git merge driver for ROOT.md: ") {
		t.Errorf("the merge driver is not reported:\n%s", rep)
	}
	if err := os.Remove(filepath.Join(cfg, "opencode.json")); err != nil {
		t.Fatal(err)
	}
	rep = Run(c)
	if rep.OK() || !strings.Contains(rep.String(), "FAIL plugin registered") {
		t.Errorf("want the missing registration reported:\n%s", rep)
	}
	c.Version = "other"
	if rep := Run(c); !strings.Contains(rep.String(), "FAIL ocmem serve") {
		t.Errorf("want a version mismatch reported:\n%s", rep)
	}
}
