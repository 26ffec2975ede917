package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/inspect"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/prompt"
	"github.com/ocmem/ocmem/internal/rank"
	"github.com/ocmem/ocmem/internal/secrets"
	"github.com/ocmem/ocmem/internal/stale"
	"github.com/ocmem/ocmem/internal/store"
)

// Memories anchored to code (SPEC §10) are checked against the worktree in
// use, the project's code: Config.CodeDir, else the folder holding the
// project root (.memory's parent). Global memories are checked there too,
// since they are used in whichever project is open. With neither, every
// memory is fresh.
//
// A state is worked out when the repository or an anchored path moved, not
// per turn (internal/stale): a turn asks about the memories it shows, and
// for those already checked pays a few stat calls. What a turn does with
// the states:
//
//   - a changed memory keeps its rank and is shown with one line saying
//     what changed since it was verified (Hit.Stale, the bodies tier,
//     memory_recall), so that the model checks before relying on it;
//   - a gone memory ranks below every fresh match, is shown with its line
//     and is marked in the outline (tiers.Marks);
//   - a memory marked outdated (a model found it no longer true) ranks
//     last, is never given in the bodies tier and is left out of the
//     outline, until a person verifies, edits or forgets it.

// staleTimeout bounds the git commands of one check: a state that could
// not be worked out in time is left unknown (fresh) rather than hold up a
// turn.
const staleTimeout = 10 * time.Second

// codeDir is where anchors are checked: the configured worktree, else the
// folder a project root named .memory lies in.
func codeDir(c Config) string {
	switch {
	case c.CodeDir != "":
		return c.CodeDir
	case c.ProjectDir != "" && filepath.Base(c.ProjectDir) == ".memory":
		return filepath.Dir(c.ProjectDir)
	}
	return ""
}

func newTracker(c Config) *stale.Tracker {
	if d := codeDir(c); d != "" {
		return stale.NewTracker(d)
	}
	return nil
}

func staleMemory(scope store.Scope, m *memory.Memory) stale.Memory {
	return stale.Memory{Key: string(scope) + ":" + m.ID, Anchors: m.Anchors, Verified: m.Verified}
}

// staleStates is the tracker's answer, or nil when there is no code to
// check in or git failed: an unknown state is no reason to fail a turn.
func staleStates(t *stale.Tracker, mems []stale.Memory) []stale.State {
	if t == nil || len(mems) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), staleTimeout)
	defer cancel()
	st, err := t.States(ctx, mems)
	if err != nil {
		return nil
	}
	return st
}

// markStale fills in the staleness of hits (made of docs, in order) and
// moves the gone ones below the others and the outdated ones last, keeping
// each group's order. It returns how many it moved down.
func markStale(c codeView, s *Snapshot, docs []rank.Hit, hits []Hit) int {
	var mems []stale.Memory
	var at []int
	down := 0
	for i, h := range docs {
		f := s.File(h.Doc)
		switch {
		case !f.Memory.Outdated.IsZero():
			hits[i].Stale = stale.ShownOutdated(f.Memory.Outdated)
			down++
		case c.t != nil && len(f.Memory.Anchors) > 0:
			mems = append(mems, staleMemory(f.Scope, f.Memory))
			at = append(at, i)
		}
	}
	for j, st := range staleStates(c.t, mems) {
		hits[at[j]].Stale = stale.Shown(st)
		if hits[at[j]].Stale.Gone() {
			down++
		}
	}
	if down > 0 {
		slices.SortStableFunc(hits, func(a, b Hit) int { return a.Stale.Rank() - b.Stale.Rank() })
	}
	return down
}

