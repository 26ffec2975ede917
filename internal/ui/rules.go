package ui

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
)

// The rules page shows what `ocmem rules` shows, from the same engine call
// (engine.Rules): every hard rule of both roots, ROOT.md's included, with
// whether it is in force and why, and everything waiting for a person with
// its whole text and, for a changed rule, a diff against what was
// accepted. Accept, Reject and Trust call the engine functions the CLI
// calls and say what the CLI says.
//
// What a person approves is what goes in force: the model can edit the
// project's files between the moment a page shows the rules and the
// moment the person clicks, so each Accept form carries the digest of the
// text it shows, and the Trust confirmation the fingerprint of the rules
// it lists; the engine accepts only if the rules still read that way.
// Otherwise nothing is accepted, and the page lists the rules again as
// they read now.

// rulesCache holds engine.Rules, which reloads both roots: once per
// generation of the files, and for at most rulesTTL, so that a rule
// accepted or a project trusted from a terminal shows on the next page.
type rulesCache struct {
	mu    sync.Mutex
	gen   uint64
	at    time.Time
	rules []engine.RuleEntry
}

const rulesTTL = 5 * time.Second

func (s *Server) ruleEntries() ([]engine.RuleEntry, error) {
	gen := s.generation()
	c := &s.rulesC
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rules != nil && c.gen == gen && time.Since(c.at) < rulesTTL {
		return c.rules, nil
	}
	rules, err := s.e.Rules()
	if err != nil {
		return nil, err
	}
	c.rules, c.gen, c.at = rules, gen, time.Now()
	return rules, nil
}

// forgetRules drops the cached list after an action changed it.
func (s *Server) forgetRules() {
	s.rulesC.mu.Lock()
	s.rulesC.rules = nil
	s.rulesC.mu.Unlock()
}

// ruleView is one entry of the rules page.
type ruleView struct {
	engine.RuleEntry
	// Key names it for Accept: the memory's id, or ROOT.md.
	Key string
	// Actions: whether Accept and Reject apply, and the token their forms
	// carry.
	CanAccept, CanReject bool
	CSRF                 string
}

// ruleSection is one heading of the rules page, as `ocmem rules` has them.
type ruleSection struct {
	ID, Title, Note string
	Rules           []ruleView
	More            int // entries beyond the page size, not shown
}

type rulesData struct {
	Sections []ruleSection
	// Untrusted is set when a project rule is not in force: the page
	// offers to trust the repository (a confirmation first).
	Untrusted bool
	Project   string
	Total     int
	// Changed: an Accept was refused because the rule no longer read as
	// the page had shown it; the page shows it again.
	Changed string
}

// sectionOf says which section a status belongs to.
var sectionOf = []struct {
	id, title, note string
	status          []engine.RuleState
}{
	{"proposals", "Rule proposals, waiting for you",
		"A model can only propose a rule; a person puts it in force here or with `ocmem accept ID`, or rejects it (`ocmem reject ID` deletes the file).",
		[]engine.RuleState{engine.RuleProposal}},
	{"changed", "Changed since you accepted them, not in force",
		"The model sees these only as the repository's proposals. A pull, or an edit by hand: accept one as it reads now, or all with Trust this repository (`ocmem trust`).",
		[]engine.RuleState{engine.RuleChanged}},
	{"new", "New since you trusted this repository, not in force",
		"The model sees these only as the repository's proposals until you accept them (`ocmem accept ID`, or all with `ocmem trust`).",
		[]engine.RuleState{engine.RuleNew}},
	{"untrusted", "This repository's rules, which you have not trusted",
		"The model sees these only as the repository's proposals. Read them, then accept one, or all with Trust this repository (`ocmem trust`).",
		[]engine.RuleState{engine.RuleUntrusted}},
	{"rules", "Rules in force", "Injected as hard rules on every turn, from both roots.",
		[]engine.RuleState{engine.RuleInForce}},
	{"other", "Not in force for other reasons", "", []engine.RuleState{engine.RuleSuperseded, engine.RuleUnfit}},
}

func (s *Server) rules(w http.ResponseWriter, r *http.Request) {
	s.showRules(w, r, http.StatusOK, "")
}

// showRules renders the rules page; changed says which rule did not read
// as shown when an Accept was refused.
func (s *Server) showRules(w http.ResponseWriter, r *http.Request, status int, changed string) {
	entries, err := s.ruleEntries()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	d := rulesData{Project: s.e.Root(engine.Project).Dir, Total: len(entries), Changed: changed}
	for _, sec := range sectionOf {
		rs := ruleSection{ID: sec.id, Title: sec.title, Note: sec.note}
		for _, re := range entries {
			if !slices.Contains(sec.status, re.Status) {
				continue
			}
			if re.Scope == engine.Project && (re.Status == engine.RuleUntrusted || re.Status == engine.RuleNew || re.Status == engine.RuleChanged) {
				d.Untrusted = true
			}
			if len(rs.Rules) >= s.cfg.PageSize {
				rs.More++
				continue
			}
			rs.Rules = append(rs.Rules, s.viewRule(re))
		}
		d.Sections = append(d.Sections, rs)
	}
	s.render(w, r, status, "rules", "Rules", d)
}

