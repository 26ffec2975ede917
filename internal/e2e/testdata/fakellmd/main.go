// Command fakellmd runs the fake model server by hand, for exploring
// OpenCode outside the tests: it prints its base URL and dumps every
// request into the folder given as its argument.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/ocmem/ocmem/internal/fakellm"
)

func main() {
	dir := os.Args[1]
	var srv *fakellm.Server
	srv = fakellm.New(func(r fakellm.Request) fakellm.Reply {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("req%d.json", r.Seq)), r.Raw, 0o644)
		return fakellm.Default(r)
	})
	fmt.Println(srv.URL)
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt)
	<-c
	srv.Close()
}
