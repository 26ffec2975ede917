package anchor

// How a memory's state is decided
//
// A memory records where its anchors were last known true: a commit, which
// every clone and worktree of the project shares, and per-anchor content
// digests for where there is no such commit. Check compares that reference
// with the worktree as it is now:
//
//   - Where the verified commit is in the local repository, git decides
//     what changed between that commit and the worktree: one git cat-file
//     resolves every distinct verified commit and its tree, one git
//     diff-tree --stdin -M diffs each tree against HEAD's, and one git diff
//     -M HEAD, shared by all, adds what the worktree holds uncommitted
//     (staged or not), followed path by path: a file changed in commits
//     and deleted in the worktree is deleted. So an uncommitted edit to an
//     anchored file counts, and is said to be uncommitted. Where git says
//     an anchor changed and a digest was recorded for it, the digest
//     decides first: the content as it was verified is no change, whether
//     it was uncommitted then and committed since, or changed and changed
//     back; only the files git says changed are read for it (a folder's or
//     a glob's every file, as its digest covers them all). Then one git
//     log --full-history --no-renames <verified>..HEAD over the changed
//     anchored paths, per verified commit that has any, counts the
//     commits that touched each path and names the last one. A deleted
//     file is gone; a file git saw renamed is gone, with its new path
//     named; any other change is changed. A file moved and then rewritten
//     is no longer paired with its new path across the whole range, so for
//     a deleted file the commit that removed it is asked too (one git
//     diff-tree for all such commits), and a rename there is named. Many
//     verified commits thus cost a few git processes, not one read of the
//     worktree each (measured in
//     BenchmarkRefresh: 100 verified commits took 2.3 s with one git diff
//     against the worktree per commit, 80 ms this way).
//   - Where the commit is not known locally (a shallow clone, a commit
//     rewritten away), none was recorded (verified over uncommitted
//     anchored code: see Reference) or the project is not in git, digests
//     decide: a missing anchor is gone, a digest that differs is changed.
//     With no digest either, the memory stays fresh: a clone that lacks a
//     commit never makes a memory stale.
//   - A symbol anchor ("path#Symbol") whose file changed, or is checked by
//     digest, is gone when the symbol no longer appears in the file's
//     current text as a whole word (ContainsWord): a textual match, not a
//     parse of the language. A symbol renamed since is thus gone. A file
//     that did not change is not read.
//
// Each anchored file is read at most once per Check, and only when git
// says it changed or digests alone decide.

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// State is what a memory's anchors say about it.
type State string

const (
	Fresh   State = "fresh"   // nothing it is anchored to changed since it was verified
	Changed State = "changed" // an anchored file changed: check before relying on it
	Gone    State = "gone"    // an anchored file or symbol is no longer there
)

func (s State) rank() int {
	switch s {
	case Gone:
		return 2
	case Changed:
		return 1
	}
	return 0
}

// Ref is where a memory's anchors were last known true.
type Ref struct {
	Commit  string            // a commit id (full or abbreviated)
	Digests map[string]string // anchor path → Digest of its content then
}

// Anchored is one memory as Check reads it.
type Anchored struct {
	ID       string
	Anchors  []string
	Verified Ref
}

// Evidence is what Check found about one anchor that is not fresh, or why
// it could not decide.
type Evidence struct {
	Anchor      string    // as the memory writes it
	State       State     // this anchor's state
	Path        string    // the file that changed or went, relative to the project root
	RenamedTo   string    // a gone file's new path, where git saw a rename
	Commits     int       // commits since verified that touched the anchor
	Subject     string    // the last such commit's subject
	Date        time.Time // and its commit date
	Uncommitted bool      // the worktree holds changes to it not yet committed
	ByDigest    bool      // decided by digest: the verified commit is not in this repository
	Why         string    // one line for a person
}

// Result is one memory's state, with the evidence for it: every anchor that
// is not fresh, and anchors that could not be checked.
type Result struct {
	ID       string
	State    State
	Evidence []Evidence
}

