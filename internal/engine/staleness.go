package engine

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/store"
)

// What must not sync
//
// Memories travel through git to other machines and later sessions. A fact
// that is only true here and now goes wrong there and then, and "a wrong
// synced fact is worse than a missing one" (spec §8). Inspect warns (check
// sync-staleness, never an error) on three kinds of text:
//
//   - a local path: /Users/<name>/…, /home/<name>/…, C:\Users\<name>\…,
//     macOS's per-user temp /var/folders/…. "~/…" and "$HOME/…" are not
//     flagged: they mean the same place on every machine. Neither are the
//     shared homes every machine has alike (/home/runner on GitHub Actions,
//     /home/linuxbrew, /Users/Shared).
//   - the current branch: "on branch feature/x", "current branch is …",
//     "branch fix/y", "当前分支", "在 feature/x 分支上". A branch named as a
//     convention ("never force-push main", "feature 分支可以用
//     --force-with-lease") is not flagged: main, master, trunk, develop and
//     bare words are general.
//   - task state: "WIP", "currently working on", "TODO today", "next
//     steps:", "我正在", "正在做…" (but not "正在做什么", which describes a
//     message, not a task), "当前任务", "今天要做".
//
// The patterns are tuned on the development set (../shared/eval/dev): it
// gets no warnings, and every pattern has a test that it fires.

type staleRule struct {
	what string // what the text holds, for the message
	hint string // what to do about it
	res  []*regexp.Regexp
	// keep, when set, filters a match (the submatches of the regexp).
	keep func(m []string) bool
}

// generalBranches are branch names that are conventions, not state.
var generalBranches = map[string]bool{"main": true, "master": true, "trunk": true, "develop": true, "dev": true, "default": true, "gh-pages": true}

var staleRules = []staleRule{
	{
		what: "a local path",
		hint: "another machine has no such path; write it relative to the project, or as ~/…",
		res: []*regexp.Regexp{
			regexp.MustCompile(`(?:^|[^\w./~$-])(/(?:Users|home)/([\w.-]+))(?:/|\b)`),
			regexp.MustCompile(`(?i)(?:^|[^\w])([a-z]:[\\/]+Users[\\/]+([\w.-]+))`),
			regexp.MustCompile(`(?:^|[^\w./-])((?:/private)?/var/folders/\S+)()`),
		},
		keep: func(m []string) bool {
			switch strings.ToLower(m[2]) {
			case "runner", "linuxbrew", "shared", "public", "default":
				return false
			}
			return true
		},
	},
	{
		what: "the current branch",
		hint: "branches come and go; say what is true on main, or leave it out",
		res: []*regexp.Regexp{
			regexp.MustCompile("(?i)\\b(?:on|checked out|switch(?:ed)? to|check ?out) (?:the )?branch[ :]+[`'\"]?([\\w./-]*\\w)"),
			regexp.MustCompile("(?i)\\bbranch[ :]+[`'\"]?((?:feature|feat|fix|bugfix|hotfix|wip|topic|task)/[\\w./-]*\\w)"),
			regexp.MustCompile("(?i)\\b((?:feature|feat|fix|bugfix|hotfix|wip|topic|task)/[\\w./-]*\\w)[`'\"]? branch\\b"),
			regexp.MustCompile("(?i)\\b(?:current|active) branch(?: is|:|=)\\s*[`'\"]?([\\w./-]*\\w)"),
			regexp.MustCompile(`(当前分支|本分支|这个分支)()`),
			regexp.MustCompile("(?:在|切到|切换到|位于)\\s*[`「'\"]?([\\w./-]*\\w)[`」'\"]?\\s*分支"),
		},
		keep: func(m []string) bool { return !generalBranches[strings.ToLower(m[1])] },
	},
	{
		what: "task state",
		hint: "the current task is over by the next session; remember what stays true",
		res: []*regexp.Regexp{
			regexp.MustCompile(`\b(WIP)\b`),
			regexp.MustCompile(`(?i)\b(work in progress|left off|pick(?:ing)? up where)\b`),
			regexp.MustCompile(`(?i)\b(currently (?:working on|fixing|debugging|implementing|refactoring|investigating|migrating))\b`),
			regexp.MustCompile(`(?i)\b((?:i'm|i am|we're|we are) (?:now |currently )?(?:working on|in the middle of|halfway through))\b`),
			regexp.MustCompile(`(?i)\b(todo[^\n.]{0,20}\b(?:today|tonight|tomorrow)|(?:today|tonight|tomorrow)(?:'s)? (?:todos?|tasks?|plan))\b`),
			regexp.MustCompile(`(?i)\b(next steps?:)`),
			regexp.MustCompile(`((?:我|我们|目前|当前|现在|今天)(?:正在|在做)|正在做(?:[^什么]|$)|当前任务|今天(?:要做|要改|的任务|的待办)|进行中的(?:任务|工作)|还没(?:做完|改完))`),
		},
	},
}

// staleFinding is one sync-staleness match in a memory.
type staleFinding struct {
	rule  *staleRule
	field string // summary, highlight, load_when or body
	text  string // the matched text
	at    int    // byte offset of the match in the field
}

// findStale returns the first match of each rule in a memory's text.
func findStale(m *memory.Memory) []staleFinding {
	fields := []struct{ name, text string }{
		{"summary", m.Summary}, {"highlight", m.Highlight},
		{"load_when", strings.Join(m.LoadWhen, "\n")}, {"body", m.Body},
	}
	var out []staleFinding
	for i := range staleRules {
		rule := &staleRules[i]
	fields:
		for _, f := range fields {
			for _, re := range rule.res {
				for _, loc := range re.FindAllStringSubmatchIndex(f.text, -1) {
					sub := make([]string, len(loc)/2)
					for k := range sub {
						if loc[2*k] >= 0 {
							sub[k] = f.text[loc[2*k]:loc[2*k+1]]
						}
					}
					if rule.keep != nil && !rule.keep(sub) {
						continue
					}
					out = append(out, staleFinding{rule, f.name, strings.TrimSpace(sub[1]), loc[2]})
					break fields
				}
			}
		}
	}
	return out
}

// checkStaleness warns on memories that hold what must not sync. Superseded
// memories are skipped: they are never retrieved.
func checkStaleness(r store.Root, files []*store.File) []Issue {
	var out []Issue
	for _, f := range files {
		m := f.Memory
		if m.SupersededBy != "" {
			continue
		}
		for _, s := range findStale(m) {
			out = append(out, Issue{SevWarning, "sync-staleness", r.Scope, f.Path, fieldLine(f, s.field, s.at),
				fmt.Sprintf("%s holds %s (%q): %s", s.field, s.rule.what, s.text, s.rule.hint)})
		}
	}
	return out
}

// fieldLine returns the file line of a finding: the line of its
// frontmatter key (Inspect loads fresh, so every memory has its key lines),
// or of the match in the body.
func fieldLine(f *store.File, field string, at int) int {
	if field == "body" {
		return bodyLine(f.Path, f.Memory.Body, at)
	}
	return f.Memory.Line(field)
}

// bodyLine returns the file line of a byte offset in a memory's body: the
// body is the file's tail, byte for byte. 0 when the file changed since.
func bodyLine(path, body string, at int) int {
	data, err := readSmall(path)
	if err != nil || !strings.HasSuffix(string(data), body) {
		return 0
	}
	start := len(data) - len(body)
	return 1 + strings.Count(string(data[:start+at]), "\n")
}
