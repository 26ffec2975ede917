package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/settings"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // a failure, or problems found
	exitUsage = 2
)

// command is one subcommand.
type command struct {
	name    string
	usage   string // arguments after the name
	summary string
	run     func(ctx context.Context, c *cli, args []string) error
}

var commands []command

func register(c command) { commands = append(commands, c) }

// cli carries what every command shares: streams and the root flags.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	name           string
	fs             *flag.FlagSet

	global, project string
	json            bool
	options         string

	// usage is the command's usage as the flag set last printed it.
	usage bytes.Buffer

	// eng is the engine the command built, whose files that do not load
	// are reported after its output (problems, once read).
	eng      *engine.Engine
	problems []engine.LoadProblem
}

// usageError is a usage error: exit status 2. An empty msg means the flag
// package has printed the error and the usage already.
type usageError struct{ msg string }

func (e *usageError) Error() string {
	if e.msg == "" {
		return "usage error"
	}
	return e.msg
}

// usagef returns a usage error in one sentence.
func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// exitStatus is an exit status whose reason has been said already: a
// command printed its report (problems found, a merge conflict) and asks
// for this status without a second message.
type exitStatus int

func (e exitStatus) Error() string { return "exit status " + strconv.Itoa(int(e)) }

// errProblems ends a command that printed a report of problems: exit 1.
var errProblems error = exitStatus(exitFail)

// exitCode maps a command's error to the exit status, printing the error
// on stderr as "ocmem NAME: message" (name empty: "ocmem: message") unless
// it has been said already. flag.ErrHelp (-h) is success.
func exitCode(stderr io.Writer, name string, err error) int {
	prefix := "ocmem"
	if name != "" {
		prefix += " " + name
	}
	var usage *usageError
	var status exitStatus
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &usage):
		if usage.msg != "" {
			fmt.Fprintf(stderr, "%s: %s\n", prefix, usage.msg)
		}
		return exitUsage
	case errors.As(err, &status):
		return int(status)
	default:
		fmt.Fprintf(stderr, "%s: %s\n", prefix, strings.Join(strings.Fields(err.Error()), " "))
		return exitFail
	}
}

// run runs the command line args and returns the exit status.
func run(args []string) int {
	c := &cli{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	err := c.dispatch(context.Background(), args)
	return exitCode(c.stderr, c.name, err)
}

// dispatch runs the command args name; c.name is the command's name once
// it is found.
func (c *cli) dispatch(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			cmd, err := lookup(args[1])
			if err != nil {
				return err
			}
			return cmd.run(ctx, c.forCommand(cmd), []string{"-h"})
		}
		printHelp(c.stdout)
		if len(args) == 0 {
			return &usageError{}
		}
		return nil
	}
	if args[0] == "--version" || args[0] == "-version" {
		args = append([]string{"version"}, args[1:]...)
	}
	cmd, err := lookup(args[0])
	if err != nil {
		return err
	}
	err = cmd.run(ctx, c.forCommand(cmd), args[1:])
	c.reportProblems()
	return err
}

func lookup(name string) (command, error) {
	for _, cmd := range commands {
		if cmd.name == name {
			return cmd, nil
		}
	}
	return command{}, usagef("unknown command %q; run `ocmem help`.", name)
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "ocmem — durable, human-editable memory for OpenCode.\n\nUsage: ocmem <command> [flags] [args]\n\nCommands:")
	sorted := append([]command(nil), commands...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].name < sorted[j].name })
	for _, c := range sorted {
		fmt.Fprintf(w, "  %-13s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nEvery command takes --global DIR and --project DIR (env OCMEM_GLOBAL, OCMEM_PROJECT) to choose the memory roots.\nRun `ocmem help <command>` for its flags. Exit status: 0 success, 1 failure or problems found, 2 usage error.")
}

// flagLine is the start of a flag's line in flag.PrintDefaults.
var flagLine = regexp.MustCompile(`(?m)^  -`)

