package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeMem(t *testing.T, root, rel, summary string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSuffix(rel, ".md")
	if err := os.WriteFile(p, []byte("---\nid: "+id+"\nkind: fact\nsummary: "+summary+"\n---\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The load cache must never be trusted over the files: a fresh engine sees
// an edited, added or removed file, and a corrupt cache is ignored.
func TestLoadCacheFollowsFiles(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("OCMEM_CACHE_DIR", cache)
	root := t.TempDir()
	writeMem(t, root, "facts/a.md", "kafka retention is seven days")
	writeMem(t, root, "facts/b.md", "redis keys command blocks the server")
	open := func() *Engine { return New(Config{ProjectDir: root}) }
	summaries := func(e *Engine) map[string]string {
		s, err := e.Load()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, f := range s.Files() {
			out[f.Memory.ID] = f.Memory.Summary
		}
		return out
	}
	if got := summaries(open()); len(got) != 2 {
		t.Fatalf("first load: %v", got)
	}
	matches, _ := filepath.Glob(filepath.Join(cache, "roots", "*.bin"))
	if len(matches) != 1 {
		t.Fatalf("want one cache file, got %v", matches)
	}

	// Edit in place (same length, a later mtime), add, remove.
	writeMem(t, root, "facts/a.md", "kafka retention is thirty days")
	later := time.Now().Add(2 * time.Second)
	os.Chtimes(filepath.Join(root, "facts", "a.md"), later, later)
	writeMem(t, root, "facts/c.md", "nginx buffers large uploads")
	os.Remove(filepath.Join(root, "facts", "b.md"))
	got := summaries(open())
	if got["facts/a"] != "kafka retention is thirty days" || got["facts/c"] == "" || got["facts/b"] != "" {
		t.Fatalf("fresh engine with a cache does not follow the files: %v", got)
	}
	if hits, _ := open().Recall("kafka retention thirty", RecallOptions{}); len(hits) == 0 || hits[0].ID != "facts/a" {
		t.Errorf("recall after an edit: %v", hits)
	}

	// A corrupt cache is ignored, and rewritten.
	if err := os.WriteFile(matches[0], []byte("OCMEMLC\ngarbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := summaries(open()); len(got) != 2 || got["facts/a"] == "" {
		t.Fatalf("load with a corrupt cache: %v", got)
	}
	if b, _ := os.ReadFile(matches[0]); strings.HasSuffix(string(b), "garbage") {
		t.Error("a corrupt cache was not rewritten")
	}
}

// An engine reused after Invalidate (the serve process) sees changes too.
func TestReloadAfterInvalidate(t *testing.T) {
	t.Setenv("OCMEM_CACHE_DIR", t.TempDir())
	root := t.TempDir()
	writeMem(t, root, "facts/a.md", "kafka retention is seven days")
	e := New(Config{ProjectDir: root})
	if hits, _ := e.Recall("kafka retention", RecallOptions{}); len(hits) != 1 {
		t.Fatalf("hits = %v", hits)
	}
	writeMem(t, root, "facts/a.md", "kafka compaction runs hourly")
	later := time.Now().Add(2 * time.Second)
	os.Chtimes(filepath.Join(root, "facts", "a.md"), later, later)
	e.Invalidate()
	if hits, _ := e.Recall("kafka compaction hourly", RecallOptions{}); len(hits) != 1 || !strings.Contains(hits[0].Summary, "hourly") {
		t.Fatalf("after invalidate: %v", hits)
	}
	// Inspect reads every file afresh, with line numbers.
	os.WriteFile(filepath.Join(root, "facts", "bad.md"), []byte("---\nid: facts/bad\nkind: fact\nsummary: [unclosed\n---\n"), 0o644)
	rep, err := e.Inspect()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, is := range rep.Issues {
		found = found || is.Check == "unparsable" && is.Line > 0
	}
	if !found {
		t.Errorf("inspect after a cached load lost the line of a parse error: %+v", rep.Issues)
	}
}
