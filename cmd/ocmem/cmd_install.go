package main

import (
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
func runInstall(c *cli, args []string) int {
	c.fs.StringVar(&c.global, "global", "", "global memory root to create (default <config dir>/memory)")
	c.fs.BoolVar(&c.json, "json", false, "print JSON")
	project := c.fs.Bool("project", false, "install for the repository around the working directory only (its .opencode/ and opencode.json)")
	configDir := c.fs.String("config-dir", "", "OpenCode's global config dir (default $OPENCODE_CONFIG_DIR, else $XDG_CONFIG_HOME/opencode, else ~/.config/opencode)")
	noGit := c.fs.Bool("no-git", false, "do not register the merge driver for ROOT.md in the global git config (see docs/SYNC.md)")
	if code, ok := c.parseNone(args); !ok {
		return code
	}
	res, err := install.Install(install.Options{Project: *project, ConfigDir: *configDir, GlobalRoot: firstNonEmpty(c.global, getenv("OCMEM_GLOBAL")), GitMergeDriver: !*noGit})
	if err != nil {
		return c.fail(err)
	}
	if c.json {
		return c.printJSON(res)
	}
	for _, line := range res.Lines() {
		c.printf("%s\n", line)
	}
	return exitOK
}

func runUninstall(c *cli, args []string) int {
	c.fs.BoolVar(&c.json, "json", false, "print JSON")
	project := c.fs.Bool("project", false, "uninstall from the repository around the working directory")
	configDir := c.fs.String("config-dir", "", "OpenCode's global config dir")
	noGit := c.fs.Bool("no-git", false, "leave the merge driver in the global git config")
	if code, ok := c.parseNone(args); !ok {
		return code
	}
	res, err := install.Uninstall(install.Options{Project: *project, ConfigDir: *configDir, GitMergeDriver: !*noGit})
	if err != nil {
		return c.fail(err)
	}
	if c.json {
		return c.printJSON(res)
	}
	for _, line := range res.Lines() {
		c.printf("%s\n", line)
	}
	return exitOK
}