// withAnchors fills in a request's anchors and where they are true now.
// Anchors given are checked: one that cannot be checked, or that names
// nothing in the worktree, refuses the write. Without them, a project
// memory is anchored to the paths and identifiers its own text names that
// exist in the worktree (anchor.Named); a global one only to anchors
// given, since the code its text names is of the project it was written
// in, and it is used in others.
func (e *Engine) withAnchors(req RememberRequest) (RememberRequest, error) {
	given := req.Anchors != nil
	req.Anchors = stale.TrimAnchors(req.Anchors)
	if given {
		if err := stale.CheckGiven(req.Anchors); err != nil {
			return req, badRequest("%v", err)
		}
	}
	t := e.code(req.CodeDir).t
	if t == nil {
		return req, nil // no worktree to check them in, or to name them from
	}
	root := t.Root()
	switch {
	case given:
		if miss := stale.Missing(root, req.Anchors); len(miss) > 0 {
			return req, badRequest("anchors name nothing in %s: %s", root, strings.Join(miss, "; "))
		}
	case req.Scope == store.Project:
		req.Anchors = stale.Named(root, req.Summary+"\n"+req.Highlight+"\n"+req.Body)
	}
	if len(req.Anchors) == 0 {
		return req, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), staleTimeout)
	defer cancel()
	v, err := t.Reference(ctx, req.Anchors, e.now())
	if err != nil {
		return req, fmt.Errorf("record where the anchors are true: %w", err)
	}
	req.verified = v
	return req, nil
}

// ErrNoCode is returned where there is no worktree to check anchors in.
var ErrNoCode = refusal("no project worktree to check anchors in")

// Stale lists the live memories of both roots marked outdated or whose
// anchored code changed or went since they were verified: outdated first,
// then gone, then changed, each by scope and id. It changes nothing.
// Anchors are checked in the engine's own worktree.
func (e *Engine) Stale() ([]StaleMemory, error) { return e.StaleIn("") }

// StaleIn is Stale with anchors checked in the worktree codeDir ("" : the
// engine's own).
func (e *Engine) StaleIn(codeDir string) ([]StaleMemory, error) {
	code := e.code(codeDir).t
	if code == nil {
		return nil, ErrNoCode
	}
	s, err := e.Load()
	if err != nil {
		return nil, err
	}
	// Only the anchored memories are made into files: a store of
	// 100,000 memories is read through once, without a Go value each.
	var files []*store.File
	for _, r := range e.roots() {
		s.Each(r.Scope, func(i int, m *memory.Memory) {
			if (len(m.Anchors) > 0 || !m.Outdated.IsZero()) && m.SupersededBy == "" {
				files = append(files, s.File(i))
			}
		})
	}
	return staleOf(code, files)
}

// AnchorText is the current text of the files a memory is anchored to
// (stale.AnchorText) in the engine's own worktree: what a model
// re-checking the memory reads.
func (e *Engine) AnchorText(scope store.Scope, id string) (string, error) {
	return e.AnchorTextIn("", scope, id)
}

// AnchorTextIn is AnchorText read in the worktree codeDir ("" : the
// engine's own).
func (e *Engine) AnchorTextIn(codeDir string, scope store.Scope, id string) (string, error) {
	code := e.code(codeDir).t
	if code == nil {
		return "", ErrNoCode
	}
	s, err := e.Load()
	if err != nil {
		return "", err
	}
	f := s.Lookup(scope, id)
	if f == nil {
		return "", fmt.Errorf("%s:%s: %w", scope, id, ErrNotFound)
	}
	return stale.AnchorText(code.Root(), f.Memory.Anchors), nil
}

func staleOf(t *stale.Tracker, files []*store.File) ([]StaleMemory, error) {
	var mems []stale.Memory
	var at, live []*store.File
	for _, f := range files {
		switch {
		case f.Memory.SupersededBy != "":
		case t != nil && len(f.Memory.Anchors) > 0:
			mems = append(mems, staleMemory(f.Scope, f.Memory))
			at = append(at, f)
		case !f.Memory.Outdated.IsZero():
			// Anchored to nothing, or no worktree to check in: the mark
			// stands without a state of its code.
			live = append(live, f)
		}
	}
	if len(at)+len(live) == 0 {
		return nil, nil
	}
	var states []stale.State
	if len(at) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), staleTimeout)
		defer cancel()
		var err error
		if states, err = t.States(ctx, mems); err != nil {
			return nil, err
		}
	}
	return stale.Reports(append(at, live...), append(states, make([]stale.State, len(live))...)), nil
}

