package v1

import (
	"slices"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/e2e"
)

// BenchmarkTurnTiming times `opencode run` with and without ocmem against
// the same fake model, one of each per iteration, interleaved so that
// load changes hit both sides alike. It reports the medians and their
// ratio; -benchtime Nx sets the runs per side (each run takes seconds, so
// the default benchtime makes one or two):
//
//	go test ./internal/e2e/v1 -run '^$' -bench '^BenchmarkTurnTiming$' -benchtime 9x
func BenchmarkTurnTiming(b *testing.B) {
	e2e.SkipShort(b)
	plain := e2e.NewEnv(b)
	with := e2e.NewOcmemEnv(b)
	with.RememberRule()
	with.RememberDeploy()
	with.RememberUnrelated()

	const msg = "部署前要做什么?"
	plain.Ask(msg) // first starts pay one-off costs (snapshots, caches)
	with.Ask(msg)
	var a, w []time.Duration
	for b.Loop() {
		a = append(a, plain.Ask(msg).Duration)
		w = append(w, with.Ask(msg).Duration)
	}
	ma, mw := median(a), median(w)
	b.Logf("opencode run, %d runs each: without ocmem median %v min %v %v", len(a), ma.Round(time.Millisecond), slices.Min(a).Round(time.Millisecond), rounded(a))
	b.Logf("opencode run, %d runs each: with ocmem    median %v min %v %v", len(w), mw.Round(time.Millisecond), slices.Min(w).Round(time.Millisecond), rounded(w))
	b.Logf("ratio of medians with/without: %.3f (%+v per run); of minimums: %.3f",
		float64(mw)/float64(ma), (mw - ma).Round(time.Millisecond), float64(slices.Min(w))/float64(slices.Min(a)))
	b.ReportMetric(float64(ma.Milliseconds()), "ms-without")
	b.ReportMetric(float64(mw.Milliseconds()), "ms-with")
	b.ReportMetric(float64(mw)/float64(ma), "ratio")
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
