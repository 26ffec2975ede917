package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineLength is the longest input line ServeStdio reads; a longer one is
// answered with an error and skipped, without being held in memory whole.
const MaxLineLength = mcp.DefaultMaxLineLength

// The first protocol version without JSON-RPC batches: the SDK ends the
// session on a batch once it has negotiated this version or a later one.
const noBatchVersion = "2025-06-18"

// screen stands between the client's lines and the SDK's transport, which
// ends the whole session on the first line it cannot read as a JSON-RPC
// message or batch. Each line either goes on to the SDK, as one JSON value
// on one line, or is answered here with the JSON-RPC error the client is
// owed (parse error, invalid request), so one bad line costs the client that
// line only.
//
// MCP's stdio transport delimits messages with newlines and forbids
// newlines inside one, so a line is a message.
type screen struct {
	// batches reports whether the client initialized with a protocol
	// version that still has batches; before initialize, and for later
	// versions, a batch is refused here rather than by ending the session.
	batches bool
}

// check returns the line to hand to the SDK (nil: none), or the reply to
// write back instead (nil: none, for a blank line).
func (s *screen) check(line []byte) (forward, reply []byte) {
	v := bytes.Trim(line, " \t\r\n")
	if len(v) == 0 {
		return nil, nil
	}
	if !json.Valid(v) {
		var x any
		err := json.Unmarshal(v, &x)
		if err == nil { // json.Valid and Unmarshal disagree only past a first value
			err = fmt.Errorf("more than one JSON value on the line")
		}
		return nil, errorReply(nil, jsonrpc.CodeParseError, "Parse error: "+err.Error())
	}
	if v[0] == '[' {
		if msg := s.checkBatch(v); msg != "" {
			return nil, errorReply(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: "+msg)
		}
	} else {
		m, err := jsonrpc.DecodeMessage(v)
		if err != nil {
			return nil, errorReply(readableID(v), jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error())
		}
		s.note(m)
	}
	return append(slices.Clip(v), '\n'), nil
}

// checkBatch returns why the SDK would end the session on batch v, or "".
func (s *screen) checkBatch(v []byte) string {
	var batch []json.RawMessage
	if err := json.Unmarshal(v, &batch); err != nil {
		return err.Error()
	}
	if len(batch) == 0 {
		return "empty batch"
	}
	if !s.batches {
		return "JSON-RPC batches are not supported from protocol version " + noBatchVersion + " on"
	}
	seen := map[jsonrpc.ID]bool{}
	for i, raw := range batch {
		m, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return fmt.Sprintf("batch element %d: %v", i, err)
		}
		// The SDK tracks every request of a batch by its id, a
		// notification's too (none: the zero id), so two notifications
		// in one batch repeat an id as much as two calls with one.
		if r, ok := m.(*jsonrpc.Request); ok {
			if seen[r.ID] {
				if !r.IsCall() {
					return fmt.Sprintf("batch element %d: a second notification in one batch, which this server cannot tell from the first", i)
				}
				return fmt.Sprintf("batch element %d: request id %v repeated", i, r.ID.Raw())
			}
			seen[r.ID] = true
		}
	}
	return ""
}

// note follows the protocol version an initialize asks for: the server
// agrees to an older version it supports, and batches went away in
// noBatchVersion.
func (s *screen) note(m jsonrpc.Message) {
	r, ok := m.(*jsonrpc.Request)
	if !ok || r.Method != "initialize" {
		return
	}
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(r.Params, &p) // unreadable params: the SDK answers them
	s.batches = p.ProtocolVersion < noBatchVersion && slices.Contains(mcp.SupportedProtocolVersions(), p.ProtocolVersion)
}

// readableID is the id of a message the SDK cannot take, when it has one
// JSON-RPC allows (a string or a number), so the client can tell which of
// its requests failed; nil otherwise.
func readableID(v []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(v, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	switch c := m.ID[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return m.ID
	}
	return nil
}

// errorReply is a JSON-RPC error response with its newline; a nil id is
// written as null, as JSON-RPC asks when the request's id is unknown.
func errorReply(id json.RawMessage, code int64, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	type wireError struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}{"2.0", id, wireError{code, message}})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: %v", err)) // a valid id and a string: cannot fail
	}
	return append(b, '\n')
}
