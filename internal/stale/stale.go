// Package stale keeps, for a project's worktree, the state of each anchored
// memory (fresh, changed or gone, with its evidence) and works it out again
// only when the repository or an anchored file moved: HEAD, the branch it
// names, the index, or an anchored path's size or modification time.
//
//	t := stale.NewTracker(worktree)
//	states, err := t.States(ctx, []stale.Memory{{Key: "project:facts/port", Anchors: m.Anchors, Verified: m.Verified}})
//
// A question about memories already checked costs a few stat calls and no
// git command, so an engine asks on every turn: the check itself
// (anchor.Check, some git commands) runs once after each move, and only for
// the memories asked about.
//
// What the stat calls cannot see: an edit inside an anchored folder that
// keeps the folder's own modification time (a file changed in place) and
// touches neither the index nor HEAD is noticed at the next commit, checkout
// or `git add`, not before.
package stale

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ocmem/ocmem/internal/anchor"
	"github.com/ocmem/ocmem/internal/memory"
)

// Memory is an anchored memory as a Tracker reads it. Key names it
// uniquely among the memories asked about (the engine uses "scope:id").
type Memory struct {
	Key      string
	Anchors  []string
	Verified memory.Verified
}

// State is a memory's state with the evidence for it.
type State struct {
	State    anchor.State      `json:"state"`
	Evidence []anchor.Evidence `json:"evidence,omitempty"`
}

// Stale reports a state that should make its reader check the memory.
func (s State) Stale() bool { return s.State == anchor.Changed || s.State == anchor.Gone }

// Why is what made the state, one line: the first piece of evidence of
// the memory's state, and how many more there are.
func (s State) Why() string {
	var first string
	n := 0
	for _, e := range s.Evidence {
		if e.State != s.State {
			continue
		}
		if n == 0 {
			first = e.Why
		}
		n++
	}
	switch {
	case n == 0:
		return ""
	case n > 1:
		return fmt.Sprintf("%s (and %d more)", first, n-1)
	}
	return first
}

// Line is the one line a stale memory is shown with to the model, so that
// it checks the code before relying on the memory; "" when fresh.
func (s State) Line() string {
	switch s.State {
	case anchor.Changed:
		return "[ocmem: the code this memory is about changed since it was verified: " + s.Why() + ". Check it before relying on this memory.]"
	case anchor.Gone:
		return "[ocmem: the code this memory is about is gone since it was verified: " + s.Why() + ". It is likely out of date.]"
	}
	return ""
}

// Tracker holds the states of anchored memories against one worktree. It
// is safe for concurrent use.
type Tracker struct {
	root string

	mu sync.Mutex
	// gitDir and commonDir are the repository's folders, found once
	// (both "" outside git); found says they were looked for.
	gitDir, commonDir string
	found             bool
	// repo is the repository's fingerprint when known was filled;
	// known holds each memory's state by key.
	repo  string
	known map[string]entry
	// checks counts the memories checked against git (tests read it).
	checks int
}

type entry struct {
	memo  string // the anchors and verified the state was computed for
	files string // the anchored paths' fingerprint then
	state State
}

// NewTracker returns a tracker of the worktree at root.
func NewTracker(root string) *Tracker { return &Tracker{root: root, known: map[string]entry{}} }

// Root is the worktree the tracker checks in.
func (t *Tracker) Root() string { return t.root }

