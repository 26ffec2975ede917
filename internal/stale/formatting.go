package stale

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ocmem/ocmem/internal/anchor"
)

// Formatting tells, for `ocmem verify --all-fresh`, whether a changed
// memory's anchored files all changed only in formatting since its
// verified commit (anchor.FormattingOnly), remembering each (commit, path)
// it compared.
type Formatting struct {
	root    string
	timeout time.Duration
	seen    map[[2]string]string // (commit, path) → why it is not formatting, "" when it is
}

// NewFormatting compares files of the worktree root, each comparison
// within timeout.
func NewFormatting(root string, timeout time.Duration) *Formatting {
	return &Formatting{root: root, timeout: timeout, seen: map[[2]string]string{}}
}

// Why is why m's change is not known to be formatting only, or "" when
// every changed anchored file (anchors are m's) changed only in formatting.
func (fm *Formatting) Why(m Report, anchors []string) string {
	switch {
	case m.State == StateOutdated:
		return "outdated (" + m.Why + "): a person checks it"
	case m.State != string(anchor.Changed):
		return m.State + " (" + m.Why + "): a person checks it"
	case len(anchors) > anchor.MaxPerMemory:
		return fmt.Sprintf("%d anchors, and only the first %d are checked", len(anchors), anchor.MaxPerMemory)
	case len(m.Evidence) == 0:
		return "no evidence of what changed"
	}
	for _, s := range anchors {
		if _, err := anchor.Parse(strings.TrimSpace(s)); err != nil {
			return "an anchor is not checked: " + err.Error()
		}
	}
	for _, ev := range m.Evidence {
		a, err := anchor.Parse(strings.TrimSpace(ev.Anchor))
		switch {
		case err != nil:
			return err.Error()
		case ev.ByDigest && m.Verified == "":
			return ev.Anchor + ": verified with no commit (over uncommitted changes, or outside git), so there is nothing to compare against"
		case ev.ByDigest:
			return ev.Anchor + ": the verified commit is not in this clone, so what changed cannot be seen"
		case ev.State != string(anchor.Changed):
			return ev.Anchor + ": " + ev.Why
		case ev.Uncommitted:
			// Verified over uncommitted changes, the memory would keep
			// digests and no commit, and a later formatting change could
			// not be judged: committed first, it keeps a commit.
			return ev.Path + " has uncommitted changes: commit them first"
		case a.Glob || ev.Path != a.Path:
			return ev.Anchor + " is a folder or a glob: only anchored files are compared"
		}
		key := [2]string{m.Verified, ev.Path}
		why, ok := fm.seen[key]
		if !ok {
			ctx, cancel := context.WithTimeout(context.Background(), fm.timeout)
			var same bool
			same, why = anchor.FormattingOnly(ctx, fm.root, m.Verified, ev.Path)
			cancel()
			if same {
				why = ""
			}
			fm.seen[key] = why
		}
		if why != "" {
			return why
		}
	}
	return ""
}
