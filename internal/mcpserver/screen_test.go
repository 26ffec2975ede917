package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/mcpserver"
)

// pipeSession runs ServeStdio over pipes, as `ocmem mcp` runs it, and
// returns a function that writes one line and one that reads the next reply.
func pipeSession(t *testing.T) (send func(string), recv func() reply) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := mcpserver.New(mcpserver.Config{Engine: newRoots(t).engine(), Version: "test"})
	done := make(chan error, 1)
	go func() {
		done <- mcpserver.ServeStdio(context.Background(), srv, inR, outW)
		outW.Close()
	}()
	lines := make(chan string, 64) // a test may send several lines before it reads
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("ServeStdio did not return after its input closed")
		}
	})
	send = func(line string) {
		t.Helper()
		written := make(chan error, 1)
		go func() { _, err := io.WriteString(inW, line+"\n"); written <- err }()
		select {
		case err := <-written:
			if err != nil {
				t.Fatalf("write %q: %v", line, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("the server did not read %q within 30s", line)
		}
	}
	recv = func() reply {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the server closed its output: the session ended")
			}
			r := reply{line: l}
			if strings.HasPrefix(l, "[") { // a batch's replies: the caller reads the line
				return r
			}
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("reply %q: %v", l, err)
			}
			return r
		case <-time.After(30 * time.Second):
			t.Fatal("no reply within 30s")
		}
		return reply{}
	}
	return send, recv
}

type reply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	line string
}

func initialize(send func(string), recv func() reply, version string) reply {
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"pipe","version":"0"}}}`)
	r := recv()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

// A line the SDK cannot take is answered with the JSON-RPC error it calls
// for, and the session goes on: the ping after it is answered.
func TestStdioBadLineAnswered(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		code       int
		id         string
	}{
		{"not json", `{not json`, -32700, "null"},
		{"two values", `{"jsonrpc":"2.0","id":7,"method":"ping"} {}`, -32700, "null"},
		{"empty batch", `[]`, -32600, "null"},
		{"batch after 2025-06-18", `[{"jsonrpc":"2.0","id":7,"method":"ping"}]`, -32600, "null"},
		{"a number", `42`, -32600, "null"},
		{"null", `null`, -32600, "null"},
		{"wrong version", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600, "7"},
		{"no method no id", `{"jsonrpc":"2.0"}`, -32600, "null"},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600, "null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			send, recv := pipeSession(t)
			if r := initialize(send, recv, "2025-06-18"); r.Error != nil {
				t.Fatalf("initialize: %s", r.line)
			}
			send(tc.line)
			r := recv()
			if r.Error == nil || r.Error.Code != tc.code || string(r.ID) != tc.id {
				t.Errorf("reply to %s: %s; want error %d with id %s", tc.line, r.line, tc.code, tc.id)
			}
			send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
			if r := recv(); string(r.ID) != "3" || r.Error != nil || string(r.Result) != "{}" {
				t.Errorf("ping after the bad line: %s; want the pong", r.line)
			}
		})
	}
}

// Blank lines and whitespace around a message are not errors.
func TestStdioBlankLinesIgnored(t *testing.T) {
	send, recv := pipeSession(t)
	initialize(send, recv, "2025-06-18")
	send("")
	send("  \t ")
	send(`  {"jsonrpc":"2.0","id":3,"method":"ping"}  ` + "\r")
	if r := recv(); string(r.ID) != "3" || r.Error != nil {
		t.Errorf("ping: %s; want the pong", r.line)
	}
}

// A client that negotiated 2025-03-26 may send batches, and gets a batch
// back; a batch with an invalid member is refused whole, and the session
// goes on.
func TestStdioBatchesOfOldProtocol(t *testing.T) {
	send, recv := pipeSession(t)
	if r := initialize(send, recv, "2025-03-26"); !strings.Contains(string(r.Result), `"2025-03-26"`) {
		t.Fatalf("initialize: %s", r.line)
	}
	send(`[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"ping"}]`)
	for _, bad := range []string{
		`[{"jsonrpc":"2.0","id":6,"method":"ping"},1]`,
		`[{"jsonrpc":"2.0","id":6,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":"ping"}]`,
	} {
		send(bad)
	}
	send(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	var batch, refused, pong int
	for range 4 {
		r := recv().line
		switch {
		case strings.HasPrefix(r, "["):
			var rs []reply
			if err := json.Unmarshal([]byte(r), &rs); err != nil || len(rs) != 2 {
				t.Errorf("batch reply %s", r)
			}
			batch++
		case strings.Contains(r, `"code":-32600`):
			refused++
		case strings.Contains(r, `"id":9`):
			pong++
		default:
			t.Errorf("unexpected reply %s", r)
		}
	}
	if batch != 1 || refused != 2 || pong != 1 {
		t.Errorf("%d batch replies, %d refusals, %d pongs; want 1, 2, 1", batch, refused, pong)
	}
}