// Check computes the state of each memory against the worktree at root,
// the project root. Results are in the order of mems. An error means git
// itself failed in a repository; root outside git is not an error.
func Check(ctx context.Context, root string, mems []Anchored) ([]Result, error) {
	c := &checker{ctx: ctx, root: root, files: map[string]fileInfo{}}
	if err := c.openRepo(); err != nil {
		return nil, err
	}
	if err := c.loadCommits(mems); err != nil {
		return nil, err
	}
	// What each memory's anchors hit first, so that the log asks about
	// those paths only.
	for _, m := range mems {
		if d := c.commits[m.Verified.Commit]; d != nil {
			for _, s := range m.Anchors[:min(len(m.Anchors), MaxPerMemory)] {
				if a, err := Parse(strings.TrimSpace(s)); err == nil {
					for _, ch := range d.hits(a) {
						d.need[ch.path] = true
					}
				}
			}
		}
	}
	out := make([]Result, len(mems))
	for i, m := range mems {
		out[i] = c.memory(m)
	}
	return out, nil
}

type checker struct {
	ctx  context.Context
	root string

	inGit  bool
	prefix string // the project root inside the repository, "" or "sub/dir/"

	commits map[string]*commitDiff // verified commit as written → its diff; nil value: not known here
	files   map[string]fileInfo    // project path → what was read of it
	wt      map[string]change      // HEAD → worktree, by path at HEAD; nil until needed
}

// change is one path's line of git diff --name-status, in project paths.
type change struct {
	status byte   // 'M', 'A', 'D', 'R', 'T', …
	path   string // the path at the verified commit
	to     string // the new path of a rename
}

type commitDiff struct {
	id      string
	changes []change
	byPath  map[string]int // path → index in changes
	sorted  []int          // indexes of changes, by path
	need    map[string]bool
	log     map[string][]logEntry
	moved   map[string]string // deleted path → where the commit that removed it moved it; nil until needed
}

type logEntry struct {
	hash, subject string
	date          time.Time
}

type fileInfo struct {
	data   []byte
	exists bool
	err    error
}

func (c *checker) git(args ...string) ([]byte, error) {
	return c.gitIn(nil, args...)
}

func (c *checker) gitIn(stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(c.ctx, "git", append([]string{"-c", "core.quotePath=false", "--literal-pathspecs"}, args...)...)
	cmd.Dir = c.root
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out, nil
}

