package serve

import (
	"fmt"
	"strings"

	"github.com/ocmem/ocmem/internal/engine"
)

// newRuleChanges tells the person, once per process for each change, that
// project rules they had accepted changed, or that rules arrived in a
// project they trust, and so are not in force: a pull, or their own edit
// by hand, which they would otherwise not notice. An untrusted project's
// rules are not news: they were never in force.
//
// ROOT.md's hard rules not in force are told once per process whatever
// the reason, with the command that confirms them: a person typing a rule
// there expects it in force, and nothing else would say it is not.
func (s *Server) newRuleChanges(e *engine.Engine) string {
	news := s.ruleNews(e)
	if confirm := s.rootMDNotInForce(e); confirm != "" {
		news = strings.TrimSpace(news + " " + confirm)
	}
	return news
}

// rootMDNotInForce says, once per process for each text of the section,
// that the project's ROOT.md hard rules are not in force and how to
// confirm them, unless the news of changed rules says it already.
func (s *Server) rootMDNotInForce(e *engine.Engine) string {
	root, err := e.InjectedRootMD()
	if err != nil || root == nil || root.InForce {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rootMDLooked == nil {
		s.rootMDLooked = map[*engine.Engine]*engine.ProjectRule{}
	}
	// Computed once per load: the one this engine's last request looked
	// at was told then.
	if s.rootMDLooked[e] == root {
		return ""
	}
	s.rootMDLooked[e] = root
	key := e.Root(engine.Project).Dir + "\x00" + root.Key + "\x00" + engine.RuleDigest(root.Text)
	if s.rulesReported == nil {
		s.rulesReported, s.rulesLooked = map[string]bool{}, map[*engine.Engine]*engine.ProjectRule{}
	}
	// Told as news by ruleNews (which names `ocmem trust`), or told here.
	confirmKey := "confirm\x00" + key
	if s.rulesReported[key] || s.rulesReported[confirmKey] {
		return ""
	}
	s.rulesReported[confirmKey] = true
	return engine.ConfirmRootMD + "; `ocmem rules` shows them."
}

// ruleNews is the notice of project rules changed since accepted, or new
// in a trusted project, each told once per process.
func (s *Server) ruleNews(e *engine.Engine) string {
	news, err := e.InjectedRuleNews()
	if err != nil || len(news) == 0 {
		return ""
	}
	var fresh []engine.ProjectRule
	s.mu.Lock()
	if s.rulesReported == nil {
		s.rulesReported, s.rulesLooked = map[string]bool{}, map[*engine.Engine]*engine.ProjectRule{}
	}
	// The news are computed once per load: when they are the ones this
	// engine's last request looked at, each was told then (and a turn
	// does not digest them all again).
	if s.rulesLooked[e] == &news[0] {
		s.mu.Unlock()
		return ""
	}
	s.rulesLooked[e] = &news[0]
	for _, r := range news {
		key := e.Root(engine.Project).Dir + "\x00" + r.Key + "\x00" + engine.RuleDigest(r.Text)
		if s.rulesReported[key] {
			continue
		}
		s.rulesReported[key] = true
		fresh = append(fresh, r)
	}
	s.mu.Unlock()
	if len(fresh) == 0 {
		return ""
	}
	for _, r := range fresh {
		args := []any{"rule", r.Key, "change", r.Change, "path", r.Path}
		if r.Line > 0 {
			args = append(args, "line", r.Line)
		}
		s.log.Warn("project rule not in force: new or changed since accepted", args...)
	}
	return ruleNewsNotice(fresh)
}

// ruleNewsNotice says how many project rules are new and how many
// changed, in the words of `ocmem rules`.
func ruleNewsNotice(news []engine.ProjectRule) string {
	fresh, changed := engine.ChangeCounts(news)
	n := len(news)
	rules := "1 project rule"
	if n > 1 {
		rules = fmt.Sprintf("%d project rules", n)
	}
	var what string
	switch {
	case changed == 0 && n == 1:
		what = rules + " is new"
	case changed == 0:
		what = rules + " are new"
	case fresh == 0:
		what = rules + " changed"
	default:
		what = fmt.Sprintf("%s are new or changed (%d new, %d changed)", rules, fresh, changed)
	}
	return what + " since you accepted this repository's rules (a pull, or an edit by hand), so not in force: " +
		"`ocmem rules` shows them, `ocmem trust` accepts them."
}
