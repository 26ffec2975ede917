package plugin

import (
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/toolspec"
)

// TestToolContractGenerated checks that ocmem.js carries the tool table
// generated from internal/toolspec, unchanged: the plugin has no tool
// definition of its own to drift.
func TestToolContractGenerated(t *testing.T) {
	src := string(Source)
	if !strings.Contains(src, toolspec.JS()) {
		t.Fatal("plugin/ocmem.js's tool table differs from internal/toolspec: run `go generate ./plugin`")
	}
	want, err := toolspec.ReplaceJS(src)
	if err != nil {
		t.Fatal(err)
	}
	if want != src {
		t.Fatal("plugin/ocmem.js is not what `go generate ./plugin` writes")
	}
}