// checkAnchors is Inspect's look at a root's anchors (inspect.Anchors).
func checkAnchors(t *stale.Tracker, r store.Root, files []*store.File) []Issue {
	reports, err := staleOf(t, files)
	return inspect.Anchors(r, files, reports, err)
}

// Verify records that a memory's anchors are true as the worktree is now:
// its verified point moves to HEAD (and each anchor's digest), after a
// person checked it, and an outdated mark goes. The file is rewritten in
// place, only verified and outdated changing; its updated time stays,
// since its text did not change.
//
// anchors, when given, replace the memory's anchors first: the code it is
// about now (a renamed symbol's new name). Without them, a memory with an
// anchor that names nothing now (a gone file or symbol) is refused, since
// it would be verified as true and never flagged again. Over uncommitted
// changes it is verified as the worktree holds them (anchor.Reference: the
// digests, with no commit). A memory marked outdated and anchored to
// nothing has only its mark cleared, with or without a worktree.
//
// The worktree is the engine's own.
func (e *Engine) Verify(scope store.Scope, id string, anchors []string) (*Written, error) {
	return e.VerifyIn("", scope, id, anchors)
}

// VerifyIn is Verify at the worktree codeDir ("" : the engine's own): the
// reference point moves to that worktree's HEAD, or to its content alone
// where that is in no commit.
func (e *Engine) VerifyIn(codeDir string, scope store.Scope, id string, anchors []string) (*Written, error) {
	code := e.code(codeDir).t
	t, err := e.beginMark(scope, id)
	if err != nil {
		return nil, err
	}
	defer t.wr.end()
	m := t.m
	if anchors != nil {
		if anchors = stale.TrimAnchors(anchors); len(anchors) == 0 {
			return nil, badRequest("no anchors given")
		}
		if err := stale.CheckGiven(anchors); err != nil {
			return nil, badRequest("%v", err)
		}
		m.Anchors = anchors
	}
	if len(m.Anchors) == 0 && m.Outdated.IsZero() {
		return nil, badRequest("%s:%s has no anchors: there is nothing to verify", t.scope, t.id)
	}
	if len(m.Anchors) > 0 {
		// A mark on a memory anchored to nothing goes without a worktree,
		// as a person may have written it outside git.
		if code == nil {
			return nil, ErrNoCode
		}
		if miss := stale.Missing(code.Root(), m.Anchors); len(miss) > 0 {
			return nil, badRequest("%s:%s: anchors name nothing in %s: %s; give the code it is about now (ocmem verify --anchor), then it is verified",
				t.scope, t.id, code.Root(), strings.Join(miss, "; "))
		}
		ctx, cancel := context.WithTimeout(context.Background(), staleTimeout)
		defer cancel()
		v, err := code.Reference(ctx, m.Anchors, e.now())
		if err != nil {
			return nil, fmt.Errorf("record where the anchors are true: %w", err)
		}
		m.Verified = v
	}
	m.Outdated = memory.Outdated{}
	w, err := t.write()
	if w != nil {
		w.ByDigest = len(m.Anchors) > 0 && m.Verified.Commit == ""
	}
	return w, err
}

// maxOutdatedReason bounds the reason an outdated mark keeps, in runes: one
// line for a person, not the model's essay.
const maxOutdatedReason = 300

// MarkOutdated marks a memory outdated (memory.Outdated): a model judged
// it no longer true at the worktree's HEAD, for reason. The memory is
// kept for history and for the person, out of injection, last in recall;
// verifying it, editing or forgetting it are a person's to do. A hard
// rule is refused: only people take a rule out of force. The reason is
// written on one line with suspected secrets masked, as any text shown.
// HEAD is the engine's own worktree's.
func (e *Engine) MarkOutdated(scope store.Scope, id, reason string) (*Written, error) {
	return e.MarkOutdatedIn("", scope, id, reason)
}

// MarkOutdatedIn is MarkOutdated at the HEAD of the worktree codeDir ("" :
// the engine's own).
func (e *Engine) MarkOutdatedIn(codeDir string, scope store.Scope, id, reason string) (*Written, error) {
	m, err := e.Outdate(OutdatedRequest{Scope: scope, ID: id, Reason: reason, Source: FromModel, CodeDir: codeDir})
	if err != nil {
		return nil, err
	}
	return &m.Written, nil
}

