package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ocmem/ocmem/internal/engine"
)

// A file that does not load is reported and left alone (SPEC). inspect,
// compile and doctor report it in their own output; every other command
// that reads the store says so on stderr after its output, so a memory
// never drops out of recall, and a hard rule never stops binding, without
// a word. Stdout and the exit status stay as they were; a --json object
// gains a "problems" array.

// reportsProblems are the commands that read the store and report its
// files that do not load on stderr.
var reportsProblems = map[string]bool{
	"recall": true, "inject": true, "stale": true, "outdated": true, "verify": true,
	"rules": true, "check": true, "trust": true,
}

// maxProblemLines is how many files that do not load are named one by
// one; beyond it a count points to `ocmem inspect`. A rule's file is
// always named.
const maxProblemLines = 5

// loadProblems is the files of the command's engine that do not load, or
// nil when the command reports none.
func (c *cli) loadProblems() []engine.LoadProblem {
	if c.eng == nil || !reportsProblems[c.name] {
		return nil
	}
	if c.problems == nil {
		ps, err := c.eng.LoadProblems()
		if err != nil {
			return nil // the command has said why the store did not load
		}
		c.problems = append([]engine.LoadProblem{}, ps...)
	}
	return c.problems
}

// reportProblems prints the files that do not load on stderr, once.
func (c *cli) reportProblems() {
	ps := c.loadProblems()
	var others []engine.LoadProblem
	for _, p := range ps {
		if p.Rule {
			fmt.Fprintf(c.stderr, "ocmem %s: %s\n", c.name, ruleNotLoaded(p))
		} else {
			others = append(others, p)
		}
	}
	if len(others) > maxProblemLines {
		fmt.Fprintf(c.stderr, "ocmem %s: %d memory files do not load and are left out; `ocmem inspect` lists them\n", c.name, len(others))
		return
	}
	for _, p := range others {
		where := p.Path
		if p.Line > 0 {
			where = fmt.Sprintf("%s:%d", p.Path, p.Line)
		}
		fmt.Fprintf(c.stderr, "ocmem %s: %s: %s (the file does not load and is left out)\n", c.name, engine.Visible(where), p.Reason)
	}
}

// ruleNotLoaded calls out a rule-looking file that does not load, and
// what the check does about it.
func ruleNotLoaded(p engine.LoadProblem) string {
	s := fmt.Sprintf("a hard rule file does not load: %s (%s); the rule in it is not in force", engine.Visible(p.Path), p.Where())
	if len(p.Asks) > 0 {
		s += fmt.Sprintf("; calls of %v ask the user until it is fixed", p.Asks)
	}
	return s
}

// withProblems adds the files that do not load to a JSON object as its
// "problems" array, keeping the object's own keys in order.
func withProblems(out []byte, ps []engine.LoadProblem) ([]byte, error) {
	trimmed := bytes.TrimRight(out, "\n")
	if len(trimmed) < 2 || trimmed[0] != '{' || trimmed[len(trimmed)-1] != '}' {
		return out, nil
	}
	var list bytes.Buffer
	enc := json.NewEncoder(&list)
	enc.SetEscapeHTML(false)
	enc.SetIndent("  ", "  ")
	if err := enc.Encode(ps); err != nil {
		return nil, err
	}
	body := bytes.TrimRight(trimmed[:len(trimmed)-1], " \n")
	sep := ","
	if bytes.Equal(body, []byte("{")) {
		sep = ""
	}
	return fmt.Appendf(nil, "%s%s\n  \"problems\": %s\n}\n", body, sep, bytes.TrimRight(list.Bytes(), "\n")), nil
}
