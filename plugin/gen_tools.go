//go:build ignore

// gen_tools writes the tool contract (internal/toolspec) into ocmem.js,
// between its markers. Run by `go generate ./plugin`.
package main

import (
	"log"
	"os"

	"github.com/ocmem/ocmem/internal/toolspec"
)

func main() {
	src, err := os.ReadFile("ocmem.js")
	if err != nil {
		log.Fatal(err)
	}
	out, err := toolspec.ReplaceJS(string(src))
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("ocmem.js", []byte(out), 0o644); err != nil {
		log.Fatal(err)
	}
}
