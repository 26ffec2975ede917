package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/rank"
)

// devSet is a development set: a store (global and project folders) and
// its queries.
type devSet struct{ name, dir string }

func (s devSet) engine() *engine.Engine {
	return engine.New(engine.Config{GlobalDir: filepath.Join(s.dir, "global"), ProjectDir: filepath.Join(s.dir, "project")})
}

type devQuery struct {
	ID       string   `json:"id"`
	Q        string   `json:"q"`
	Relevant []string `json:"relevant"`
	MustNot  []string `json:"must_not"`
	Tags     []string `json:"tags"`
	// Related: memories acceptable to give, never required (graded by
	// pooled judgment); nil when the set is not graded.
	Related []string `json:"related"`
}

// devNow is the benchmark's fixed clock.
var devNow = time.UnixMilli(1796100000000)

// queries reads a set's queries.jsonl.
func (s devSet) queries() ([]devQuery, error) {
	f, err := os.Open(filepath.Join(s.dir, "queries.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var qs []devQuery
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var q devQuery
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", f.Name(), n, err)
		}
		qs = append(qs, q)
	}
	return qs, sc.Err()
}

type devMetrics map[string]map[string][]float64 // tag → metric → values

func (m devMetrics) add(tag, metric string, v float64) {
	if m[tag] == nil {
		m[tag] = map[string][]float64{}
	}
	m[tag][metric] = append(m[tag][metric], v)
}

// mean is a metric's mean over a tag's queries, -1 when none has it.
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

// measure runs a set's queries in mode, with the ranker's thresholds and
// weights replaced by tune (nil: the defaults), and scores the first four
// memories each returns, as eval/run.py does.
func measure(s devSet, mode rank.Mode, tune *rank.Tuning) (devMetrics, error) {
	qs, err := s.queries()
	if err != nil {
		return nil, err
	}
	e := s.engine()
	m := devMetrics{}
	for _, q := range qs {
		hits, err := e.Recall(q.Q, engine.RecallOptions{Limit: 4, Now: devNow, Mode: mode, Tuning: tune})
		if err != nil {
			return nil, err
		}
		got := make([]string, len(hits))
		for i, h := range hits {
			got[i] = h.Key()
		}
		for _, tag := range append(q.Tags, "ALL") {
			score(m, tag, q, got)
		}
	}
	return m, nil
}

// score adds what a query got, ranked, to the tag's metrics.
func score(m devMetrics, tag string, q devQuery, got []string) {
	top := got[:min(4, len(got))]
	if len(q.Relevant) > 0 {
		found, rr := 0, 0.0
		for _, r := range q.Relevant {
			if slices.Contains(top, r) {
				found++
			}
		}
		if i := slices.IndexFunc(got, func(g string) bool { return slices.Contains(q.Relevant, g) }); i >= 0 {
			rr = 1 / float64(i+1)
		}
		m.add(tag, "hit", b2f(found > 0))
		m.add(tag, "recall", float64(found)/float64(len(q.Relevant)))
		m.add(tag, "mrr", rr)
	} else {
		m.add(tag, "quiet", b2f(len(top) == 0))
		if q.Related != nil {
			m.add(tag, "quiet_g", b2f(!slices.ContainsFunc(top, func(g string) bool { return !q.acceptable(g) })))
		}
	}
	if len(top) > 0 {
		wanted, acceptable := 0, 0
		for _, g := range top {
			if slices.Contains(q.Relevant, g) {
				wanted++
			}
			if q.acceptable(g) {
				acceptable++
			}
		}
		m.add(tag, "precision", float64(wanted)/float64(len(top)))
		if q.Related != nil {
			m.add(tag, "precision_g", float64(acceptable)/float64(len(top)))
		}
	}
	if len(q.MustNot) > 0 {
		bad := slices.ContainsFunc(q.MustNot, func(x string) bool { return slices.Contains(top, x) })
		m.add(tag, "violation", b2f(bad))
	}
}

// acceptable reports whether a memory may be given for the query: it is
// relevant or related.
func (q devQuery) acceptable(key string) bool {
	return slices.Contains(q.Relevant, key) || slices.Contains(q.Related, key)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