// forCommand sets c up for command cmd: its name and flag set. The usage
// is kept until parse knows why it was asked for: help a person asked for
// (-h, `ocmem help CMD`) goes to stdout, so that it can be paged; the usage
// after a bad flag goes to stderr with the error.
func (c *cli) forCommand(cmd command) *cli {
	c.name = cmd.name
	c.fs = flag.NewFlagSet("ocmem "+cmd.name, flag.ContinueOnError)
	c.fs.SetOutput(c.stderr)
	c.fs.Usage = func() {
		c.usage.Reset()
		fmt.Fprintf(&c.usage, "%s\n\n%s\n", strings.TrimSpace("Usage: ocmem "+cmd.name+" "+cmd.usage), cmd.summary)
		// flag prints "-name"; usage lines and the README say "--name",
		// which the flag package takes too.
		var b strings.Builder
		c.fs.SetOutput(&b)
		c.fs.PrintDefaults()
		c.fs.SetOutput(c.stderr)
		if b.Len() > 0 {
			fmt.Fprintf(&c.usage, "\nFlags:\n%s", flagLine.ReplaceAllString(b.String(), "  --"))
		}
	}
	return c
}

// rootFlags adds --global, --project and --json.
func (c *cli) rootFlags(withJSON bool) {
	c.fs.StringVar(&c.global, "global", "", "global memory root (default $OCMEM_GLOBAL, else <OpenCode config dir>/memory)")
	c.fs.StringVar(&c.project, "project", "", "project memory root (default $OCMEM_PROJECT, else <git main checkout>/.memory)")
	c.fs.StringVar(&c.options, "options", "", "engine options as JSON, as in the plugin's config tuple (e.g. '{\"maxInjectChars\":800}')")
	if withJSON {
		c.fs.BoolVar(&c.json, "json", false, "print JSON")
	}
}

// parse parses flags anywhere among the arguments and returns the
// positional ones. A bad flag is a usage error the flag package has
// printed; -h is flag.ErrHelp.
func (c *cli) parse(args []string) (pos []string, err error) {
	for {
		if err := c.fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				c.stdout.Write(c.usage.Bytes())
				return nil, err
			}
			c.stderr.Write(c.usage.Bytes())
			return nil, &usageError{}
		}
		rest := c.fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// warn prints a done write's warning (the index could not be updated) on
// stderr; the write succeeded, so the exit status stays 0.
func (c *cli) warn(w *engine.Written) {
	if w.Warning != "" {
		fmt.Fprintf(c.stderr, "ocmem %s: warning: %s\n", c.name, w.Warning)
	}
}

// engine builds the engine from the root flags and environment.
func (c *cli) engine() (*engine.Engine, error) {
	opts, err := c.decodeOptions()
	if err != nil {
		return nil, err
	}
	place, err := c.place()
	if err != nil {
		return nil, err
	}
	// A project's hard rules apply only once the user trusts it (ocmem trust).
	cfg, err := place.Engine(opts)
	if err != nil {
		return nil, err
	}
	// The command owns the process: its engine may set the collector.
	cfg.CodeDir, cfg.TuneGC = codeDir(), true
	c.eng = engine.New(cfg)
	return c.eng, nil
}

// decodeOptions reads --options, a flag the user typed: bad JSON, a bad
// value or a key no option has is a usage error, where the plugin's
// options (serve) ignore unknown keys.
func (c *cli) decodeOptions() (options.Options, error) {
	if strings.TrimSpace(c.options) == "" {
		return options.Options{}, nil
	}
	opts, err := options.Decode([]byte(c.options))
	if err != nil {
		return opts, usagef("--options: %s", strings.TrimPrefix(err.Error(), "options: "))
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(c.options), &m) != nil {
		return opts, nil
	}
	unknown := options.UnknownKeys(m)
	switch {
	case len(unknown) == 0:
		return opts, nil
	case unknown[0].Near != "":
		return opts, usagef("--options: %q is not an option; did you mean %q?", unknown[0].Key, unknown[0].Near)
	}
	return opts, usagef("--options: %q is not an option (README, Configuration)", unknown[0].Key)
}

