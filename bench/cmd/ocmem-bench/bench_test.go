package main

import (
	"slices"
	"testing"
	"time"
)

// The trigram baseline must ask SQLite what shared/eval/run.py asks, or the
// two benchmarks stop being comparable.
func TestTrigramTermsAsRunPy(t *testing.T) {
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"缓存 预热", nil}, // two-character words: nothing trigram can express
		{"部署前要检查", []string{"前要检", "署前要", "要检查", "部署前"}}, // code-point order, as Python sorts,
		{"Redis，TTL!", []string{"Red", "TTL", "dis", "edi"}},
		{"user_id", []string{"_id", "er_", "r_i", "ser", "use"}},
		{"aaaa aaa", []string{"aaa"}},
	} {
		if got := trigramTerms(c.q); !slices.Equal(got, c.want) {
			t.Errorf("trigramTerms(%q) = %q, want %q", c.q, got, c.want)
		}
	}
}

func TestOrExprQuotes(t *testing.T) {
	if got, want := orExpr([]string{`a"b`, "部署"}), `"a""b" OR "部署"`; got != want {
		t.Errorf("orExpr = %s, want %s", got, want)
	}
	if got := orExpr(nil); got != "" {
		t.Errorf("orExpr(nil) = %q, want empty: a query without terms is not sent", got)
	}
}

func TestPercentileIsNearestRank(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	l := latencyOf(ds)
	if l.P50 != 50 || l.P99 != 99 || l.Max != 100 || l.N != 100 {
		t.Errorf("latencyOf(1..100 ms) = %+v, want p50 50, p99 99, max 100", l)
	}
	if s := statsOf(ds[:5]); s.Median != 3 || s.Min != 1 || s.Max != 5 {
		t.Errorf("statsOf(1..5 ms) = %+v, want median 3", s)
	}
}