// openRepo finds the repository around root. A root outside git, git
// missing or a repository without a commit leaves digests to decide.
func (c *checker) openRepo() error {
	if _, err := exec.LookPath("git"); err != nil {
		return nil
	}
	out, err := c.git("rev-parse", "--show-prefix", "--verify", "HEAD")
	if err != nil {
		return nil
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 2 {
		return nil
	}
	c.inGit, c.prefix = true, lines[0]
	return nil
}

// loadCommits resolves each distinct verified commit and its tree with one
// git cat-file, and diffs every tree known here against HEAD's with one git
// diff-tree, so that memories verified at many commits cost three git
// processes, not one per commit.
func (c *checker) loadCommits(mems []Anchored) error {
	c.commits = map[string]*commitDiff{}
	if !c.inGit {
		return nil
	}
	var ids []string
	for _, m := range mems {
		if id := m.Verified.Commit; id != "" {
			if _, seen := c.commits[id]; !seen {
				c.commits[id] = nil // not known here, unless found below
				if isHexID(id) {
					ids = append(ids, id)
				}
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	var in bytes.Buffer
	in.WriteString("HEAD^{tree}\n")
	for _, id := range ids {
		in.WriteString(id + "^{commit}\n" + id + "^{tree}\n")
	}
	out, err := c.gitIn(in.Bytes(), "cat-file", "--batch-check")
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 1+2*len(ids) {
		return fmt.Errorf("git cat-file: %d answers for %d questions", len(lines), 1+2*len(ids))
	}
	head := strings.Fields(lines[0])
	if len(head) < 2 || head[1] != "tree" {
		return fmt.Errorf("git cat-file: HEAD has no tree: %s", lines[0])
	}
	var known []string
	var pairs bytes.Buffer
	for i, id := range ids {
		cm, tr := strings.Fields(lines[1+2*i]), strings.Fields(lines[2+2*i])
		if len(cm) < 2 || cm[1] != "commit" || len(tr) < 2 || tr[1] != "tree" {
			continue // not in this repository
		}
		c.commits[id] = &commitDiff{id: cm[0], byPath: map[string]int{}, need: map[string]bool{}}
		known = append(known, id)
		pairs.WriteString(tr[0] + " " + head[0] + "\n")
	}
	if len(known) == 0 {
		return nil
	}
	out, err = c.gitIn(pairs.Bytes(), "diff-tree", "--stdin", "-r", "-M", "--name-status", "-z", "--no-ext-diff", "--no-textconv")
	if err != nil {
		return err
	}
	committed, err := c.parseTreeDiffs(out, len(known))
	if err != nil {
		return err
	}
	for i, id := range known {
		if err := c.compose(c.commits[id], committed[i]); err != nil {
			return err
		}
	}
	return nil
}

// parseTreeDiffs splits the output of git diff-tree --stdin -z, a line
// "<tree> <tree>" before each pair's changes, into n lists of changes.
func (c *checker) parseTreeDiffs(out []byte, n int) ([][]change, error) {
	lists := make([][]change, n)
	pair := -1
	f := strings.Split(string(out), "\x00")
	for i := 0; i < len(f); {
		st := f[i]
		if k := strings.LastIndexByte(st, '\n'); k >= 0 {
			pair += strings.Count(st, "\n") // each pair's header ends in a line end
			st = st[k+1:]
		}
		if st == "" || i+1 >= len(f) {
			i++
			continue
		}
		if pair < 0 || pair >= n {
			return nil, fmt.Errorf("git diff-tree: output for %d pairs, asked for %d", pair+1, n)
		}
		ch := change{status: st[0], path: f[i+1]}
		i += 2
		if (st[0] == 'R' || st[0] == 'C') && i < len(f) {
			ch.to = f[i]
			i++
		}
		if ch, ok := c.projectChange(ch); ok {
			lists[pair] = append(lists[pair], ch)
		}
	}
	return lists, nil
}

func isHexID(s string) bool {
	if len(s) < 4 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') {
			return false
		}
	}
	return true
}

// compose fills d with what changed between its commit and the worktree,
// in project paths: git's tree diff from the commit to HEAD, followed by
// the one diff from HEAD to the worktree (see worktree).
func (c *checker) compose(d *commitDiff, committed []change) error {
	wt, err := c.worktree()
	if err != nil {
		return err
	}
	atHead := map[string]bool{} // HEAD paths the committed changes account for
	for _, ch := range committed {
		cur := ch.path
		if ch.status == 'R' {
			cur = ch.to
		}
		if ch.status != 'D' {
			atHead[cur] = true
			if w, ok := wt[cur]; ok {
				ch = then(ch, w)
			}
		}
		d.add(ch)
	}
	for p, w := range wt {
		if !atHead[p] {
			if _, seen := d.byPath[p]; !seen {
				d.add(w)
			}
		}
	}
	d.sorted = make([]int, len(d.changes))
	for i := range d.sorted {
		d.sorted[i] = i
	}
	slices.SortFunc(d.sorted, func(a, b int) int { return strings.Compare(d.changes[a].path, d.changes[b].path) })
	return nil
}

// then follows a committed change of a path with the worktree's change of
// the path it has at HEAD: a file changed in commits and deleted or moved
// in the worktree is deleted or moved. A file changed in commits and
// changed back in the worktree still counts as changed.
func then(committed, wt change) change {
	switch wt.status {
	case 'D':
		committed.status, committed.to = 'D', ""
	case 'R':
		committed.status, committed.to = 'R', wt.to
	}
	return committed
}

func (d *commitDiff) add(ch change) {
	d.byPath[ch.path] = len(d.changes)
	d.changes = append(d.changes, ch)
}

// worktree returns the changes from HEAD to the worktree, staged or not,
// by their path at HEAD, from one git diff per Check.
func (c *checker) worktree() (map[string]change, error) {
	if c.wt != nil {
		return c.wt, nil
	}
	out, err := c.git("diff", "--no-ext-diff", "--no-textconv", "-M", "--name-status", "-z", "HEAD", "--")
	if err != nil {
		return nil, err
	}
	c.wt = map[string]change{}
	for _, ch := range c.parseNameStatus(out) {
		c.wt[ch.path] = ch
	}
	return c.wt, nil
}

// parseNameStatus reads git diff --name-status -z into project paths.
func (c *checker) parseNameStatus(out []byte) []change {
	var list []change
	f := strings.Split(string(out), "\x00")
	for i := 0; i+1 < len(f); {
		st := f[i]
		if st == "" {
			break
		}
		ch := change{status: st[0], path: f[i+1]}
		i += 2
		if (st[0] == 'R' || st[0] == 'C') && i < len(f) {
			ch.to = f[i]
			i++
		}
		if ch, ok := c.projectChange(ch); ok {
			list = append(list, ch)
		}
	}
	return list
}

// projectChange turns a change's repository paths into project paths. A
// change outside the project is left out, and so is a copy, which leaves
// its source in place; a rename out of the project keeps its new path
// (after "../"s).
func (c *checker) projectChange(ch change) (change, bool) {
	p, ok := strings.CutPrefix(ch.path, c.prefix)
	if !ok || ch.status == 'C' {
		return ch, false
	}
	ch.path = p
	if ch.to != "" {
		ch.to = c.projectPath(ch.to)
	}
	return ch, true
}

// hits returns the changes an anchor covers: a file's by one lookup, a
// folder's by a binary search for its prefix, a glob's by matching each.
func (d *commitDiff) hits(a Anchor) []change {
	if i, ok := d.byPath[a.Path]; ok && !a.Glob {
		return []change{d.changes[i]}
	}
	var out []change
	switch {
	case a.Symbol != "":
	case a.Glob || a.Path == ".":
		for _, ch := range d.changes {
			if a.matches(ch.path) {
				out = append(out, ch)
			}
		}
	default:
		pre := a.Path + "/"
		i, _ := slices.BinarySearchFunc(d.sorted, pre, func(j int, t string) int { return strings.Compare(d.changes[j].path, t) })
		for ; i < len(d.sorted) && strings.HasPrefix(d.changes[d.sorted[i]].path, pre); i++ {
			out = append(out, d.changes[d.sorted[i]])
		}
	}
	return out
}

// projectPath turns a repository path into one relative to the project root.
func (c *checker) projectPath(p string) string {
	if rest, ok := strings.CutPrefix(p, c.prefix); ok {
		return rest
	}
	up := strings.Repeat("../", strings.Count(c.prefix, "/"))
	return up + p
}

// memory decides one memory's state.
func (c *checker) memory(m Anchored) Result {
	r := Result{ID: m.ID, State: Fresh}
	d, known := c.commits[m.Verified.Commit]
	byGit := c.inGit && known && d != nil
	for i, s := range m.Anchors {
		if i == MaxPerMemory {
			r.Evidence = append(r.Evidence, Evidence{State: Fresh,
				Why: fmt.Sprintf("not checked: anchors past the first %d (%d more)", MaxPerMemory, len(m.Anchors)-MaxPerMemory)})
			break
		}
		a, err := Parse(strings.TrimSpace(s))
		if err != nil {
			r.Evidence = append(r.Evidence, Evidence{Anchor: s, State: Fresh, Why: "not checked: " + err.Error()})
			continue
		}
		var e []Evidence
		if byGit {
			e = c.byGit(d, a, m.Verified.Digests[a.Path])
		} else {
			e = c.byDigest(a, m.Verified)
		}
		for i := range e {
			e[i].Anchor = s
			if e[i].State.rank() > r.State.rank() {
				r.State = e[i].State
			}
		}
		r.Evidence = append(r.Evidence, e...)
	}
	return r
}

// matches reports whether the anchor covers the project path p.
func (a Anchor) matches(p string) bool {
	switch {
	case a.Path == p:
		return true
	case a.Glob:
		ok, _ := path.Match(a.Path, p)
		return ok
	}
	return a.Path == "." || strings.HasPrefix(p, a.Path+"/")
}

// byGit decides an anchor from the diff of its verified commit. Where git
// says it changed and a digest was recorded when it was verified, the
// digest decides first: the anchor's content as it was verified, whether
// uncommitted then and committed since or changed and changed back, is
// no change. Only files git says changed are read for it (a folder's or a
// glob's every file, as their digest covers them all).
func (c *checker) byGit(d *commitDiff, a Anchor, want string) []Evidence {
	hit := d.hits(a)
	if len(hit) == 0 {
		return nil
	}
	if want != "" {
		if got, ok := c.digest(a); ok && got == want {
			return nil
		}
	}
	e := Evidence{State: Changed, Path: hit[0].path}
	c.history(d, hit, &e)
	allGone := true
	for _, ch := range hit {
		if ch.status != 'D' && ch.status != 'R' {
			allGone = false
		}
	}
	switch {
	case allGone && (len(hit) == 1 && hit[0].path == a.Path || !c.exists(a)):
		e.State = Gone
		e.RenamedTo = renamedTo(a, hit)
		if e.RenamedTo == "" && !a.Glob && len(hit) == 1 && hit[0].status == 'D' {
			e.RenamedTo = c.movedTo(d, hit[0].path)
		}
		e.Why = goneWhy(a, e.RenamedTo)
		if a.Glob {
			e.Why = "nothing matches " + a.Path + " any more"
		}
	case a.Symbol != "" && !c.hasSymbol(a):
		e.State = Gone
		e.Why = fmt.Sprintf("%s no longer appears in %s", a.Symbol, a.Path)
	default:
		e.Why = changedWhy(a, e)
	}
	return []Evidence{e}
}

func goneWhy(a Anchor, to string) string {
	if to != "" {
		return fmt.Sprintf("%s was renamed to %s", a.Path, to)
	}
	return a.Path + " was deleted"
}

func changedWhy(a Anchor, e Evidence) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s changed", a.Path)
	if e.Commits > 0 {
		fmt.Fprintf(&b, " in %d commit", e.Commits)
		if e.Commits > 1 {
			b.WriteString("s")
		}
		fmt.Fprintf(&b, ", last %q on %s", e.Subject, e.Date.UTC().Format(time.DateOnly))
	}
	if e.Uncommitted {
		if e.Commits > 0 {
			b.WriteString(", and")
		}
		b.WriteString(" in uncommitted changes")
	}
	return b.String()
}

// renamedTo names where a renamed anchor went: a file's new path, or a
// folder's when all its files moved under one new folder.
func renamedTo(a Anchor, hit []change) string {
	if a.Glob {
		return ""
	}
	if len(hit) == 1 && hit[0].path == a.Path {
		return hit[0].to
	}
	dest := ""
	for _, ch := range hit {
		rest, ok := strings.CutPrefix(ch.path, a.Path+"/")
		newDir, ok2 := strings.CutSuffix(ch.to, "/"+rest)
		if ch.status != 'R' || !ok || !ok2 || dest != "" && dest != newDir {
			return ""
		}
		dest = newDir
	}
	return dest
}

// movedTo names where a file deleted since the verified commit went, when
// the commit that removed it renamed it. The tree diff from the verified
// commit to HEAD pairs a file with its new path only while the two are
// still alike, and a moved file goes on changing: a year on, git sees a
// deletion and an unrelated new file. The new path is named only while it
// is in the worktree, never a path that is gone too.
func (c *checker) movedTo(d *commitDiff, p string) string {
	if d.moved == nil {
		d.moved = c.loadMoves(d)
	}
	to := d.moved[p]
	if to == "" {
		return ""
	}
	if _, err := os.Stat(filepath.Join(c.root, filepath.FromSlash(to))); err != nil {
		return ""
	}
	return to
}

// loadMoves finds, for every deleted path an anchor covers, whether the
// commit that removed it (the last the log saw touch it) renamed it: one
// git diff-tree over all those commits, each against its parent. Like the
// log, this is evidence, not the verdict: on an error nothing is named.
func (c *checker) loadMoves(d *commitDiff) map[string]string {
	moved := map[string]string{}
	if d.log == nil {
		d.log = c.loadLog(d)
	}
	removed := map[string]map[string]bool{} // commit → the paths it last touched, in the repository
	var commits []string
	for p := range d.need {
		i, ok := d.byPath[p]
		if !ok || d.changes[i].status != 'D' || len(d.log[p]) == 0 {
			continue
		}
		h := d.log[p][0].hash // git log lists the newest first
		if removed[h] == nil {
			removed[h] = map[string]bool{}
			commits = append(commits, h)
		}
		removed[h][c.prefix+p] = true
	}
	if len(commits) == 0 {
		return moved
	}
	slices.Sort(commits)
	out, err := c.gitIn([]byte(strings.Join(commits, "\n")+"\n"),
		"diff-tree", "--stdin", "-r", "-M", "--name-status", "-z", "--no-ext-diff", "--no-textconv")
	if err != nil {
		return moved
	}
	// -z output: each commit's id, then its changes, each a status and
	// one path, or two for a rename or copy.
	var paths map[string]bool
	f := strings.Split(string(out), "\x00")
	for i := 0; i < len(f); {
		st := f[i]
		if r, ok := removed[st]; ok {
			paths = r
			i++
			continue
		}
		if st == "" || i+1 >= len(f) {
			i++
			continue
		}
		i += 2
		if st[0] == 'R' || st[0] == 'C' {
			if i < len(f) && st[0] == 'R' && paths[f[i-1]] {
				if ch, ok := c.projectChange(change{status: 'R', path: f[i-1], to: f[i]}); ok {
					moved[ch.path] = ch.to
				}
			}
			i++
		}
	}
	return moved
}

// history fills in the commits since verified that touched the changed
// paths, and whether the worktree holds uncommitted changes to them. The
// log runs once per verified commit, for every changed anchored path the
// first time one is asked for.
func (c *checker) history(d *commitDiff, hit []change, e *Evidence) {
	if d.log == nil {
		d.log = c.loadLog(d)
	}
	seen := map[string]bool{}
	var last logEntry
	for _, ch := range hit {
		for _, le := range d.log[ch.path] {
			if !seen[le.hash] {
				seen[le.hash] = true
				if last.hash == "" || le.date.After(last.date) {
					last = le
				}
			}
		}
		if c.isDirty(ch) {
			e.Uncommitted = true
		}
	}
	e.Commits, e.Subject, e.Date = len(seen), last.subject, last.date
}

// loadLog runs git log over the changed paths some anchor covers.
func (c *checker) loadLog(d *commitDiff) map[string][]logEntry {
	out := map[string][]logEntry{}
	// git runs in the project root, where a pathspec is relative to it;
	// the names git log prints are relative to the repository's top.
	var paths []string
	for p := range d.need {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	// Chunks keep the command line within every system's limit.
	const chunk = 256
	for start := 0; start < len(paths); start += chunk {
		// --full-history: by default git log follows only the parent a
		// merge left the path unchanged against, and hides the commits
		// that touched it on the other line.
		args := []string{"log", "--full-history", "--no-renames", "--name-only", "-z", "--format=%x1e%H%x1f%ct%x1f%s", d.id + "..HEAD", "--"}
		args = append(args, paths[start:min(start+chunk, len(paths))]...)
		raw, err := c.git(args...)
		if err != nil {
			continue // history is evidence, not the verdict: the state stands without it
		}
		parseLog(raw, c.prefix, out)
	}
	return out
}

func parseLog(raw []byte, prefix string, out map[string][]logEntry) {
	for _, rec := range strings.Split(string(raw), "\x1e") {
		head, names, ok := strings.Cut(rec, "\x00")
		if !ok {
			continue
		}
		f := strings.SplitN(head, "\x1f", 3)
		if len(f) != 3 {
			continue
		}
		sec, _ := strconv.ParseInt(f[1], 10, 64)
		le := logEntry{hash: f[0], subject: f[2], date: time.Unix(sec, 0).UTC()}
		for _, n := range strings.Split(strings.TrimLeft(names, "\n"), "\x00") {
			if p, ok := strings.CutPrefix(n, prefix); ok && n != "" {
				out[p] = append(out[p], le)
			}
		}
	}
}

func (c *checker) isDirty(ch change) bool {
	wt, err := c.worktree()
	if err != nil {
		return false
	}
	_, a := wt[ch.path]
	_, b := wt[ch.to]
	return a || ch.to != "" && b
}

// read returns a project file's current content, reading it once.
func (c *checker) read(p string) fileInfo {
	if fi, ok := c.files[p]; ok {
		return fi
	}
	data, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(p)))
	fi := fileInfo{data: data, exists: err == nil, err: err}
	if errors.Is(err, fs.ErrNotExist) {
		fi.err = nil
	}
	c.files[p] = fi
	return fi
}