// place is where the command works: the roots named by flag or
// environment, else found from the working directory. The project root
// defaults to the .memory folder of the git main checkout around it;
// outside git, or when that checkout is the home folder, there is no
// project root unless one is named.
func (c *cli) place() (settings.Place, error) {
	p := settings.Place{GlobalDir: firstNonEmpty(c.global, os.Getenv("OCMEM_GLOBAL")),
		ProjectDir: firstNonEmpty(c.project, os.Getenv("OCMEM_PROJECT")), TrustFile: trustList().Path}
	if p.ProjectDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return settings.Place{}, err
		}
		p.Dir = wd
	}
	return p, nil
}

// roots resolves the two root directories (place).
func (c *cli) roots() (global, project string, err error) {
	place, err := c.place()
	if err != nil {
		return "", "", err
	}
	return place.Roots()
}

// projectChosen says the user named the project root (--project,
// OCMEM_PROJECT) rather than ocmem finding it in the repository: a chosen
// root is written wherever it leads, a found one only when it is no link.
func (c *cli) projectChosen() bool {
	return firstNonEmpty(c.project, os.Getenv("OCMEM_PROJECT")) != ""
}

func firstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}

func (c *cli) printJSON(v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	out := b.Bytes()
	if ps := c.loadProblems(); ps != nil {
		var err error
		if out, err = withProblems(out, ps); err != nil {
			return err
		}
	}
	_, err := c.stdout.Write(out)
	return err
}

// parseNow accepts Unix milliseconds or RFC 3339.
func parseNow(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if ms, msErr := strconv.ParseInt(s, 10, 64); msErr == nil {
		t, err = time.UnixMilli(ms), nil
	}
	switch {
	case err != nil:
		return time.Time{}, fmt.Errorf("--now %q is neither Unix milliseconds nor RFC 3339", s)
	case t.Before(time.UnixMilli(0)):
		// Every time a memory records is in Unix milliseconds from 1970 on;
		// ranked at a time before them all, every age would be negative.
		return time.Time{}, fmt.Errorf("--now %q is before 1970: want Unix milliseconds, at least 0, or an RFC 3339 time from 1970 on", s)
	}
	return t, nil
}

// countFlag is a flag holding a count: a whole number, at least 0. A
// negative one is refused where it is parsed, as any malformed flag is,
// rather than read by each command as it happens to.
type countFlag int

func (n *countFlag) String() string { return strconv.Itoa(int(*n)) }

func (n *countFlag) Set(s string) error {
	v, err := strconv.ParseInt(s, 0, strconv.IntSize)
	switch {
	case err != nil:
		return errors.New("want a whole number, at least 0")
	case v < 0:
		return errors.New("must not be negative; want a whole number, at least 0")
	}
	*n = countFlag(v)
	return nil
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// scopeAndID registers --scope, parses, and returns the one id argument.
func (c *cli) scopeAndID(args []string, what string) (scope engine.Scope, id string, err error) {
	var flagScope string
	c.fs.StringVar(&flagScope, "scope", "", "project or global (default: wherever the id exists)")
	pos, err := c.parse(args)
	if err != nil {
		return "", "", err
	}
	if len(pos) != 1 {
		return "", "", usagef("want exactly one %s", what)
	}
	if flagScope != "" {
		if scope, err = engine.ParseScope(flagScope); err != nil {
			return "", "", usagef("--scope: %v", err)
		}
	}
	return scope, pos[0], nil
}

// parseNone parses a command that takes flags only.
func (c *cli) parseNone(args []string) error {
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("takes no arguments")
	}
	return nil
}
