package secrets

import (
	"strings"
	"testing"
)

func TestMask(t *testing.T) {
	g := newGen(t.Name())
	ghp := "ghp_" + g.S(alnum, 36)
	pw := g.Password(14)
	for _, tc := range []struct{ name, text, secret string }{
		{"plain token", "CI uses " + ghp + " for now", ghp},
		{"escaped token", "CI uses ghp\\_" + ghp[4:] + " for now", ghp[4:]},
		{"character reference", "CI uses ghp&#95;" + ghp[4:], ghp[4:]},
		{"dsn", "line one\napp:" + pw + "@tcp(db:3306)/shop", pw},
		{"two secrets over lines", "a " + ghp + "\n中文 db:5432:shop:app:" + pw, pw},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Mask(tc.text)
			if !ok || strings.Contains(got, tc.secret) || !strings.Contains(got, "****") {
				t.Errorf("Mask(%q) = %q, %v", tc.text, got, ok)
			}
			if strings.Count(got, "\n") != strings.Count(tc.text, "\n") {
				t.Errorf("Mask(%q) = %q: lines changed", tc.text, got)
			}
		})
	}
	if got, ok := Mask("nothing secret here"); !ok || got != "nothing secret here" {
		t.Errorf("Mask changed clean text: %q, %v", got, ok)
	}
	// A token wrapped over two lines is masked where each part is, or
	// withheld; never shown.
	wrapped := "the token is " + ghp[:20] + "\n" + ghp[20:] + " ok"
	if got, ok := Mask(wrapped); ok && (strings.Contains(got, ghp[4:20]) || strings.Contains(got, ghp[20:])) {
		t.Errorf("Mask(%q) = %q", wrapped, got)
	}
	if got, ok := Mask(denseKeywords(64 << 10)); ok || got != "" {
		t.Errorf("Mask of a text too dense to scan = %d bytes, %v; want nothing", len(got), ok)
	}
}
