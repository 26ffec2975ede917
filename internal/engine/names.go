package engine

import (
	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/prompt"
	"github.com/ocmem/ocmem/internal/secrets"
	"github.com/ocmem/ocmem/internal/stale"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/tiers"
	"github.com/ocmem/ocmem/internal/trust"
)

// The names the edges use
//
// The edges (the CLI, serve, the MCP server, the viewer) reach the memory
// roots, the memories, the user's trust list and the secret scanner
// through the engine only (internal/deps_test.go checks it), so that how
// memories are stored, parsed, compiled and trusted stays behind one API.
// What they need of those packages by name is here, as aliases and thin
// wrappers: an engine.Scope is a store.Scope, engine.OneLine is
// compile.OneLine.

// Scope is which root a memory is in.
type Scope = store.Scope

// The two roots.
const (
	Global  = store.Global
	Project = store.Project
)

// ParseScope reads a scope's name ("global", "project").
func ParseScope(s string) (Scope, error) { return store.ParseScope(s) }

// IndexFile is the name of a folder's compiled index.
const IndexFile = store.IndexFile

// GlobalDir is the default global root: memory/ in OpenCode's config
// directory (OpenCodeConfigDir).
func GlobalDir() (string, error) { return store.GlobalDir() }

// OpenCodeConfigDir is OpenCode's global configuration directory:
// $OPENCODE_CONFIG_DIR, else $XDG_CONFIG_HOME/opencode, else
// ~/.config/opencode.
func OpenCodeConfigDir() (string, error) { return store.OpenCodeConfigDir() }

// ProjectDir is the project root of a working directory: the .memory
// folder of its canonical project root (CanonicalRoot).
func ProjectDir(dir string) (string, error) { return store.ProjectDir(dir) }

// IsHome reports whether dir is the user's home folder, which is never a
// project root (store.IsHome); ProjectDir gives none there.
func IsHome(dir string) bool { return store.IsHome(dir) }

// CanonicalRoot is the main checkout of the git repository holding dir,
// the same for every worktree of it; outside git, dir itself, absolute.
func CanonicalRoot(dir string) (string, error) { return store.CanonicalRoot(dir) }

// Kind is a memory's kind.
type Kind = memory.Kind

// The kinds an edge tells apart.
const (
	KindRule         = memory.KindRule
	KindRuleProposal = memory.KindRuleProposal
)

// Kinds are the kinds a memory may have, in the order the format lists them.
var Kinds = memory.Kinds

// Memory is one parsed memory file.
type Memory = memory.Memory

// MaxFileSize bounds a memory file, frontmatter included.
const MaxFileSize = memory.MaxFileSize

// OneLine folds a text's whitespace runs (newlines included) into single
// spaces, as index lines and the rules tier give a summary.
func OneLine(s string) string { return compile.OneLine(s) }

// Visible is text as a person deciding on it must see it: what a terminal
// or a browser would hide or draw differently (a lone carriage return, an
// escape, a zero-width or bidirectional character) written as ⟨U+XXXX⟩.
// Every display of a rule, a proposal or a file name for a decision goes
// through it (memory.Visible).
func Visible(s string) string { return memory.Visible(s) }

// TrustList is the user's list of trusted projects and accepted rules.
type TrustList = trust.List

// TrustEntry is one trusted project of a TrustList.
type TrustEntry = trust.Entry

// TrustListPath is where the user's trust list lives: $OCMEM_TRUST_FILE,
// else ocmem/trusted.json in OpenCode's config directory.
func TrustListPath() (string, error) { return trust.DefaultPath() }

// ProjectKey is how the trust list names the project of a memory root:
// the directory holding it when it is a .memory folder, else the root.
func ProjectKey(projectMemoryDir string) string { return trust.ProjectKey(projectMemoryDir) }

// RootMDKey is ProjectRule.Key (and a pin's key) of ROOT.md's hard rules.
const RootMDKey = trust.RootMDKey

