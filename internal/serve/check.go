package serve

import (
	"encoding/json"
	"fmt"

	"github.com/ocmem/ocmem/internal/engine"
)

// checkParams is a tool call before it runs: the plugin asks on both
// OpenCode lines, with the line's tool name and arguments as they are.
type checkParams struct {
	common
	Tool   string          `json:"tool"`
	CallID string          `json:"callID"`
	Args   json.RawMessage `json:"args"`
}

// checkResult is the decision: Action "deny" or "ask" stops the call (the
// plugin throws Message, which the model reads as the tool's result, or
// on a line that can ask, asks first), "" lets it run. Notice is the
// person's toast. Guarded refreshes the plugin's list of guarded tools.
type checkResult struct {
	Action  string   `json:"action"`
	Message string   `json:"message,omitempty"`
	Notice  string   `json:"notice,omitempty"`
	Rule    string   `json:"rule,omitempty"`
	Summary string   `json:"summary,omitempty"`
	Path    string   `json:"path,omitempty"`
	Pattern string   `json:"pattern,omitempty"`
	Subject string   `json:"subject,omitempty"`
	Guarded []string `json:"guarded"`
}

// maxCheckArgs bounds a call's arguments as read for a check. The plugin
// sends a file's new content as "" when it is long (no guard reads it),
// but a patch whole, since it names its files; a request's own limit is
// lower anyway.
const maxCheckArgs = 8 << 20

// check decides a tool call with the rules in force (engine.Check) and
// logs every stop with its session, tool, what matched and the rule.
func (s *Server) check(p *checkParams) (any, error) {
	if p.Tool == "" || len(p.Tool) > 200 || len(p.CallID) > 200 {
		return nil, &rpcError{codeInvalidParams, "check: want a tool name and a call id of at most 200 bytes"}
	}
	if len(p.Args) > maxCheckArgs {
		return nil, &rpcError{codeInvalidParams, fmt.Sprintf("check: arguments over %d bytes", maxCheckArgs)}
	}
	var args map[string]any
	if len(p.Args) > 0 && string(p.Args) != "null" {
		if err := json.Unmarshal(p.Args, &args); err != nil {
			return nil, &rpcError{codeInvalidParams, "check: args must be a JSON object: " + err.Error()}
		}
	}
	e, err := s.engineFor(&p.common)
	if err != nil {
		return nil, err
	}
	s.live.Fresh(e)
	root := p.Worktree
	if root == "" || root == "/" {
		root = p.Directory
	}
	v, err := e.Check(engine.ToolCall{Tool: p.Tool, Args: args, Root: root, Dir: p.Directory})
	if err != nil {
		return nil, err
	}
	g, err := e.Guards()
	if err != nil {
		return nil, err
	}
	res := checkResult{Action: v.Action, Guarded: engine.GuardedTools(g)}
	if !v.Stopped() {
		return res, nil
	}
	res.Message, res.Rule, res.Summary, res.Path, res.Pattern, res.Subject = v.Message, v.Rule.ID, v.Rule.Summary, v.Rule.Path, v.Pattern, v.Subject
	res.Notice = fmt.Sprintf("ocmem stopped %s: %s (rule %s)", p.Tool, excerpt(v.Subject), v.Rule.ID)
	if v.Rule.Broken != "" {
		// The person is the one to fix the file: the toast says which.
		res.Notice = fmt.Sprintf("ocmem: a hard rule file does not load (%s, %s); %s calls are asked until it is fixed", v.Rule.Path, v.Rule.Broken, v.Tool)
	}
	s.log.Info("tool stopped", "session", p.SessionID, "call", p.CallID, "tool", p.Tool, "subject", excerpt(v.Subject),
		"rule", v.Rule.ID, "scope", string(v.Rule.Scope), "pattern", v.Pattern, "action", v.Action, "unreadable", v.Unreadable, "broken", v.Rule.Broken)
	return res, nil
}
