package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// The decoder is fuzzed over whole input streams, as the plugin's pipe
// delivers them: any bytes, split into lines. For every input:
//
//   - Serve returns at the end of its input without panicking, and within
//     fuzzHang (a watchdog crashes the process with every goroutine's stack
//     otherwise, and the fuzzer keeps the input);
//   - every line it writes is a well-formed JSON-RPC 2.0 response: an
//     object with "jsonrpc":"2.0", an "id" that is a string, a number or
//     null, and exactly one of "result" and an "error" holding an integer
//     code and a message;
//   - every request gets exactly one response, and a notification none
//     (wantReplies is the oracle; it decodes each line independently of the
//     server's code);
//   - after the input, a ping still gets its answer: one bad line never
//     stops the server.
//
// The roots are fixed temporary directories (ProjectDir overrides any
// worktree a request names), so a fuzzed request can only ever write there.

const fuzzHang = 20 * time.Second

// fuzzFinalID is the id of the ping appended to every input.
const fuzzFinalID = `"fuzz-final-ping"`

func fuzzSeeds() []string {
	return []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a","method":"system","params":{"sessionID":"ses_1"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"message","params":{"sessionID":"ses_1","messageID":"m1","text":"部署前要做什么"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"remember","params":{"args":{"category":"facts","kind":"fact","summary":"Kafka retention is per partition","body":"b","load_when":["kafka"]}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"remember","params":{"args":{"category":"rules","kind":"rule","summary":"Always run make check"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"recall","params":{"args":{"query":"kafka","limit":50}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"forget","params":{"args":{"id":"../../etc/passwd"}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"forget","params":{"args":{"id":"facts/kafka-retention-is-per-partition","scope":"project"}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"inspect","params":null}`,
		`{"jsonrpc":"2.0","id":9,"method":"idle","params":{"sessionID":"ses_1","serverUrl":"http://127.0.0.1:1"}}`,
		`{"jsonrpc":"2.0","method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":-1.5e3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":[1],"method":"ping"}`,
		`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":10,"method":5}`,
		`{"jsonrpc":2,"id":11,"method":"ping"}`,
		`{"jsonrpc":"2.0","Id":12,"Method":"ping"}`,
		`{"jsonrpc":"2.0","id":13,"method":"recall","params":"query"}`,
		`{"jsonrpc":"2.0","id":14,"method":"system","params":{"options":{"maxInjectChars":-1,"categories":["../x"]}}}`,
		`[{"jsonrpc":"2.0","id":15,"method":"ping"}]`,
		`{"jsonrpc":"1.0","id":16,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"\ud800","method":"ping"}`,
		`{"jsonrpc":"2.0","id":17,"id":18,"method":"ping"}`,
		`null`,
		`42`,
		`"x"`,
		`{not json`,
		"\x00\xff\xfe",
		"{\"jsonrpc\":\"2.0\",\"id\":19,\"method\":\"ping\"}\r",
		"\u00a0",
	}
}

// fuzzRoots returns fresh roots under a directory the test owns.
func fuzzRoots(t testing.TB, base string) Config {
	dir, err := os.MkdirTemp(base, "roots-")
	if err != nil {
		t.Fatal(err)
	}
	return Config{GlobalDir: filepath.Join(dir, "global"), ProjectDir: filepath.Join(dir, "project")}
}

func FuzzServe(f *testing.F) {
	seeds := fuzzSeeds()
	f.Add([]byte(strings.Join(seeds, "\n") + "\n"))
	for _, s := range seeds {
		f.Add([]byte(s + "\n"))
	}
	f.Add([]byte(seeds[0] + "\n\n   \n" + seeds[10])) // blank lines, no final newline
	base := f.TempDir()
	f.Setenv("OCMEM_CACHE_DIR", filepath.Join(base, "cache"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := fuzzRoots(t, base)
		defer os.RemoveAll(filepath.Dir(cfg.GlobalDir))
		checkServe(t, cfg, data)
	})
}

// checkServe runs data and a final ping through Serve and checks every
// property above.
func checkServe(t *testing.T, cfg Config, data []byte) {
	in := bytes.Clone(data)
	if len(in) > 0 && in[len(in)-1] != '\n' {
		in = append(in, '\n')
	}
	in = append(in, `{"jsonrpc":"2.0","id":`+fuzzFinalID+`,"method":"ping"}`+"\n"...)

	var out bytes.Buffer
	var once sync.Once
	watchdog := time.AfterFunc(fuzzHang, func() {
		once.Do(func() {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			panic(fmt.Sprintf("Serve did not return within %v for input %q\n%s", fuzzHang, data, buf))
		})
	})
	err := New(cfg).Serve(context.Background(), bytes.NewReader(in), &out)
	watchdog.Stop()
	if err != nil {
		t.Fatalf("Serve: %v", err)
	}

	want := wantReplies(in)
	got := map[string]int{}
	finalOK := false
	for _, line := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
		if len(out.Bytes()) == 0 {
			break
		}
		id, isResult := checkResponse(t, line)
		got[id]++
		if id == canonicalID(json.RawMessage(fuzzFinalID)) && isResult {
			finalOK = true
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("responses by id: got %v, want %v\ninput %q\noutput:\n%s", got, want, in, out.Bytes())
	}
	if !finalOK {
		t.Fatalf("the ping after the input got no result\ninput %q\noutput:\n%s", in, out.Bytes())
	}
}

