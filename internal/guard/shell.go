package guard

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// How a command line is read
//
// A guard on `git push --force*` must stop the push however the model
// spells the line, so the line is parsed as bash parses it
// (mvdan.cc/sh/v3/syntax) and every simple command it would run is matched
// on its own: each command of a pipeline and of an `&&`, `||` or `;` list,
// of a subshell, a group, a loop or an if, of a command substitution, a
// process substitution, a here-document's substitutions, a function body.
// A command's words are read with their quotes removed (`"--force"` is
// --force, `\git` is git, `'a b'` one word a b), and joined by single
// spaces, so spacing does not matter.
//
// A command can run another one:
//
//   - `bash -c 'script'`, `sh -c`, `zsh -c`, `dash -c`, `ksh -c`, and
//     `eval`: the script is parsed and matched in turn, as deep as
//     maxDepth;
//   - a shell with no script argument reads its standard input, so a
//     here-document or here-string given to it is parsed as a script;
//   - the wrappers `env`, `command`, `builtin`, `exec`, `sudo`, `doas`,
//     `nohup`, `time`, `nice`, `timeout`, `xargs` run the command after
//     their own options: the command is matched without them (and with
//     them, so a guard on `sudo rm*` works too);
//   - `git`'s own options before its subcommand (`git -C dir push`) are
//     dropped, as `/usr/bin/git`'s directory is.
//
// What is not caught: a word whose value only the running shell knows
// (`git push $FLAGS`: matched as written, with `$FLAGS`), a script in a
// file or piped from another program, a program the agent writes and
// runs. A guard is a rail against a model's mistake, not a sandbox.
//
// A line that does not parse, or nests scripts deeper than maxDepth, is
// not guessed at: Commands returns an error, and a caller that guards the
// shell stops the call (fail closed).

// maxDepth bounds scripts inside scripts (bash -c, eval, a shell's
// here-document). Three levels of quoting is already unreadable; more is
// refused rather than followed.
const maxDepth = 4

// maxCommands bounds the simple commands of one line, so a generated line
// of a million commands costs a refusal, not a long match.
const maxCommands = 10000

// ErrUnreadable is wrapped by Commands for a line it cannot read: a syntax
// error, scripts nested too deep, too many commands.
var ErrUnreadable = errors.New("the command cannot be read as a shell command line")

// Commands returns every simple command the line would run, each as its
// words joined by single spaces, with its variants (wrappers and git's
// options dropped), in the order they appear, duplicates removed.
func Commands(line string) ([]string, error) {
	r := &reader{seen: map[string]bool{}}
	if err := r.script(line, 0); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnreadable, err)
	}
	return r.out, nil
}

type reader struct {
	out  []string
	seen map[string]bool
	err  error
}

func (r *reader) add(words []string) {
	if len(words) == 0 {
		return
	}
	s := strings.Join(words, " ")
	if !r.seen[s] {
		r.seen[s] = true
		r.out = append(r.out, s)
	}
}

func (r *reader) script(src string, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("scripts nested more than %d deep", maxDepth)
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(src), "")
	if err != nil {
		return err
	}
	// Where an expansion closes inside a word ($(…), $((…)), <(…)): a #
	// right after one continues the word for bash.
	closes := map[uint]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			closes[n.Right.Offset()+1] = true
		case *syntax.ArithmExp:
			closes[n.Right.Offset()+2] = true
		case *syntax.ProcSubst:
			closes[n.Rparen.Offset()+1] = true
		}
		return true
	})
	syntax.Walk(f, func(n syntax.Node) bool {
		if r.err != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.Stmt:
			// Walk reaches every statement: in lists, pipelines,
			// subshells, substitutions, here-documents, functions.
			r.stmt(n, depth)
		case *syntax.Comment:
			if !commentStart(src, n) || closes[n.Hash.Offset()] {
				r.err = fmt.Errorf("a # inside a word at %s read as a comment", n.Hash)
			}
		}
		return true
	})
	if r.err == nil && len(r.out) > maxCommands {
		r.err = fmt.Errorf("more than %d commands", maxCommands)
	}
	return r.err
}

// commentStart reports whether a comment starts where bash starts one: at
// the start of a word. The parser also takes a # right after some
// expansions for one (`($0#$(git push -f))`, `($()#$(git push -f))`),
// where bash reads a word and runs what follows; the line is then refused
// rather than half read.
func commentStart(src string, c *syntax.Comment) bool {
	off := int(c.Hash.Offset())
	if off <= 0 || off > len(src) {
		return off == 0
	}
	return strings.IndexByte(" \t\n;&|()<>", src[off-1]) >= 0
}

// stmt matches a statement's simple command, with what it runs in turn.
func (r *reader) stmt(st *syntax.Stmt, depth int) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return
	}
	words := make([]string, len(call.Args))
	for i, w := range call.Args {
		words[i] = wordText(w)
	}
	for _, v := range variants(words) {
		r.add(v)
		r.inner(v, st, depth)
	}
}

// inner follows a command that runs a script: a shell's -c argument or
// standard input, eval's arguments.
func (r *reader) inner(words []string, st *syntax.Stmt, depth int) {
	if r.err != nil {
		return
	}
	name := baseName(words[0])
	switch {
	case name == "eval" && len(words) > 1:
		r.err = r.script(strings.Join(words[1:], " "), depth+1)
	case shells[name]:
		script, rest, hasC := shellScript(words[1:])
		switch {
		case hasC:
			r.err = r.script(script, depth+1)
		case len(rest) == 0:
			// No script file: the shell reads its standard input.
			for _, rd := range st.Redirs {
				if rd.Hdoc != nil && (rd.Op == syntax.Hdoc || rd.Op == syntax.DashHdoc) {
					r.err = r.script(wordText(rd.Hdoc), depth+1)
				} else if rd.Op == syntax.WordHdoc && rd.Word != nil {
					r.err = r.script(wordText(rd.Word), depth+1)
				}
				if r.err != nil {
					return
				}
			}
		}
	}
}

