package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Peak RSS of a child cannot be read from the rusage this process gets when
// the child exits: on Linux a child starts by sharing its parent's memory
// (Go forks with CLONE_VM|CLONE_VFORK) and exec records the parent's
// high-water mark as the child's, so every ocmem run would report this
// process's gigabytes (measured: cold and warm runs at 100k both showed
// the benchmark's own 2.7 GB). So the CLI runs under a probe: this same
// binary, re-executed while still small, which starts ocmem, times it, and
// reports its wall time and peak RSS on the last line of stderr.

const (
	probeEnv    = "OCMEMBENCH_PROBE"
	probePrefix = "ocmem-bench-probe "
)

// probe runs args as a child with this process's stdio and reports. It is
// main's whole job in a probe, so the probe's own RSS stays a few MB.
func probe(args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, probeEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Fprintf(os.Stderr, "\n%swall_ns=%d maxrss=%d\n", probePrefix, wall.Nanoseconds(), maxRSS(cmd.ProcessState))
	return cmd.ProcessState.ExitCode()
}

// runProbed runs a command under the probe and returns its stdout, wall
// time and peak RSS in bytes.
func runProbed(env []string, args ...string) (stdout []byte, wall time.Duration, rss int64, err error) {
	self, err := os.Executable()
	if err != nil {
		return nil, 0, 0, err
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(env, probeEnv+"=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	runErr := cmd.Run()
	msg, report, found := cutLast(errb.String(), probePrefix)
	if !found {
		return nil, 0, 0, errors.Join(runErr, fmt.Errorf("%s: no probe report: %s", strings.Join(args, " "), msg))
	}
	if runErr != nil {
		return nil, 0, 0, fmt.Errorf("%s: %w: %s", strings.Join(args, " "), runErr, msg)
	}
	var ns int64
	if _, err := fmt.Sscanf(report, "wall_ns=%d maxrss=%d", &ns, &rss); err != nil {
		return nil, 0, 0, fmt.Errorf("probe report %q: %w", report, err)
	}
	return out.Bytes(), time.Duration(ns), rss, nil
}

func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], strings.TrimSpace(s[i+len(sep):]), true
}
