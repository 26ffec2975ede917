package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"testing"
)

// Every command's error becomes an exit status in one place: usage errors
// 2, help 0, a report of problems 1 with nothing more said, any other
// error 1 with the error in one line.
func TestExitCode(t *testing.T) {
	for _, c := range []struct {
		name    string
		cmd     string
		err     error
		code    int
		message string
	}{
		{"success", "recall", nil, exitOK, ""},
		{"help", "recall", flag.ErrHelp, exitOK, ""},
		{"usage", "recall", usagef("want a query"), exitUsage, "ocmem recall: want a query\n"},
		{"usage keeps its spacing", "recall", usagef("a  b"), exitUsage, "ocmem recall: a  b\n"},
		{"usage printed by the flag package", "recall", &usageError{}, exitUsage, ""},
		{"wrapped usage", "trust", fmt.Errorf("x: %w", usagef("want at most one directory")), exitUsage, "ocmem trust: want at most one directory\n"},
		{"no command", "", usagef("unknown command %q; run `ocmem help`.", "nope"), exitUsage, "ocmem: unknown command \"nope\"; run `ocmem help`.\n"},
		{"problems reported", "inspect", errProblems, exitFail, ""},
		{"problems reported, wrapped", "doctor", fmt.Errorf("doctor: %w", errProblems), exitFail, ""},
		{"failure in one line", "forget", errors.New("no memory\n  pitfalls/x"), exitFail, "ocmem forget: no memory pitfalls/x\n"},
	} {
		var stderr bytes.Buffer
		if got := exitCode(&stderr, c.cmd, c.err); got != c.code {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.code)
		}
		if stderr.String() != c.message {
			t.Errorf("%s: stderr %q, want %q", c.name, stderr.String(), c.message)
		}
	}
}

// dispatch returns the errors exitCode maps: ocmem alone is a usage error
// after the help, `ocmem help` is not, `ocmem help CMD` is CMD -h.
func TestDispatchErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
	}{
		{nil, exitUsage},
		{[]string{"help"}, exitOK},
		{[]string{"help", "recall"}, exitOK},
		{[]string{"help", "nope"}, exitUsage},
		{[]string{"nope"}, exitUsage},
		{[]string{"version", "extra"}, exitUsage},
		{[]string{"version", "--bogus"}, exitUsage},
		{[]string{"--version"}, exitOK},
	} {
		var out, errb bytes.Buffer
		cl := &cli{stdout: &out, stderr: &errb}
		err := cl.dispatch(t.Context(), c.args)
		if got := exitCode(&errb, cl.name, err); got != c.code {
			t.Errorf("%q: exit %d (err %v), want %d", c.args, got, err, c.code)
		}
	}
}
