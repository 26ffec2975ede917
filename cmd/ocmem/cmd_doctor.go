package main

import (
	"github.com/ocmem/ocmem/internal/doctor"
)

func init() {
	register(command{
		name:    "doctor",
		usage:   "[--json]",
		summary: "Check that ocmem works: versions, plugin registration, roots, serve, the log.",
		run:     runDoctor,
	})
}

func runDoctor(c *cli, args []string) int {
	c.rootFlags(true)
	pos, code, ok := c.parse(args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return c.usageErr("takes no arguments")
	}
	g, p, err := c.roots()
	if err != nil {
		return c.fail(err)
	}
	logFile, _ := logPath()
	rep := doctor.Run(doctor.Config{Version: version, GlobalDir: g, ProjectDir: p, LogPath: logFile})
	if c.json {
		if code := c.printJSON(rep); code != exitOK {
			return code
		}
	} else {
		c.printf("%s", rep.String())
	}
	if !rep.OK() {
		return exitFail
	}
	return exitOK
}
