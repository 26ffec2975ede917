package anchor_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/anchor"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    anchor.Anchor
		wantErr error
	}{
		{in: "internal/api/server.go", want: anchor.Anchor{Path: "internal/api/server.go"}},
		{in: "internal/api/server.go#ListenPort", want: anchor.Anchor{Path: "internal/api/server.go", Symbol: "ListenPort"}},
		{in: "x.go#Server.Port", want: anchor.Anchor{Path: "x.go", Symbol: "Server.Port"}},
		{in: "docs/", want: anchor.Anchor{Path: "docs"}},
		{in: "./a//b/../c.go", want: anchor.Anchor{Path: "a/c.go"}},
		{in: "internal/*/config.go", want: anchor.Anchor{Path: "internal/*/config.go", Glob: true}},
		{in: "src/[ab].go", want: anchor.Anchor{Path: "src/[ab].go", Glob: true}},
		{in: "名前/文件.go#処理", want: anchor.Anchor{Path: "名前/文件.go", Symbol: "処理"}},
		{in: "", wantErr: anchor.ErrEmpty},
		{in: "#Sym", wantErr: anchor.ErrEmpty},
		{in: "/etc/passwd", wantErr: anchor.ErrAbsolute},
		{in: "C:/x.go", wantErr: anchor.ErrAbsolute},
		{in: `a\b.go`, wantErr: anchor.ErrBackslash},
		{in: "..", wantErr: anchor.ErrOutside},
		{in: "a/../../b", wantErr: anchor.ErrOutside},
		{in: "src/[a-.go", wantErr: anchor.ErrBadGlob},
		{in: "x.go#", wantErr: anchor.ErrBadSymbol},
		{in: "x.go#a b", wantErr: anchor.ErrBadSymbol},
		{in: "x.go#1x", wantErr: anchor.ErrBadSymbol},
		{in: "x.go#a..b", wantErr: anchor.ErrBadSymbol},
	}
	for _, tt := range tests {
		got, err := anchor.Parse(tt.in)
		if tt.wantErr != nil {
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("Parse(%q) = %v, %v; want error %v", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	if _, err := anchor.Parse("*.go#F"); err == nil {
		t.Error("Parse of a glob with a symbol succeeded")
	}
	if _, err := anchor.Parse(strings.Repeat("a", anchor.MaxLen+1)); err == nil {
		t.Error("Parse of an over-long anchor succeeded")
	}
}

// FuzzParse checks that an anchor Parse accepts stays inside the root,
// and reads back as itself from its String.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"a.go", "a/b.go#F", "internal/*/x.go", "../x", "/x", "a/./b/../c#X.Y", "[", "C:x", "x#y#z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := anchor.Parse(s)
		if err != nil {
			return
		}
		if a.Path == "" || strings.HasPrefix(a.Path, "/") || a.Path == ".." || strings.HasPrefix(a.Path, "../") {
			t.Fatalf("Parse(%q) = %+v: a path outside the root", s, a)
		}
		b, err := anchor.Parse(a.String())
		if err != nil || b != a {
			t.Fatalf("Parse(%q) = %+v; Parse(String()) = %+v, %v", s, a, b, err)
		}
	})
}
