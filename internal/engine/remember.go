package engine

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/pathsafe"
	"github.com/ocmem/ocmem/internal/secrets"
	"github.com/ocmem/ocmem/internal/store"
)

// Source says who asks for a write. Only a person may write a hard rule.
type Source int

const (
	FromPerson     Source = iota // the CLI
	FromModel                    // a tool call of the model
	FromExtraction               // automatic extraction
)

// RememberRequest is a memory to write.
type RememberRequest struct {
	Scope      store.Scope // "" : project when a project root is configured, else global
	Category   string
	Kind       memory.Kind
	Summary    string
	Highlight  string
	LoadWhen   []string
	Body       string
	Pinned     bool
	Supersedes string // id of a memory this one replaces
	Source     Source
	// Enforce are the guards of a rule (memory.ParseEnforce reads them
	// as a model gives them). From a model or extraction the rule is a
	// proposal, and its guards stop nothing until a person accepts it.
	Enforce []memory.Guard
	// Anchors are the code the memory is about (paths relative to the
	// project's worktree, "path#Symbol"); nil fills them from what the
	// memory's text names (stale.go).
	Anchors []string
	// CodeDir is the worktree in use, where anchors are named from and
	// checked; "" is the engine's own.
	CodeDir string
	// verified is where the anchors are true now, filled with them.
	verified memory.Verified
}

// DuplicateError is the refusal of a memory whose summary and body a live
// memory of the same root holds already. Its message speaks to a model,
// which names the replaced memory in the tool's supersedes parameter; a
// command line words the same advice with its own flag.
type DuplicateError struct {
	Scope store.Scope
	ID    string // the memory that says the same
}

func (d *DuplicateError) Error() string {
	return fmt.Sprintf("%v: %s:%s has this summary and body already; nothing was written. "+
		"To replace it, remember the new text with supersedes: %q; to keep it, there is nothing to do",
		ErrDuplicate, d.Scope, d.ID, d.ID)
}

// Is makes errors.Is(err, ErrDuplicate) true.
func (d *DuplicateError) Is(target error) bool { return target == ErrDuplicate }

// checkNearCategory refuses a category that is not configured, has no
// folder in r yet, and is one letter off a configured one ("pitfall",
// "fact", "decison"): a typo that would split a category in two. Any
// other new name makes a new category, as a folder made by hand does.
func (e *Engine) checkNearCategory(r store.Root, c string) error {
	cats := e.opts.CategoriesOrDefault()
	if slices.Contains(cats, c) || dirExists(filepath.Join(r.Dir, c)) {
		return nil
	}
	for _, known := range cats {
		if options.OneEditApart(c, known) {
			return badRequest("category %q is not configured, and %q is: did you mean it? (To start a category named %q, make its folder first.)", c, known, c)
		}
	}
	return nil
}

// defaultScope picks the root a write goes to when none is named.
func (e *Engine) defaultScope() store.Scope {
	if e.project.Dir != "" {
		return store.Project
	}
	return store.Global
}

// Remember writes a new memory and recompiles its root. The text is scanned
// for secrets first; a suspected secret refuses the write and nothing is
// written. A rule from a model or extraction is stored as a rule-proposal.
func (e *Engine) Remember(req RememberRequest) (_ *Written, err error) {
	defer func() { err = asRefusal(err) }()
	r, req, w, summary, triggers, err := e.prepareRemember(req)
	if err != nil {
		return nil, err
	}

	wr, err := e.beginWrite(r)
	if err != nil {
		return nil, err
	}
	defer wr.end()

	wr.readRootAhead()
	var dup, sameSummary string
	check := func() { dup, sameSummary = wr.s.Twins(req.Scope, summary, req.Body, req.Supersedes) }
	if rt, ran := wr.tablesBeside(check); !ran && rt.MayHaveSummary(summary) {
		check()
	}
	if dup != "" {
		return nil, &DuplicateError{Scope: req.Scope, ID: dup}
	}
	w.SameSummary = sameSummary

	old, oldRel, err := e.supersedeTarget(req, w)
	if err != nil {
		return nil, err
	}
	m, rel, path, data, err := e.draftMemory(r, req, w.Kind, summary, triggers)
	if err != nil {
		return nil, err
	}
	if _, err := r.WriteFile(rel, data); err != nil {
		return nil, fmt.Errorf("write %s: %w", rel, err)
	}
	wr.wrote(rel, false)
	if old != nil {
		old.SupersededBy = m.ID
		if _, err := r.WriteFile(oldRel, old.Format()); err != nil {
			return nil, fmt.Errorf("mark %s superseded: %w", old.ID, err)
		}
		wr.wrote(oldRel, false)
		w.Superseded = old.ID
	}
	// A person's rule is in force as written (see trust.go).
	if req.Source == FromPerson && req.Scope == store.Project {
		if err := e.pinWritten(m); err != nil {
			return nil, fmt.Errorf("memory written to %s, but recording it as accepted failed (`ocmem accept %s` retries): %w", path, m.ID, err)
		}
	}
	w.ID, w.Path = m.ID, path
	if _, err := wr.compile(); err != nil {
		w.Warning = indexNotUpdated("written", err)
	}
	return w, nil
}

