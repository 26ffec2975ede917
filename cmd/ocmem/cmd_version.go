package main

import (
	"context"
	"runtime/debug"

	"github.com/ocmem/ocmem/internal/serve"
)

// version is set at build time with -ldflags "-X main.version=…"; otherwise
// it comes from the module's build info.
var version = ""

func init() {
	if version == "" {
		version = "devel"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			version = bi.Main.Version
		}
	}
	serve.Version = version
	register(command{name: "version", usage: "", summary: "Print the version.", run: func(ctx context.Context, c *cli, args []string) error {
		if err := c.parseNone(args); err != nil {
			return err
		}
		c.printf("ocmem %s\n", version)
		return nil
	}})
}