var shells = map[string]bool{"bash": true, "sh": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true}

// shellScript reads a shell's arguments: the script of -c (also in a
// group of options, as `-ec`) and the arguments that are not options.
func shellScript(args []string) (script string, rest []string, hasC bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return "", args[i+1:], false
		case a == "-o" || a == "+o" || a == "-O" || a == "+O" || a == "--rcfile" || a == "--init-file":
			i++ // an option with a value
		case strings.HasPrefix(a, "--"):
		case len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			if a[0] == '-' && strings.ContainsRune(a[1:], 'c') {
				if i+1 < len(args) {
					return args[i+1], nil, true
				}
				return "", nil, true
			}
		default:
			return "", args[i:], false
		}
	}
	return "", nil, false
}

// wordText is a word with its quotes removed; what only the running shell
// knows (a variable, a substitution's output, arithmetic) is kept as
// written.
func wordText(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		partText(&b, p, false)
	}
	return b.String()
}

func partText(b *strings.Builder, p syntax.WordPart, inDouble bool) {
	switch p := p.(type) {
	case *syntax.Lit:
		b.WriteString(unescape(p.Value, inDouble))
	case *syntax.SglQuoted:
		b.WriteString(p.Value)
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			partText(b, q, true)
		}
	default:
		var sb strings.Builder
		if err := syntax.NewPrinter(syntax.Minify(true)).Print(&sb, p); err == nil {
			b.WriteString(sb.String())
		}
	}
}

// unescape removes backslash quoting: outside double quotes a backslash
// makes any character literal (and with a newline joins lines); inside,
// only $ ` " \ and a newline.
func unescape(s string, inDouble bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		c := s[i+1]
		switch {
		case c == '\n':
			i++
		case !inDouble || strings.IndexByte("$`\"\\", c) >= 0:
			b.WriteByte(c)
			i++
		default:
			b.WriteByte('\\')
		}
	}
	return b.String()
}

// baseName is a command's name without its directory.
func baseName(cmd string) string {
	if i := strings.LastIndexByte(cmd, '/'); i >= 0 && i+1 < len(cmd) {
		return cmd[i+1:]
	}
	return cmd
}

// variants returns a command's words as written, then as run: with its
// directory dropped from the name, each wrapper in front with its options
// dropped, and git's options before its subcommand dropped.
func variants(words []string) [][]string {
	out := [][]string{words}
	cur := words
	for range 16 { // wrappers nest: sudo env A=1 nice git …
		next := cur
		if b := baseName(cur[0]); b != cur[0] {
			next = append([]string{b}, cur[1:]...)
		}
		if rest, ok := unwrap(next); ok {
			next = rest
		}
		if len(next) == 0 {
			break
		}
		if g := gitSubcommand(next); g != nil {
			next = g
		}
		if equal(next, cur) {
			break
		}
		out = append(out, next)
		cur = next
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// wrapperOptions lists, for each wrapper, its options that take a value
// as the next word; other options stand alone. A wrapper's first word
// that is not an option starts the command it runs (timeout: after its
// duration; env: after its NAME=value words).
var wrapperOptions = map[string]string{
	"env":     "-u -C -S --unset --chdir --split-string",
	"command": "",
	"builtin": "",
	"exec":    "-a",
	"sudo":    "-u -g -C -D -h -p -r -t -U -T --user --group --chdir --host --prompt --role --type --other-user --command-timeout",
	"doas":    "-u -C",
	"nohup":   "",
	"time":    "-o -f --output --format",
	"nice":    "-n --adjustment",
	"timeout": "-s -k --signal --kill-after",
	"xargs":   "-a -d -E -e -I -i -L -l -n -P -s --arg-file --delimiter --eof --replace --max-lines --max-args --max-procs --max-chars",
}

// unwrap drops a wrapper and its options from the front of a command.
func unwrap(words []string) ([]string, bool) {
	opts, ok := wrapperOptions[words[0]]
	if !ok {
		return nil, false
	}
	valued := strings.Fields(opts)
	i := 1
	for i < len(words) {
		w := words[i]
		if w == "--" {
			i++
			break
		}
		if len(w) < 2 || w[0] != '-' {
			break
		}
		i++
		if contains(valued, w) {
			i++
		}
	}
	switch words[0] {
	case "env":
		for i < len(words) && strings.Contains(words[i], "=") {
			i++
		}
	case "timeout":
		i++ // the duration
	}
	if i >= len(words) {
		return nil, true
	}
	return words[i:], true
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// gitValued are git's options before the subcommand that take the next
// word as their value.
var gitValued = []string{"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env", "--super-prefix", "--list-cmds"}

// gitSubcommand returns `git <subcommand> …` without git's own options,
// or nil when the command is not git or has none.
func gitSubcommand(words []string) []string {
	if words[0] != "git" || len(words) < 2 || !strings.HasPrefix(words[1], "-") {
		return nil
	}
	i := 1
	for i < len(words) && strings.HasPrefix(words[i], "-") {
		if contains(gitValued, words[i]) {
			i++
		}
		i++
	}
	if i >= len(words) {
		return nil
	}
	return append([]string{"git"}, words[i:]...)
}
