package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ocmem/ocmem/internal/engine"
)

// TestExtractionNeverDialsServerURL: a process listening on the plugin's
// serverUrl (under plain `opencode` it is http://localhost:4096/, free for
// anyone on the machine) and answering like OpenCode gets nothing: no
// request, no credential. Every request goes to the plugin, and none of
// them carries OpenCode's password.
func TestExtractionNeverDialsServerURL(t *testing.T) {
	const password = "s3cr3t-server-pass"
	t.Setenv("OPENCODE_SERVER_PASSWORD", password)
	var mu sync.Mutex
	var rogue []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		rogue = append(rogue, r.Method+" "+r.URL.String()+" auth="+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"ses_1","title":"t","directory":"/repo"}`)
	}))
	defer srv.Close()

	var plugin *Plugin
	var fetched []string
	plugin = NewPlugin(func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		var m struct {
			ID     string
			Method string
		}
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		mu.Lock()
		fetched = append(fetched, string(b))
		mu.Unlock()
		// OpenCode's answer through the plugin: no such session, which
		// ends the run before anything is sent to a model.
		go plugin.Deliver([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"result":{"status":404,"body":"{}"}}`, m.ID)))
		return nil
	})
	defer plugin.Close()

	dir := t.TempDir()
	e := engine.New(engine.Config{GlobalDir: filepath.Join(dir, "global"), ProjectDir: filepath.Join(dir, "project", ".memory")})
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	Extractor(log)(context.Background(), e, IdleRequest{SessionID: "ses_1", ServerURL: srv.URL + "/", Remainder: true, Plugin: plugin})

	mu.Lock()
	defer mu.Unlock()
	if len(rogue) != 0 {
		t.Errorf("the listener on serverUrl got %d requests: %q", len(rogue), rogue)
	}
	if len(fetched) == 0 {
		t.Errorf("nothing went through the plugin; log:\n%s", buf.String())
	}
	for _, f := range fetched {
		if !strings.Contains(f, `"method":"opencode.fetch"`) || strings.Contains(strings.ToLower(f), "authorization") {
			t.Errorf("sent the plugin %s", f)
		}
	}
	if strings.Contains(buf.String(), password) {
		t.Errorf("the password is in the log:\n%s", buf.String())
	}
}
