// Command ocmem-tune measures the ranker's thresholds and weights on the
// retrieval benchmark's four development sets (docs/RETRIEVAL.md):
//
//	cd bench && go run ./cmd/ocmem-tune loso                  # the leave-one-store-out sweep
//	cd bench && go run ./cmd/ocmem-tune loso -param Focus     # one field of rank.Tuning
//	cd bench && go run ./cmd/ocmem-tune dump -o /tmp/dev.jsonl # every query's candidates and features
//
// The sets are read from -eval, a folder holding dev, turns-dev, ops-dev and
// ml-dev (default: ../shared/eval beside the repository). The dump is the
// input of scripts/gate-loso.py.
//
// It exits 2 on bad usage or when a set cannot be read.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: ocmem-tune loso [-eval DIR] [-param NAME] [-graded]
       ocmem-tune dump [-eval DIR] [-o FILE]
`

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	fs := flag.NewFlagSet("ocmem-tune "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	eval := fs.String("eval", "", "folder holding the development sets dev, turns-dev, ops-dev and ml-dev (default: ../shared/eval beside the repository)")
	var do func(sets []devSet) error
	switch args[0] {
	case "loso":
		param := fs.String("param", "", "sweep only this field of rank.Tuning")
		graded := fs.Bool("graded", false, "choose by the graded figures (quiet_g, precision_g: a related memory counts as wanted)")
		do = func(sets []devSet) error { return sweep(stdout, sets, *param, *graded) }
	case "dump":
		out := fs.String("o", "", "write the JSON lines to this file (default: standard output)")
		do = func(sets []devSet) error { return dumpTo(*out, stdout, sets) }
	default:
		fmt.Fprintf(stderr, "ocmem-tune: unknown command %q\n%s", args[0], usage)
		return 2
	}
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ocmem-tune: unexpected arguments %q\n%s", fs.Args(), usage)
		return 2
	}
	sets, err := devSets(*eval)
	if err == nil {
		err = do(sets)
	}
	if err != nil {
		fmt.Fprintf(stderr, "ocmem-tune: %v\n", err)
		return 2
	}
	return 0
}

// devSets returns the four development sets in dir ("" : ../shared/eval
// beside the repository), each checked to be there.
func devSets(dir string) ([]devSet, error) {
	if dir == "" {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/ocmem/ocmem").Output()
		if err != nil {
			return nil, fmt.Errorf("find the ocmem module (run from bench/ or pass -eval): %w", err)
		}
		dir = filepath.Join(strings.TrimSpace(string(out)), "..", "shared", "eval")
	}
	var sets []devSet
	var errs []error
	for _, name := range []string{"dev", "turns-dev", "ops-dev", "ml-dev"} {
		s := devSet{name: name, dir: filepath.Join(dir, name)}
		for _, f := range []string{"project", "queries.jsonl"} {
			if _, err := os.Stat(filepath.Join(s.dir, f)); err != nil {
				errs = append(errs, fmt.Errorf("development set %s: %w", name, err))
			}
		}
		sets = append(sets, s)
	}
	return sets, errors.Join(errs...)
}
