// Command ocmem-bench measures ocmem at scale beside SQLite FTS5 (issue 8):
// recall latency in a warm engine, a fresh `ocmem recall` process with and
// without its cache, reload after one file changes, peak memory, and the
// same queries against three FTS5 tables, all in one run on one corpus.
//
//	cd bench && go run ./cmd/ocmem-bench -sizes 1000,10000,100000 -json out.json
//	cd bench && go run ./cmd/ocmem-bench -sizes 1000   # quick mode
//
// Shared machines are noisy: absolute figures move from run to run, so the
// figures to quote are the ratios between systems measured in the same run,
// whose queries are interleaved for exactly that reason.
//
// It exits 1 when a planted needle does not rank first or a reload misses
// the edit it follows, 2 on bad usage or when something could not be
// measured.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The time every ranking is done at, Unix milliseconds, so that decay is the
// same in the engine and the CLI and from one run to the next. It lies after
// every generated memory (benchgen dates them in late 2025 to 2027).
const rankNow int64 = 1_830_000_000_000

type config struct {
	sizes  []int
	dir    string // corpus root; "" means a temp dir removed afterwards
	keep   bool
	repo   string // the parent module's directory
	bin    string // a prebuilt ocmem; "" builds one
	runs   int    // fresh processes and reloads per measurement
	rounds int    // passes over the query set per size
	json   string
	// writes measures the write path too (writes.go); writesOnly measures
	// nothing else; compare is a second binary measured beside the first.
	writes, writesOnly bool
	compare            string
}

func main() {
	if os.Getenv(probeEnv) != "" {
		os.Exit(probe(os.Args[1:]))
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ocmem-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	sizes := fs.String("sizes", "1000,10000,100000", "comma-separated corpus sizes (memories over both roots)")
	fs.StringVar(&c.dir, "dir", "", "generate corpora under this directory and reuse them on the next run (default: a temp dir)")
	fs.BoolVar(&c.keep, "keep", false, "keep the temp dir")
	fs.StringVar(&c.repo, "repo", "", "the ocmem module's directory (default: found with go list)")
	fs.StringVar(&c.bin, "bin", "", "use this ocmem binary instead of building one")
	fs.IntVar(&c.runs, "runs", 5, "fresh processes (cold and warm) and one-file reloads per size; the median is reported")
	fs.IntVar(&c.rounds, "rounds", 20, "timed passes over the query set per size")
	fs.StringVar(&c.json, "json", "", "also write the results as JSON to this file")
	fs.BoolVar(&c.writes, "writes", false, "also measure the write path: remember and forget by a fresh CLI and through serve, a hand edit seen by serve")
	fs.BoolVar(&c.writesOnly, "writes-only", false, "measure the write path only")
	fs.StringVar(&c.compare, "compare", "", "with -writes or -writes-only: another ocmem binary whose write path is measured in the same run, alternated with this build's")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			fmt.Fprintf(stderr, "ocmem-bench: -sizes: %q is not a positive number\n", s)
			return 2
		}
		c.sizes = append(c.sizes, n)
	}
	slices.Sort(c.sizes)
	c.sizes = slices.Compact(c.sizes)
	if c.runs < 1 || c.rounds < 1 {
		fmt.Fprintln(stderr, "ocmem-bench: -runs and -rounds must be at least 1")
		return 2
	}
	rep, err := bench(c, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "ocmem-bench: %v\n", err)
		return 2
	}
	if !c.writesOnly {
		writeMarkdown(stdout, rep)
	}
	writeWrites(stdout, rep)
	if c.json != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(c.json, append(b, '\n'), 0o644); err != nil {
			fmt.Fprintf(stderr, "ocmem-bench: %v\n", err)
			return 2
		}
	}
	if !c.writesOnly && !rep.Pass() {
		fmt.Fprintln(stderr, "ocmem-bench: FAIL: a planted needle did not rank first, a reload missed an edit, or an outline overran its budget")
		return 1
	}
	return 0
}

// logf reports progress: a 100k run takes minutes, and a silent one looks hung.
var logw io.Writer = os.Stderr

func logf(format string, args ...any) {
	fmt.Fprintf(logw, "%s  "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

func bench(c config, stderr io.Writer) (*report, error) {
	logw = stderr
	// Absolute, because the build runs in the parent module's directory and
	// the CLI is handed these paths.
	base, err := filepath.Abs(c.dir)
	if err != nil {
		return nil, err
	}
	if c.dir == "" {
		d, err := os.MkdirTemp("", "ocmem-bench-")
		if err != nil {
			return nil, err
		}
		base = d
		if c.keep {
			logf("corpora kept in %s", base)
		} else {
			defer os.RemoveAll(base)
		}
	}
	if c.repo == "" {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/ocmem/ocmem").Output()
		if err != nil {
			return nil, fmt.Errorf("find the ocmem module (run from bench/ or pass -repo): %w", err)
		}
		c.repo = strings.TrimSpace(string(out))
	}
	rep := &report{Machine: describeMachine(c.repo), Runs: c.runs, Rounds: c.rounds, NowMillis: rankNow, NeedlesPass: true}
	bin := c.bin
	if bin == "" {
		// One build for the whole run, from the parent module itself: its
		// go.mod, not this one's, decides what the product is built with.
		bin = filepath.Join(base, "ocmem")
		logf("building %s", bin)
		cmd := exec.Command("go", "build", "-o", bin, "github.com/ocmem/ocmem/cmd/ocmem")
		cmd.Dir = c.repo
		cmd.Stdout, cmd.Stderr = stderr, stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("build ocmem: %w", err)
		}
	}
	var qs []query
	for _, size := range c.sizes {
		cor, err := prepareCorpus(base, size)
		if err != nil {
			return nil, err
		}
		if qs == nil {
			// Derived from the smallest corpus; benchgen makes every corpus
			// a prefix of the larger ones, so the queries, like their
			// answers, are the same at every size.
			if qs, err = buildQueries(cor); err != nil {
				return nil, err
			}
			rep.Queries = qs
		}
		res, err := measureSize(c, bin, cor, qs)
		if err != nil {
			return nil, fmt.Errorf("%d memories: %w", size, err)
		}
		for _, n := range res.Needles {
			rep.NeedlesPass = rep.NeedlesPass && n.Pass
		}
		rep.Sizes = append(rep.Sizes, res)
	}
	rep.Machine.LoadEnd = loadAverage()
	return rep, nil
}
