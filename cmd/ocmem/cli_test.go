package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"strings"
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

func TestParseNow(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    int64 // Unix milliseconds
		wantErr string
	}{
		{"", 0, ""},
		{"0", 0, ""},
		{"1785585600000", 1785585600000, ""},
		{"2026-08-01T12:00:00Z", 1785585600000, ""},
		{"1970-01-01T00:00:00Z", 0, ""},
		{"-5", 0, "before 1970"},
		{"1969-12-31T23:59:59Z", 0, "before 1970"},
		{"2026-08-01", 0, "neither Unix milliseconds nor RFC 3339"},
	} {
		got, err := parseNow(tt.in)
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseNow(%q) = %v, %v; want an error saying %q", tt.in, got, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("parseNow(%q): %v", tt.in, err)
		case tt.in == "" && !got.IsZero():
			t.Errorf("parseNow(\"\") = %v; want the zero time", got)
		case tt.in != "" && got.UnixMilli() != tt.want:
			t.Errorf("parseNow(%q) = %d ms; want %d", tt.in, got.UnixMilli(), tt.want)
		}
	}
}

func TestCountFlag(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    countFlag
		wantErr string
	}{
		{"0", 0, ""},
		{"10", 10, ""},
		{"0x10", 16, ""},
		{"-1", 7, "must not be negative"},
		{"1.5", 7, "want a whole number"},
		{"", 7, "want a whole number"},
	} {
		n := countFlag(7)
		err := n.Set(tt.in)
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) || n != tt.want {
			t.Errorf("Set(%q) = %d, %v; want %d, error %q", tt.in, n, err, tt.want, tt.wantErr)
		}
	}
}