// RuleDigest is the SHA-256 of a rule's text, in hex, as a pin records it.
func RuleDigest(text string) string { return trust.Digest(text) }

// MaskSecrets returns text with every suspected secret masked, read as a
// write's check reads it (Markdown escapes and encodings decoded), and
// false when the text must be withheld whole: a secret the mask cannot
// cover, or a text too dense to scan.
func MaskSecrets(text string) (string, bool) { return secrets.Mask(text) }

// MaxExcerptRunes bounds LogExcerpt (prompt.MaxExcerptRunes).
const MaxExcerptRunes = prompt.MaxExcerptRunes

// LogExcerpt is the start of a text on one line for a log, every
// suspected secret masked (prompt.LogExcerpt).
func LogExcerpt(text string) string { return prompt.LogExcerpt(text) }

// RuleState is whether a rule is in force, and if not, why
// (trust.RuleState).
type RuleState = trust.RuleState

// Rule states.
const (
	RuleInForce    = trust.RuleInForce
	RuleUntrusted  = trust.RuleUntrusted
	RuleProposal   = trust.RuleProposal
	RuleSuperseded = trust.RuleSuperseded
	RuleUnfit      = trust.RuleUnfit
	RuleChanged    = trust.RuleChanged
	RuleNew        = trust.RuleNew
)

// ProjectRule is one of the project's hard rules and whether it is in
// force (tiers.ProjectRule).
type ProjectRule = tiers.ProjectRule

// ProjectRules is the project root's hard rules against what the user
// accepted (tiers.ProjectRules).
type ProjectRules = tiers.ProjectRules

// ShownRule is a project rule as shown: its suspected secrets masked
// (tiers.ShownRule). What is pinned is the rule's own text.
func ShownRule(r ProjectRule) ProjectRule { return tiers.ShownRule(r) }

// ShownRules is ShownRule of each rule, in a new slice.
func ShownRules(rules []ProjectRule) []ProjectRule { return tiers.ShownRules(rules) }

// ShownPins are pins as shown: their texts masked, their digests those of
// the texts accepted (tiers.ShownPins).
func ShownPins(pins []trust.Pin) []trust.Pin { return tiers.ShownPins(pins) }

// ShownDiff is Diff as shown: each line masked, a change inside a secret
// still a changed line (tiers.ShownDiff).
func ShownDiff(accepted, now string) []string { return tiers.ShownDiff(accepted, now) }

// ShownText is a text as ocmem shows it to a person or the model: every
// suspected secret masked, a line whose secret cannot be masked in place
// withheld (prompt.Mask).
func ShownText(text string) string { return prompt.Mask(text) }

// ChangeCounts counts the rules not in force that are new and those that
// changed (tiers.ChangeCounts).
func ChangeCounts(rules []ProjectRule) (fresh, changed int) { return tiers.ChangeCounts(rules) }

// Diff is a line diff of an accepted rule's text and its text now
// (trust.Diff).
func Diff(old, new string) []string { return trust.Diff(old, new) }

// GuardedRule is a rule in force that carries guards (tiers.GuardedRule).
type GuardedRule = tiers.GuardedRule

// What the staleness of a memory's anchors is shown as (internal/stale).
type (
	Staleness     = stale.Staleness
	StaleEvidence = stale.Evidence
	StaleMemory   = stale.Report
)

// StateOutdated is the state of a memory a model judged no longer true
// (Engine.MarkOutdated).
const StateOutdated = stale.StateOutdated

// MaxAnchorText bounds what AnchorText returns of one memory's code.
const MaxAnchorText = stale.MaxAnchorText

// RuleEntry is one rule or rule proposal as Rules lists it.
type RuleEntry = tiers.RuleEntry

// Rule sources.
const (
	SourceMemory = tiers.SourceMemory
	SourceRootMD = tiers.SourceRootMD
)
