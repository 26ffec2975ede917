package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"
)

type report struct {
	Machine     machine       `json:"machine"`
	Runs        int           `json:"runs"`
	Rounds      int           `json:"rounds"`
	NowMillis   int64         `json:"now_ms"`
	Queries     []query       `json:"queries"`
	Sizes       []*sizeResult `json:"sizes"`
	NeedlesPass bool          `json:"needles_pass"`
}

// Pass reports whether every check held: needles first everywhere, and
// every reload saw its edit.
func (r *report) Pass() bool {
	ok := r.NeedlesPass
	for _, s := range r.Sizes {
		ok = ok && s.ReloadFresh && s.OutlineChars <= s.OutlineBudget
	}
	return ok
}

type machine struct {
	Date      string `json:"date"`
	CPUs      int    `json:"cpus"`
	CPU       string `json:"cpu"`
	OSArch    string `json:"os_arch"`
	GoVersion string `json:"go"`
	Commit    string `json:"ocmem_commit"`
	Dirty     bool   `json:"ocmem_dirty"` // built with uncommitted changes to tracked files
	// The 1-minute load average when the run started and ended: on a
	// shared machine, how much else was competing for the CPUs.
	LoadStart string `json:"loadavg_start"`
	LoadEnd   string `json:"loadavg_end"`
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

func describeMachine(repo string) machine {
	m := machine{
		Date: time.Now().UTC().Format("2006-01-02 15:04 MST"), CPUs: runtime.NumCPU(),
		OSArch: runtime.GOOS + "/" + runtime.GOARCH, GoVersion: runtime.Version(), CPU: "unknown",
		LoadStart: loadAverage(),
	}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	// The ocmem binary is built by the go on PATH, which may not be the one
	// that built this program.
	if out, err := exec.Command("go", "env", "GOVERSION").Output(); err == nil {
		m.GoVersion = strings.TrimSpace(string(out))
	}
	if out, err := exec.Command("git", "-C", repo, "rev-parse", "--short", "HEAD").Output(); err == nil {
		m.Commit = strings.TrimSpace(string(out))
	}
	if out, err := exec.Command("git", "-C", repo, "status", "--porcelain", "--untracked-files=no").Output(); err == nil {
		m.Dirty = len(out) > 0
	}
	return m
}

// latency summarizes per-query times, in milliseconds.
type latency struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
}

