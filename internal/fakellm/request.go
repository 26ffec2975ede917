package fakellm

import (
	"encoding/json"
	"strings"
	"time"
)

// Request is one recorded chat completion request.
type Request struct {
	Seq      int    // 0-based arrival order
	Raw      []byte // the body exactly as received
	Body     ChatRequest
	Received time.Time
}

// ChatRequest is the part of an OpenAI chat request body tests look at;
// Raw keeps the rest.
type ChatRequest struct {
	Model    string    `json:"model"`
	Stream   bool      `json:"stream"`
	Messages []Message `json:"messages"`
	Tools    []Tool    `json:"tools,omitempty"`
}

// Message is one chat message. Content is either a JSON string or an array
// of parts; use Text to read it.
type Message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content,omitempty"`
	ToolCalls  []ToolCall      `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// Part is one element of an array content.
type Part struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
}

// Parts returns the message's content as parts; a string content is one text part.
func (m Message) Parts() []Part {
	if len(m.Content) == 0 || string(m.Content) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(m.Content, &s); err == nil {
		return []Part{{Type: "text", Text: s}}
	}
	var parts []Part
	if err := json.Unmarshal(m.Content, &parts); err == nil {
		return parts
	}
	return nil
}

// Texts returns the text of each text part, in order.
func (m Message) Texts() []string {
	var out []string
	for _, p := range m.Parts() {
		if p.Type == "text" {
			out = append(out, p.Text)
		}
	}
	return out
}

// Text returns all text parts joined by newlines.
func (m Message) Text() string { return strings.Join(m.Texts(), "\n") }

// Tool is one tool offered to the model.
type Tool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	} `json:"function"`
}

// ToolCall is a tool call, in a reply or in an assistant message of a request.
type ToolCall struct {
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the tool and carries its arguments as a JSON string.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// titlePrompt opens the system prompt of OpenCode's title agent (1.18.33).
const titlePrompt = "You are a title generator"

// IsTitle reports whether this is OpenCode's title-generation request: no
// tools offered and the title agent's system prompt. (A request from an agent
// whose tools are all denied, such as an extraction agent, offers no tools
// either; it is neither IsTitle nor IsAgent.)
func (r Request) IsTitle() bool {
	return len(r.Body.Tools) == 0 && strings.Contains(r.SystemText(), titlePrompt)
}

// IsAgent reports whether this is a request of the agent loop (tools offered).
func (r Request) IsAgent() bool { return len(r.Body.Tools) > 0 }

// AfterToolResult reports whether the conversation ends with a tool result,
// i.e. the model is being asked to continue after running a tool.
func (r Request) AfterToolResult() bool {
	n := len(r.Body.Messages)
	return n > 0 && r.Body.Messages[n-1].Role == "tool"
}

// System returns the text of every system message, in order.
func (r Request) System() []string {
	var out []string
	for _, m := range r.Body.Messages {
		if m.Role == "system" {
			out = append(out, m.Text())
		}
	}
	return out
}

// SystemText returns all system text joined by newlines.
func (r Request) SystemText() string { return strings.Join(r.System(), "\n") }

// UserMessages returns the user messages, in order.
func (r Request) UserMessages() []Message {
	var out []Message
	for _, m := range r.Body.Messages {
		if m.Role == "user" {
			out = append(out, m)
		}
	}
	return out
}

// LastUserText returns the text of the last user message (all its text parts
// joined by newlines), or "" if there is none.
func (r Request) LastUserText() string {
	users := r.UserMessages()
	if len(users) == 0 {
		return ""
	}
	return users[len(users)-1].Text()
}

// ToolNames returns the names of the tools offered, in order.
func (r Request) ToolNames() []string {
	out := make([]string, 0, len(r.Body.Tools))
	for _, t := range r.Body.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// HasTool reports whether a tool of that name is offered.
func (r Request) HasTool(name string) bool {
	for _, t := range r.Body.Tools {
		if t.Function.Name == name {
			return true
		}
	}
	return false
}

// ToolResults returns the text of every role "tool" message, in order.
func (r Request) ToolResults() []string {
	var out []string
	for _, m := range r.Body.Messages {
		if m.Role == "tool" {
			out = append(out, m.Text())
		}
	}
	return out
}

// LastToolResult returns the text of the last tool result, or "".
func (r Request) LastToolResult() string {
	res := r.ToolResults()
	if len(res) == 0 {
		return ""
	}
	return res[len(res)-1]
}

// Agent filters requests down to those of the agent loop.
func Agent(reqs []Request) []Request {
	var out []Request
	for _, r := range reqs {
		if r.IsAgent() {
			out = append(out, r)
		}
	}
	return out
}
