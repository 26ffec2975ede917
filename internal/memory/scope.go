package memory

// Scope names the root a memory lives in: the user's global memories, or a
// project's .memory/ folder. Every package speaks of scope with this type.
type Scope string

const (
	Global  Scope = "global"
	Project Scope = "project"
)
