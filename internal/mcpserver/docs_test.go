package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsSayHowAProposalIsAccepted: docs/MCP.md tells an MCP user what
// puts a rule proposal in force, as the tool's reply does
// (toolspec.Remembered): `ocmem accept`, and a hand edit of kind only in
// the global root, since in a project root it leaves the rule the
// repository's proposal.
func TestDocsSayHowAProposalIsAccepted(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "MCP.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(b)), " ")
	if !strings.Contains(doc, "accepts it with `ocmem accept ID`") {
		t.Error("docs/MCP.md does not say that `ocmem accept ID` puts a rule proposal in force")
	}
	if !strings.Contains(doc, "In the global root, changing its `kind:` to `rule` by hand does the same; in a project root it does not") {
		t.Error("docs/MCP.md does not say that a hand edit of kind accepts a proposal in the global root only")
	}
	if strings.Contains(doc, "accepts it by changing its kind to `rule`") {
		t.Error("docs/MCP.md says a hand edit of kind accepts any proposal, which is not so in a project root")
	}
}
