package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/stale"
)

// BenchmarkInjectStale is BenchmarkInject at 100,000 memories with and
// without the states of anchored memories (a worktree in git to check
// in), turn by turn in the same run: what the states cost a turn when
// nothing moved. The generated memories carry no anchors, so what is
// measured is the cost to every turn: the repository's fingerprint and
// the look at each hit's anchors.
func BenchmarkInjectStale(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	c := benchCorpus(b, 100000)
	code := b.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-q", "-m", "x"}} {
		if args[0] == "add" {
			if err := os.WriteFile(filepath.Join(code, "main.go"), []byte("package main\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		cmd := exec.Command("git", args...)
		cmd.Dir = code
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	e := benchEngine(c)
	if _, err := e.Load(); err != nil {
		b.Fatal(err)
	}
	tracker := stale.NewTracker(code)
	turn := func(i int, t *stale.Tracker) time.Duration {
		e.stale = t
		start := time.Now()
		if _, err := e.Inject(benchQueries[i%len(benchQueries)], InjectOptions{}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	turn(0, tracker) // the outline's anchored memories are found once per load
	var off, on time.Duration
	i := 0
	for b.Loop() {
		// Alternated turn by turn, in both orders, so that the machine's
		// other work weighs on both alike.
		if i%2 == 0 {
			off += turn(i, nil)
			on += turn(i, tracker)
		} else {
			on += turn(i, tracker)
			off += turn(i, nil)
		}
		i++
	}
	e.stale = nil
	b.ReportMetric(float64(off.Nanoseconds())/float64(i), "off-ns/turn")
	b.ReportMetric(float64(on.Nanoseconds())/float64(i), "on-ns/turn")
	b.ReportMetric(float64(on)/float64(off), "on/off")
}
