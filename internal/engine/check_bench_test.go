package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/benchgen"
)

// BenchmarkCheck is a tool call's check in a store of 100,000 memories,
// without guards and then with 100 guarded rules added (each with two
// shell patterns and a path glob), in the same run: what the plugin adds
// to every tool call, less the pipe. It reports the p50 and p99 of single
// checks beside the mean.
func BenchmarkCheck(b *testing.B) {
	size := 100000
	if s := os.Getenv("OCMEM_CHECK_BENCH_SIZE"); s != "" {
		fmt.Sscan(s, &size)
	}
	dir := b.TempDir()
	if _, err := benchgen.Write(dir, benchgen.Config{Memories: size}); err != nil {
		b.Fatal(err)
	}
	e := benchEngine(&corpus{dir: dir})
	calls := []ToolCall{
		{Tool: "bash", Args: map[string]any{"command": "go test ./... && git status"}},
		{Tool: "bash", Args: map[string]any{"command": "cd app; bash -c 'make build' | tee log.txt"}},
		{Tool: "edit", Args: map[string]any{"filePath": "src/app/main.go"}, Root: dir},
		{Tool: "read", Args: map[string]any{"filePath": "README.md"}},
	}
	run := func(b *testing.B, wantGuards int) {
		e.Invalidate()
		if g, err := e.Guards(); err != nil || len(g) != wantGuards {
			b.Fatalf("%d guarded rules (%v), want %d", len(g), err, wantGuards)
		}
		var lat []time.Duration
		i := 0
		for b.Loop() {
			start := time.Now()
			v, err := e.Check(calls[i%len(calls)])
			lat = append(lat, time.Since(start))
			if err != nil || v.Stopped() {
				b.Fatalf("%+v, %v", v, err)
			}
			i++
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
		b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
	}
	b.Run("guards=0", func(b *testing.B) { run(b, 0) })
	b.Run("guards=100", func(b *testing.B) {
		for i := range 100 {
			rule := fmt.Sprintf("---\nid: rules/guard-%03d\nkind: rule\nsummary: guard %d\nenforce:\n  bash:\n    \"tool%03d --force*\": deny\n    \"deploy%03d *\": ask\n  edit:\n    \"generated%03d/**\": deny\n---\n", i, i, i, i, i)
			p := filepath.Join(dir, "global", "rules", fmt.Sprintf("guard-%03d.md", i))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(rule), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		run(b, 100)
	})
}