// States returns each memory's state, in the order of mems. A memory with
// no anchors is fresh without a check. The states of memories asked about
// before are reused while neither the repository nor their anchored paths
// moved; the others are checked together, in one anchor.Check.
func (t *Tracker) States(ctx context.Context, mems []Memory) ([]State, error) {
	out := make([]State, len(mems))
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.found {
		t.gitDir, t.commonDir = gitDirs(ctx, t.root)
		t.found = true
	}
	if repo := t.repoPrint(); repo != t.repo {
		t.repo, t.known = repo, map[string]entry{}
	}
	var todo []anchor.Anchored
	var at []int
	prints := make([]entry, len(mems))
	for i, m := range mems {
		if len(m.Anchors) == 0 {
			out[i] = State{State: anchor.Fresh}
			continue
		}
		prints[i] = entry{memo: memoPrint(m), files: t.filesPrint(m.Anchors)}
		if e, ok := t.known[m.Key]; ok && e.memo == prints[i].memo && e.files == prints[i].files {
			out[i] = e.state
			continue
		}
		todo = append(todo, anchor.Anchored{ID: m.Key, Anchors: m.Anchors,
			Verified: anchor.Ref{Commit: m.Verified.Commit, Digests: m.Verified.Digests}})
		at = append(at, i)
	}
	if len(todo) == 0 {
		return out, nil
	}
	res, err := anchor.Check(ctx, t.root, todo)
	if err != nil {
		return nil, err
	}
	t.checks += len(todo)
	for j, r := range res {
		i := at[j]
		out[i] = State{State: r.State, Evidence: r.Evidence}
		e := prints[i]
		e.state = out[i]
		t.known[mems[i].Key] = e
	}
	return out, nil
}

// Repository is the repository's fingerprint now: it differs after a
// commit, checkout, reset, merge, pull or `git add`, and is "" outside
// git. A caller that keeps what it made of the states of many memories
// (an outline) makes it again when this moves, at the cost of a few stat
// calls per question.
func (t *Tracker) Repository(ctx context.Context) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.found {
		t.gitDir, t.commonDir = gitDirs(ctx, t.root)
		t.found = true
	}
	return t.repoPrint()
}

// Checked is how many memories were checked against git so far.
func (t *Tracker) Checked() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.checks
}

// Reference is where a memory's anchors are true now, to record as its
// verified point: HEAD and each anchor's digest.
func (t *Tracker) Reference(ctx context.Context, anchors []string, now time.Time) (memory.Verified, error) {
	ref, err := anchor.Reference(ctx, t.root, anchors)
	if err != nil {
		return memory.Verified{}, err
	}
	return memory.Verified{Commit: ref.Commit, Time: now.UnixMilli(), Digests: ref.Digests}, nil
}

// memoPrint is what a state depends on in the memory itself.
func memoPrint(m Memory) string {
	var b strings.Builder
	for _, a := range m.Anchors {
		b.WriteString(a)
		b.WriteByte(0)
	}
	b.WriteString(m.Verified.Commit)
	for _, k := range sortedKeys(m.Verified.Digests) {
		b.WriteString("\x00" + k + "=" + m.Verified.Digests[k])
	}
	return b.String()
}

// gitDirs finds the repository's own folder (a worktree's, under the
// common one) and the common folder holding the refs; "" outside git.
func gitDirs(ctx context.Context, root string) (gitDir, commonDir string) {
	cmd := exec.CommandContext(ctx, "git", "rev-parse", "--absolute-git-dir", "--git-common-dir")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "", ""
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		return "", ""
	}
	gitDir, commonDir = strings.TrimSpace(lines[0]), strings.TrimSpace(lines[1])
	if !filepath.IsAbs(commonDir) {
		commonDir = filepath.Join(root, commonDir)
	}
	return gitDir, commonDir
}

// repoPrint is the repository's fingerprint: what moves when HEAD, the
// branch it names or the index does. A commit, checkout, reset, merge,
// pull or `git add` changes one of them.
func (t *Tracker) repoPrint() string {
	if t.gitDir == "" {
		return ""
	}
	var b strings.Builder
	head := filepath.Join(t.gitDir, "HEAD")
	statPrint(&b, head)
	statPrint(&b, filepath.Join(t.gitDir, "index"))
	if data, err := os.ReadFile(head); err == nil {
		if ref, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: "); ok && !strings.Contains(ref, "..") {
			statPrint(&b, filepath.Join(t.commonDir, filepath.FromSlash(ref)))
		}
	}
	statPrint(&b, filepath.Join(t.commonDir, "packed-refs"))
	return b.String()
}

