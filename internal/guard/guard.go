// Package guard decides whether a tool call breaks a rule's guard: a
// shell command matched the way it runs, a file tool by the path it
// writes, any other tool by its name.
//
//	d := guard.Decide(guard.Call{Tool: "bash", Args: args, Root: root}, rules)
//	if d.Action == guard.Deny { … rules[d.Rule] stopped it … }
//
// Patterns are OpenCode's permission wildcards: `*` any run of
// characters, `?` one, everything else itself, and a pattern ending in
// " *" also matches the command without that last part (`git push *`
// matches `git push`). So `git push --force *` stops `git push --force`
// and `git push --force origin main` but not `git push
// --force-with-lease`, while `git push --force*` stops all three: a near
// miss is caught only when the pattern says so. Path globs are read as
// gitignore's: see matchPath.
package guard

import (
	"strings"
	"unicode/utf8"
)

// Actions of a guard, as a rule's enforce block writes them.
const (
	Deny  = "deny"
	Ask   = "ask"
	Allow = "allow"
)

// Guard is one pattern of a rule: which tool, which calls, what to do.
type Guard struct {
	Tool, Pattern, Action string
}

// Rule is the guards of one rule, in its block's order.
type Rule struct {
	Guards []Guard
}

// Call is a tool call as the OpenCode line made it.
type Call struct {
	Tool string         // the line's name: bash or shell, edit, write, patch, …
	Args map[string]any // the call's arguments, as the tool takes them
	// Root is the project root: path globs are relative to it. Dir is
	// where a relative path of the call starts (the session's
	// directory); "" is Root.
	Root, Dir string
}

// Decision is what the rules make of a call.
type Decision struct {
	// Action is Deny, Ask, or "" when no rule stops the call.
	Action string
	// Rule is the index of the rule that decided, Guard its pattern that
	// matched, Subject what matched it (a command, a path).
	Rule    int
	Guard   Guard
	Subject string
	// Unreadable is set when the call could not be read (a command line
	// that does not parse, a file tool without a path) and a rule guards
	// its tool: the call is stopped rather than guessed at.
	Unreadable error
}

// Tool classes: the names a person writes in a rule, whichever line's
// names the call uses.
const (
	shellTool = "bash"
	editTool  = "edit"
)

// shellNames are the shell tool's names on the OpenCode lines (1.x bash,
// 2.x shell).
var shellNames = map[string]bool{"bash": true, "shell": true}

// fileNames are the tools that write files, on both lines. A guard on
// `edit` covers all of them, as OpenCode's `edit` permission does; a guard
// on `write` or `patch` covers that tool only.
var fileNames = map[string]bool{"edit": true, "write": true, "patch": true, "apply_patch": true, "multiedit": true}

// covers reports whether a guard written for tool applies to a call of
// the line's tool call.
func covers(tool, call string) bool {
	tool, call = lower(tool), lower(call)
	switch {
	case tool == "*" || tool == call:
		return true
	case shellNames[tool]:
		return shellNames[call]
	case tool == editTool:
		return fileNames[call]
	case tool == "patch":
		return call == "apply_patch"
	}
	return false
}

// lower is strings.ToLower without an allocation for a name already in
// lower case, which every name is but a person's odd spelling.
func lower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' || c >= 0x80 {
			return strings.ToLower(s)
		}
	}
	return s
}

// Guarded reports whether a guard of rules covers the tool: a call of it
// must be checked (and refused while it cannot be).
func Guarded(tool string, rules []Rule) bool {
	for _, r := range rules {
		for _, g := range r.Guards {
			if g.Action != Allow && covers(g.Tool, tool) {
				return true
			}
		}
	}
	return false
}

// Decide checks a call against every rule. Within a rule the last pattern
// that matches decides (OpenCode's order), so an allow after a deny makes
// an exception; across rules the strictest wins (deny, then ask), and of
// equals the first rule: one rule's allow never lifts another's deny.
func Decide(c Call, rules []Rule) Decision {
	if !Guarded(c.Tool, rules) {
		return Decision{}
	}
	subjects, err := subjectsOf(c)
	best := Decision{}
	for i, r := range rules {
		d := decideRule(c.Tool, subjects, r)
		d.Rule = i
		if err != nil && d.Action == "" && guardsTool(r, c.Tool) {
			// The call cannot be read: the rule that guards its tool
			// stops it.
			d = Decision{Action: Deny, Rule: i, Guard: firstGuard(r, c.Tool), Unreadable: err}
		}
		if rank(d.Action) > rank(best.Action) {
			best = d
		}
	}
	return best
}

