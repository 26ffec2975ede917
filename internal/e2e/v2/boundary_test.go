package v2

import (
	"testing"

	"github.com/ocmem/ocmem/internal/e2e"
)

// TestV2ToolArgsCannotNameAnotherRepository is
// TestToolArgsCannotNameAnotherRepository on OpenCode 2: a model that adds
// "worktree" and "directory" to a memory tool's arguments is refused, and
// the repository it names is neither written, read nor deleted from.
func TestV2ToolArgsCannotNameAnotherRepository(t *testing.T) {
	e := e2e.NewOcmemEnv2(t)
	e2e.ToolArgsCannotNameAnotherRepository(t, e)
	e2e.AssertNothingLeft(t, e)
}
