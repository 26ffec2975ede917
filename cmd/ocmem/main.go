// Command ocmem is durable, human-editable memory for the OpenCode coding
// agent: Markdown memories in a global and a project root, ranked and
// injected into every turn by the OpenCode plugin it installs.
//
//	ocmem install                 # make every OpenCode session use ocmem
//	ocmem recall "部署前要做什么"  # what the model would find
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:]))
}