// checkResponse checks one output line and returns its canonical id and
// whether it holds a result.
func checkResponse(t *testing.T, line []byte) (id string, isResult bool) {
	t.Helper()
	var resp map[string]json.RawMessage
	if err := json.Unmarshal(line, &resp); err != nil || resp == nil {
		t.Fatalf("response is not a JSON object: %q (%v)", line, err)
	}
	if string(resp["jsonrpc"]) != `"2.0"` {
		t.Fatalf(`response without "jsonrpc":"2.0": %s`, line)
	}
	rawID, ok := resp["id"]
	if !ok || !validID(rawID) {
		t.Fatalf("response id missing or not a string, number or null: %s", line)
	}
	result, hasResult := resp["result"]
	rawErr, hasErr := resp["error"]
	if hasResult == hasErr || len(resp) != 3 {
		t.Fatalf("response wants jsonrpc, id and exactly one of result and error: %s", line)
	}
	if hasResult && string(result) == "null" {
		t.Fatalf("null result: %s", line)
	}
	if hasErr {
		var e struct {
			Code    *int    `json:"code"`
			Message *string `json:"message"`
		}
		if err := json.Unmarshal(rawErr, &e); err != nil || e.Code == nil || e.Message == nil || *e.Message == "" {
			t.Fatalf("error without an integer code and a message: %s", line)
		}
	}
	return canonicalID(rawID), hasResult
}

// wantReplies is the oracle: how many responses each id must get. Blank
// lines and notifications (valid requests without an id) get none; a
// request with a string or number id gets one with that id; anything else
// (a parse error, an invalid request, an id of another type) gets one with
// a null id.
func wantReplies(in []byte) map[string]int {
	want := map[string]int{}
	lines := bytes.Split(in, []byte("\n"))
	for i, line := range lines {
		if i == len(lines)-1 && len(line) == 0 {
			break // after the final newline
		}
		if strings.TrimSpace(string(line)) == "" {
			continue
		}
		if len(line) > MaxRequestBytes {
			want["null"]++
			continue
		}
		var req map[string]json.RawMessage
		if !json.Valid(line) || json.Unmarshal(line, &req) != nil || req == nil {
			want["null"]++
			continue
		}
		rawID, hasID := req["id"]
		var version, method string
		valid := json.Unmarshal(req["jsonrpc"], &version) == nil && version == "2.0" &&
			json.Unmarshal(req["method"], &method) == nil && method != ""
		switch {
		case !hasID && valid:
			// a notification
		case hasID && validID(rawID):
			want[canonicalID(rawID)]++
		default:
			want["null"]++
		}
	}
	return want
}

// validID: JSON-RPC ids are strings, numbers or null.
func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		return json.Unmarshal(raw, &s) == nil
	case c == '-' || c >= '0' && c <= '9':
		var n json.Number
		return json.Unmarshal(raw, &n) == nil
	}
	return string(raw) == "null"
}

// canonicalID decodes an id the way a client compares it: strings by
// their decoded value, numbers by their text.
func canonicalID(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		b, _ := json.Marshal(s)
		return string(b)
	}
	return string(raw)
}

// FuzzHandleLine is the fast half of FuzzServe: one line straight into
// handleLine, without the reader and the watcher, so the fuzzer runs many
// more inputs through the decoder. The same oracle decides whether the line
// gets a response and with which id.
func FuzzHandleLine(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add([]byte(s))
	}
	base := f.TempDir()
	f.Setenv("OCMEM_CACHE_DIR", filepath.Join(base, "cache"))
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 || strings.TrimSpace(string(line)) == "" {
			return // Serve splits lines and skips blank ones before handleLine
		}
		cfg := fuzzRoots(t, base)
		defer os.RemoveAll(filepath.Dir(cfg.GlobalDir))
		s := New(cfg)
		resp, ok := s.handleLine(context.Background(), line)
		s.Wait()
		want := wantReplies(append(bytes.Clone(line), '\n'))
		if !ok {
			if len(want) != 0 {
				t.Fatalf("no response to %q, want %v", line, want)
			}
			return
		}
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(resp); err != nil {
			t.Fatalf("response to %q does not encode: %v", line, err)
		}
		id, _ := checkResponse(t, bytes.TrimSuffix(out.Bytes(), []byte("\n")))
		if !reflect.DeepEqual(want, map[string]int{id: 1}) {
			t.Fatalf("response to %q has id %s, want %v\n%s", line, id, want, out.Bytes())
		}
	})
}
