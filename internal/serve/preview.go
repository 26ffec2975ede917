package serve

import (
	"fmt"
	"strings"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/tools"
)

// previewResult is what the plugin passes to OpenCode's permission prompt
// for a memory write, under the names OpenCode's own edit and write tools
// use (1.18.33: metadata {filepath, diff}), so the person approving it sees
// the file and the text, not "No diff provided".
type previewResult struct {
	FilePath string `json:"filepath"`
	Diff     string `json:"diff"`
}

// previewRemember and previewForget answer the plugin before it asks for
// the edit permission. They only read: the write itself comes after the
// person's answer, as its own call.
func (s *Server) previewRemember(p *rememberParams) (any, error) {
	e, err := s.engineFor(&p.common)
	if err != nil {
		return nil, err
	}
	pv, err := tools.PreviewRemember(e, p.RememberArgs, engine.FromModel, p.codeDir())
	if err != nil {
		return nil, toolError(err)
	}
	return previewResult{FilePath: pv.Path, Diff: unifiedDiff(pv)}, nil
}

func (s *Server) previewForget(p *forgetParams) (any, error) {
	e, err := s.engineFor(&p.common)
	if err != nil {
		return nil, err
	}
	pv, err := tools.PreviewForget(e, p.ForgetArgs)
	if err != nil {
		return nil, toolError(err)
	}
	return previewResult{FilePath: pv.Path, Diff: unifiedDiff(pv)}, nil
}

// unifiedDiff is a preview as the unified diff OpenCode's permission prompt
// renders, in the shape its own tools make (jsdiff's createTwoFilesPatch):
// a memory write creates or deletes a whole file, so the diff is one hunk
// of added or removed lines.
func unifiedDiff(pv *engine.Preview) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Index: %s\n%s\n--- %s\n+++ %s\n", pv.Path, strings.Repeat("=", 67), pv.Path, pv.Path)
	before, after := diffLines(pv.Before), diffLines(pv.After)
	fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(len(before)), hunkRange(len(after)))
	for _, l := range before {
		b.WriteString("-" + l)
	}
	for _, l := range after {
		b.WriteString("+" + l)
	}
	return b.String()
}

// diffLines splits text into lines that keep their newline; a last line
// without one gets the diff's marker for it.
func diffLines(text []byte) []string {
	if len(text) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(text), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if last := lines[len(lines)-1]; !strings.HasSuffix(last, "\n") {
		lines[len(lines)-1] = last + "\n\\ No newline at end of file\n"
	}
	return lines
}

// hunkRange is a hunk's start,count: an empty side is 0,0.
func hunkRange(n int) string {
	if n == 0 {
		return "0,0"
	}
	return fmt.Sprintf("1,%d", n)
}
