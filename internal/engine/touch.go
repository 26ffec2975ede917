package engine

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/snapshot"
	"github.com/ocmem/ocmem/internal/store"
)

// A hand edit moves `updated`
//
// A person who edits a memory in an editor leaves its `updated:` as it
// was, and recall, decay, the viewer and inject would go on treating the
// memory as old. TouchEdited sets `updated` of such a file to the file's
// modification time, in the file itself so that the date travels with the
// memory through git, with Format's one-line rewrite.
//
// A file that git wrote is never rewritten: after a pull or a checkout the
// file equals what HEAD holds, and a rewrite would leave a local change
// after every pull. So a file tracked at HEAD counts as edited only when
// it differs from HEAD; a file git does not track (a root outside any
// repository) only when it differs from the version the engine held
// before the event. Only the text counts (summary, highlight, body,
// kind, triggers, anchors): a file that only moved, or whose bookkeeping
// another ocmem process changed (superseded_by, verified), keeps its date.
// A file that does not parse, or whose `updated` is already newer than
// the previous version's (a person set it, or an ocmem write did), is
// left alone.

// gitTimeout bounds the git commands TouchEdited runs: a hung git (a
// credential prompt, a lock) must not hold up a compile.
const gitTimeout = 10 * time.Second

// TouchEdited sets `updated` of each memory file of a root changed by hand
// to the file's modification time (see above) and returns the files it
// rewrote, as "scope:path". With heard, it looks at the files events named
// since it last ran (serve, after a hand edit); without, at every file that
// differs from git's HEAD (`ocmem compile`, which heard no event).
func (e *Engine) TouchEdited(scope store.Scope, heard bool) ([]string, error) {
	r := e.Root(scope)
	ri := snapshot.ScopeIndex(scope)
	e.mu.Lock()
	cands := e.edited[ri]
	e.edited[ri] = nil
	e.mu.Unlock()
	if r.Dir == "" || !dirExists(r.Dir) || (heard && len(cands) == 0) {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	g := store.OpenGitView(ctx, r.Dir)
	if !g.InGit() && store.InsideRepository(r.Dir) {
		// git could not say what it wrote (not installed, a repository
		// without a commit, a timeout): every change may be git's.
		return nil, nil
	}
	if !heard {
		cands = map[string]*memory.Memory{}
		for rel := range g.Differ() {
			cands[rel] = nil
		}
	}
	rels := make([]string, 0, len(cands))
	for rel := range cands {
		// cat-file reads one name a line.
		if !strings.ContainsAny(rel, "\n\r") {
			rels = append(rels, rel)
		}
	}
	slices.Sort(rels)
	heads, err := g.Heads(ctx, rels)
	if err != nil {
		return nil, err
	}
	var out, rewrote []string
	for _, rel := range rels {
		prev := cands[rel]
		if head, tracked := heads[rel]; tracked {
			if !g.Differs(rel) {
				continue // as git wrote it
			}
			if prev == nil {
				prev = head
			}
		}
		ok, terr := e.touchOne(r, rel, prev)
		if terr != nil {
			err = fmt.Errorf("%s: %w", rel, terr)
			break
		}
		if ok {
			out = append(out, string(scope)+":"+rel)
			rewrote = append(rewrote, rel)
		}
	}
	// The next load reads the files rewritten, and only those.
	e.mu.Lock()
	for _, rel := range rewrote {
		e.changeFile(scope, rel)
		delete(e.edited[ri], rel)
	}
	e.mu.Unlock()
	return out, err
}

// touchOne rewrites `updated` of one file when its text differs from prev
// and its date is not newer than prev's; nil prev: nothing to compare with.
func (e *Engine) touchOne(r store.Root, rel string, prev *memory.Memory) (bool, error) {
	if prev == nil {
		return false, nil
	}
	path, err := r.Path(rel)
	if err != nil {
		return false, nil
	}
	unlock, err := r.Lock()
	if err != nil {
		return false, err
	}
	defer unlock()
	data, err := r.ReadFile(rel)
	if err != nil || data == nil {
		return false, nil // gone or unreadable: the load reports it
	}
	info, err := os.Stat(path)
	if err != nil {
		return false, nil
	}
	m, err := memory.Parse(data)
	if err != nil || m.Validate(store.IDOf(rel)) != nil {
		return false, nil
	}
	mtime := info.ModTime().UnixMilli()
	if saysTheSame(m, prev) || m.Updated > prev.Updated || mtime <= m.Updated {
		return false, nil
	}
	m.Updated = mtime
	return r.WriteFileOver(rel, data, m.Format())
}

// saysTheSame reports whether two versions of a memory say the same thing.
func saysTheSame(a, b *memory.Memory) bool {
	return a.Summary == b.Summary && a.Highlight == b.Highlight && a.Body == b.Body && a.Kind == b.Kind &&
		slices.Equal(a.LoadWhen, b.LoadWhen) && slices.Equal(a.Anchors, b.Anchors)
}
