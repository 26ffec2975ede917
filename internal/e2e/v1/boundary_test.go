package v1

import (
	"testing"

	"github.com/ocmem/ocmem/internal/e2e"
)

// TestToolArgsCannotNameAnotherRepository: in the real OpenCode, a model
// that adds "worktree" and "directory" to a memory tool's arguments
// (OpenCode passes keys the tool does not declare through) is refused, and
// the repository it names is neither written, read nor deleted from.
func TestToolArgsCannotNameAnotherRepository(t *testing.T) {
	e2e.ToolArgsCannotNameAnotherRepository(t, e2e.NewOcmemEnv(t))
}
