// Package toolspec is the one definition of ocmem's four memory tools:
// their names, parameters, limits and reply sentences. Every place that
// offers the tools is built from it — the OpenCode plugin (its tool table is
// generated from [JS]), serve's methods that answer the plugin, and the MCP
// server — so what the model is told and what the servers do cannot drift
// apart.
//
//	for _, t := range toolspec.Tools {
//		fmt.Println(t.OpenCodeName(), t.InputSchema())
//	}
//
// The package holds words and numbers only: the engine does the work, and
// each server turns the engine's results into the sentences below.
package toolspec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Type is a parameter's JSON type.
type Type string

const (
	String     Type = "string"
	Integer    Type = "integer"
	Boolean    Type = "boolean"
	StringList Type = "array" // of strings
	Object     Type = "object"
)

// Param is one argument of a tool, as paramsOf reads it from the input
// schema of the tool's Args struct.
type Param struct {
	Name        string
	Type        Type
	Description string
	Enum        []string // allowed values of a String; nil: any
	Required    bool
}

// Tool is one memory tool.
type Tool struct {
	// Name is the tool's name over MCP and the serve method that carries
	// it from the plugin; OpenCodeName adds the plugin's prefix.
	Name        string
	Title       string
	Description string
	Params      []Param
	// input is the JSON Schema of the arguments (InputSchema).
	input *jsonschema.Schema
	// What a client may assume (MCP tool annotations). A read-only tool
	// may be sent again when the server died under it; a write is not.
	ReadOnly, Destructive, Idempotent bool
	// Refused is, for a tool that writes, what a refusal before the write
	// tells the model did not happen ("nothing was written").
	Refused string
}

// ExtractAgent is the OpenCode agent automatic extraction asks its cheap
// model through: the plugin declares it, extraction names it.
const ExtractAgent = "ocmem-extract"

// OpenCodeName is the tool's name inside OpenCode, where every plugin's
// tools share one namespace.
func (t Tool) OpenCodeName() string { return "memory_" + t.Name }

// Recall limits. A limit above MaxRecallLimit is clamped to it, so a model
// that asks for 50 gets the 20 it is told about, not an error; 0 (or none)
// is the default, and a negative limit is refused (tools.Recall).
const (
	DefaultRecallLimit = 5
	MaxRecallLimit     = 20
)

// RecallLimit is the number of memories a recall with the requested limit
// returns: DefaultRecallLimit when none was asked for, at most
// MaxRecallLimit.
func RecallLimit(requested int) int {
	switch {
	case requested <= 0:
		return DefaultRecallLimit
	case requested > MaxRecallLimit:
		return MaxRecallLimit
	}
	return requested
}

// Kinds a model may give a memory; "rule" is stored as a rule proposal.
var Kinds = []string{"rule", "preference", "decision", "pitfall", "fact"}

// Scopes are the two memory roots.
var Scopes = []string{"project", "global"}

// Tools are the four tools, in the order they are offered.
var Tools = []Tool{
	withArgs[RecallArgs](Tool{
		Name:  "recall",
		Title: "Recall memories",
		Description: "Search durable memory (this project's and the user's global notes, kept across sessions) " +
			"for decisions, preferences, pitfalls and conventions. Use it before non-trivial work when the memory " +
			"outline lists something related, when the user refers to earlier work, or for an error message. " +
			"Returns each matching memory in full, with the reasons it matched.",
		ReadOnly: true, Idempotent: true,
	}),
	withArgs[RememberArgs](Tool{
		Name:  "remember",
		Title: "Remember",
		Description: "Save one durable memory as a Markdown file. Worth saving: user preferences, architecture " +
			"decisions with their reasons, non-obvious pitfalls with their root cause, project conventions the " +
			"code does not show. Not worth saving: what the code already shows, the current task's state, branch " +
			"names, local paths, one-off chatter; secrets are refused. One memory per fact; to replace an outdated " +
			"one, pass its id as supersedes. A rule you save becomes a proposal that a person must accept.",
		Refused: "nothing was written",
	}),
	withArgs[ForgetArgs](Tool{
		Name:  "forget",
		Title: "Forget a memory",
		Description: "Delete one memory that is wrong or obsolete, by its id (<category>/<slug>, as recall and " +
			"inspect show it). Use only when the user asks or a memory is plainly wrong. Ids that leave the memory " +
			"folder are refused.",
		Destructive: true, Idempotent: true,
		Refused: "nothing was deleted",
	}),
	withArgs[InspectArgs](Tool{
		Name:  "inspect",
		Title: "Inspect memory",
		Description: "List every memory and check the memory folders for problems: stale indexes, broken " +
			"supersede links, duplicate ids, files that do not parse.",
		ReadOnly: true, Idempotent: true,
	}),
}

