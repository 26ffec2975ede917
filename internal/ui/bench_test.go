package ui

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/ocmem/ocmem/internal/benchgen"
	"github.com/ocmem/ocmem/internal/engine"
)

// BenchmarkPages serves each page over 10,000 generated memories, with the
// engine and the viewer warm (as they are after the first page):
//
//	go test ./internal/ui -run '^$' -bench Pages -benchtime 20x
func BenchmarkPages(b *testing.B) {
	b.Setenv("OCMEM_CACHE_DIR", b.TempDir())
	dir := b.TempDir()
	needles, err := benchgen.Write(dir, benchgen.Config{Memories: 10000})
	if err != nil {
		b.Fatal(err)
	}
	e := engine.New(engine.Config{GlobalDir: filepath.Join(dir, "global"), ProjectDir: filepath.Join(dir, "project")})
	s, err := New(Config{Engine: e})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const addr = "127.0.0.1:7777"
	h := s.Handler(addr)
	get := func(path string) int {
		req := httptest.NewRequest("GET", "http://"+addr+path, nil)
		req.AddCookie(&http.Cookie{Name: "ocmem_ui_7777", Value: s.token})
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w.Code
	}
	n := needles[0]
	// The first page after a file changed: the engine reloads (from its
	// load cache, reading the changed file) and the list is built again.
	b.Run("memories-after-change", func(b *testing.B) {
		p := filepath.Join(dir, n.Scope, filepath.FromSlash(n.ID)+".md")
		for b.Loop() {
			s.Changed(filepath.Join(dir, n.Scope), p)
			if code := get("/memories"); code != http.StatusOK {
				b.Fatalf("status %d", code)
			}
		}
	})
	for _, p := range []struct{ name, path string }{
		{"memories", "/memories"},
		{"memories-last-page", "/memories?page=200"},
		{"memories-text-filter", "/memories?q=timeout"},
		{"memories-kind-filter", "/memories?kind=pitfall&scope=project"},
		{"memory", "/memory?scope=" + n.Scope + "&id=" + n.ID},
		{"search", "/search?q=" + "deploy+timeout+retry"},
		{"rules", "/rules"},
	} {
		b.Run(p.name, func(b *testing.B) {
			if code := get(p.path); code != http.StatusOK { // warm
				b.Fatalf("%s: status %d", p.path, code)
			}
			s.waitChecks()
			b.ResetTimer()
			for b.Loop() {
				if code := get(p.path); code != http.StatusOK {
					b.Fatalf("%s: status %d", p.path, code)
				}
			}
		})
	}
}
