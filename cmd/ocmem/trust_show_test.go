package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/trust"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/* with what the commands print")

// `ocmem trust --show` of a ROOT.md section changed since it was accepted
// (its two lists swapped under their lead-ins) shows the person the whole
// section with its headings and lead-ins, as a diff against what they
// accepted, so the move of a line under another lead-in is seen.
func TestTrustShowChangedSection(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, "project")
	list := filepath.Join(dir, "trusted.json")
	for k, v := range map[string]string{
		"HOME": filepath.Join(dir, "home"), "USERPROFILE": filepath.Join(dir, "home"), "XDG_CONFIG_HOME": filepath.Join(dir, "home", ".config"),
		"OPENCODE_CONFIG_DIR": filepath.Join(dir, "home", ".config", "opencode"), "OCMEM_GLOBAL": filepath.Join(dir, "global"),
		"OCMEM_PROJECT": project, "OCMEM_TRUST_FILE": list, "OCMEM_CACHE_DIR": filepath.Join(dir, "cache"), "OCMEM_LOG": filepath.Join(dir, "ocmem.log"),
	} {
		t.Setenv(k, v)
	}
	local := time.Local
	time.Local = time.UTC
	t.Cleanup(func() { time.Local = local })

	root := filepath.Join(project, "ROOT.md")
	write := func(section string) {
		t.Helper()
		if err := os.MkdirAll(project, 0o755); err != nil {
			t.Fatal(err)
		}
		md := "# Memory\n\n## Goals\n\nShip.\n\n## Hard rules\n\n" + section + "\n"
		if err := os.WriteFile(root, []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("### Pushing\n\nAlways do these before pushing:\n\n- make check\n\nNever do these:\n\n- git push --force origin main")
	tl := trust.List{Path: list}
	e := engine.New(engine.Config{ProjectDir: project, Trust: tl.For(project)})
	rules, err := e.ProjectRules()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tl.Accept(trust.ProjectKey(project), time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC),
		[]trust.Pin{trust.NewPin(trust.RootMDSectionKey, rules.Rules[0].Text)}); err != nil {
		t.Fatal(err)
	}
	write("### Pushing\n\nAlways do these before pushing:\n\n- git push --force origin main\n\nNever do these:\n\n- make check")

	var out, errb bytes.Buffer
	cl := &cli{stdout: &out, stderr: &errb}
	if err := cl.dispatch(t.Context(), []string{"trust", "--show"}); err != nil {
		t.Fatalf("trust --show: %v\n%s", err, errb.String())
	}
	got := strings.ReplaceAll(out.String(), list, "$TRUST")
	got = strings.ReplaceAll(got, trust.ProjectKey(project), "$PROJECT")
	golden := filepath.Join("testdata", "golden", "trust-show-changed-section.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("trust --show printed\n%s\nwant (%s)\n%s", got, golden, want)
	}
}