// Lookup returns the tool of that name (MCP name), or false.
func Lookup(name string) (Tool, bool) {
	for _, t := range Tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// The tools' arguments are declared once, here: each struct is what the
// servers decode, and its input schema is inferred from it (schemaOf), so
// MCP's input schema, the parameters (paramsOf) and the plugin's generated
// table come from the same declaration. A field's json name is the
// parameter's name, and without omitempty it is required; its jsonschema
// tag is the description the model reads; an enum tag names a list of
// allowed values (enums).

// RecallArgs are the arguments of recall, as JSON carries them.
type RecallArgs struct {
	Query string `json:"query" jsonschema:"what to look for: keywords, a question or an error message, in any language"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many memories (default 5, at most 20)"`
}

// RememberArgs are the arguments of remember.
type RememberArgs struct {
	Category   string   `json:"category" jsonschema:"the folder: one name, usually the plural of the kind (decisions, pitfalls, preferences, facts, rules)"`
	Kind       string   `json:"kind" enum:"kinds" jsonschema:"what the memory is; a rule is stored as a rule proposal until a person accepts it"`
	Summary    string   `json:"summary" jsonschema:"one sentence that makes sense on its own, shown in the index"`
	Body       string   `json:"body" jsonschema:"context, the decision or root cause, and the reason"`
	Highlight  string   `json:"highlight,omitempty" jsonschema:"the single most useful detail"`
	LoadWhen   []string `json:"load_when,omitempty" jsonschema:"keywords and situations in which the memory should come back, any language"`
	Pinned     bool     `json:"pinned,omitempty" jsonschema:"never fades with age and is never superseded automatically"`
	Supersedes string   `json:"supersedes,omitempty" jsonschema:"id of an outdated memory this one replaces (kept for history, no longer recalled)"`
	Anchors    []string `json:"anchors,omitempty" jsonschema:"the code the memory is about, so that it is flagged when that code changes: paths relative to the project root (a file, a folder or a glob), a file optionally with #Symbol (internal/api/server.go#ListenPort); each must exist now. Without it, the paths and backticked identifiers the text names are used"`
	Scope      string   `json:"scope,omitempty" enum:"scopes" jsonschema:"project (this repository, the default inside one) or global (this user, everywhere; only in a project the user trusts)"`
	// Enforce stays raw: its keys' order is the guards' order, and the
	// last matching pattern of a tool decides.
	Enforce json.RawMessage `json:"enforce,omitempty" jsonschema:"for kind rule only: the tool calls that break the rule, in the shape of OpenCode's permission setting, tool name to pattern to deny, ask or allow, e.g. {\"bash\": {\"git push --force*\": \"deny\"}, \"edit\": {\"dist/**\": \"deny\"}}; bash patterns match each command as it would run, file-tool patterns are path globs relative to the project; it stops nothing until a person accepts the rule"`
}

// ForgetArgs are the arguments of forget.
type ForgetArgs struct {
	ID    string `json:"id" jsonschema:"the memory's id, <category>/<slug>"`
	Scope string `json:"scope,omitempty" enum:"scopes" jsonschema:"project or global; needed only when the id exists in both"`
}

// enums are the lists an enum tag names.
var enums = map[string][]string{"kinds": Kinds, "scopes": Scopes}

// InspectArgs are the (no) arguments of inspect.
type InspectArgs struct{}

// Remembered is the reply to a memory written: where it went, and what a
// person must do when a rule was stored as a proposal.
//
// replacesRule is the hard rule the memory would supersede: only a person
// changes a rule in force, so the memory waits as a proposal and the rule
// stays.
func Remembered(scope, id, kind, path string, proposal bool, superseded, replacesRule string) string {
	s := fmt.Sprintf("Remembered %s:%s (%s) in %s.", scope, id, kind, path)
	if replacesRule != "" {
		s += fmt.Sprintf(" It would supersede the hard rule %s, and only a person changes a hard rule, so it is "+
			"stored as a rule proposal: %s stays in force until a person accepts the proposal (`ocmem accept %s`).",
			replacesRule, replacesRule, id)
		return s
	}
	if proposal {
		// In a project root a hand edit of kind leaves the rule not in
		// force until accepted (its text is pinned by ocmem accept or
		// ocmem trust), so the edit is offered for the global root only.
		how := fmt.Sprintf("`ocmem accept %s`", id)
		if scope == "global" {
			how += ", or by changing `kind: rule-proposal` to `kind: rule` in that file"
		}
		s += fmt.Sprintf(" Hard rules come only from people, so it is stored as a rule proposal: it is not in "+
			"force until a person accepts it (%s).", how)
	}
	if superseded != "" {
		s += fmt.Sprintf(" It supersedes %s, which is kept for history and no longer recalled.", superseded)
	}
	return s
}

// SameSummary is the note added to a remember's reply when a live memory
// of the root, other, already has the summary given, with another body:
// both are kept, and one of them may be stale.
func SameSummary(scope, other string) string {
	return fmt.Sprintf(" Note: %s:%s has the same summary with another body; both are kept. If the new one replaces it, "+
		"forget %s (or remember with supersedes next time); if both hold, give one a summary that tells them apart.", scope, other, other)
}

// Forgot is the reply to a memory deleted.
func Forgot(scope, id, path string) string {
	return fmt.Sprintf("Forgot %s:%s (deleted %s).", scope, id, path)
}

// DecodeArgs reads a tool's arguments, a JSON object, into v (the tool's
// Args struct). A key the contract does not name is refused, not ignored:
// the arguments come from the model, and a key the servers do not expect —
// a root, a session — must never be read as if a person had set it.
// Empty or null arguments are an empty object.
func (t Tool) DecodeArgs(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return fmt.Errorf("%s: the arguments must be a JSON object: %w", t.OpenCodeName(), err)
	}
	var unknown []string
	for k := range keys {
		if !slices.ContainsFunc(t.Params, func(p Param) bool { return p.Name == k }) {
			unknown = append(unknown, strconv.Quote(k))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return fmt.Errorf("%s does not take %s (its arguments: %s)", t.OpenCodeName(), strings.Join(unknown, ", "), t.paramNames())
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s: %w", t.OpenCodeName(), err)
	}
	return nil
}

func (t Tool) paramNames() string {
	if len(t.Params) == 0 {
		return "none"
	}
	names := make([]string, len(t.Params))
	for i, p := range t.Params {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}
