package serve

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/engine"
)

// previewReply is a preview method's reply.
type previewReply struct {
	Result *previewResult
	Error  *struct {
		Code    int
		Message string
	}
}

func (c *client) preview(method string, args map[string]any) previewReply {
	c.t.Helper()
	c.nextID++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": map[string]any{"sessionID": "ses_1", "args": args}})
	if _, err := fmt.Fprintln(c.in, string(b)); err != nil {
		c.t.Fatal(err)
	}
	if !c.out.Scan() {
		c.t.Fatalf("no reply to %s", b)
	}
	var r previewReply
	if err := json.Unmarshal(c.out.Bytes(), &r); err != nil {
		c.t.Fatalf("reply %s: %v", c.out.Bytes(), err)
	}
	return r
}

// tree lists the files under dir with their bytes.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			out[p] = string(b)
		}
		return nil
	})
	return out
}

// TestPreviewWrites: the previews the plugin shows in OpenCode's permission
// prompt name the file a remember or forget would write or delete and its
// text as a diff, change nothing on disk, and refuse what the write would
// refuse; the write that follows lands where the preview said.
func TestPreviewWrites(t *testing.T) {
	g, p := roots(t)
	c := start(t, Config{GlobalDir: g, ProjectDir: p})
	if r := c.call("remember", map[string]any{"category": "facts", "kind": "fact", "summary": "Kafka keeps seven days", "body": "KAFKA-BODY"}); r.Error != nil {
		t.Fatal(r.Error)
	}
	before := tree(t, filepath.Dir(p))
	remember := map[string]any{"category": "decisions", "kind": "rule", "summary": "Use SQLite for the cache", "body": "SQLITE-BODY: one file.\nNo server."}

	for _, tt := range []struct {
		name, method string
		args         map[string]any
		path         string
		want         []string // in the diff
		refused      string
	}{
		{"remember", "preview.remember", remember, filepath.Join(p, "decisions", "use-sqlite-cache.md"),
			[]string{"@@ -0,0 +1,", "\n+kind: rule-proposal\n", "\n+SQLITE-BODY: one file.\n+No server.\n"}, ""},
		{"forget", "preview.forget", map[string]any{"id": "facts/kafka-keeps-seven-days"}, filepath.Join(p, "facts", "kafka-keeps-seven-days.md"),
			[]string{"+0,0 @@", "\n-KAFKA-BODY\n", "\n-kind: fact\n"}, ""},
		{"remember a secret", "preview.remember", map[string]any{"category": "facts", "kind": "fact", "summary": "token", "body": "GITHUB_TOKEN=" + "gh" + "p_" + "Q7mZp2Lk9TsV4xWc8NbR1yHd6JfG3aEu5KoP"}, "", nil, "secret"},
		{"forget what is not there", "preview.forget", map[string]any{"id": "facts/none"}, "", nil, "not found"},
		{"forget outside the root", "preview.forget", map[string]any{"id": "../../etc/passwd"}, "", nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := c.preview(tt.method, tt.args)
			if tt.path == "" {
				if r.Error == nil || !strings.Contains(strings.ToLower(r.Error.Message), tt.refused) {
					t.Errorf("want a refusal naming %q, got %+v %+v", tt.refused, r.Error, r.Result)
				}
				return
			}
			if r.Error != nil || r.Result == nil {
				t.Fatalf("%+v", r.Error)
			}
			if r.Result.FilePath != tt.path {
				t.Errorf("filepath %s, want %s", r.Result.FilePath, tt.path)
			}
			if !strings.HasPrefix(r.Result.Diff, "Index: "+tt.path+"\n") || !strings.Contains(r.Result.Diff, "\n--- "+tt.path+"\n+++ "+tt.path+"\n") {
				t.Errorf("diff header:\n%s", r.Result.Diff)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.Result.Diff, w) {
					t.Errorf("diff lacks %q:\n%s", w, r.Result.Diff)
				}
			}
		})
	}
	after := tree(t, filepath.Dir(p))
	if len(after) != len(before) {
		t.Errorf("previews changed the files: %d before, %d after", len(before), len(after))
	}
	for f, b := range before {
		if after[f] != b {
			t.Errorf("a preview changed %s", f)
		}
	}
	r := c.call("remember", remember)
	if r.Error != nil || !strings.Contains(r.Result.Text, "decisions/use-sqlite-cache") {
		t.Errorf("the write after the preview: %+v %q", r.Error, r.Result.Text)
	}
}

// TestUnifiedDiff: whole-file diffs, a last line without a newline marked.
func TestUnifiedDiff(t *testing.T) {
	for _, tt := range []struct {
		name          string
		before, after string
		want          string
	}{
		{"new", "", "a\nb\n", "@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"deleted", "a\n", "", "@@ -1,1 +0,0 @@\n-a\n"},
		{"no last newline", "", "a\nb", "@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pv := previewOf("/m/x.md", tt.before, tt.after)
			head := "Index: /m/x.md\n" + strings.Repeat("=", 67) + "\n--- /m/x.md\n+++ /m/x.md\n"
			if got := unifiedDiff(pv); got != head+tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, head+tt.want)
			}
		})
	}
}

func previewOf(path, before, after string) *engine.Preview {
	pv := &engine.Preview{Path: path}
	if before != "" {
		pv.Before = []byte(before)
	}
	if after != "" {
		pv.After = []byte(after)
	}
	return pv
}
