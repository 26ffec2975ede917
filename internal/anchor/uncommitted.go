package anchor

import (
	"context"
	"slices"
	"strings"
)

// Uncommitted returns the project paths, sorted, that anchors cover and
// that the worktree at root holds apart from HEAD: changed, staged or not,
// deleted, renamed (by either path), or new and not yet committed (an
// untracked file git does not ignore). A reference point is a commit, and
// Check compares it with the worktree, so content on none of these paths
// is in the commit a verification would record: verified there, the path
// is changed at once, and still after the commit that takes it in. Outside
// git, or in a repository with no commit, nothing is uncommitted: digests
// decide there. Anchors that do not parse are Parse's to report.
func Uncommitted(ctx context.Context, root string, anchors []string) ([]string, error) {
	c := &checker{ctx: ctx, root: root, files: map[string]fileInfo{}}
	if err := c.openRepo(); err != nil || !c.inGit {
		return nil, err
	}
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