func (s *Server) viewRule(re engine.RuleEntry) ruleView {
	v := ruleView{RuleEntry: re, Key: re.ID, CSRF: s.csrf}
	waiting := re.Status == engine.RuleProposal || re.Status == engine.RuleUntrusted || re.Status == engine.RuleNew || re.Status == engine.RuleChanged
	if re.Source == engine.SourceRootMD {
		v.Key = engine.RootMDKey
	}
	v.CanAccept = waiting && (re.Scope == engine.Project || re.Source == engine.SourceMemory)
	v.CanReject = re.Status == engine.RuleProposal
	return v
}

// rootMDRef matches ROOT.md's hard rules as Accept names them: "ROOT.md",
// the section as a whole; "ROOT.md@…", a line alone, which Accept refuses
// with why.
var rootMDRef = regexp.MustCompile(`^ROOT\.md(@[0-9a-f]{7,64})?$`)

// accept and reject call the engine functions `ocmem accept` and
// `ocmem reject` call. Accept puts in force only the text the form showed
// (its digest, from the page).
func (s *Server) accept(w http.ResponseWriter, r *http.Request) {
	shown := r.PostForm.Get("shown")
	if !isDigest(shown) {
		s.fail(w, r, http.StatusBadRequest, fmt.Errorf("%w: the form lacks the digest of the rule it showed (shown); reload the page and accept again", engine.ErrBadRequest))
		return
	}
	s.decide(w, r, "accepted", func(sc engine.Scope, id string) (*engine.Written, error) { return s.e.Accept(sc, id, shown) })
}

func (s *Server) reject(w http.ResponseWriter, r *http.Request) {
	s.decide(w, r, "rejected", func(sc engine.Scope, id string) (*engine.Written, error) { return s.e.Reject(sc, id) })
}

// isDigest reports whether v is a digest as the pages give them: a hex
// SHA-256.
func isDigest(v string) bool { return digestRE.MatchString(v) }

var digestRE = regexp.MustCompile(`^[0-9a-f]{64}$`)

func (s *Server) decide(w http.ResponseWriter, r *http.Request, verb string, act func(engine.Scope, string) (*engine.Written, error)) {
	var sc engine.Scope
	var id string
	var err error
	if raw := r.PostForm.Get("id"); verb == "accepted" && rootMDRef.MatchString(raw) {
		sc, id = engine.Project, raw
	} else if sc, id, err = memoryRef(r.PostForm, false); err != nil {
		s.fail(w, r, errStatus(err), err)
		return
	}
	wr, err := act(sc, id)
	if errors.Is(err, engine.ErrRulesChanged) {
		s.forgetRules()
		s.showRules(w, r, http.StatusConflict, fmt.Sprintf("Nothing was accepted: %s changed since the page showed it. Here it is as it reads now; read it again before you accept it.", id))
		return
	}
	if err != nil {
		s.fail(w, r, errStatus(err), err)
		return
	}
	s.forgetRules()
	s.notify()
	// What `ocmem accept` and `ocmem reject` print.
	done := fmt.Sprintf("%s %s:%s (%s)", verb, wr.Scope, wr.ID, wr.Path)
	if wr.Warning != "" {
		done += "; warning: " + wr.Warning
	}
	if wr.Scope == engine.Project && wr.Kind == "rule" {
		done += s.otherRulesNote(wr.ID)
	}
	http.Redirect(w, r, "/rules?done="+url.QueryEscape(done), http.StatusSeeOther)
}

// otherRulesNote is the CLI's note after a person put a project rule in
// force: which of the project's other rules are not.
func (s *Server) otherRulesNote(key string) string {
	rules, err := s.e.ProjectRules()
	if err != nil {
		return ""
	}
	if rules.TrustErr != "" {
		return "; note: the trust list cannot be read (" + rules.TrustErr + "), so no project rule is in force"
	}
	others := 0
	for _, r := range rules.Pending() {
		if r.Key != key {
			others++
		}
	}
	if others == 0 {
		return ""
	}
	return fmt.Sprintf("; note: your rule is in force; %d other rule(s) of this repository are new or changed and not in force: review them here, or Trust this repository to accept them", others)
}

