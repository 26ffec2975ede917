package engine

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/rank"
	"github.com/ocmem/ocmem/internal/testenv"
)

// The retrieval benchmark's development sets (see docs/RETRIEVAL.md). The
// two written for ocmem, dev and turns-dev, are copied into testdata/eval
// (scripts/sync-devsets.sh; TestDevSetsInStep keeps the copy true to the
// benchmark beside the checkout), so every clone runs the quality gates.
// The two built from other projects' public text, ops-dev and ml-dev, stay
// beside the checkout in ../shared/eval. These tests run the sets in
// process, with the same metrics as eval/run.py, and hold the engine to the
// results the retrieval work reached, so a change that loses them fails.

var devSet = flag.String("devset", "testdata/eval/dev", "retrieval development set")
var turnSet = flag.String("turnset", "testdata/eval/turns-dev", "retrieval development set of realistic turns")
var opsSet = flag.String("opsset", "../../../shared/eval/ops-dev", "retrieval development set from a real project (ops)")
var mlSet = flag.String("mlset", "../../../shared/eval/ml-dev", "retrieval development set from a real project (ML)")
var devVerbose = flag.Bool("devset.v", false, "print every query's results")

type devQuery struct {
	ID       string   `json:"id"`
	Q        string   `json:"q"`
	Relevant []string `json:"relevant"`
	MustNot  []string `json:"must_not"`
	Tags     []string `json:"tags"`
}

// devNow is the benchmark's fixed clock.
var devNow = time.UnixMilli(1796100000000)

type devMetrics map[string]map[string][]float64 // tag → metric → values

func (m devMetrics) add(tag, metric string, v float64) {
	if m[tag] == nil {
		m[tag] = map[string][]float64{}
	}
	m[tag][metric] = append(m[tag][metric], v)
}

func (m devMetrics) mean(tag, metric string) float64 {
	vs := m[tag][metric]
	if len(vs) == 0 {
		return -1
	}
	s := 0.0
	for _, v := range vs {
		s += v
	}
	return s / float64(len(vs))
}

func runDevSet(t *testing.T, dir string, mode rank.Mode) devMetrics {
	t.Helper()
	return runDevSetTuned(t, dir, mode, nil)
}

// runDevSetTuned is runDevSet with the ranker's thresholds and weights
// replaced by tune (nil: the defaults).
func runDevSetTuned(t *testing.T, dir string, mode rank.Mode, tune *rank.Tuning) devMetrics {
	t.Helper()
	return runQueries(t, dir, filepath.Join(dir, "queries.jsonl"), mode, tune)
}