// filesPrint is the fingerprint of what a memory's anchors name in the
// worktree: each path's existence, size and modification time (for a
// glob, of the folder it starts in).
func (t *Tracker) filesPrint(anchors []string) string {
	var b strings.Builder
	for _, s := range anchors[:min(len(anchors), anchor.MaxPerMemory)] {
		a, err := anchor.Parse(strings.TrimSpace(s))
		if err != nil {
			continue
		}
		p := a.Path
		if a.Glob {
			p = globBase(p)
		}
		statPrint(&b, filepath.Join(t.root, filepath.FromSlash(p)))
	}
	return b.String()
}

// globBase is the folder a glob starts in: its path up to the first
// folder holding a pattern character.
func globBase(p string) string {
	i := strings.IndexAny(p, "*?[")
	j := strings.LastIndexByte(p[:i], '/')
	if j < 0 {
		return "."
	}
	return p[:j]
}

func statPrint(b *strings.Builder, p string) {
	fi, err := os.Stat(p)
	if err != nil {
		b.WriteString("-;")
		return
	}
	b.WriteString(strconv.FormatInt(fi.Size(), 36))
	b.WriteByte(',')
	b.WriteString(strconv.FormatInt(fi.ModTime().UnixNano(), 36))
	b.WriteByte(';')
}

func sortedKeys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}

// Named is the anchors a memory's own text names that exist in the
// worktree at root now (anchor.Named).
func Named(root, text string) []string {
	return anchor.Named(text, os.DirFS(root))
}

// Missing returns, of anchors given for a memory, each that names nothing
// in the worktree at root now, with what is wrong: an anchor must be true
// when it is written. Anchors that do not parse are anchor.Parse's to
// report.
func Missing(root string, anchors []string) []string {
	var out []string
	for _, s := range anchors {
		a, err := anchor.Parse(strings.TrimSpace(s))
		if err != nil {
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(a.Path))
		switch {
		case a.Glob:
			if m, err := filepath.Glob(p); err != nil || len(m) == 0 {
				out = append(out, s+": nothing matches it")
			}
		case a.Symbol != "":
			data, err := os.ReadFile(p)
			if err != nil {
				out = append(out, s+": no file "+a.Path)
			} else if !anchor.ContainsWord(data, a.Symbol) {
				out = append(out, s+": "+a.Symbol+" does not appear in "+a.Path)
			}
		default:
			if _, err := os.Stat(p); err != nil {
				out = append(out, s+": no file or folder "+a.Path)
			}
		}
	}
	return out
}

// Files is the files anchors name in the worktree at root now, relative
// to it with "/" between folders, each once, in the anchors' order: a
// file anchor's file (whether or not it is there), a folder's and a glob's
// files (at most 20 of each).
func Files(root string, anchors []string) []string {
	var out []string
	add := func(p string) {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, s := range anchors[:min(len(anchors), anchor.MaxPerMemory)] {
		a, err := anchor.Parse(strings.TrimSpace(s))
		if err != nil {
			continue
		}
		full := filepath.Join(root, filepath.FromSlash(a.Path))
		var found []string
		switch fi, err := os.Stat(full); {
		case a.Glob:
			found, _ = filepath.Glob(full)
		case err == nil && fi.IsDir():
			filepath.WalkDir(full, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					found = append(found, p)
				}
				if len(found) >= 20 {
					return filepath.SkipAll
				}
				return nil
			})
		default:
			add(a.Path)
			continue
		}
		for _, p := range found[:min(len(found), 20)] {
			if rel, err := filepath.Rel(root, p); err == nil {
				add(filepath.ToSlash(rel))
			}
		}
	}
	return out
}