// prepareRemember checks a remember request before anything is locked:
// the request with its scope filled in, its root, the Written it starts
// (the kind it will be stored as), and its summary and triggers as
// checkRemember returns them.
func (e *Engine) prepareRemember(req RememberRequest) (r store.Root, _ RememberRequest, w *Written, summary string, triggers []string, err error) {
	if req.Scope == "" {
		req.Scope = e.defaultScope()
	}
	r = e.Root(req.Scope)
	if r.Dir == "" {
		return r, req, nil, "", nil, fmt.Errorf("%w: no %s root", ErrNoRoot, req.Scope)
	}
	if err := e.mayWriteGlobal(req.Scope, req.Source); err != nil {
		return r, req, nil, "", nil, err
	}
	if err := checkCategory(req.Category); err != nil {
		return r, req, nil, "", nil, err
	}
	if err := e.checkNearCategory(r, req.Category); err != nil {
		return r, req, nil, "", nil, err
	}
	if !req.Kind.Valid() {
		return r, req, nil, "", nil, badRequest("kind %q is not one of rule, preference, decision, pitfall, fact, rule-proposal", req.Kind)
	}
	if len(req.Enforce) > 0 && req.Kind != memory.KindRule && req.Kind != memory.KindRuleProposal {
		return r, req, nil, "", nil, badRequest("enforce is for a rule only: a %s stops nothing (give the guards with kind rule)", req.Kind)
	}
	w = &Written{Scope: req.Scope, Kind: req.Kind}
	if req.Kind == memory.KindRule && req.Source != FromPerson {
		w.Kind, w.Downgraded = memory.KindRuleProposal, true
	}
	summary, triggers, err = checkRemember(req)
	if err == nil {
		req, err = e.withAnchors(req)
	}
	return r, req, w, summary, triggers, err
}

// supersedeTarget returns the memory of the same root a request
// supersedes, to be marked superseded_by, and its path in the root; none
// when there is nothing to mark. Replacing a hard rule changes what is in
// force: from a model or extraction that makes w a proposal, and the rule
// stays as it is.
func (e *Engine) supersedeTarget(req RememberRequest, w *Written) (*memory.Memory, string, error) {
	if req.Supersedes == "" {
		return nil, "", nil
	}
	old, oldRel, rule, err := e.findForSupersede(req)
	if err != nil {
		return nil, "", err
	}
	if rule && req.Source != FromPerson {
		w.Kind, w.Downgraded, w.ReplacesRule = memory.KindRuleProposal, true, req.Supersedes
		return nil, "", nil
	}
	return old, oldRel, nil
}