// OutdatedRequest is a memory to mark outdated.
type OutdatedRequest struct {
	Scope   store.Scope // "" : wherever the id exists (refused when in both roots)
	ID      string
	Reason  string // why it is no longer true, one line
	Source  Source
	CodeDir string // the worktree whose HEAD is recorded; "" : the engine's own
	DryRun  bool   // work the mark out and write nothing
}

// OutdatedMark is a mark written, or with DryRun the one that would be.
type OutdatedMark struct {
	Written
	Commit string `json:"commit,omitempty"` // HEAD then; "" when there was none to record
	Time   int64  `json:"time"`             // Unix milliseconds
	Reason string `json:"reason"`
	// Replaced is the mark this one replaces, as `ocmem stale` shows it.
	Replaced string `json:"replaced,omitempty"`
	DryRun   bool   `json:"dry_run,omitempty"`
	// File is, for a dry run, the whole file as it would be written.
	File []byte `json:"-"`
}

// Outdate marks a memory outdated for req.Source, through the write path
// Verify uses; with req.DryRun it only reads. A hard rule and a superseded
// memory are refused for anyone: a rule is taken out of force by editing
// or superseding it, and a superseded memory is out of use already. A mark
// already there is replaced (a person correcting a reason should not have
// to verify the memory, which moves its reference point, to do it).
//
// A model's mark and a person's differ where their grounds differ. A model
// judges the code of a worktree, so its mark needs one, and HEAD read from
// it; its reason is folded to one line, cut to 300 characters and masked:
// it is the model's text, written unasked. A person knows the memory is
// false whatever git holds, so HEAD is recorded when it can be read, and
// no worktree, a worktree outside git, a repository with no commit yet or
// a git that fails record the time and reason alone, rather than send them
// back to writing YAML by hand. Their reason is their own words: one too long or
// holding a suspected secret is refused, as `ocmem remember` refuses
// one, rather than cut or masked behind their back.
func (e *Engine) Outdate(req OutdatedRequest) (_ *OutdatedMark, err error) {
	defer func() { err = asRefusal(err) }()
	person := req.Source == FromPerson
	code := e.code(req.CodeDir).t
	if code == nil && !person {
		return nil, ErrNoCode
	}
	reason, err := outdatedReason(req.Reason, person)
	if err != nil {
		return nil, err
	}
	// Read and judged before the lock too, so that a refusal leaves even
	// the lock file as it was; judged again under it, as the file may
	// have changed in between.
	t, err := e.findMark(req.Scope, req.ID)
	if err != nil {
		return nil, err
	}
	if err := t.outdatable(); err != nil {
		return nil, err
	}
	if !req.DryRun {
		if t, err = e.beginMark(t.scope, t.id); err != nil {
			return nil, err
		}
		defer t.wr.end()
		if err := t.outdatable(); err != nil {
			return nil, err
		}
	}
	commit, err := e.head(code, person)
	if err != nil {
		return nil, err
	}
	mark := &OutdatedMark{Commit: commit, Time: e.now().UnixMilli(), Reason: reason, DryRun: req.DryRun}
	if !t.m.Outdated.IsZero() {
		mark.Replaced = stale.OutdatedWhy(t.m.Outdated)
	}
	t.m.Outdated = memory.Outdated{Commit: mark.Commit, Time: mark.Time, Reason: mark.Reason}
	if req.DryRun {
		mark.Written = Written{ID: t.id, Scope: t.scope, Path: t.path, Kind: t.m.Kind}
		mark.File = t.m.Format()
		return mark, nil
	}
	w, err := t.write()
	if err != nil {
		return nil, err
	}
	mark.Written = *w
	return mark, nil
}

