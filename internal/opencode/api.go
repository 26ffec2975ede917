package opencode

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Session is the part of an OpenCode session ocmem reads.
type Session struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	Directory string `json:"directory"`
	ParentID  string `json:"parentID,omitempty"` // set on a subagent's session
	ProjectID string `json:"projectID,omitempty"`
}

// ModelRef names a model as a prompt request does.
type ModelRef struct {
	ProviderID string `json:"providerID"`
	ModelID    string `json:"modelID"`
}

func (m ModelRef) String() string { return m.ProviderID + "/" + m.ModelID }

// Message is one message of a session with its parts.
type Message struct {
	Info  MessageInfo `json:"info"`
	Parts []Part      `json:"parts"`
}

// MessageInfo is the part of a message's info ocmem reads. A user message
// names its model in Model; an assistant message in ProviderID and ModelID.
type MessageInfo struct {
	ID         string        `json:"id"`
	SessionID  string        `json:"sessionID"`
	Role       string        `json:"role"` // "user" or "assistant"
	Agent      string        `json:"agent,omitempty"`
	Model      *ModelRef     `json:"model,omitempty"`
	ProviderID string        `json:"providerID,omitempty"`
	ModelID    string        `json:"modelID,omitempty"`
	Error      *MessageError `json:"error,omitempty"`
	Time       MessageTime   `json:"time"`
}

// MessageTime is when a message was created and, for an assistant
// message, completed (Unix milliseconds; 0 while it is being written).
type MessageTime struct {
	Created   float64 `json:"created"`
	Completed float64 `json:"completed,omitempty"`
}

// MessageError is the error an assistant message ended with.
type MessageError struct {
	Name string `json:"name"`
	Data struct {
		Message string `json:"message"`
	} `json:"data"`
}

// Part is one part of a message. Only text parts carry Text; a tool part
// names its Tool.
type Part struct {
	ID        string `json:"id,omitempty"`
	Type      string `json:"type"` // "text", "reasoning", "tool", "step-start", …
	Text      string `json:"text,omitempty"`
	Synthetic bool   `json:"synthetic,omitempty"` // added by a plugin or OpenCode, not typed by the user
	Ignored   bool   `json:"ignored,omitempty"`
	Tool      string `json:"tool,omitempty"`
}