// draftMemory is the memory a request writes, with its path in the root
// (the first free slug of its summary) and its file's bytes.
func (e *Engine) draftMemory(r store.Root, req RememberRequest, kind memory.Kind, summary string, triggers []string) (m *memory.Memory, rel, path string, data []byte, err error) {
	slug := store.Slugify(summary)
	id := req.Category + "/" + slug
	for i := 2; r.Exists(id + ".md"); i++ {
		id = req.Category + "/" + slug + "-" + strconv.Itoa(i)
	}
	rel = id + ".md"
	if path, err = r.Path(rel); err != nil {
		return nil, "", "", nil, err
	}
	now := e.now().UnixMilli()
	m = &memory.Memory{
		ID: id, Kind: kind, Summary: summary, Highlight: strings.TrimSpace(req.Highlight),
		Created: now, Updated: now, LoadWhen: triggers, Pinned: req.Pinned,
		Supersedes: req.Supersedes, Body: normalizeBody(req.Body), Enforce: req.Enforce,
		Anchors: req.Anchors, Verified: req.verified,
	}
	if m.Kind == memory.KindRuleProposal {
		m.ProposedBy = proposedBy(req.Source) // "" for a person's proposal
	}
	data = m.Format()
	if err := m.Validate(id); err != nil {
		return nil, "", "", nil, badRequest("%v", err)
	}
	if err := checkGuardsWritten(data, req.Enforce); err != nil {
		return nil, "", "", nil, err
	}
	if len(data) > memory.MaxFileSize {
		return nil, "", "", nil, badRequest("the memory would be %d bytes, over the %d-byte limit for a memory", len(data), memory.MaxFileSize)
	}
	return m, rel, path, data, nil
}

// checkGuardsWritten refuses a memory whose guards its file would not
// hold as given: the file's enforce block is read as a person's would
// be, so a guard it would leave out (an unknown action, a pattern twice,
// over the limits) refuses the write, all of it.
func checkGuardsWritten(data []byte, want []memory.Guard) error {
	if len(want) == 0 {
		return nil
	}
	back, err := memory.Parse(data)
	if err != nil {
		return badRequest("%v", err)
	}
	if len(back.EnforceProblems) > 0 {
		errs := make([]error, len(back.EnforceProblems))
		for i := range back.EnforceProblems {
			errs[i] = back.EnforceProblems[i].Err // its line is in a file not written
		}
		return badRequest("%v", errors.Join(errs...))
	}
	if len(back.Enforce) != len(want) {
		return badRequest("enforce: %d guards given, the file would hold %d", len(want), len(back.Enforce))
	}
	return nil
}

// checkRemember checks what a remember request would write before anything
// is locked or written: the summary folded onto one line and the triggers
// trimmed, both returned; no secret in any field, in the summary as given
// or in the file name it makes; nothing Load would refuse to read.
func checkRemember(req RememberRequest) (summary string, triggers []string, err error) {
	// The size first: the scans below cost time in proportion to the text,
	// and a memory over the limit is refused whatever it holds.
	size := len(req.Category) + len(req.Summary) + len(req.Highlight) + len(req.Body) + len(req.Supersedes)
	for _, t := range req.LoadWhen {
		size += len(t)
	}
	var guards []string // the guards' text, scanned for secrets as a field
	for _, g := range req.Enforce {
		size += len(g.Tool) + len(g.Pattern)
		guards = append(guards, g.Tool+" "+g.Pattern)
	}
	if size > memory.MaxFileSize {
		return "", nil, badRequest("the memory would be at least %d bytes, over the %d-byte limit for a memory", size, memory.MaxFileSize)
	}
	summary = strings.Join(strings.Fields(req.Summary), " ")
	if summary == "" {
		return "", nil, badRequest("summary is empty")
	}
	for _, t := range req.LoadWhen {
		if t = strings.TrimSpace(t); t != "" {
			triggers = append(triggers, t)
		}
	}
	fields := map[string]string{
		"summary": summary, "highlight": req.Highlight, "body": req.Body,
		"load_when": strings.Join(triggers, "\n"),
	}
	// Every field is scanned, the category and the replaced id too (each
	// names a path), apart and joined in the order they are written.
	if err := secrets.CheckFields(
		secrets.Field{Name: "category", Text: req.Category},
		secrets.Field{Name: "summary", Text: summary},
		secrets.Field{Name: "highlight", Text: req.Highlight},
		secrets.Field{Name: "body", Text: req.Body},
		secrets.Field{Name: "load_when", Text: fields["load_when"]},
		secrets.Field{Name: "supersedes", Text: req.Supersedes},
		secrets.Field{Name: "enforce", Text: strings.Join(guards, "\n")},
	); err != nil {
		return "", nil, err
	}
	// The summary is folded onto one line; a secret that spans lines (a
	// private key) is also looked for as it was given.
	if summary != req.Summary {
		if err := secrets.Check(map[string]string{"summary": req.Summary}); err != nil {
			return "", nil, err
		}
	}
	// The file name comes from the summary; it must not carry a secret
	// either, even one that only takes shape there ("xoxb 123 …" becomes
	// xoxb-123-…).
	if fs := secrets.Scan(store.Slugify(summary)); len(fs) > 0 {
		for i := range fs {
			fs[i].Field = "file name"
		}
		return "", nil, &secrets.Error{Field: "file name", Findings: fs}
	}
	// What Load would refuse to read must not be written (memory.CheckText).
	for _, name := range []string{"summary", "highlight", "load_when", "body"} {
		if err := memory.CheckText([]byte(fields[name])); err != nil {
			return "", nil, badRequest("%s: %v", name, err)
		}
	}
	// A memory is its body: the summary only finds it. Extraction keeps
	// its own rule (a candidate's summary may say it all).
	if req.Source != FromExtraction && strings.TrimSpace(req.Body) == "" {
		return "", nil, badRequest("body is empty: give the context, the decision or root cause, and the reason")
	}
	return summary, triggers, nil
}

