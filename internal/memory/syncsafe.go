package memory

import (
	"fmt"
	"regexp"
	"strings"
)

// What must not sync
//
// Memories travel through git to other machines and later sessions. A fact
// that is only true here and now goes wrong there and then, and "a wrong
// synced fact is worse than a missing one" (spec §8). Inspect warns (check
// sync-staleness, never an error) and extraction skips the candidate on
// four kinds of text:
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
//     steps:", "still TODO", "continue tomorrow", "我正在", "正在做…" (but
//     not "正在做什么", which describes a message, not a task), "当前任务",
//     "今天要做", "还没写", "明天继续".
//   - a token: a credential's placeholder ("ghp_xxxx", "API_KEY=<your
//     key>", "token: ****"), a value the person must fill in, which the
//     next session would take for the real one. Where a credential lives
//     ("the DEPLOY_TOKEN environment variable") is not flagged: that is
//     what a memory should say instead. A real credential is the secret
//     scanner's (internal/secrets), which refuses the write.
//
// The patterns are tuned on the development set (../shared/eval/dev, see engine.TestStalenessDevSet): it
// gets no warnings, and every pattern has a test that it fires.

type syncRule struct {
	what string // what the text holds, for the message
	hint string // what to do about it
	res  []*regexp.Regexp
	// keep, when set, filters a match (the submatches of the regexp).
	keep func(m []string) bool
}

// generalBranches are branch names that are conventions, not state.
var generalBranches = map[string]bool{"main": true, "master": true, "trunk": true, "develop": true, "dev": true, "default": true, "gh-pages": true}

var syncRules = []syncRule{
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
			regexp.MustCompile(`(?i)\b((?:is|are) still (?:a )?(?:todo|to ?do|unfinished|not (?:done|written|finished))|(?:continue|resume|finish|pick (?:it |this )?up)(?: [\w-]+){0,3} (?:tomorrow|tonight|later today|next session))\b`),
			regexp.MustCompile(`(还没(?:写|做|弄|完成|开始|测)|(?:明天|下次|回头|待会儿?)(?:再|继续|接着)|留到明天)`),
		},
	},
	{
		what: "a token",
		hint: "name where the credential lives (an environment variable, a secret store), never its value",
		res: []*regexp.Regexp{
			regexp.MustCompile(`\b((?:ghp|gho|ghu|ghs|ghr|github_pat|glpat|xox[abpr]|sk|sk-ant|sk-proj)[_-](?:[xX*.…]{4,}|(?i:your)[\w-]*|<[^>\n]{1,40}>))`),
			regexp.MustCompile("(?i)\\b[\\w-]*(?:token|api[_-]?key|secret|passw(?:or)?d)[\\w-]*\\s*[:=]\\s*[\"'`]?(<[^>\\n]{1,40}>|\\*{3,}|x{4,}|\\[?redacted\\]?|your[\\w-]*)"),
		},
	},
}

// SyncHazard is text in a memory that must not sync.
type SyncHazard struct {
	What  string // what the text holds: "a local path", "the current branch", "task state", "a token"
	Hint  string // what to do about it
	Field string // summary, highlight, load_when or body
	Text  string // the matched text
	At    int    // byte offset of the match in the field
}

func (h SyncHazard) String() string { return fmt.Sprintf("%s holds %s (%q)", h.Field, h.What, h.Text) }

// SyncHazards returns the first match of each kind of text that must not
// sync in a memory's text.
func SyncHazards(m *Memory) []SyncHazard {
	fields := []struct{ name, text string }{
		{"summary", m.Summary}, {"highlight", m.Highlight},
		{"load_when", strings.Join(m.LoadWhen, "\n")}, {"body", m.Body},
	}
	var out []SyncHazard
	for i := range syncRules {
		rule := &syncRules[i]
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
					out = append(out, SyncHazard{rule.what, rule.hint, f.name, strings.TrimSpace(sub[1]), loc[2]})
					break fields
				}
			}
		}
	}
	return out
}
