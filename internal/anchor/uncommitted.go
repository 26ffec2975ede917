package anchor

import (
	"context"
	"slices"
	"strings"
)

// Uncommitted returns the project paths, sorted, that anchors cover and
// that the worktree at root holds apart from HEAD: changed, staged or not,
// deleted, renamed (by either path), or new and not yet committed (an
// untracked file git does not ignore). Content on these paths is in no
// commit, so Reference records no commit for anchors covering one, and
// their digests alone decide. Outside git, or in a repository with no
// commit, nothing is uncommitted: digests decide there. Anchors that do not
// parse are Parse's to report.
func Uncommitted(ctx context.Context, root string, anchors []string) ([]string, error) {
	c := &checker{ctx: ctx, root: root, files: map[string]fileInfo{}}
	if err := c.openRepo(); err != nil || !c.inGit {
		return nil, err
	}
	return c.uncommitted(anchors)
}

// uncommitted is Uncommitted in the repository c opened.
func (c *checker) uncommitted(anchors []string) ([]string, error) {
	var as []Anchor
	for _, s := range anchors {
		if a, err := Parse(strings.TrimSpace(s)); err == nil {
			as = append(as, a)
		}
	}
	if len(as) == 0 {
		return nil, nil
	}
	wt, err := c.worktree()
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, ch := range wt {
		paths = append(paths, ch.path)
		if ch.to != "" {
			paths = append(paths, ch.to)
		}
	}
	// Run in the project root, git lists the untracked files under it,
	// relative to it.
	out, err := c.git("ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	var hit []string
	for _, p := range paths {
		for _, a := range as {
			if a.matches(p) {
				hit = append(hit, p)
				break
			}
		}
	}
	slices.Sort(hit)
	return slices.Compact(hit), nil
}
