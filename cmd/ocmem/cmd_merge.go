package main

import (
	"context"
	"github.com/ocmem/ocmem/internal/mergedriver"
)

func init() {
	register(command{
		name:    "merge-driver",
		usage:   "BASE OURS THEIRS [PATH]",
		summary: "The git merge driver for ROOT.md (`ocmem install` registers it; see docs/SYNC.md).",
		run:     runMergeDriver,
	})
}

// runMergeDriver is run by git as "ocmem merge-driver %O %A %B %P": it
// writes the merge over OURS and exits 0 when it is clean, 1 when conflict
// markers were left in a person's text (git then marks the file
// conflicted), 2 on a usage error.
func runMergeDriver(ctx context.Context, c *cli, args []string) error {
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 3 && len(pos) != 4 {
		return usagef("want BASE OURS THEIRS [PATH], as git passes %%O %%A %%B %%P")
	}
	path := "ROOT.md"
	if len(pos) == 4 {
		path = pos[3]
	}
	conflict, err := mergedriver.MergeFile(pos[0], pos[1], pos[2], path)
	if err != nil {
		return err
	}
	if conflict {
		return errProblems
	}
	return nil
}
