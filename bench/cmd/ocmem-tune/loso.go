package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/ocmem/ocmem/internal/rank"
)

// The leave-one-store-out sweep: for each threshold or weight of
// rank.Tuning, every value of a grid is run in Inject mode on the four
// development sets, the others at their defaults. A value is chosen on a
// group of sets among those that reach the most hits the grid reaches over
// them (messages given a memory they want, summed over the sets) and lose
// no more than 0.03 of MRR on any: the one with the best mean over them of
// MRR + negative quiet + precision − scope violations; of tied values the
// middle one. Hit first, because a body not given cannot be read; the
// rest is what the tokens buy. Printed: the value chosen on all four, and
// for each set the value chosen on the other three and what that value
// gives on the set left out.

type param struct {
	name string
	grid []float64
	set  func(*rank.Tuning, float64)
}

var params = []param{
	{"InjectCutoff", []float64{0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7}, func(t *rank.Tuning, v float64) { t.InjectCutoff = v }},
	{"InjectCutoffLines", []float64{0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7}, func(t *rank.Tuning, v float64) { t.InjectCutoffLines = v }},
	{"CoverageCut", []float64{0.01, 0.1, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6}, func(t *rank.Tuning, v float64) { t.CoverageCut = v }},
	{"ConflictOverlap", []float64{0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 1.01}, func(t *rank.Tuning, v float64) { t.ConflictOverlap = v }},
	{"TranslatedWeight", []float64{0.25, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9}, func(t *rank.Tuning, v float64) { t.TranslatedWeight = v }},
	{"ShortWeight", []float64{0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 1}, func(t *rank.Tuning, v float64) { t.ShortWeight = v }},
	// 0.5 stands for 0, the test off: a zero field means the default.
	{"MinHeadTerms", []float64{0.5, 1, 2, 3, 4}, func(t *rank.Tuning, v float64) { t.MinHeadTerms = v }},
	{"MinCoverage", []float64{0.05, 0.1, 0.15, 0.2, 0.25, 0.3}, func(t *rank.Tuning, v float64) { t.MinCoverage = v }},
	{"MinRelevance", []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 1}, func(t *rank.Tuning, v float64) { t.MinRelevance = v }},
	{"MaxCommonShare", []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.7}, func(t *rank.Tuning, v float64) { t.MaxCommonShare = v }},
	{"MinFamiliar", []float64{0.3, 0.4, 0.5, 0.6, 0.7}, func(t *rank.Tuning, v float64) { t.MinFamiliar = v }},
	// 1.01 stands for the topic test off.
	// 0.001 stands for 0, no headline factor.
	{"Aboutness", []float64{0.001, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 1}, func(t *rank.Tuning, v float64) { t.Aboutness = v }},
	{"Focus", []float64{0.001, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.8}, func(t *rank.Tuning, v float64) { t.Focus = v }},
	{"TopicCoverage", []float64{0.01, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1, 1.01}, func(t *rank.Tuning, v float64) { t.TopicCoverage = v }},
}

// sweep prints the sweep of every field of rank.Tuning, or of the one
// named only.
func sweep(w io.Writer, sets []devSet, only string, graded bool) error {
	found := false
	for _, p := range params {
		if only != "" && p.name != only {
			continue
		}
		found = true
		table, err := sweepParam(p, sets, graded)
		if err != nil {
			return err
		}
		if _, err := io.WriteString(w, table); err != nil {
			return err
		}
	}
	if !found {
		names := make([]string, len(params))
		for i, p := range params {
			names[i] = p.name
		}
		return fmt.Errorf("-param %q is none of %s", only, strings.Join(names, ", "))
	}
	return nil
}

