package mcp

// ocmem as a plain MCP server: the real OpenCode, configured with only an
// "mcp" entry (no ocmem plugin), starts `ocmem mcp` and offers its tools to
// the model as memory_recall, memory_remember, memory_forget and
// memory_inspect. docs/MCP.md quotes the config shape this test writes.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

// mcpToolResult returns the tool result the model was shown for the call
// with the given tool name, from the recorded requests.
func mcpToolResult(reqs []fakellm.Request, tool string) (string, bool) {
	for _, r := range reqs {
		ids := map[string]string{} // call id → tool name
		for _, m := range r.Body.Messages {
			for _, c := range m.ToolCalls {
				ids[c.ID] = c.Function.Name
			}
			if m.Role == "tool" && ids[m.ToolCallID] == tool {
				return m.Text(), true
			}
		}
	}
	return "", false
}

func TestMCPServerInOpenCode(t *testing.T) {
	e := e2e.NewEnv(t)
	// The config names the command as a user would, "ocmem", found on PATH.
	e.Vars = append(e.Vars, "PATH="+filepath.Dir(e2e.Ocmem(t))+string(os.PathListSeparator)+os.Getenv("PATH"))

	// No --project and no OCMEM_* variables: the server must find the
	// project's .memory from the working directory OpenCode starts it in,
	// and the global root from the (private) XDG config folder.
	project := filepath.Join(e.Project, ".memory")
	global := filepath.Join(e.ConfigDir(), "memory")
	e.Remember("decisions", "decision", "Deploys go through the staging cluster first",
		"Run make stage, wait for the kestrel smoke tests, then make prod.", "--load-when", "deploy", "--load-when", "部署")
	e.Remember("facts", "fact", "The CLI uses the standard flag package", "No cobra.")
	e.Remember("preferences", "preference", "Answer in British English", "colour, not color", "--scope", "global")

	// Exactly the shape docs/MCP.md gives, and nothing of the plugin.
	e.Config["mcp"] = map[string]any{
		"memory": map[string]any{"type": "local", "command": []string{"ocmem", "mcp"}, "enabled": true},
	}
	delete(e.Config, "plugin")
	e.WriteConfig()

	e.Fake.SetResponder(fakellm.Script(
		fakellm.Call("memory_recall", map[string]any{"query": "how do we deploy to staging"}),
		fakellm.Call("memory_remember", map[string]any{
			"category": "rules", "kind": "rule",
			"summary": "Never deploy on Fridays", "body": "The on-call rota is thin at weekends.",
		}),
		fakellm.Call("memory_forget", map[string]any{"id": "../../README"}),
		fakellm.Call("memory_inspect", nil),
		fakellm.Text("done"),
	))
	e.Ask("How do we deploy?")

	agent := fakellm.Agent(e.Fake.Requests())
	if len(agent) < 5 {
		t.Fatalf("%d agent requests, want 5 (four tool calls, then the answer)", len(agent))
	}
	tools := agent[0].ToolNames()
	for _, name := range []string{"memory_recall", "memory_remember", "memory_forget", "memory_inspect"} {
		if !slices.Contains(tools, name) {
			t.Errorf("the model was not offered %s; tools: %v", name, tools)
		}
	}
	for _, tl := range agent[0].Body.Tools {
		if tl.Function.Name != "memory_remember" {
			continue
		}
		var schema struct {
			Required   []string                   `json:"required"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tl.Function.Parameters, &schema); err != nil {
			t.Fatalf("memory_remember parameters: %v", err)
		}
		if !strings.Contains(string(schema.Properties["kind"]), `"pitfall"`) || !slices.Contains(schema.Required, "summary") {
			t.Errorf("memory_remember schema as the model saw it: %s", tl.Function.Parameters)
		}
	}

	recall, ok := mcpToolResult(agent, "memory_recall")
	if !ok {
		t.Fatal("the model never got memory_recall's result")
	}
	for _, want := range []string{
		"project:decisions/deploys-go-through-staging-cluster (decision)",
		"Run make stage, wait for the kestrel smoke tests, then make prod.",
		"why: matched",
	} {
		if !strings.Contains(recall, want) {
			t.Errorf("memory_recall result lacks %q:\n%s", want, recall)
		}
	}

	remember, _ := mcpToolResult(agent, "memory_remember")
	if !strings.Contains(remember, "(rule-proposal)") {
		t.Errorf("memory_remember result: %q; want the rule stored as a proposal", remember)
	}
	data, err := os.ReadFile(filepath.Join(project, "rules", "never-deploy-fridays.md"))
	if err != nil {
		t.Fatalf("memory_remember did not write into the project's .memory: %v", err)
	}
	if !strings.Contains(string(data), "kind: rule-proposal\n") {
		t.Errorf("stored rule:\n%s\nwant kind: rule-proposal", data)
	}

	forget, _ := mcpToolResult(agent, "memory_forget")
	if !strings.Contains(forget, "forget refused") {
		t.Errorf("memory_forget ../../README: %q; want a refusal", forget)
	}
	if _, err := os.Stat(filepath.Join(e.Project, "README.md")); err != nil {
		t.Errorf("README.md outside the memory root is gone: %v", err)
	}

	// Both roots as the server resolved them from OpenCode's working
	// directory and environment.
	inspect, _ := mcpToolResult(agent, "memory_inspect")
	for _, want := range []string{
		"global root: " + global, "project root: " + project,
		"global:preferences/answer-british-english", "project:rules/never-deploy-fridays (rule-proposal)",
	} {
		if !strings.Contains(inspect, want) {
			t.Errorf("memory_inspect result lacks %q:\n%s", want, inspect)
		}
	}

	// OpenCode puts the server's instructions into the system prompt
	// (docs/MCP.md says so), but injects no memory by itself: the plugin's
	// tiers never reach the system prompt or the user message.
	sys := agent[0].SystemText()
	if !strings.Contains(sys, `<server name="memory">`) || !strings.Contains(sys, "Nothing from memory reaches you unless you ask") {
		t.Errorf("the server's instructions are not in the system prompt")
	}
	if strings.Contains(sys, "Memory outline (ocmem)") || strings.Contains(agent[0].LastUserText(), "<memory id=") {
		t.Errorf("memories were injected without the plugin; docs/MCP.md says they are not")
	}

	// The context prompt is OpenCode command "memory:context". OpenCode gets
	// it with the placeholder "$1" as the message and puts the user's text
	// in its place, so the server cannot pick bodies: the model gets rules,
	// outline, the message and a request to recall.
	e.Fake.Reset()
	e.Fake.SetResponder(fakellm.Default)
	e.MustRun("run", "--command", "memory:context", "how do we deploy to staging")
	agent = fakellm.Agent(e.Fake.Requests())
	if len(agent) == 0 {
		t.Fatal("no agent request after /memory:context")
	}
	user := agent[0].LastUserText()
	for _, want := range []string{
		"The user's durable memory (ocmem)",
		"# Memory outline (ocmem)",
		"project:facts/cli-uses-standard-flag-package",
		"The message:\n\nhow do we deploy to staging\n\nBefore you answer it, call the recall tool",
	} {
		if !strings.Contains(user, want) {
			t.Errorf("/memory:context message lacks %q:\n%s", want, user)
		}
	}
	if strings.Contains(user, "$1") {
		t.Errorf("the placeholder reached the model:\n%s", user)
	}
}
