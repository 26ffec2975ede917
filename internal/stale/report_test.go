package stale

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/anchor"
	"github.com/ocmem/ocmem/internal/memory"
)

func TestMarkOutline(t *testing.T) {
	outline := "## Outline\n- project:facts/a — A (when: x)\n- project:facts/ab — AB\n"
	for _, tc := range []struct{ key, want string }{
		{"project:facts/a", "## Outline\n- project:facts/a" + GoneMark + " — A (when: x)\n- project:facts/ab — AB\n"},
		{"project:facts/ab", "## Outline\n- project:facts/a — A (when: x)\n- project:facts/ab" + GoneMark + " — AB\n"},
		{"project:facts/cut", outline}, // cut from the outline by its budget
	} {
		if got := MarkOutline(outline, tc.key); got != tc.want {
			t.Errorf("MarkOutline(%s) =\n%s\nwant\n%s", tc.key, got, tc.want)
		}
	}
	first := "- global:x/y — Y\n"
	if got, want := MarkOutline(first, "global:x/y"), "- global:x/y"+GoneMark+" — Y\n"; got != want {
		t.Errorf("first line: %q, want %q", got, want)
	}
}

func TestOutdatedWhy(t *testing.T) {
	for _, tc := range []struct {
		o    memory.Outdated
		want string
	}{
		{memory.Outdated{Commit: "9e8d7c6b5a4f3e2d1c0b", Time: 1_777_777_777_000, Reason: "the port\nmoved"}, "judged no longer true at 9e8d7c6b5a4f on 2026-05-03: the port moved"},
		{memory.Outdated{Commit: "9e8d7c6", Reason: "r"}, "judged no longer true at 9e8d7c6: r"},
		{memory.Outdated{Reason: "r"}, "judged no longer true: r"},
	} {
		if got := OutdatedWhy(tc.o); got != tc.want {
			t.Errorf("OutdatedWhy(%+v) = %q, want %q", tc.o, got, tc.want)
		}
	}
}

func TestTrimAndCheckGiven(t *testing.T) {
	if got := TrimAnchors([]string{" a.go ", "", "a.go", "b/#X"}); strings.Join(got, ",") != "a.go,b/#X" {
		t.Errorf("TrimAnchors = %q", got)
	}
	if err := CheckGiven([]string{"src/x.go#ListenPort", "internal/"}); err != nil {
		t.Errorf("good anchors refused: %v", err)
	}
	if err := CheckGiven([]string{"../x.go"}); err == nil {
		t.Error("an anchor leaving the root was accepted")
	}
	many := make([]string, anchor.MaxPerMemory+1)
	for i := range many {
		many[i] = "f.go"
	}
	if err := CheckGiven(many); err == nil || !strings.Contains(err.Error(), "over the limit") {
		t.Errorf("too many anchors: %v", err)
	}
}

func TestAnchorTextBounded(t *testing.T) {
	root := t.TempDir()
	big := strings.Repeat("x", MaxAnchorText*2)
	for name, text := range map[string]string{"a.go": "package a\n", "big.go": big} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := AnchorText(root, []string{"a.go", "big.go", "gone.go"})
	if !strings.HasPrefix(got, "=== a.go\npackage a\n=== big.go\n") {
		t.Errorf("AnchorText starts %q", got[:min(len(got), 60)])
	}
	if !strings.Contains(got, "… (cut)") || len(got) > MaxAnchorText+200 {
		t.Errorf("a file over the bound is not cut: %d bytes", len(got))
	}
	if !strings.Contains(got, "=== (more anchored files left out)") && !strings.Contains(got, "=== gone.go: gone") {
		t.Errorf("the missing file is neither named gone nor left out:\n%s", got[len(got)-100:])
	}
}
