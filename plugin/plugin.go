// Package plugin holds the OpenCode plugin: an ES module that forwards
// OpenCode's hooks and tools to `ocmem serve` and holds no logic of its own.
//
//	src := plugin.Render("/usr/local/bin/ocmem") // the file `ocmem install` writes
//	os.WriteFile(path, src, 0o644)
package plugin

//go:generate go run gen_tools.go

import (
	"bytes"
	_ "embed"
	"encoding/json"
)

// Source is the plugin as shipped, with the binary placeholder in place: it
// then runs options.bin, $OCMEM_BIN, the binary of the npm platform package
// beside it (ocmem-<platform>-<arch>) or `ocmem` from PATH. The npm package
// ships it unchanged (tools/release).
//
//go:embed ocmem.js
var Source []byte

// TUISource is the plugin's TUI entry for OpenCode 2, tui.js: it re-exports
// the TUI half of plugin.js (the file Source is written as, beside it),
// which shows the plugin's notices as toasts. `ocmem install` writes it
// into the plugin folder and the npm package ships it as its "./tui".
//
//go:embed tui.js
var TUISource []byte

// binLine is the one line Render rewrites.
const binLine = `const OCMEM_BIN = "__OCMEM_BIN__";`

// Render returns the plugin with bin as the ocmem binary it runs (unless
// the plugin options or $OCMEM_BIN say otherwise). bin is written as a JSON
// string literal, which is also a valid JavaScript string literal.
func Render(bin string) []byte {
	lit, err := json.Marshal(bin)
	if err != nil { // a string always marshals
		panic(err)
	}
	return bytes.Replace(Source, []byte(binLine), []byte("const OCMEM_BIN = "+string(lit)+";"), 1)
}