func (c *checker) hasSymbol(a Anchor) bool {
	fi := c.read(a.Path)
	return fi.exists && ContainsWord(fi.data, a.Symbol)
}

// exists reports whether anything the anchor names is in the worktree now.
func (c *checker) exists(a Anchor) bool {
	if a.Glob {
		m, _ := filepath.Glob(filepath.Join(c.root, filepath.FromSlash(a.Path)))
		return len(m) > 0
	}
	_, err := os.Stat(filepath.Join(c.root, filepath.FromSlash(a.Path)))
	return err == nil
}

// byDigest decides an anchor without its verified commit.
func (c *checker) byDigest(a Anchor, ref Ref) []Evidence {
	e := Evidence{Path: a.Path, ByDigest: true}
	want := ref.Digests[a.Path]
	got, ok := c.digest(a)
	switch {
	case !ok:
		e.State, e.Why = Gone, a.Path+" is not in the worktree"
	case a.Symbol != "" && !c.hasSymbol(a):
		e.State, e.Why = Gone, fmt.Sprintf("%s no longer appears in %s", a.Symbol, a.Path)
	case want == "":
		e.State, e.Why = Fresh, "not checked: the verified commit is not in this repository and no digest was recorded"
		if ref.Commit == "" {
			e.Why = "not checked: never verified"
		}
	case want != got:
		e.State, e.Why = Changed, a.Path+" changed: its content differs from the digest recorded when verified"
	default:
		return nil
	}
	return []Evidence{e}
}