// trustData is the confirmation before trusting a project: what trusting
// puts in force, exactly as it reads now.
type trustData struct {
	Project string
	Trusted bool
	Pending []engine.ProjectRule
	// LineByLine are ROOT.md lines an earlier version accepted one by
	// one: trusting replaces them with the section.
	LineByLine []string
	Unfit      string
	// Shown is the fingerprint of the rules as listed, which the
	// confirmation sends back; Changed, that a confirmation was refused
	// because the rules no longer read as it had listed them.
	Shown   string
	Changed bool
}

// trustConfirm shows what Trust would accept; it changes nothing.
func (s *Server) trustConfirm(w http.ResponseWriter, r *http.Request) {
	s.showTrust(w, r, http.StatusOK, false)
}

// showTrust renders the confirmation, with the rules as they read now;
// changed says a confirmation was just refused.
func (s *Server) showTrust(w http.ResponseWriter, r *http.Request, status int, changed bool) {
	dir := s.e.Root(engine.Project).Dir
	if dir == "" {
		s.fail(w, r, http.StatusNotFound, fmt.Errorf("%w: no project root", engine.ErrNoRoot))
		return
	}
	pr, err := s.e.ProjectRules()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	d := trustData{Project: engine.ProjectKey(dir), Trusted: pr.Trusted, Pending: pr.Pending(), LineByLine: pr.LineByLine, Unfit: pr.Unfit,
		Shown: pr.Digest(), Changed: changed}
	s.render(w, r, status, "trust", "Trust this repository", d)
}

// trustProject calls the engine function `ocmem trust` calls, once
// confirmed, with the fingerprint of the rules the confirmation listed,
// and says what the CLI says.
func (s *Server) trustProject(w http.ResponseWriter, r *http.Request) {
	if r.PostForm.Get("confirm") != "yes" {
		s.fail(w, r, http.StatusBadRequest, fmt.Errorf("%w: trusting needs the confirmation (confirm=yes)", engine.ErrBadRequest))
		return
	}
	shown := r.PostForm.Get("shown")
	if !isDigest(shown) {
		s.fail(w, r, http.StatusBadRequest, fmt.Errorf("%w: the confirmation lacks the fingerprint of the rules it listed (shown); open Trust this repository again", engine.ErrBadRequest))
		return
	}
	res, err := s.e.Trust(shown)
	if errors.Is(err, engine.ErrRulesChanged) {
		s.forgetRules()
		s.showTrust(w, r, http.StatusConflict, true)
		return
	}
	if err != nil {
		s.fail(w, r, errStatus(err), err)
		return
	}
	s.forgetRules()
	s.notify()
	key := engine.ProjectKey(s.e.Root(engine.Project).Dir)
	var b strings.Builder
	if res.Added {
		fmt.Fprintf(&b, "trusted %s", key)
	} else {
		fmt.Fprintf(&b, "%s was trusted already", key)
	}
	switch {
	case len(res.Accepted) > 0:
		b.WriteString("; accepted now (not in force before):")
		for i, pr := range res.Accepted {
			if i == 20 {
				fmt.Fprintf(&b, " and %d more", len(res.Accepted)-i)
				break
			}
			b.WriteString(" " + ruleChangeLine(pr))
		}
	case !res.Added:
		b.WriteString("; no rule is new or changed since you last accepted them")
	}
	for _, l := range res.Withdrawn {
		b.WriteString("; accepted line by line before, replaced by the section: " + engine.OneLine(l))
	}
	http.Redirect(w, r, "/rules?done="+url.QueryEscape(b.String()), http.StatusSeeOther)
}

// ruleChangeLine names a rule that was not in force, as `ocmem trust`
// lists it.
func ruleChangeLine(r engine.ProjectRule) string {
	switch {
	case r.Key == engine.RootMDKey && r.Change == engine.RuleChanged:
		return "[changed: ROOT.md's hard rules, as a whole: " + engine.OneLine(r.Text) + "]"
	case r.Key == engine.RootMDKey:
		return "[new: ROOT.md's hard rules, as a whole: " + engine.OneLine(r.Text) + "]"
	case r.Change == engine.RuleChanged:
		return "[changed: " + engine.OneLine(r.Summary) + " (" + r.Key + ")]"
	}
	return "[new: " + engine.OneLine(r.Summary) + " (" + r.Key + ")]"
}

// ruleOf returns the rules page's entry of a memory, for its own page.
func (s *Server) ruleOf(sc engine.Scope, id string) *engine.RuleEntry {
	entries, err := s.ruleEntries()
	if err != nil {
		return nil
	}
	for i := range entries {
		if entries[i].Source == engine.SourceMemory && entries[i].Scope == sc && entries[i].ID == id {
			return &entries[i]
		}
	}
	return nil
}