func latencyOf(ds []time.Duration) latency {
	if len(ds) == 0 {
		return latency{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return latency{N: len(s), P50: ms(percentile(s, 0.50)), P99: ms(percentile(s, 0.99)), Max: ms(s[len(s)-1])}
}

// runStats summarizes a few expensive runs, in milliseconds: the median is
// the figure, min and max show the spread.
type runStats struct {
	N      int     `json:"n"`
	Median float64 `json:"median_ms"`
	Min    float64 `json:"min_ms"`
	Max    float64 `json:"max_ms"`
}

func statsOf(ds []time.Duration) runStats {
	if len(ds) == 0 {
		return runStats{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return runStats{N: len(s), Median: ms(percentile(s, 0.5)), Min: ms(s[0]), Max: ms(s[len(s)-1])}
}

// percentile is the nearest-rank percentile of sorted durations: always a
// time that was measured, never an interpolation.
func percentile(sorted []time.Duration, p float64) time.Duration {
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// num prints a figure with about three significant digits.
func num(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v < 0.1:
		return fmt.Sprintf("%.3f", v)
	case v < 10:
		return fmt.Sprintf("%.2f", v)
	case v < 100:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

func count(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func writeMarkdown(w io.Writer, r *report) {
	m := r.Machine
	dirty := ""
	if m.Dirty {
		dirty = " with uncommitted changes"
	}
	fmt.Fprintf(w, "ocmem %s%s · %s · %d × %s · %s %s · load average %s at start, %s at end\n\n",
		m.Commit, dirty, m.Date, m.CPUs, m.CPU, m.GoVersion, m.OSArch, m.LoadStart, m.LoadEnd)
	kinds := map[string]int{}
	for _, q := range r.Queries {
		kinds[q.Kind]++
	}
	var ks []string
	for _, k := range queryKinds {
		ks = append(ks, fmt.Sprintf("%d %s", kinds[k], k))
	}
	fmt.Fprintf(w, "%d queries (%s) × %d timed rounds per system; fresh processes and reloads: median of %d.\n\n",
		len(r.Queries), strings.Join(ks, ", "), r.Rounds, r.Runs)

	fmt.Fprintln(w, "**Recall in a warm engine beside SQLite FTS5**, ms per query, p50 / p99; ratio = ocmem ÷ FTS5 (below 1: ocmem faster)")
	fmt.Fprintln(w)
	fmt.Fprint(w, "| memories | ocmem |")
	for _, s := range ftsSystems {
		fmt.Fprintf(w, " %s | ratio |", s.Name)
	}
	fmt.Fprint(w, "\n|---:|---:|")
	for range ftsSystems {
		fmt.Fprint(w, "---:|---:|")
	}
	fmt.Fprintln(w)
	for _, s := range r.Sizes {
		fmt.Fprintf(w, "| %s | %s / %s |", count(s.Memories), num(s.Recall.P50), num(s.Recall.P99))
		for _, f := range s.FTS {
			fmt.Fprintf(w, " %s / %s | %s / %s |", num(f.Recall.P50), num(f.Recall.P99), num(f.RatioP50), num(f.RatioP99))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)

	if len(r.Sizes) > 0 {
		writeByKind(w, r.Sizes[len(r.Sizes)-1], r.Queries)
	}

	fmt.Fprintln(w, "**Load, fresh process, reload, memory**, ms (median of runs) and MB")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| memories | engine load cold / cached | CLI cold | CLI warm | one-file reload | RSS cold | RSS warm | engine heap cold / cached | stable tiers | outline chars / budget | FTS5 build tri / uni / textseg | FTS5 file |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, s := range r.Sizes {
		var builds []string
		for _, f := range s.FTS {
			builds = append(builds, num(f.BuildMS))
		}
		warm := num(s.CLIWarm.Median)
		if !s.CacheWritten {
			warm += " (no cache)"
		}
		fmt.Fprintf(w, "| %s | %s / %s | %s | %s | %s | %s | %s | %s / %s | %s | %d / %d | %s | %s |\n",
			count(s.Memories), num(s.EngineLoadMS), num(s.EngineCachedLoadMS), num(s.CLICold.Median), warm,
			num(s.Reload.Median), num(s.CLIColdRSSMB), num(s.CLIWarmRSSMB), num(s.EngineHeapMB), num(s.EngineCachedHeapMB),
			num(s.StableMS), s.OutlineChars, s.OutlineBudget, strings.Join(builds, " / "), num(s.FTSFileMB))
	}
	fmt.Fprintln(w)

	fmt.Fprintln(w, "**`ocmem serve`** started with the load cache: its first request (start, load, stable tiers), ms; its peak RSS after one message and every query, MB")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| memories | first request | peak RSS |")
	fmt.Fprintln(w, "|---:|---:|---:|")
	for _, s := range r.Sizes {
		rss := num(s.ServeRSSMB)
		if s.ServeRSSMB == 0 {
			rss = "n/a"
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", count(s.Memories), num(s.ServeFirstMS), rss)
	}
	fmt.Fprintln(w)

	fmt.Fprintln(w, "**Needles** (must rank first in the engine and in the CLI); FTS5 tables: needles ranked first, queries they could not express")
	fmt.Fprintln(w)
	fmt.Fprint(w, "| needle |")
	for _, s := range r.Sizes {
		fmt.Fprintf(w, " %s |", count(s.Memories))
	}
	fmt.Fprint(w, "\n|---|")
	for range r.Sizes {
		fmt.Fprint(w, ":--|")
	}
	fmt.Fprintln(w)
	if len(r.Sizes) > 0 {
		for i, n := range r.Sizes[0].Needles {
			fmt.Fprintf(w, "| %s → %s |", n.Query, n.Want)
			for _, s := range r.Sizes {
				fmt.Fprintf(w, " %s |", needleCell(s.Needles[i]))
			}
			fmt.Fprintln(w)
		}
		for i, f := range r.Sizes[0].FTS {
			fmt.Fprintf(w, "| %s |", f.Name)
			for _, s := range r.Sizes {
				fmt.Fprintf(w, " %d of %d first; %d without terms |", s.FTS[i].NeedlesFirst, len(s.Needles), s.FTS[i].NoTerms)
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintln(w)

	for _, s := range r.Sizes {
		if s.Memories == 100_000 {
			writeTargets(w, s)
		}
	}
}

func needleCell(n needleResult) string {
	if n.Pass {
		return "pass"
	}
	got := n.Engine
	if n.Engine == n.Want {
		got = n.CLI + " (CLI)"
	}
	return "**FAIL**: " + got
}

// writeTargets checks issue 8's targets, which are set at 100,000 memories.
func writeTargets(w io.Writer, s *sizeResult) {
	fmt.Fprintln(w, "**Targets at 100,000 memories**")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| target | measured | met |")
	fmt.Fprintln(w, "|---|---:|:--:|")
	row := func(target, measured string, ok bool) {
		met := "no"
		if ok {
			met = "yes"
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", target, measured, met)
	}
	row("serve recall p50 < 2 ms", num(s.Recall.P50)+" ms", s.Recall.P50 < 2)
	for _, f := range s.FTS {
		row("p50 no slower than "+f.Name, "ratio "+num(f.RatioP50), f.RatioP50 <= 1)
	}
	row("fresh process, warm cache < 300 ms", num(s.CLIWarm.Median)+" ms", s.CLIWarm.Median < 300)
	row("one-file reload < 50 ms", num(s.Reload.Median)+" ms", s.Reload.Median < 50)
	rss := max(s.CLIColdRSSMB, s.CLIWarmRSSMB, s.ServeRSSMB)
	row("peak RSS < 300 MB (CLI cold and warm, serve)", num(rss)+" MB", rss > 0 && rss < 300)
	row("every reload saw its edit", fmt.Sprint(s.ReloadFresh), s.ReloadFresh)
	row("outline within its budget", fmt.Sprintf("%d of %d characters", s.OutlineChars, s.OutlineBudget), s.OutlineChars <= s.OutlineBudget)
	fmt.Fprintln(w)
}

// writeByKind breaks the largest size's p50 down by query kind: where
// ocmem loses or wins, and whether the winner found anything at all.
func writeByKind(w io.Writer, s *sizeResult, qs []query) {
	names := systemNames()
	fmt.Fprintf(w, "**p50 by query kind at %s memories**, ms; last row: queries that found anything\n\n", count(s.Memories))
	fmt.Fprintf(w, "| kind | %s |\n|---|%s\n", strings.Join(names, " | "), strings.Repeat("---:|", len(names)))
	for _, k := range queryKinds {
		fmt.Fprintf(w, "| %s |", k)
		for _, n := range names {
			fmt.Fprintf(w, " %s |", num(s.ByKind[n][k]))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, "| answered |")
	for _, n := range names {
		fmt.Fprintf(w, " %d of %d |", s.Answered[n], len(qs))
	}
	fmt.Fprint(w, "\n\n")
}
