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
	if code, ok := c.parseNone(args); !ok {
		return code
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