// runQueries measures the queries of a JSON-lines file against the store of
// a development set (its global and project folders).
func runQueries(t *testing.T, dir, queries string, mode rank.Mode, tune *rank.Tuning) devMetrics {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "project")); err != nil {
		testenv.Missing(t, "development set %s not found (%v): ops-dev and ml-dev are built from other projects' public text and are not in the repository; they live in ../shared/eval beside the checkout (or name one with -opsset, -mlset)", dir, err)
	}
	f, err := os.Open(queries)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e := New(Config{GlobalDir: filepath.Join(dir, "global"), ProjectDir: filepath.Join(dir, "project")})
	m := devMetrics{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var q devQuery
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatal(err)
		}
		hits, err := e.Recall(q.Q, RecallOptions{Limit: 4, Now: devNow, Mode: mode, Tuning: tune})
		if err != nil {
			t.Fatal(err)
		}
		got := make([]string, len(hits))
		for i, h := range hits {
			got[i] = h.Key()
		}
		top := got[:min(4, len(got))]
		in := func(xs []string, x string) bool {
			for _, y := range xs {
				if y == x {
					return true
				}
			}
			return false
		}
		tags := append(q.Tags, "ALL")
		for _, tag := range tags {
			if len(q.Relevant) > 0 {
				found, rr := 0, 0.0
				for _, r := range q.Relevant {
					if in(top, r) {
						found++
					}
				}
				for i, g := range got {
					if in(q.Relevant, g) {
						rr = 1 / float64(i+1)
						break
					}
				}
				m.add(tag, "hit", b2f(found > 0))
				m.add(tag, "recall", float64(found)/float64(len(q.Relevant)))
				m.add(tag, "mrr", rr)
			} else {
				m.add(tag, "quiet", b2f(len(top) == 0))
			}
			if len(top) > 0 {
				wanted := 0
				for _, g := range top {
					if in(q.Relevant, g) {
						wanted++
					}
				}
				m.add(tag, "precision", float64(wanted)/float64(len(top)))
			}
			if len(q.MustNot) > 0 {
				bad := false
				for _, x := range q.MustNot {
					bad = bad || in(top, x)
				}
				m.add(tag, "violation", b2f(bad))
			}
		}
		if *devVerbose {
			mark := "ok  "
			if len(q.Relevant) > 0 && !anyIn(top, q.Relevant) || len(q.Relevant) == 0 && len(top) > 0 {
				mark = "MISS"
			}
			fmt.Printf("%s %s %q %v\n   want %v not %v\n", mark, q.ID, q.Q, q.Tags, q.Relevant, q.MustNot)
			snap, _ := e.Load()
			var dfs []string
			for _, term := range rank.QueryTerms(q.Q) {
				dfs = append(dfs, fmt.Sprintf("%s:%d", term, snap.Corpus.Index().DF(term)))
			}
			fmt.Printf("   terms %s\n", strings.Join(dfs, " "))
			for i, h := range hits {
				fmt.Printf("   %d %s %.3f cov=%.2f %+v\n", i+1, h.Key(), h.Score, h.Reasons.Coverage, h.Reasons)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

func anyIn(xs, ys []string) bool {
	for _, x := range xs {
		for _, y := range ys {
			if x == y {
				return true
			}
		}
	}
	return false
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func logMetrics(t *testing.T, m devMetrics) {
	tags := make([]string, 0, len(m))
	for tag := range m {
		tags = append(tags, tag)
	}
	sort.Strings(tags)
	for _, tag := range tags {
		var parts []string
		for _, metric := range []string{"hit", "recall", "mrr", "quiet", "precision", "violation"} {
			if v := m.mean(tag, metric); v >= 0 {
				parts = append(parts, fmt.Sprintf("%s=%.3f", metric, v))
			}
		}
		t.Logf("%-12s %s", tag, strings.Join(parts, " "))
	}
}

type floor struct {
	tag, metric string
	min, max    float64
}

func checkFloors(t *testing.T, m devMetrics, floors []floor) {
	t.Helper()
	for _, f := range floors {
		if v := m.mean(f.tag, f.metric); v < f.min || v > f.max {
			t.Errorf("%s %s = %.3f, want within [%.3f, %.3f]", f.tag, f.metric, v, f.min, f.max)
		}
	}
}

// TestDevSet holds injection (Inject mode) on the short questions and
// real-project sets of the development benchmark to the results the
// retrieval work reached, and explicit search (Search mode) to finding at
// least as much.
func TestDevSet(t *testing.T) {
	for _, set := range []struct {
		name   string
		dir    string
		floors map[rank.Mode][]floor
	}{
		{"dev", *devSet, devFloors},
		{"ops-dev", *opsSet, opsFloors},
		{"ml-dev", *mlSet, mlFloors},
	} {
		for _, mode := range []rank.Mode{rank.Inject, rank.Search} {
			t.Run(set.name+"/"+mode.String(), func(t *testing.T) {
				m := runDevSet(t, set.dir, mode)
				logMetrics(t, m)
				checkFloors(t, m, set.floors[mode])
			})
		}
	}
}

// TestTurnSet does the same on realistic turns: pasted logs and code,
// follow-ups and small talk that must get nothing.
func TestTurnSet(t *testing.T) {
	for _, mode := range []rank.Mode{rank.Inject, rank.Search} {
		t.Run(mode.String(), func(t *testing.T) {
			m := runDevSet(t, *turnSet, mode)
			logMetrics(t, m)
			checkFloors(t, m, turnFloors[mode])
		})
	}
}

// Floors: the best reference system of eval/run.py on each set must be
// beaten, and the properties the spec asks for must hold. They sit a little
// below what the engine reached (docs/RETRIEVAL.md), so that an honest
// retune that trades one query for another does not fail, while a real loss
// does.
var devFloors = map[rank.Mode][]floor{
	rank.Inject: {
		{"ALL", "hit", 0.95, 1},
		{"ALL", "mrr", 0.87, 1},
		{"ALL", "precision", 0.5, 1},
		{"crossling", "hit", 0.9, 1},
		{"nobridge", "hit", 0.4, 1},
		{"zh2", "hit", 1, 1},
		{"negative", "quiet", 1, 1},
		{"supersede", "violation", 0, 0},
		{"scope", "violation", 0, 0.1},
		{"noise", "hit", 0.8, 1},
	},
	rank.Search: {
		{"ALL", "hit", 0.93, 1},
		{"crossling", "hit", 0.85, 1},
		{"supersede", "violation", 0, 0},
	},
}

var turnFloors = map[rank.Mode][]floor{
	rank.Inject: {
		{"ALL", "hit", 0.95, 1},
		{"ALL", "mrr", 0.92, 1},
		{"ALL", "precision", 0.68, 1},
		{"negative", "quiet", 0.875, 1},
		{"supersede", "violation", 0, 0},
	},
	rank.Search: {
		{"ALL", "hit", 0.85, 1},
		{"supersede", "violation", 0, 0},
	},
}

// The sets from real projects: their floors hold what was reached on
// them, a little under it.
var opsFloors = map[rank.Mode][]floor{
	rank.Inject: {
		{"ALL", "hit", 0.93, 1},
		{"ALL", "mrr", 0.87, 1},
		{"ALL", "precision", 0.59, 1},
		{"negative", "quiet", 0.55, 1},
		{"followup", "quiet", 1, 1},
		{"plain", "hit", 0.7, 1},
		{"scope", "violation", 0, 0},
		{"supersede", "violation", 0, 0},
	},
	rank.Search: {
		{"ALL", "hit", 0.92, 1},
		{"scope", "violation", 0, 0},
		{"supersede", "violation", 0, 0},
	},
}

var mlFloors = map[rank.Mode][]floor{
	rank.Inject: {
		{"ALL", "hit", 0.9, 1},
		{"ALL", "mrr", 0.86, 1},
		{"ALL", "precision", 0.5, 1},
		{"negative", "quiet", 0.5, 1},
		{"followup", "quiet", 1, 1},
		{"plain", "hit", 0.75, 1},
		{"scope", "violation", 0, 0},
		{"supersede", "violation", 0, 0},
	},
	rank.Search: {
		{"ALL", "hit", 0.9, 1},
		{"supersede", "violation", 0, 0},
	},
}

// The probes: messages written for the two real-project stores by someone
// who had read their memories and not their query sets (testdata/probes;
// docs/RETRIEVAL.md): short Chinese questions on a two-character word,
// plain questions, and messages that must get nothing (acknowledgements,
// questions off the store's subject that share one of its words). They
// decided the acknowledgement test and trigger alternatives; their floors
// hold what was reached, a little under it.
var probeFloors = map[string][]floor{
	"ops-dev": {
		{"ALL", "hit", 0.9, 1},
		{"zh2", "hit", 0.9, 1},
		{"plain", "hit", 0.85, 1},
		{"negative", "quiet", 0.6, 1},
	},
	"ml-dev": {
		{"ALL", "hit", 0.75, 1},
		{"zh2", "hit", 0.7, 1},
		{"plain", "hit", 0.75, 1},
		{"negative", "quiet", 0.7, 1},
	},
}

func TestProbeSets(t *testing.T) {
	for _, set := range []struct{ name, dir string }{{"ops-dev", *opsSet}, {"ml-dev", *mlSet}} {
		t.Run(set.name, func(t *testing.T) {
			m := runQueries(t, set.dir, filepath.Join("testdata", "probes", set.name+".jsonl"), rank.Inject, nil)
			logMetrics(t, m)
			checkFloors(t, m, probeFloors[set.name])
		})
	}
}
