package engine

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/trust"
)

// Files that do not load
//
// A memory file that does not parse is reported and left alone: never
// rewritten, never guessed at. Every command that reads the store says so
// (LoadProblems), since a memory that silently drops out of recall, or a
// hard rule that silently stops binding, is worse than a loud error.
//
// A file that looks like a hard rule (in a rules folder, or with a
// `kind: rule` line) and has an `enforce:` block guarded tool calls until
// the edit that broke it. Its guards cannot be read, so they cannot be
// matched; letting the calls they guarded through would turn the guard
// off without a word, and denying every call would let one slip of an
// editor stop all work. So a call of a tool the block names, as far as
// its keys read line by line, is asked of the person (the rule's "ask"),
// with the reason naming the file; other tools run as before. A project's
// file does so only where the project's rules could be in force (the
// project is trusted), so a repository cannot make its tools ask by
// shipping a broken file.

// LoadProblem is a memory file that does not load.
type LoadProblem struct {
	Scope Scope `json:"scope"`
	// ID is the id the file's path implies.
	ID     string `json:"id"`
	Path   string `json:"path"`
	Line   int    `json:"line,omitempty"`
	Reason string `json:"reason"`
	// Rule says the file looks like a hard rule: the rule in it is not in
	// force.
	Rule bool `json:"rule,omitempty"`
	// Asks is the tools whose calls are asked of the person because of it
	// (the keys of its enforce block that can be read), empty when none.
	Asks []string `json:"asks,omitempty"`
}

// LoadProblems lists the memory files of both roots that do not load,
// global first.
func (e *Engine) LoadProblems() ([]LoadProblem, error) {
	s, err := e.Load()
	if err != nil {
		return nil, err
	}
	if len(s.Problems) == 0 {
		// Every command asks: one that never renders the rules tier
		// does not render it for this.
		return []LoadProblem{}, nil
	}
	return e.stableOf(s).problems, nil
}

// loadProblems reads the snapshot's load problems, and of the files that
// look like rules the tools they guarded.
func loadProblems(s *Snapshot, gate *trust.Gate) []LoadProblem {
	var out []LoadProblem
	for _, p := range s.Problems {
		lp := LoadProblem{Scope: p.Scope, ID: store.IDOf(filepath.ToSlash(p.Rel)), Path: p.Path, Line: p.Line, Reason: strings.Join(strings.Fields(p.Reason()), " ")}
		if p.Rel != store.RootFile {
			raw, _ := readHead(p.Path)
			rule, tools := brokenRule(filepath.ToSlash(p.Rel), raw)
			lp.Rule = rule
			if rule && (p.Scope == store.Global || gate.All() || gate.Trusted()) {
				lp.Asks = tools
			}
		}
		out = append(out, lp)
	}
	return out
}

// readHead reads the start of a file, where a memory's front matter is.
// Only a regular file is read: a link may leave the root, and a named pipe
// would block every command that reads the store (the loader refuses both
// without opening them; so does this).
func readHead(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errNotRegular
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	n, _ := f.Read(buf)
	return buf[:n], nil
}

var errNotRegular = errors.New("not a regular file")

var (
	kindLine   = regexp.MustCompile(`^kind:\s*["']?rule["']?\s*(#.*)?$`)
	enforceKey = regexp.MustCompile(`^["']?([A-Za-z_*][A-Za-z0-9_-]*)["']?\s*:`)
)

// brokenRule reads, line by line, the raw text of a file that does not
// parse: whether it looks like a hard rule (in a rules folder, or a
// `kind: rule` line), and the tools its enforce block names, the keys
// indented as its first.
func brokenRule(rel string, raw []byte) (rule bool, tools []string) {
	rule = strings.HasPrefix(rel, "rules/")
	inEnforce, indent := false, ""
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, len(raw)+1)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if kindLine.MatchString(line) {
			rule = true
		}
		if after, ok := strings.CutPrefix(line, "enforce:"); ok && (strings.TrimSpace(after) == "" || strings.HasPrefix(strings.TrimSpace(after), "#")) {
			inEnforce, indent = true, ""
			continue
		}
		if !inEnforce {
			continue
		}
		rest := strings.TrimLeft(line, " \t")
		lead := line[:len(line)-len(rest)]
		switch {
		case lead == "":
			inEnforce = false
		case indent == "":
			indent = lead
			fallthrough
		case lead == indent:
			if m := enforceKey.FindStringSubmatch(rest); m != nil {
				tools = appendNew(tools, strings.ToLower(m[1]))
			}
		}
	}
	return rule, tools
}

func appendNew(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}

// brokenGuards are the guards the check keeps for the rule-looking files
// that do not load: every call of a tool they named asks.
func brokenGuards(problems []LoadProblem) []GuardedRule {
	var out []GuardedRule
	for _, p := range problems {
		if len(p.Asks) == 0 {
			continue
		}
		g := GuardedRule{ID: p.ID, Scope: p.Scope, Path: p.Path, Summary: "a hard rule file that does not load", Broken: p.Where()}
		for _, t := range p.Asks {
			g.Guards = append(g.Guards, memory.Guard{Tool: t, Pattern: "*", Action: memory.ActionAsk})
		}
		out = append(out, g)
	}
	return out
}

// Where is the problem as a report shows it: "line N: reason".
func (p LoadProblem) Where() string {
	if p.Line > 0 {
		return "line " + strconv.Itoa(p.Line) + ": " + p.Reason
	}
	return p.Reason
}