// digest returns the anchor's current Digest, and false when nothing it
// names exists.
func (c *checker) digest(a Anchor) (string, bool) {
	if !a.Glob {
		if fi := c.read(a.Path); fi.exists {
			return Digest(fi.data), true
		}
	}
	files := c.listAnchor(a)
	if len(files) == 0 {
		return "", false
	}
	h := sha256.New()
	for _, p := range files {
		fi := c.read(p)
		fmt.Fprintf(h, "%s\x00%s\n", p, Digest(fi.data))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), true
}

// listAnchor lists the files a folder or glob anchor covers, sorted,
// leaving out version-control folders.
func (c *checker) listAnchor(a Anchor) []string {
	var out []string
	if a.Glob {
		m, _ := filepath.Glob(filepath.Join(c.root, filepath.FromSlash(a.Path)))
		for _, f := range m {
			if rel, err := filepath.Rel(c.root, f); err == nil {
				if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
					out = append(out, filepath.ToSlash(rel))
				}
			}
		}
	} else {
		dir := filepath.Join(c.root, filepath.FromSlash(a.Path))
		_ = filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return nil
			case de.IsDir() && (de.Name() == ".git" || de.Name() == ".hg" || de.Name() == ".svn"):
				return filepath.SkipDir
			case de.Type().IsRegular():
				if rel, err := filepath.Rel(c.root, p); err == nil {
					out = append(out, filepath.ToSlash(rel))
				}
			}
			return nil
		})
	}
	slices.SortFunc(out, cmp.Compare)
	return out
}

