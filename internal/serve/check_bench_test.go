package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/benchgen"
)

// BenchmarkCheckMethod is serve's check method as the plugin calls it
// before every tool call, over serve's pipe (the request written and
// decoded, the roots and options found, the engine's decision, the reply
// encoded and read back; the file watch running), in a generated store
// (OCMEM_CHECK_BENCH_SIZE memories, default 10,000) without guards and then
// with 100 guarded rules, in the same run. It reports p50 and p99.
func BenchmarkCheckMethod(b *testing.B) {
	size := 10000
	if s := os.Getenv("OCMEM_CHECK_BENCH_SIZE"); s != "" {
		fmt.Sscan(s, &size)
	}
	b.Setenv("OCMEM_CACHE_DIR", b.TempDir())
	d := b.TempDir()
	if _, err := benchgen.Write(d, benchgen.Config{Memories: size}); err != nil {
		b.Fatal(err)
	}
	repo := filepath.Join(d, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		b.Fatal(err)
	}
	s := New(Config{GlobalDir: filepath.Join(d, "global"), ProjectDir: filepath.Join(d, "project"), OpenCodeConfigDir: filepath.Join(d, "opencode")})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background(), inR, outW); outW.Close() }()
	defer func() { inW.Close(); <-done }()
	out := bufio.NewScanner(outR)
	out.Buffer(make([]byte, 1<<20), 8<<20)
	id := 0
	check := func(cmd string) checkResult {
		id++
		line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "check", "params": map[string]any{
			"sessionID": "ses_b", "worktree": repo, "directory": repo, "tool": "bash", "callID": "c",
			"args": map[string]any{"command": cmd, "description": "d"}}})
		if _, err := inW.Write(append(line, '\n')); err != nil || !out.Scan() {
			b.Fatalf("no reply: %v", err)
		}
		var r struct {
			Result checkResult
			Error  any
		}
		if err := json.Unmarshal(out.Bytes(), &r); err != nil || r.Error != nil {
			b.Fatalf("%s: %v", out.Bytes(), err)
		}
		return r.Result
	}
	calls := []string{"go test ./... && git status", "cd app; bash -c 'make build' | tee log.txt"}
	run := func(b *testing.B) {
		var lat []time.Duration
		i := 0
		for b.Loop() {
			start := time.Now()
			res := check(calls[i%len(calls)])
			lat = append(lat, time.Since(start))
			if res.Action != "" {
				b.Fatalf("%+v", res)
			}
			i++
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
		b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
	}
	check(calls[0]) // the first load
	b.Run("guards=0", run)
	for i := range 100 {
		rule := fmt.Sprintf("---\nid: rules/guard-%03d\nkind: rule\nsummary: guard %d\nenforce:\n  bash:\n    \"tool%03d --force*\": deny\n    \"deploy%03d *\": ask\n  edit:\n    \"generated%03d/**\": deny\n---\n", i, i, i, i, i)
		if err := os.WriteFile(filepath.Join(d, "global", "rules", fmt.Sprintf("guard-%03d.md", i)), []byte(rule), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("guards=100", func(b *testing.B) {
		// The watch sees the new files and reloads.
		for deadline := time.Now().Add(30 * time.Second); len(check(calls[0]).Guarded) == 0; {
			if time.Now().After(deadline) {
				b.Fatal("no guards after the reload")
			}
			time.Sleep(50 * time.Millisecond)
		}
		run(b)
	})
}
