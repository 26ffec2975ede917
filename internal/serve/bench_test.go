package serve

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/trust"
)

// BenchmarkEngineFor is the work every request does before it reaches the
// engine: find the roots, read the user's and the repository's OpenCode
// config files and the trust list, guard the options, and find the
// project's engine. Typical layout: a global config with ocmem's options,
// a repository with its own opencode.json, a trust list naming two
// projects.
func BenchmarkEngineFor(b *testing.B) {
	d := b.TempDir()
	cfgDir, repo := filepath.Join(d, "opencode"), filepath.Join(d, "repo")
	for path, content := range map[string]string{
		filepath.Join(cfgDir, "opencode.json"):    `{"$schema": "https://opencode.ai/config.json", "plugin": [["/u/.config/opencode/plugin/ocmem.js", {"maxInjectChars": 800}]]}`,
		filepath.Join(repo, "opencode.json"):      `{"model": "x/y", "plugin": [["ocmem", {"extractModel": {"providerID": "p", "id": "big"}, "minTurns": 2}]]}`,
		filepath.Join(repo, ".memory", "ROOT.md"): "# ROOT\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	list := trust.List{Path: filepath.Join(d, "trusted.json")}
	if _, err := list.Trust(trust.ProjectKey(filepath.Join(d, "other", ".memory")), time.Unix(1700000000, 0)); err != nil {
		b.Fatal(err)
	}
	if _, err := list.Trust(trust.ProjectKey(filepath.Join(repo, ".memory")), time.Unix(1700000000, 0)); err != nil {
		b.Fatal(err)
	}
	s := New(Config{GlobalDir: filepath.Join(d, "global"), TrustFile: list.Path, OpenCodeConfigDir: cfgDir})
	c := &common{Worktree: repo, Directory: repo,
		Options: json.RawMessage(`{"extractModel": {"providerID": "p", "id": "big"}, "minTurns": 2, "maxInjectChars": 800}`)}
	first, err := s.engineFor(c)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		e, err := s.engineFor(c)
		if err != nil || e != first {
			b.Fatalf("engineFor: %v, same engine %v", err, e == first)
		}
	}
}
