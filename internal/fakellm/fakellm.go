// Package fakellm is a scripted OpenAI-compatible model server for tests.
//
// It answers POST /v1/chat/completions (streamed as Server-Sent Events in the
// OpenAI chunk format, or as one JSON object when "stream" is false) and
// GET /v1/models, and records every request body so a test can see exactly
// what the model was shown:
//
//	srv := fakellm.New(fakellm.Script(fakellm.Call("memory_recall", map[string]any{"query": "deploy"}), fakellm.Text("done")))
//	defer srv.Close()
//	// point OpenCode at srv.URL, run it, then inspect srv.Requests()
package fakellm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// ModelID is the id GET /v1/models lists; any model name is accepted on requests.
const ModelID = "fake-model"

// Responder decides the reply to one request. It is called with the lock
// released, possibly from several goroutines at once.
type Responder func(req Request) Reply

// Server is a running fake model server.
type Server struct {
	// URL is the OpenAI base URL, ending in /v1 (what "baseURL" wants).
	URL string

	srv *httptest.Server

	mu        sync.Mutex
	responder Responder
	requests  []Request
	callSeq   int
}

// New starts a server on 127.0.0.1 with a free port. A nil responder
// answers with Default.
func New(responder Responder) *Server {
	s := &Server{responder: responder}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("GET /v1/models", s.models)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL + "/v1"
	return s
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// SetResponder replaces the script; requests already being answered keep the old one.
func (s *Server) SetResponder(r Responder) {
	s.mu.Lock()
	s.responder = r
	s.mu.Unlock()
}

// Requests returns a copy of the chat requests received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Reset forgets the recorded requests (the responder stays).
func (s *Server) Reset() {
	s.mu.Lock()
	s.requests = nil
	s.mu.Unlock()
}

func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data":   []any{map[string]any{"id": ModelID, "object": "model", "created": 0, "owned_by": "fakellm"}},
	})
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var body ChatRequest
	if err := json.Unmarshal(raw, &body); err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody("bad request body: "+err.Error()))
		return
	}
	s.mu.Lock()
	req := Request{Seq: len(s.requests), Raw: raw, Body: body, Received: time.Now()}
	s.requests = append(s.requests, req)
	responder := s.responder
	s.mu.Unlock()

	if responder == nil {
		responder = Default
	}
	reply := responder(req)
	if reply.Delay > 0 {
		select {
		case <-time.After(reply.Delay):
		case <-r.Context().Done():
			return
		}
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		msg := reply.Error
		if msg == "" {
			msg = http.StatusText(reply.Status)
		}
		writeJSON(w, reply.Status, errorBody(msg))
		return
	}
	calls := s.numberCalls(reply.ToolCalls)
	if body.Stream {
		writeStream(w, reply, calls)
		return
	}
	writeJSON(w, http.StatusOK, completion(reply, calls))
}

// numberCalls gives every tool call without an id a unique one.
func (s *Server) numberCalls(calls []ToolCall) []ToolCall {
	out := make([]ToolCall, len(calls))
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, c := range calls {
		if c.ID == "" {
			s.callSeq++
			c.ID = fmt.Sprintf("call_%d", s.callSeq)
		}
		if c.Type == "" {
			c.Type = "function"
		}
		out[i] = c
	}
	return out
}

func finishReason(calls []ToolCall) string {
	if len(calls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

var usage = map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}

const completionID = "chatcmpl-fake"

func completion(reply Reply, calls []ToolCall) map[string]any {
	msg := map[string]any{"role": "assistant", "content": reply.Text}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	return map[string]any{
		"id": completionID, "object": "chat.completion", "created": 0, "model": ModelID,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finishReason(calls)}},
		"usage":   usage,
	}
}

