package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DrainTimeout bounds how long the server goes on answering after its input
// has ended.
//
// The SDK stops writing replies as soon as it reads end of input, so a
// client that sends its requests and closes stdin at once (a script piping
// into `ocmem mcp`, or a client shutting down with a call in flight) gets
// no replies at all (modelcontextprotocol/go-sdk issue #1061). ServeStdio
// therefore holds the end of input back until every request it has passed on
// has been answered, or until DrainTimeout, so a handler that hangs cannot
// keep the process alive. Tool calls are local file operations, milliseconds
// long; the bound is generous on purpose.
const DrainTimeout = 10 * time.Second

// ServeStdio serves srv over newline-delimited JSON on in and out (the
// process's stdin and stdout) until the input ends, every request read has
// been answered, or ctx is done. A line that is not a message the SDK can
// take is answered with a JSON-RPC error (screen) and the session goes on.
func ServeStdio(ctx context.Context, srv *mcp.Server, in io.Reader, out io.Writer) error {
	f := &inflight{}
	w := &replyWriter{w: out, inflight: f}
	return srv.Run(ctx, &mcp.IOTransport{
		Reader: &drainReader{r: bufio.NewReader(in), inflight: f, timeout: DrainTimeout, replies: w, limit: MaxLineLength},
		Writer: w,
		// The reader bounds lines itself: the SDK's bound ends the session.
		MaxLineLength: -1,
	})
}

// inflight counts requests read and not yet answered.
type inflight struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops back to 0; nil while n == 0
}

func (f *inflight) add(k int) {
	if k == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 && k > 0 {
		f.idle = make(chan struct{})
	}
	f.n = max(f.n+k, 0)
	if f.n == 0 && f.idle != nil {
		close(f.idle)
		f.idle = nil
	}
}

// wait returns when no request is in flight or after timeout.
func (f *inflight) wait(timeout time.Duration) {
	f.mu.Lock()
	idle := f.idle
	f.mu.Unlock()
	if idle == nil {
		return
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	}
}

// drainReader passes the input through line by line, counting the requests
// that expect a reply, and reports end of input only once they are answered.
// It answers the lines the SDK cannot take itself, through replies.
type drainReader struct {
	r        *bufio.Reader
	inflight *inflight
	timeout  time.Duration
	replies  *replyWriter
	limit    int // the longest line passed on
	screen   screen
	buf      []byte
	err      error // the error to report once buf is empty
}

func (d *drainReader) Read(p []byte) (int, error) {
	for len(d.buf) == 0 {
		if d.err != nil {
			if errors.Is(d.err, io.EOF) {
				d.inflight.wait(d.timeout)
			}
			return 0, d.err
		}
		line, tooLong, err := readLine(d.r, d.limit)
		d.err = err
		var reply []byte
		if tooLong {
			reply = errorReply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: message longer than %d bytes", d.limit))
		} else {
			d.buf, reply = d.screen.check(line)
		}
		if reply != nil {
			if _, werr := d.replies.answer(reply); werr != nil {
				return 0, werr
			}
		}
		d.inflight.add(count(d.buf, isCall))
	}
	n := copy(p, d.buf)
	d.buf = d.buf[n:]
	return n, nil
}

// readLine reads one line, newline included. A line longer than limit is
// read to its end and dropped (tooLong), so its length costs no memory.
func readLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, tooLong, err
		}
	}
}

// Close does not close stdin: the SDK's reading goroutine may still be
// blocked in Read, and the process exits after Run returns anyway.
func (d *drainReader) Close() error { return nil }

// replyWriter writes the server's messages and counts the replies among them.
type replyWriter struct {
	mu       sync.Mutex // the SDK and the reader's answers write in turn
	w        io.Writer
	inflight *inflight
}

// answer writes a reply to a line the SDK never saw, so counts nothing.
func (w *replyWriter) answer(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

func (w *replyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.w.Write(p)
	// The SDK writes one message (or one batch) per Write.
	w.inflight.add(-count(p, isReply))
	return n, err
}

func (w *replyWriter) Close() error { return nil }

// envelope is what tells JSON-RPC messages apart.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

func (e envelope) hasID() bool { return len(e.ID) > 0 && string(e.ID) != "null" }

// isCall: a request that expects a reply (notifications have no id).
func isCall(e envelope) bool { return e.Method != "" && e.hasID() }

// isReply: a response to a request (it has an id and no method).
func isReply(e envelope) bool { return e.Method == "" && e.hasID() }

// count counts the messages of one line (a message or a batch) that match.
// Anything that does not parse counts as nothing: the SDK answers it with an
// error or drops it, and the drain must not wait for it.
func count(line []byte, match func(envelope) bool) int {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return 0
	}
	if line[0] == '[' {
		var batch []envelope
		if json.Unmarshal(line, &batch) != nil {
			return 0
		}
		n := 0
		for _, e := range batch {
			if match(e) {
				n++
			}
		}
		return n
	}
	var e envelope
	if json.Unmarshal(line, &e) != nil || !match(e) {
		return 0
	}
	return 1
}
