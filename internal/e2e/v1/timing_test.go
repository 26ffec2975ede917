package v1

import (
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/e2e"
)

// TestTiming times `opencode run` with and without ocmem against the same
// fake model and prints the ratio. It only runs with OCMEM_E2E_TIMING=1
// (OCMEM_E2E_TIMING_RUNS sets the runs per side, default 5):
//
//	OCMEM_E2E_TIMING=1 go test ./internal/e2e/v1 -run TestTiming -v
func TestTiming(t *testing.T) {
	e2e.SkipShort(t)
	if os.Getenv("OCMEM_E2E_TIMING") == "" {
		t.Skip("set OCMEM_E2E_TIMING=1 to time opencode run with and without ocmem")
	}
	runs := 5
	if n, err := strconv.Atoi(os.Getenv("OCMEM_E2E_TIMING_RUNS")); err == nil && n > 0 {
		runs = n
	}
	plain := e2e.NewEnv(t)
	with := e2e.NewOcmemEnv(t)
	with.RememberRule()
	with.RememberDeploy()
	with.RememberUnrelated()

	const msg = "部署前要做什么?"
	plain.Ask(msg) // first starts pay one-off costs (snapshots, caches)
	with.Ask(msg)
	var a, b []time.Duration
	for range runs { // interleaved, so load changes hit both sides alike
		a = append(a, plain.Ask(msg).Duration)
		b = append(b, with.Ask(msg).Duration)
	}
	ma, mb := median(a), median(b)
	t.Logf("opencode run, %d runs each: without ocmem median %v min %v %v", runs, ma.Round(time.Millisecond), slices.Min(a).Round(time.Millisecond), rounded(a))
	t.Logf("opencode run, %d runs each: with ocmem    median %v min %v %v", runs, mb.Round(time.Millisecond), slices.Min(b).Round(time.Millisecond), rounded(b))
	t.Logf("ratio of medians with/without: %.3f (%+v per run); of minimums: %.3f",
		float64(mb)/float64(ma), (mb - ma).Round(time.Millisecond), float64(slices.Min(b))/float64(slices.Min(a)))
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func rounded(d []time.Duration) []time.Duration {
	out := make([]time.Duration, len(d))
	for i, x := range d {
		out[i] = x.Round(time.Millisecond)
	}
	return out
}