// findForSupersede returns the memory a request supersedes, when it lives in
// the same root (its file then gets superseded_by), and whether it is a hard
// rule. A project memory may supersede a global one: the global file is left
// alone (other projects still use it) and ranking hides it in this project.
// The caller holds the lock of the request's root.
func (e *Engine) findForSupersede(req RememberRequest) (m *memory.Memory, rel string, rule bool, err error) {
	r := e.Root(req.Scope)
	if err := pathsafe.Check(req.Supersedes + ".md"); err != nil {
		return nil, "", false, badRequest("supersedes: %v", err)
	}
	rel = req.Supersedes + ".md"
	data, err := r.ReadFile(rel)
	if err != nil {
		return nil, "", false, err
	}
	other := data == nil && req.Scope == store.Project && e.global.Exists(rel)
	if other {
		if data, err = e.global.ReadFile(rel); err != nil {
			return nil, "", false, err
		}
	}
	if data == nil {
		return nil, "", false, fmt.Errorf("supersedes %q: %w", req.Supersedes, ErrNotFound)
	}
	if m, err = memory.Parse(data); err != nil {
		return nil, "", false, fmt.Errorf("supersedes %q: the file does not parse (%v); fix it first", req.Supersedes, err)
	}
	if m.SupersededBy != "" && !other {
		return nil, "", false, badRequest("%s is already superseded by %s", m.ID, m.SupersededBy)
	}
	if m.Pinned && req.Source != FromPerson {
		return nil, "", false, fmt.Errorf("supersedes %q: %w; a person can edit it or run `ocmem remember --supersedes`", req.Supersedes, ErrPinned)
	}
	if other {
		return nil, "", m.Kind == memory.KindRule, nil
	}
	return m, rel, m.Kind == memory.KindRule, nil
}

// mayWriteGlobal refuses a model's or extraction's write to the global
// root from a project the person has not trusted. The global root is
// theirs: every project reads it as their own notes, and its rules are in
// force everywhere. A model working in a stranger's repository has the
// repository's text in its context (its AGENTS.md, its memories), so what
// it writes there may be a stranger's words; written to the global root,
// they would be presented to every other project as the person's own.
// Refused rather than marked: a mark is a field in a file the model
// writes, and every reader of the root would have to honour it; a refusal
// leaves the root holding only what the person or a model in a project
// they trust wrote. Without a project (OpenCode in the home folder) there
// is no stranger's repository, and the write goes through.
func (e *Engine) mayWriteGlobal(scope store.Scope, src Source) error {
	if scope != store.Global || src == FromPerson || e.project.Dir == "" || e.gate().Trusted() {
		return nil
	}
	return fmt.Errorf("%w: a model in a project you have not trusted does not write your global memory, which every project reads as your own notes; "+
		"write it to the project (scope project), or the person runs `ocmem remember --scope global`, or `ocmem trust` the project first", ErrNeedsPerson)
}