// sweepParam runs p's grid on the sets and returns its table.
func sweepParam(p param, sets []devSet, graded bool) (string, error) {
	// figures[i][s]: the grid's value i on set s.
	figures := make([][]losoFigure, len(p.grid))
	for i, v := range p.grid {
		var tune rank.Tuning
		p.set(&tune, v)
		for _, s := range sets {
			m, err := measure(s, rank.Inject, &tune)
			if err != nil {
				return "", err
			}
			figures[i] = append(figures[i], losoFigure{hit: m.mean("ALL", "hit"), mrr: m.mean("ALL", "mrr"), quiet: m.mean("negative", "quiet"), precision: m.mean("ALL", "precision"),
				quietG: m.mean("negative", "quiet_g"), precisionG: m.mean("ALL", "precision_g"), scopeViolation: m.mean("scope", "violation"), wanting: len(m["ALL"]["hit"]), graded: graded})
		}
	}
	all := make([]int, len(sets))
	for s := range all {
		all[s] = s
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: chosen on all four: %v\n", p.name, p.grid[chooseLOSO(figures, all)])
	for out := range sets {
		var train []int
		for s := range sets {
			if s != out {
				train = append(train, s)
			}
		}
		i := chooseLOSO(figures, train)
		fmt.Fprintf(&b, "  %-10s left out: chosen %v → %s\n", sets[out].name, p.grid[i], figures[i][out])
	}
	for i, v := range p.grid {
		fmt.Fprintf(&b, "  %v:", v)
		for s := range sets {
			fmt.Fprintf(&b, " %s %s;", sets[s].name, figures[i][s])
		}
		b.WriteString("\n")
	}
	return b.String(), nil
}

type losoFigure struct {
	hit, mrr, quiet, precision float64
	// quietG, precisionG: the graded figures (a related memory is
	// acceptable), -1 when the set is not graded.
	quietG, precisionG float64
	scopeViolation     float64
	wanting            int  // messages that want a memory
	graded             bool // score by the graded figures
}

// hits is the number of messages that got a memory they want.
func (f losoFigure) hits() int { return int(math.Round(f.hit * float64(f.wanting))) }

func (f losoFigure) String() string {
	s := fmt.Sprintf("hit %.3f mrr %.3f prec %.3f", f.hit, f.mrr, f.precision)
	if f.quiet >= 0 {
		s += fmt.Sprintf(" quiet %.3f", f.quiet)
	}
	if f.precisionG >= 0 {
		s += fmt.Sprintf(" prec_g %.3f", f.precisionG)
	}
	if f.quietG >= 0 {
		s += fmt.Sprintf(" quiet_g %.3f", f.quietG)
	}
	if f.scopeViolation >= 0 {
		s += fmt.Sprintf(" scope-v %.3f", f.scopeViolation)
	}
	return s
}

// score is what a value buys beside its hits: MRR, negative quiet and
// precision, less scope violations. Graded (-graded, on a graded set), a
// related memory given counts as wanted: what the tokens buy is a memory
// the message wants or one an engineer would glance at.
func (f losoFigure) score() float64 {
	quiet, precision := f.quiet, f.precision
	if f.graded && f.precisionG >= 0 {
		quiet, precision = f.quietG, f.precisionG
	}
	return f.mrr + max(quiet, 0) + precision - max(f.scopeViolation, 0)
}

// chooseLOSO returns the grid index chosen on the sets train: among the
// values that reach the grid's most hits over them (messages given a memory
// they want, summed) and stay within 0.03 of the grid's best MRR on each,
// the best mean score; of tied values, the middle one. When every value
// with the most hits loses more MRR than that, they all tie.
func chooseLOSO(figures [][]losoFigure, train []int) int {
	most, bestMRR := 0, map[int]float64{}
	for _, row := range figures {
		hits := 0
		for _, s := range train {
			hits += row[s].hits()
			bestMRR[s] = max(bestMRR[s], row[s].mrr)
		}
		most = max(most, hits)
	}
	best, ties := math.Inf(-1), []int(nil)
	for i, row := range figures {
		hits, score := 0, 0.0
		for _, s := range train {
			hits += row[s].hits()
			if row[s].mrr < bestMRR[s]-0.03 {
				score = math.Inf(-1)
			}
			score += row[s].score() / float64(len(train))
		}
		if hits < most {
			continue
		}
		switch {
		case score > best+1e-9:
			best, ties = score, []int{i}
		case score == best || math.Abs(score-best) <= 1e-9:
			ties = append(ties, i)
		}
	}
	return ties[len(ties)/2]
}