func rank(action string) int {
	switch action {
	case Deny:
		return 2
	case Ask:
		return 1
	}
	return 0
}

func guardsTool(r Rule, tool string) bool {
	return Guarded(tool, []Rule{r})
}

func firstGuard(r Rule, tool string) Guard {
	for _, g := range r.Guards {
		if g.Action != Allow && covers(g.Tool, tool) {
			return g
		}
	}
	return Guard{}
}

// decideRule is one rule's decision: the last of its matching patterns.
func decideRule(tool string, subjects []subject, r Rule) Decision {
	d := Decision{}
	for _, g := range r.Guards {
		if !covers(g.Tool, tool) {
			continue
		}
		for _, s := range subjects {
			if s.match(g.Pattern) {
				d.Action, d.Guard, d.Subject = g.Action, g, s.text
				break
			}
		}
	}
	if d.Action == Allow {
		return Decision{}
	}
	return d
}

// subject is one thing of a call a pattern is matched against: a simple
// command, or a path in its forms.
type subject struct {
	text  string   // as reported
	forms []string // what patterns match, for a path
	path  bool
}

func (s subject) match(pattern string) bool {
	if s.path {
		for _, f := range s.forms {
			if matchPath(pattern, f) {
				return true
			}
		}
		return false
	}
	return Match(pattern, s.text)
}

// subjectsOf returns what of a call patterns match: each simple command
// of a shell call, each path of a file tool, the empty string (matched
// by "*") for any other tool.
func subjectsOf(c Call) ([]subject, error) {
	switch tool := strings.ToLower(c.Tool); {
	case shellNames[tool]:
		line, _ := c.Args["command"].(string)
		cmds, err := Commands(line)
		if err != nil {
			return nil, err
		}
		out := make([]subject, len(cmds))
		for i, cmd := range cmds {
			out[i] = subject{text: cmd}
		}
		return out, nil
	case fileNames[tool]:
		paths, err := Paths(tool, c.Args)
		if err != nil {
			return nil, err
		}
		var out []subject
		for _, p := range paths {
			out = append(out, pathSubject(p, c.Root, c.Dir))
		}
		return out, nil
	}
	return []subject{{text: ""}}, nil
}

// Match reports whether text matches an OpenCode wildcard pattern: `*`
// any run of characters, `?` one character, and a final " *" optional.
// Runs of white space in the pattern count as one space, as they do in a
// command's words.
func Match(pattern, text string) bool {
	pattern = oneSpace(pattern)
	if wildcard(pattern, text) {
		return true
	}
	if base, ok := strings.CutSuffix(pattern, " *"); ok {
		return wildcard(base, text)
	}
	return false
}

// oneSpace is the words of s joined by single spaces; s itself, without
// an allocation, when it is so already (as nearly every pattern is).
func oneSpace(s string) string {
	prev := byte(' ')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c >= 0x80 || c == ' ' && prev == ' ' {
			return strings.Join(strings.Fields(s), " ")
		}
		prev = c
	}
	if prev == ' ' && len(s) > 0 {
		return strings.TrimRight(s, " ")
	}
	return s
}

// wildcard matches `*` and `?` with backtracking over the last star only:
// at most len(p)·len(s) steps, never exponential, and no allocation (it
// runs for every pattern of every guarded rule on every tool call). `?`
// takes one character (a UTF-8 sequence), other bytes match themselves.
func wildcard(p, s string) bool {
	pi, si := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case pi < len(p) && p[pi] == '?':
			_, w := utf8.DecodeRuneInString(s[si:])
			pi++
			si += w
		case pi < len(p) && p[pi] == s[si]:
			pi++
			si++
		case star >= 0:
			_, w := utf8.DecodeRuneInString(s[mark:])
			pi = star + 1
			mark += w
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// Names returns the tool names, of both OpenCode lines, that a guard
// written for tool covers.
func Names(tool string) []string {
	tool = strings.ToLower(tool)
	var out []string
	switch {
	case shellNames[tool]:
		out = []string{"bash", "shell"}
	case tool == editTool:
		for n := range fileNames {
			out = append(out, n)
		}
	case tool == "patch":
		out = []string{"patch", "apply_patch"}
	default:
		out = []string{tool}
	}
	return out
}
