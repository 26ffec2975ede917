package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/install"
)

func init() {
	register(command{
		name:    "install",
		usage:   "[--project] [--config-dir DIR] [--no-git]",
		summary: "Make OpenCode load ocmem: write the plugin and register it in opencode.json(c) (from npm: register ocmem@V), create the global root, register the git merge driver.",
		run:     runInstall,
	})
	register(command{
		name:    "uninstall",
		usage:   "[--project] [--config-dir DIR] [--no-git]",
		summary: "Undo install: unregister and remove the plugin (and the git merge driver). Memories are kept.",
		run:     runUninstall,
	})
}

// The --project flag of install is a bool, so it shadows the root flag of the
// same name; install has no use for a project memory root anyway.
func runInstall(ctx context.Context, c *cli, args []string) error {
	c.fs.StringVar(&c.global, "global", "", "global memory root to create (default <config dir>/memory)")
	c.fs.BoolVar(&c.json, "json", false, "print JSON")
	project := c.fs.Bool("project", false, "install for the repository around the working directory only (its .opencode/ and opencode.json)")
	configDir := c.fs.String("config-dir", "", "OpenCode's global config dir (default $OPENCODE_CONFIG_DIR, else $XDG_CONFIG_HOME/opencode, else ~/.config/opencode)")
	noGit := c.fs.Bool("no-git", false, "do not register the merge driver for ROOT.md in the global git config (see docs/SYNC.md)")
	if err := c.parseNone(args); err != nil {
		return err
	}
	res, err := install.Install(install.Options{Project: *project, ConfigDir: *configDir, GlobalRoot: firstNonEmpty(c.global, os.Getenv("OCMEM_GLOBAL")), GitMergeDriver: !*noGit})
	if err != nil {
		return err
	}
	if c.json {
		return c.printJSON(res)
	}
	for _, line := range res.Lines() {
		c.printf("%s\n", line)
	}
	if res.Npm != nil {
		c.printf("%s\n", npmDoctorHint(res.Npm))
	} else if exe, err := os.Executable(); err == nil {
		c.printf("%s\n", doctorHint(exe, exec.LookPath))
	}
	return nil
}

// npmDoctorHint says how to run `ocmem doctor` when this binary came from
// npm: under npx through npx again (its cache is no folder for PATH), from
// `npm i -g` by name, as npm linked the launcher onto PATH.
func npmDoctorHint(n *install.NpmInstall) string {
	if n.Npx {
		return "`npx " + n.Spec() + " doctor` checks the setup"
	}
	return "`ocmem doctor` (or `npx " + n.Spec() + " doctor`) checks the setup"
}

// doctorHint says how to run `ocmem doctor`: by name when this binary is
// the ocmem on PATH, else by its full path, with how to put it on PATH
// (`go install` puts it in $(go env GOPATH)/bin, which often is not).
func doctorHint(exe string, lookPath func(string) (string, error)) string {
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	found, err := lookPath("ocmem")
	if err == nil && sameFile(found, exe) {
		return "`ocmem doctor` checks the setup"
	}
	hint := fmt.Sprintf("`%s doctor` checks the setup; ", exe)
	dir := filepath.Dir(exe)
	if err == nil {
		return hint + fmt.Sprintf("`ocmem` on your PATH is another binary (%s): put %s before it on PATH, or call this one by its full path", found, dir)
	}
	if runtime.GOOS == "windows" {
		return hint + fmt.Sprintf("ocmem is not on your PATH: add %s to it to type `ocmem`", dir)
	}
	return hint + fmt.Sprintf("ocmem is not on your PATH: add it with export PATH=\"$PATH:%s\" (in your shell's profile to keep it)", dir)
}

func sameFile(a, b string) bool {
	ia, err := os.Stat(a)
	if err != nil {
		return false
	}
	ib, err := os.Stat(b)
	return err == nil && os.SameFile(ia, ib)
}

func runUninstall(ctx context.Context, c *cli, args []string) error {
	c.fs.BoolVar(&c.json, "json", false, "print JSON")
	project := c.fs.Bool("project", false, "uninstall from the repository around the working directory")
	configDir := c.fs.String("config-dir", "", "OpenCode's global config dir")
	noGit := c.fs.Bool("no-git", false, "leave the merge driver in the global git config")
	if err := c.parseNone(args); err != nil {
		return err
	}
	res, err := install.Uninstall(install.Options{Project: *project, ConfigDir: *configDir, GitMergeDriver: !*noGit})
	if err != nil {
		return err
	}
	res.Kept = keptAfterUninstall(*project, *configDir)
	if c.json {
		return c.printJSON(res)
	}
	for _, line := range res.Lines() {
		c.printf("%s\n", line)
	}
	return nil
}

// keptAfterUninstall names what uninstall leaves on purpose, the person's
// data: the global memories and the trust list (whose lock file, ocmem's
// own, goes).
func keptAfterUninstall(project bool, configDir string) []string {
	var kept []string
	if !project {
		dir := firstNonEmpty(os.Getenv("OCMEM_GLOBAL"))
		if dir == "" && configDir != "" {
			dir = filepath.Join(configDir, "memory")
		}
		if dir == "" {
			dir, _ = engine.GlobalDir()
		}
		if _, err := os.Stat(dir); err == nil && dir != "" {
			n := 0
			filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && d.Name() != "ROOT.md" && d.Name() != "index.md" {
					n++
				}
				return nil
			})
			switch n {
			case 0:
				kept = append(kept, "the global memory root "+dir+" (no memories in it; delete it if you like)")
			case 1:
				kept = append(kept, "your 1 global memory in "+dir+" (delete the folder to forget it)")
			default:
				kept = append(kept, fmt.Sprintf("your %d global memories in %s (delete the folder to forget them)", n, dir))
			}
		}
	}
	if p, err := engine.TrustListPath(); err == nil {
		os.Remove(p + ".lock")
		if _, err := os.Stat(p); err == nil {
			kept = append(kept, "the trust list "+p+" (which projects' rules you accepted; delete it to forget them)")
		}
	}
	return kept
}
