package engine

import (
	"slices"
	"testing"

	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/tiers"
	"github.com/ocmem/ocmem/internal/trust"
)

// TestRootRuleLineNumbers: each line of ROOT.md's section points at its own line, not
// the section's heading.
func TestRootRuleLineNumbers(t *testing.T) {
	for _, tt := range []struct {
		name, rootMD string
		want         []int
	}{
		{"one after another", "# P\n\n## Hard rules\n\n- a\n- b\n", []int{5, 6}},
		{"blank lines and a comment between", "# P\n## Hard rules\n- a\n\n<!-- why:\n  history -->\n- b\n", []int{3, 7}},
		{"the same text twice", "## Hard rules\n- a\n- a\n", []int{2, 3}},
		{"a comment inside a line", "## Hard rules\n- a <!-- x --> b\n", []int{2}},
		{"CRLF and a BOM", "\ufeff# P\r\n## Hard rules\r\n- a\r\n- b\r\n", []int{3, 4}},
		{"a rule before the section, in prose", "- b is said here\n## Hard rules\n- b\n", []int{3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text := compile.HardRules([]byte(tt.rootMD))
			got := tiers.RootRuleLineNumbers([]byte(tt.rootMD), nonBlankLines(trust.RootSection(text)))
			if !slices.Equal(got, tt.want) {
				t.Errorf("lines %v, want %v (section %q)", got, tt.want, trust.RootSection(text))
			}
		})
	}
}