// forgetScope is the root a forget of id acts on: the scope named, else
// the one root that holds the id.
func (e *Engine) forgetScope(scope store.Scope, id string) (store.Scope, error) {
	if scope != "" {
		return scope, nil
	}
	rel := id + ".md"
	var found []store.Scope
	for _, s := range []store.Scope{store.Project, store.Global} {
		if r := e.Root(s); r.Dir != "" && r.Exists(rel) {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("%q: %w", id, ErrNotFound)
	case 2:
		return "", fmt.Errorf("%q: %w", id, ErrAmbiguous)
	}
	return found[0], nil
}

// normalizeBody ends a non-empty body with exactly one newline.
func normalizeBody(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	s = strings.TrimLeft(s, "\r\n")
	if s == "" {
		return ""
	}
	return s + "\n"
}

// Forget deletes a memory and recompiles its root. With no scope, the id is
// looked up in the project root, then the global one; an id in both needs a
// scope. Ids that leave the root are refused and nothing is deleted. Only a
// person removes a hard rule or a pinned memory (or a file that does not
// parse, which may be either): from a model or extraction that is refused.
func (e *Engine) Forget(scope store.Scope, id string, src Source) (_ *Written, err error) {
	defer func() { err = asRefusal(err) }()
	rel, id, err := memoryRel(id)
	if err != nil {
		return nil, err
	}
	if path.Base(id) == "index" || !strings.Contains(id, "/") {
		return nil, badRequest("%q is a compiled file, not a memory", id)
	}
	scope, err = e.forgetScope(scope, id)
	if err != nil {
		return nil, err
	}
	r := e.Root(scope)
	if r.Dir == "" {
		return nil, fmt.Errorf("%w: no %s root", ErrNoRoot, scope)
	}
	path, err := r.Path(rel)
	if err != nil {
		return nil, err
	}
	wr, err := e.beginWrite(r)
	if err != nil {
		return nil, err
	}
	defer wr.end()
	if !r.Exists(rel) {
		return nil, fmt.Errorf("%s:%s: %w", scope, id, ErrNotFound)
	}
	wr.readRootAhead()
	if src != FromPerson {
		if err := mayForget(r, rel, scope, id); err != nil {
			return nil, err
		}
	}
	held := wr.s.MemoryAt(scope, rel)
	notLoaded := ""
	if held == nil {
		notLoaded = whyNotLoaded(wr.s, scope, rel)
	}
	// Links first: a crash in between then leaves two live memories (a
	// warning for inspect), never a link to nothing.
	restored, err := wr.unlinkForgotten(id)
	if err != nil {
		return nil, err
	}
	if err := r.Remove(rel); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s:%s: %w", scope, id, ErrNotFound)
		}
		return nil, err
	}
	wr.wrote(rel, true)
	w := &Written{ID: id, Scope: scope, Path: path, Restored: restored, NotLoaded: notLoaded}
	if held != nil {
		w.Kind = held.Kind
	}
	if _, err := wr.compile(); err != nil {
		w.Warning = indexNotUpdated("deleted", err)
	}
	return w, nil
}

// mayForget refuses, for a model or extraction, to delete a hard rule, a
// pinned memory or a file that does not parse.
func mayForget(r store.Root, rel string, scope store.Scope, id string) error {
	data, err := r.ReadFile(rel)
	if err != nil {
		return err
	}
	m, err := memory.Parse(data)
	switch {
	case err != nil:
		return fmt.Errorf("%w: %s:%s does not parse (%v), so it may be a hard rule; a person fixes or deletes it", ErrNeedsPerson, scope, id, oneLineErr(err))
	case m.Kind == memory.KindRule:
		return fmt.Errorf("%w: %s:%s is a hard rule, and only a person removes one (`ocmem forget %s`)", ErrNeedsPerson, scope, id, id)
	case m.Pinned:
		return fmt.Errorf("%w: %s:%s is pinned, and only a person forgets a pinned memory (`ocmem forget %s`)", ErrNeedsPerson, scope, id, id)
	}
	return nil
}

// whyNotLoaded is the reason the load of s gave for the file rel of a
// root not loading, or "" when it gave none.
func whyNotLoaded(s *Snapshot, scope store.Scope, rel string) string {
	for _, p := range s.Problems {
		if p.Scope == scope && p.Rel == rel {
			return oneLineErr(p.Err)
		}
	}
	return ""
}

// proposedBy is what proposed_by records for a write that is not a person's.
func proposedBy(s Source) string {
	switch s {
	case FromModel:
		return "model"
	case FromExtraction:
		return "extraction"
	}
	return ""
}