// Digest is the content digest a Ref records for a file, with its line
// ends read as "\n": a clone that checks files out with "\r\n" (git's
// core.autocrlf on Windows) holds the same content, and a memory verified
// in one clone is fresh in the other.
func Digest(data []byte) string {
	s := sha256.Sum256(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")))
	return "sha256:" + hex.EncodeToString(s[:])
}

// Reference returns where the anchors are true now, to record as a memory's
// verified point: HEAD's commit when root is in git, and each anchor's
// digest, so that a clone without that commit can still tell. An anchor
// that names nothing in the worktree gets no digest.
//
// Where an anchored path holds uncommitted changes (Uncommitted), what is
// verified is in no commit, and no commit is recorded: the digests alone
// are the reference point. A commit would be wrong both ways: git would
// call the uncommitted content a change from it, and would call the
// content thrown away (git checkout of the file) no change, since the file
// is then as the commit holds it. By digest, the content verified is fresh
// uncommitted and after the commit that takes it in, and anything else is
// changed.
func Reference(ctx context.Context, root string, anchors []string) (Ref, error) {
	c := &checker{ctx: ctx, root: root, files: map[string]fileInfo{}}
	if err := c.openRepo(); err != nil {
		return Ref{}, err
	}
	var ref Ref
	if c.inGit {
		out, err := c.git("rev-parse", "--verify", "HEAD")
		if err != nil {
			return Ref{}, err
		}
		dirty, err := c.uncommitted(anchors)
		if err != nil {
			return Ref{}, err
		}
		if len(dirty) == 0 {
			ref.Commit = strings.TrimSpace(string(out))
		}
	}
	for _, s := range anchors {
		a, err := Parse(strings.TrimSpace(s))
		if err != nil {
			continue
		}
		if d, ok := c.digest(a); ok {
			if ref.Digests == nil {
				ref.Digests = map[string]string{}
			}
			ref.Digests[a.Path] = d
		}
	}
	return ref, nil
}
