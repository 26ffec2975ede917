package anchor_test

import (
	"slices"
	"testing"
	"testing/fstest"

	"github.com/ocmem/ocmem/internal/anchor"
)

func TestNamed(t *testing.T) {
	fsys := fstest.MapFS{
		"go.mod":                 {Data: []byte("module x\n")},
		"src/x.go":               {Data: []byte("package src\n\nfunc Run() {}\n")},
		"internal/api/server.go": {Data: []byte("package api\n\nfunc ListenPort() int { return 8080 }\nfunc listen_all() {}\n")},
		"internal/api/doc.md":    {Data: []byte("ListenPortal\n")},
		"docs/guide/a.md":        {Data: []byte("x\n")},
	}
	tests := []struct {
		name, text string
		want       []string
	}{
		{"backticked path", "Edit `src/x.go` first.", []string{"src/x.go"}},
		{"bare path with a trailing stop", "See internal/api/server.go.", []string{"internal/api/server.go"}},
		{"a file without a folder", "Pinned in `go.mod`, and go.mod again.", []string{"go.mod"}},
		{"missing paths are left out", "`src/gone.go` and lib/old.go and `README.md`", nil},
		{"call in a named file", "`ListenPort()` in `internal/api/server.go` returns the port.", []string{"internal/api/server.go#ListenPort"}},
		{"qualified name", "`api.ListenPort` is in internal/api/server.go", []string{"internal/api/server.go#ListenPort"}},
		{"snake case", "`listen_all` lives in `internal/api/server.go`", []string{"internal/api/server.go#listen_all"}},
		{"symbol found in one of two files", "`Run()` in src/x.go; see internal/api/server.go", []string{"src/x.go#Run", "internal/api/server.go"}},
		{"symbol absent everywhere", "`Serve()` in `src/x.go`", []string{"src/x.go"}},
		{"a word inside another is not the symbol", "`ListenPort()` in internal/api/doc.md", []string{"internal/api/doc.md"}},
		{"plain word is not a symbol", "run `make` in src/x.go (package `src`)", []string{"src/x.go"}},
		{"folder; a bare word is not a path", "everything under `docs/guide/` and `docs`", []string{"docs/guide"}},
		{"line reference", "the check at `src/x.go:3` fails", []string{"src/x.go"}},
		{"dot-slash", "`./src/x.go`", []string{"src/x.go"}},
		{"outside the root", "`../x.go` and /etc/passwd", nil},
		{"no names", "Prefer tabs.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := anchor.Named(tt.text, fsys); !slices.Equal(got, tt.want) {
				t.Errorf("Named(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestContainsWord(t *testing.T) {
	tests := []struct {
		text, sym string
		want      bool
	}{
		{"func ListenPort() int", "ListenPort", true},
		{"func ListenPortal() int", "ListenPort", false},
		{"x.ListenPort", "ListenPort", true},
		{"myListenPort", "ListenPort", false},
		{"ListenPort", "ListenPort", true},
		{"ListenPort_2 ListenPort", "ListenPort", true},
		{"$ListenPort", "ListenPort", false},
		{"func (s *Server) Port()", "Server.Port", true},
		{"名前処理", "処理", false},
		{"", "X", false},
	}
	for _, tt := range tests {
		if got := anchor.ContainsWord([]byte(tt.text), tt.sym); got != tt.want {
			t.Errorf("ContainsWord(%q, %q) = %v, want %v", tt.text, tt.sym, got, tt.want)
		}
	}
}

// FuzzNamed checks that every anchor Named returns parses, names a path
// that exists, and carries a symbol only where the file holds it.
func FuzzNamed(f *testing.F) {
	fsys := fstest.MapFS{
		"a.go":     {Data: []byte("func Run() {}\n")},
		"d/b.go":   {Data: []byte("type Server struct{}\n")},
		"d/e/c.md": {Data: []byte("x\n")},
	}
	for _, s := range []string{"`a.go` `Run()`", "d/b.go `d.Server`", "`d/e/`", "`../a.go`", "a.go:1:2, d/b.go."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := anchor.Named(text, fsys)
		if len(got) > anchor.MaxNamed {
			t.Fatalf("Named returned %d anchors", len(got))
		}
		for _, s := range got {
			a, err := anchor.Parse(s)
			if err != nil {
				t.Fatalf("Named(%q) returned %q: %v", text, s, err)
			}
			data, err := fsys.ReadFile(a.Path)
			if _, serr := fsys.Stat(a.Path); serr != nil {
				t.Fatalf("Named(%q) returned %q, which does not exist", text, s)
			}
			if a.Symbol != "" && (err != nil || !anchor.ContainsWord(data, a.Symbol)) {
				t.Fatalf("Named(%q) returned %q, whose symbol is not in the file", text, s)
			}
		}
	})
}
