package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/serve"
)

// Under plain `opencode` nothing listens at the plugin's serverUrl, and
// extraction goes through the plugin: that is the normal route, and the
// log says which route was taken without an error that reads like a
// failure.
func TestTransportLogsTheRouteTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now
	t.Setenv(EnvExtractTransport, "")
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	plugin := serve.NewPlugin(func(any) error { return nil })
	defer plugin.Close()
	rt := transport(context.Background(), log, serve.IdleRequest{SessionID: "ses_1", ServerURL: url, Plugin: plugin}, "", "")
	if rt == nil {
		t.Fatal("no plugin transport")
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("log lines: %q", lines)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["level"] != "INFO" || rec["msg"] != "extraction transport: plugin" || rec["why"] == nil {
		t.Errorf("log record %v", rec)
	}
	if strings.Contains(lines[0], "refused") || rec["err"] != nil {
		t.Errorf("the expected refusal is logged as an error: %s", lines[0])
	}
}

func TestExtractionNotice(t *testing.T) {
	for _, c := range []struct {
		written []*engine.Written
		want    string
	}{
		{nil, ""},
		{[]*engine.Written{{Scope: "project", ID: "pitfalls/a", Kind: "pitfall"}, {Scope: "global", ID: "facts/b", Kind: "fact"}},
			"remembered from this session: project:pitfalls/a, global:facts/b"},
		{[]*engine.Written{{Scope: "project", ID: "rules/r", Kind: "rule-proposal"}, {Scope: "project", ID: "facts/c", Kind: "fact"}},
			"remembered from this session: project:facts/c; rule proposal(s) waiting for you: project:rules/r (`ocmem rules`)"},
	} {
		if got := extractionNotice(c.written); got != c.want {
			t.Errorf("extractionNotice = %q, want %q", got, c.want)
		}
	}
}
