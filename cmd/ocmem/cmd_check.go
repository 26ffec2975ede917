package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/ocmem/ocmem/internal/engine"
)

func init() {
	register(command{name: "check", usage: "[--edit PATH | --write PATH | --tool NAME] [-- COMMAND...]",
		summary: "Say whether the hard rules in force would stop a tool call, and which rule (exit 1 when one would): a shell command, or a file tool's path.", run: runCheck})
}

// runCheck asks the engine what the plugin asks before each tool call,
// with the same decision (engine.Check). The command after -- is one
// argument read as a shell line (`ocmem check -- 'true && git push -f'`),
// or several, each one word as the shell passed it.
func runCheck(ctx context.Context, c *cli, args []string) error {
	c.rootFlags(true)
	edit := c.fs.String("edit", "", "check an edit of this file (relative to the working directory)")
	write := c.fs.String("write", "", "check a write of this file")
	tool := c.fs.String("tool", "", "check a call of this tool (default bash with a command, edit with --edit)")
	flags, cmd := args, []string(nil)
	for i, a := range args {
		if a == "--" {
			flags, cmd = args[:i], args[i+1:]
			break
		}
	}
	pos, err := c.parse(flags)
	if err != nil {
		return err
	}
	cmd = append(pos, cmd...)
	call, err := checkCall(*tool, *edit, *write, cmd)
	if err != nil {
		return err
	}
	if call.Dir, err = os.Getwd(); err != nil {
		return err
	}
	call.Root = worktreeOf(call.Dir)
	e, err := c.engine()
	if err != nil {
		return err
	}
	v, err := e.Check(call)
	if err != nil {
		return err
	}
	if !v.Stopped() {
		// `ocmem rules` lists such a rule as one that would stop the
		// call once in force: a person checking the call learns why it
		// did not.
		if v.NotInForce, err = e.CheckNotInForce(call); err != nil {
			return err
		}
	}
	if c.json {
		if err := c.printJSON(v); err != nil {
			return err
		}
	} else if v.Stopped() {
		c.printf("stopped (%s) by %s:%s — %s\n    %s\n", v.Action, v.Rule.Scope, v.Rule.ID, v.Rule.Summary, v.Rule.Path)
		switch {
		case v.Rule.Broken != "":
			c.printf("    its file does not load (%s): the rule guarded %s calls, and each asks until it is fixed\n", v.Rule.Broken, v.Tool)
		case v.Unreadable != "":
			c.printf("    the rule guards %s, and this call cannot be read: %s\n", v.Tool, v.Unreadable)
		default:
			c.printf("    %q matches %s %q\n", v.Subject, v.Tool, v.Pattern)
		}
	} else {
		c.printf("allowed: no hard rule in force stops this %s call\n", call.Tool)
		showNotInForce(c, v.NotInForce)
	}
	if v.Stopped() {
		return errProblems
	}
	return nil
}

// showNotInForce says which rule not in force would stop an allowed call,
// and how to put it in force.
func showNotInForce(c *cli, n *engine.NotInForce) {
	if n == nil {
		return
	}
	what := string(n.Rule.Scope) + " rule"
	if n.Status == engine.RuleProposal {
		what = "rule proposal"
	}
	c.printf("a %s not in force would stop it: `%s` to put it in force\n", what, strings.Join(n.PutInForce, "` or `"))
	// The rule is the repository's text, not accepted yet: shown as a
	// person deciding on it must see it.
	c.show("    %s by %s:%s — %s (%s)\n    %s\n", n.Action, n.Rule.Scope, n.Rule.ID, engine.OneLine(n.Rule.Summary), n.Status, n.Rule.Path)
	if n.Unreadable != "" {
		c.show("    the rule guards %s, and this call cannot be read: %s\n", n.Tool, n.Unreadable)
	} else {
		c.show("    %q matches %s %q\n", n.Subject, n.Tool, n.Pattern)
	}
}

// checkCall builds the tool call the flags describe.
func checkCall(tool, edit, write string, cmd []string) (engine.ToolCall, error) {
	var call engine.ToolCall
	switch {
	case edit != "" && write != "", (edit != "" || write != "") && len(cmd) > 0:
		return call, usagef("give one of --edit, --write, or a command after --")
	case edit != "" || write != "":
		call.Tool, call.Args = "edit", map[string]any{"filePath": edit}
		if write != "" {
			call.Tool, call.Args = "write", map[string]any{"filePath": write}
		}
	case len(cmd) > 0:
		call.Tool, call.Args = "bash", map[string]any{"command": shellLine(cmd)}
	case tool == "":
		return call, usagef("nothing to check: give a command after --, --edit PATH, --write PATH or --tool NAME")
	default:
		call.Args = map[string]any{}
	}
	if tool != "" {
		call.Tool = tool
	}
	return call, nil
}

// shellLine is the command line of a command's words: one word is the
// line itself; several are quoted so each stays one word.
func shellLine(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	q := make([]string, len(words))
	for i, w := range words {
		if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
			q[i] = w
		} else {
			q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}

// worktreeOf is the checkout around dir (the nearest folder with a .git),
// which path globs are relative to, as the plugin's are to the session's
// worktree; outside git, dir itself.
func worktreeOf(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}
