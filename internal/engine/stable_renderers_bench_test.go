package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ocmem/ocmem/internal/benchgen"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/tiers"
	"github.com/ocmem/ocmem/internal/trust"
)

// BenchmarkStableRenderers weighs the single-pass renderer of the stable
// tiers (renderStable) against the three-pass reference it must match
// (stable_ref_test.go), on a store where one memory in a hundred is a rule,
// as in a realistic store, every project rule accepted.
func BenchmarkStableRenderers(b *testing.B) {
	dir := b.TempDir()
	if keep := os.Getenv("OCMEM_BENCH_DIR"); keep != "" {
		dir = filepath.Join(keep, "rules-1pct-10000")
	}
	if _, err := os.Stat(filepath.Join(dir, "complete")); err != nil {
		os.RemoveAll(dir)
		if _, err := benchgen.Write(dir, benchgen.Config{Memories: 10000, RuleShare: 0.01}); err != nil {
			b.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "complete"), nil, 0o644)
	}
	b.Setenv("OCMEM_CACHE_DIR", filepath.Join(dir, "cache"))
	c := &corpus{dir: dir}
	e := benchEngine(c)
	s, err := e.Load()
	if err != nil {
		b.Fatal(err)
	}
	pinned := tiers.Project(s, e.project, trust.AllInForce()).Pins()
	g := trust.NewGate(trust.State{Trusted: true, Pins: pinned}, nil)
	roots := e.roots()
	b.Run("single-pass", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tiers.Render(s, roots, e.project, g, options.DefaultMaxOutlineChars)
		}
	})
	// What a worktree with a gone memory pays once per move of the
	// snapshot or the repository: the outline rendered again, the mark
	// counted in its line (tiers.Marks).
	b.Run("outline-gone", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tiers.Outline(s, roots, options.DefaultMaxOutlineChars, map[int]bool{0: true})
		}
	})
	b.Run("reference", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			renderRulesRef(s, roots, g)
			renderOutlineRef(s, roots, options.DefaultMaxOutlineChars)
			projectRulesRef(s, e.project, g)
		}
	})
}