// outdatable refuses a memory no mark may be written on.
func (t *marking) outdatable() error {
	switch {
	case t.m.Kind == memory.KindRule:
		return badRequest("%s:%s is a hard rule: it is not marked outdated, only taken out of force by a person editing it or superseding it (ocmem remember --supersedes %s)", t.scope, t.id, t.id)
	case t.m.SupersededBy != "":
		return badRequest("%s:%s is already superseded by %s", t.scope, t.id, t.m.SupersededBy)
	}
	return nil
}

// outdatedReason is the reason a mark keeps, on one line.
func outdatedReason(reason string, person bool) (string, error) {
	reason = compile.OneLine(reason)
	if reason == "" {
		return "", badRequest("no reason given: say why it is no longer true")
	}
	n := utf8.RuneCountInString(reason)
	switch {
	case person && n > maxOutdatedReason:
		return "", badRequest("the reason is %d characters; at most %d: one line saying why it is no longer true", n, maxOutdatedReason)
	case person:
		if err := secrets.Check(map[string]string{"reason": reason}); err != nil {
			return "", err
		}
		return reason, nil
	case n > maxOutdatedReason:
		reason = string([]rune(reason)[:maxOutdatedReason-1]) + "…"
	}
	return prompt.Mask(reason), nil
}

// head is the commit a mark records. For a model a worktree's HEAD is
// required; for a person it is recorded when there is one.
func (e *Engine) head(code *stale.Tracker, person bool) (string, error) {
	if code == nil {
		return "", nil // a person's mark, with no worktree
	}
	ctx, cancel := context.WithTimeout(context.Background(), staleTimeout)
	defer cancel()
	ref, err := code.Reference(ctx, nil, e.now())
	switch {
	case err != nil && person:
		return "", nil
	case err != nil:
		return "", fmt.Errorf("read HEAD: %w", err)
	}
	return ref.Commit, nil
}

// marking is one memory being rewritten in place by Verify or
// Outdate, under the root's write lock (wr nil: only read, for a dry run).
type marking struct {
	r       store.Root
	wr      *write
	scope   store.Scope
	id, rel string
	path    string
	m       *memory.Memory
}

// findMark reads the memory id as beginMark does, without the lock: what
// a dry run shows, changing nothing.
func (e *Engine) findMark(scope store.Scope, id string) (*marking, error) {
	t, err := e.markTarget(scope, id)
	if err != nil {
		return nil, err
	}
	if err := t.read(); err != nil {
		return nil, err
	}
	return t, nil
}

// markTarget is the file the memory id is in: of the root scope, or
// wherever it exists.
func (e *Engine) markTarget(scope store.Scope, id string) (*marking, error) {
	rel, id, err := memoryRel(id)
	if err != nil {
		return nil, err
	}
	if scope, err = e.scopeOf(scope, rel, id); err != nil {
		return nil, err
	}
	return &marking{r: e.Root(scope), scope: scope, id: id, rel: rel}, nil
}

// beginMark takes the root's write lock and reads the memory id. On
// success the caller ends t.wr.
func (e *Engine) beginMark(scope store.Scope, id string) (*marking, error) {
	t, err := e.markTarget(scope, id)
	if err != nil {
		return nil, err
	}
	if t.wr, err = e.beginWrite(t.r); err != nil {
		return nil, err
	}
	if err := t.read(); err != nil {
		t.wr.end()
		return nil, err
	}
	return t, nil
}

func (t *marking) read() error {
	path, err := t.r.Path(t.rel)
	if err != nil {
		return err
	}
	t.path = path
	data, err := t.r.ReadFile(t.rel)
	switch {
	case err != nil:
		return err
	case data == nil:
		return fmt.Errorf("%s:%s: %w", t.scope, t.id, ErrNotFound)
	}
	if t.m, err = memory.Parse(data); err != nil {
		return fmt.Errorf("%s does not parse (%v); fix it first", path, err)
	}
	return nil
}

func (t *marking) write() (*Written, error) {
	if _, err := t.r.WriteFile(t.rel, t.m.Format()); err != nil {
		return nil, fmt.Errorf("write %s: %w", t.rel, err)
	}
	t.wr.wrote(t.rel, false)
	return &Written{ID: t.id, Scope: t.scope, Path: t.path, Kind: t.m.Kind}, nil
}
