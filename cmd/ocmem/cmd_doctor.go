package main

import (
	"context"
	"os"
	"path/filepath"

	"github.com/ocmem/ocmem/internal/doctor"
)

func init() {
	register(command{
		name:    "doctor",
		usage:   "[--json] [--fix]",
		summary: "Check that ocmem works: versions, plugin registration, roots, serve, the log (--fix: repair OpenCode's copy of ocmem@V that lacks its binary).",
		run:     runDoctor,
	})
}

func runDoctor(ctx context.Context, c *cli, args []string) error {
	c.rootFlags(true)
	fix := c.fs.Bool("fix", false, "repair what doctor can: remove OpenCode's cached copy of the npm package when it lacks its binary, so OpenCode installs it again")
	if err := c.parseNone(args); err != nil {
		return err
	}
	g, p, err := c.roots()
	if err != nil {
		return err
	}
	logFile, _ := logPath()
	cfg := doctor.Config{Version: version, GlobalDir: g, ProjectDir: p, ProjectChosen: c.projectChosen(), LogPath: logFile, OpenCodeConfigDir: openCodeConfigDir(), Fix: *fix}
	if p != "" {
		cfg.Trust = projectTrust(p)
		if wd, err := os.Getwd(); err == nil {
			cfg.Directory = wd
			cfg.Worktree = gitTop(wd)
		}
	}
	rep := doctor.Run(cfg)
	if c.json {
		if err := c.printJSON(rep); err != nil {
			return err
		}
	} else {
		c.printf("%s", rep.String())
	}
	if !rep.OK() {
		return errProblems
	}
	return nil
}

// gitTop is the nearest folder at or above dir holding .git (a checkout or
// a worktree), else dir: where OpenCode's worktree is.
func gitTop(dir string) string {
	for cur := dir; ; {
		if _, err := os.Lstat(filepath.Join(cur, ".git")); err == nil {
			return cur
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return dir
		}
		cur = parent
	}
}