// writeStream sends the reply as OpenAI chunks: a role delta, the text (in
// a few pieces, as a real model would), one delta per tool call, a last
// chunk with finish_reason and usage, then [DONE].
func writeStream(w http.ResponseWriter, reply Reply, calls []ToolCall) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(delta map[string]any, finish any, withUsage bool) {
		chunk := map[string]any{
			"id": completionID, "object": "chat.completion.chunk", "created": 0, "model": ModelID,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		}
		if withUsage {
			chunk["usage"] = usage
		}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send(map[string]any{"role": "assistant", "content": ""}, nil, false)
	for _, piece := range splitText(reply.Text, 3) {
		send(map[string]any{"content": piece}, nil, false)
	}
	for i, c := range calls {
		send(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": c.ID, "type": c.Type,
			"function": map[string]any{"name": c.Function.Name, "arguments": c.Function.Arguments},
		}}}, nil, false)
	}
	send(map[string]any{}, finishReason(calls), true)
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

// splitText cuts s into at most n pieces on rune boundaries.
func splitText(s string, n int) []string {
	if s == "" {
		return nil
	}
	runes := []rune(s)
	size := (len(runes) + n - 1) / n
	var out []string
	for len(runes) > 0 {
		k := min(size, len(runes))
		out = append(out, string(runes[:k]))
		runes = runes[k:]
	}
	return out
}

func errorBody(msg string) map[string]any {
	return map[string]any{"error": map[string]any{"message": msg, "type": "fakellm_error", "code": nil}}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// Reply is what the fake model answers. The zero Reply is an empty text answer.
type Reply struct {
	Text      string
	ToolCalls []ToolCall
	// Status, if not 0 or 200, makes the server answer with this HTTP status
	// and an OpenAI error body holding Error.
	Status int
	Error  string
	// Delay holds the answer back (to test time limits).
	Delay time.Duration
}

// Text is a plain text answer.
func Text(s string) Reply { return Reply{Text: s} }

// Calls is an answer that asks for the given tool calls (finish_reason "tool_calls").
func Calls(calls ...ToolCall) Reply { return Reply{ToolCalls: calls} }

// Call is an answer with one tool call; args is marshalled to JSON.
func Call(name string, args any) Reply { return Calls(NewToolCall(name, args)) }

// Error500 is an "internal server error" answer.
func Error500(msg string) Reply {
	return Reply{Status: http.StatusInternalServerError, Error: msg}
}

// NewToolCall builds a tool call; args is marshalled to JSON (a nil args is "{}").
// The server gives it a unique id when it is sent.
func NewToolCall(name string, args any) ToolCall {
	a := "{}"
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			panic(fmt.Sprintf("fakellm: marshal args of %s: %v", name, err))
		}
		a = string(b)
	}
	return ToolCall{Type: "function", Function: FunctionCall{Name: name, Arguments: a}}
}

// TitleReply is the answer Default and Script give to title requests.
const TitleReply = "Fake session title"

// Default answers title requests with TitleReply and everything else with "ok".
func Default(req Request) Reply {
	if req.IsTitle() {
		return Text(TitleReply)
	}
	return Text("ok")
}

// Script answers title requests with TitleReply, and agent requests with
// the given replies in turn; once they are used up it answers "ok".
// A typical script: Script(Call("memory_recall", args), Text("done")) — the
// call is answered on the agent's first request, "done" after the tool result.
func Script(replies ...Reply) Responder {
	var mu sync.Mutex
	next := 0
	return func(req Request) Reply {
		if req.IsTitle() {
			return Text(TitleReply)
		}
		mu.Lock()
		defer mu.Unlock()
		if next >= len(replies) {
			return Text("ok")
		}
		next++
		return replies[next-1]
	}
}

// ToolThenText answers an agent request that does not end in a tool result
// with call, and one that does with text. Unlike Script it keeps no state,
// so it serves any number of turns the same way.
func ToolThenText(call ToolCall, text string) Responder {
	return func(req Request) Reply {
		switch {
		case req.IsTitle():
			return Text(TitleReply)
		case req.AfterToolResult():
			return Text(text)
		default:
			return Calls(call)
		}
	}
}
