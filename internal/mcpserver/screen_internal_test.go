package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestReadLineBounded(t *testing.T) {
	in := "short\n" + strings.Repeat("x", 100) + "\nlast"
	r := bufio.NewReaderSize(strings.NewReader(in), 16) // lines longer than the buffer
	for _, want := range []struct {
		line    string
		tooLong bool
		err     error
	}{
		{"short\n", false, nil},
		{"", true, nil},
		{"last", false, io.EOF},
	} {
		line, tooLong, err := readLine(r, 50)
		if string(line) != want.line || tooLong != want.tooLong || err != want.err {
			t.Errorf("readLine: %q, %v, %v; want %q, %v, %v", line, tooLong, err, want.line, want.tooLong, want.err)
		}
	}
}

// FuzzScreen: whatever the line, either the SDK's own transport reads what
// the screen passes on without ending the session, or the screen answers
// with a JSON-RPC error response, or (a blank line) neither.
func FuzzScreen(f *testing.F) {
	for _, s := range []string{
		`{not json`, `[]`, `null`, `42`, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"method":"ping"} x`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"}]`, `{"jsonrpc":"2.0","id":{},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`, `  {"jsonrpc":"2.0","method":"x"}  `, "", "\t",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`,
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, line string, batches bool) {
		if strings.ContainsAny(line, "\n") {
			return // one line at a time, as readLine cuts them
		}
		s := screen{batches: batches}
		forward, reply := s.check([]byte(line))
		switch {
		case forward != nil && reply != nil:
			t.Fatalf("%q: both passed on and answered", line)
		case reply != nil:
			var r struct {
				JSONRPC string             `json:"jsonrpc"`
				ID      json.RawMessage    `json:"id"`
				Error   struct{ Code int } `json:"error"`
			}
			if err := json.Unmarshal(reply, &r); err != nil || r.JSONRPC != "2.0" || len(r.ID) == 0 ||
				(r.Error.Code != -32700 && r.Error.Code != -32600) || bytes.Count(reply, []byte("\n")) != 1 {
				t.Fatalf("%q: reply %q", line, reply)
			}
		case forward != nil:
			if bytes.IndexByte(forward, '\n') != len(forward)-1 {
				t.Fatalf("%q: passed on %q, not one line", line, forward)
			}
			conn, err := (&mcp.IOTransport{Reader: io.NopCloser(bytes.NewReader(forward)), Writer: nopWriteCloser{}}).Connect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.Read(context.Background()); err != nil {
				t.Fatalf("%q: passed on %q, which the SDK cannot read: %v", line, forward, err)
			}
		case strings.Trim(line, " \t\r") != "":
			t.Fatalf("%q: neither passed on nor answered", line)
		}
	})
}

type nopWriteCloser struct{}

func (nopWriteCloser) Write(p []byte) (int, error) { return len(p), nil }
func (nopWriteCloser) Close() error                { return nil }
