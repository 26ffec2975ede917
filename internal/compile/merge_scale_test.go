package compile

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// bigRoot is a ROOT.md with n registry rows, and with routing n routing
// rows of two links each; side shifts which ones it holds, so three sides
// differ.
func bigRoot(n, side int, routes bool) []byte {
	rows := make([]registryRow, 0, n)
	routing := map[string]*routingRow{}
	for i := range n {
		c := fmt.Sprintf("c%06d", i+side)
		rows = append(rows, registryRow{c, 1 + side, 0})
		if routes {
			routing[c] = &routingRow{label: c, ids: []string{c + "/a", fmt.Sprintf("%s/b%d", c, side)}}
		}
	}
	return []byte("# Memory\n\n" + beginRegistry + "\n" + registryTable(rows) + endRegistry + "\n\n" +
		beginRouting + "\n" + routingTable(routing) + endRouting + "\n")
}

// oursText is a text merge that keeps our side: the tables are what is
// measured.
func oursText(_, ours, _ []byte) ([]byte, bool, error) { return ours, false, nil }

// mergeCPU is the CPU time (the wall time where that is not measured) of
// merging three ROOT.md files of n rows.
func mergeCPU(t testing.TB, n int, routes bool) time.Duration {
	base, ours, theirs := bigRoot(n, 0, routes), bigRoot(n, 1, routes), bigRoot(n, 2, routes)
	start, wall := processCPU(), time.Now()
	got, conflict, err := MergeRoot(base, ours, theirs, oursText)
	cpu, w := processCPU()-start, time.Since(wall)
	if err != nil || conflict || !strings.Contains(string(got), fmt.Sprintf("c%06d", n+1)) {
		t.Fatalf("MergeRoot(%d rows): conflict %v, error %v", n, conflict, err)
	}
	if cpu <= 0 {
		return w
	}
	return cpu
}

// TestMergeRootLinear: sixteen times the rows cost about sixteen times the
// CPU, not 256 (a hostile branch with 40,000 registry rows once hung `git
// pull` for a minute; that code took 60 to 70 times as long here). The
// bound, 40, is two and a half times linear; each size is measured three
// times and the fastest kept.
func TestMergeRootLinear(t *testing.T) {
	if testing.Short() || raceEnabled || runtime.GOOS == "windows" {
		t.Skip("measures CPU time")
	}
	for _, routes := range []bool{false, true} {
		best := func(n int) time.Duration {
			d := mergeCPU(t, n, routes)
			for range 2 {
				d = min(d, mergeCPU(t, n, routes))
			}
			return d
		}
		small, large := best(1000), best(16000)
		r := float64(large) / float64(small)
		t.Logf("routing rows %v: 1,000 rows %v, 16,000 rows %v (%.1f×)", routes, small, large, r)
		if r > 40 {
			t.Errorf("routing rows %v: 1,000 rows %v, 16,000 rows %v, %.1f times as long, want about 16", routes, small, large, r)
		}
	}
}

// BenchmarkMergeRoot merges ROOT.md files of 5,000 and 40,000 rows; the
// ratio of the two is the point (8 for a linear merge).
func BenchmarkMergeRoot(b *testing.B) {
	for _, n := range []int{5000, 40000} {
		base, ours, theirs := bigRoot(n, 0, false), bigRoot(n, 1, false), bigRoot(n, 2, false)
		b.Run(fmt.Sprintf("%drows", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := MergeRoot(base, ours, theirs, oursText); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