// Text returns the message's own text: its text parts that are neither
// synthetic (memory ocmem injected, among others) nor ignored, joined by
// blank lines.
func (m Message) Text() string {
	var parts []string
	for _, p := range m.Parts {
		if p.Type == "text" && !p.Synthetic && !p.Ignored && strings.TrimSpace(p.Text) != "" {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// Providers is GET /config/providers: the providers the server can use,
// with their models, and each provider's default model id.
type Providers struct {
	Providers []Provider        `json:"providers"`
	Default   map[string]string `json:"default"`
}

// Provider is one model provider.
type Provider struct {
	ID     string           `json:"id"`
	Name   string           `json:"name"`
	Source string           `json:"source"` // "env", "config", "custom" or "api"
	Models map[string]Model `json:"models"`
}

// Model is one model of a provider. Cost is in dollars per million tokens;
// a model without a declared cost or limit has zeros there.
type Model struct {
	ID         string `json:"id"`
	ProviderID string `json:"providerID"`
	Name       string `json:"name"`
	Status     string `json:"status,omitempty"` // "alpha", "beta", "deprecated", "active"
	Cost       struct {
		Input  float64 `json:"input"`
		Output float64 `json:"output"`
	} `json:"cost"`
	Limit struct {
		Context float64 `json:"context"`
		Output  float64 `json:"output"`
	} `json:"limit"`
	Capabilities struct {
		Input struct {
			Text bool `json:"text"`
		} `json:"input"`
		Output struct {
			Text bool `json:"text"`
		} `json:"output"`
	} `json:"capabilities"`
}

// Agent is one agent the server knows.
type Agent struct {
	Name   string `json:"name"`
	Mode   string `json:"mode"` // "primary", "subagent" or "all"
	Hidden bool   `json:"hidden,omitempty"`
}

// NewSession is the body of POST /session.
type NewSession struct {
	Title    string `json:"title,omitempty"`
	ParentID string `json:"parentID,omitempty"`
}

// PromptRequest is the body of POST /session/{id}/message.
type PromptRequest struct {
	Model  ModelRef `json:"model"`
	Agent  string   `json:"agent,omitempty"`
	System string   `json:"system,omitempty"`
	// Tools turns tools on or off by name; {"*": false} turns every tool
	// off for this message (1.18.33: the request then offers none).
	Tools map[string]bool `json:"tools,omitempty"`
	Parts []TextPart      `json:"parts"`
}

// TextPart is a text part of a prompt.
type TextPart struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

// Text is a prompt part holding s.
func Text(s string) TextPart { return TextPart{Type: "text", Text: s} }

// Status is what GET /session/status says about one busy session. Idle
// sessions are absent from the answer.
type Status struct {
	Type    string `json:"type"` // "busy" or "retry"
	Attempt int    `json:"attempt,omitempty"`
	Message string `json:"message,omitempty"`
}

// Session returns a session by id.
func (c *Client) Session(ctx context.Context, id string) (*Session, error) {
	return call[*Session](ctx, c, "GET", sessionPath(id, ""), nil, nil)
}

// messagePageSize is how many messages one GET asks for. Messages come
// newest first in pages, so an extraction that only needs the turns since
// its cursor reads one page of a long session, not all of it.
const messagePageSize = 50

// Messages returns the messages of a session, oldest first. With after set
// (a message id), it stops paging back once it has reached that message, so
// it returns every message after it and possibly a few before it; with
// after empty it returns the whole session.
func (c *Client) Messages(ctx context.Context, sessionID, after string) ([]Message, error) {
	var pages [][]Message
	query := url.Values{"limit": {strconv.Itoa(messagePageSize)}}
	path := sessionPath(sessionID, "/message")
	for {
		header, data, err := c.send(ctx, "GET", path, query, nil)
		if err != nil {
			return nil, err
		}
		page, err := decodeJSON[[]Message]("GET", path, data)
		if err != nil {
			return nil, err
		}
		pages = append(pages, page)
		next := header.Get("X-Next-Cursor")
		if next == "" || len(page) == 0 || reached(page, after) {
			break
		}
		query.Set("before", next)
	}
	var out []Message
	for i := len(pages) - 1; i >= 0; i-- {
		out = append(out, pages[i]...)
	}
	return out, nil
}

// reached reports whether a page (oldest first) goes back to message id
// after. OpenCode's message ids sort in creation order, so an older first
// message also means the cursor's message is behind us (it may have been
// deleted or reverted).
func reached(page []Message, after string) bool {
	return after != "" && page[0].Info.ID <= after
}

// Providers returns the providers and models the server can use.
func (c *Client) Providers(ctx context.Context) (*Providers, error) {
	return call[*Providers](ctx, c, "GET", "/config/providers", nil, nil)
}

// Agents returns the agents of the server (of Directory's instance).
func (c *Client) Agents(ctx context.Context) ([]Agent, error) {
	return call[[]Agent](ctx, c, "GET", "/agent", nil, nil)
}

// CreateSession creates a session (in Directory's project).
func (c *Client) CreateSession(ctx context.Context, s NewSession) (*Session, error) {
	return call[*Session](ctx, c, "POST", "/session", nil, s)
}

// DeleteSession deletes a session with its messages.
func (c *Client) DeleteSession(ctx context.Context, id string) error {
	_, _, err := c.send(ctx, "DELETE", sessionPath(id, ""), nil, nil)
	return err
}

// Abort stops whatever a session is running.
func (c *Client) Abort(ctx context.Context, id string) error {
	_, _, err := c.send(ctx, "POST", sessionPath(id, "/abort"), nil, nil)
	return err
}

// Statuses returns the status of every busy session, by id.
func (c *Client) Statuses(ctx context.Context) (map[string]Status, error) {
	return call[map[string]Status](ctx, c, "GET", "/session/status", nil, nil)
}

// Reply is the assistant message a prompt produced.
type Reply struct {
	Info  MessageInfo `json:"info"`
	Parts []Part      `json:"parts"`
}

// Text returns the reply's text parts, joined.
func (r *Reply) Text() string { return Message{Info: r.Info, Parts: r.Parts}.Text() }

// defaultPollInterval: OpenCode reports a retry about a second after the
// provider failed (measured on 1.18.33); checking four times a second
// stops it before its second attempt.
const defaultPollInterval = 250 * time.Millisecond

// abortTimeout bounds the clean-up call that stops a failed prompt; it runs
// after the caller's context may have ended.
const abortTimeout = 5 * time.Second

// Prompt sends one message to a session and waits for the model's answer.
// It does not let OpenCode retry: OpenCode retries a failed provider
// request by itself with growing back-off (a 500 kept it busy for 70 s on
// 1.18.33, attempt after attempt against the user's quota). Prompt watches
// the session's status and, at the first retry, aborts the run and returns
// a *ModelError with the provider's message. A reply whose message ended in
// an error is a *ModelError too. On any failure the session's run is
// aborted, so nothing keeps running on the server.
func (c *Client) Prompt(ctx context.Context, sessionID string, req PromptRequest) (*Reply, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		reply *Reply
		err   error
	}
	done := make(chan result, 1)
	go func() {
		r, err := call[*Reply](ctx, c, "POST", sessionPath(sessionID, "/message"), nil, req)
		done <- result{r, err}
	}()
	interval := c.PollInterval
	if interval <= 0 {
		interval = defaultPollInterval
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case res := <-done:
			if res.err != nil {
				c.abort(sessionID)
				return nil, res.err
			}
			if res.reply == nil {
				return nil, fmt.Errorf("POST %s: empty response", sessionPath(sessionID, "/message"))
			}
			if e := res.reply.Info.Error; e != nil {
				return nil, &ModelError{Name: e.Name, Message: e.Data.Message}
			}
			return res.reply, nil
		case <-tick.C:
			// The watchdog is best effort: a failed status call changes nothing.
			st, err := c.Statuses(ctx)
			if err != nil {
				continue
			}
			if s, ok := st[sessionID]; ok && s.Type == "retry" {
				c.abort(sessionID)
				cancel()
				<-done
				return nil, &ModelError{Name: "retry", Message: fmt.Sprintf("%s (OpenCode was about to retry; ocmem does not)", s.Message)}
			}
		}
	}
}

// abort stops a session's run, with its own time limit, ignoring errors:
// it is clean-up after a failure that is already being reported.
func (c *Client) abort(sessionID string) {
	ctx, cancel := context.WithTimeout(context.Background(), abortTimeout)
	defer cancel()
	_ = c.Abort(ctx, sessionID)
}
