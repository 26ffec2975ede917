package compile

import "testing"

// TestParseRoutingRejectsMalformedRows checks that parseRouting takes only
// rows in the exact shape routingTable writes; anything else makes the
// section a hand edit that a merge must not rewrite.
func TestParseRoutingRejectsMalformedRows(t *testing.T) {
	const table = routingHead + routingCols
	for _, tc := range []struct {
		name, body string
		ok         bool
	}{
		{"compiled row", table + "| redis | [facts/a](facts/a.md) |\n", true},
		{"no leading cell bar", table + "redis | [facts/a](facts/a.md) |\n", false},
		{"no trailing cell bar", table + "| redis | [facts/a](facts/a.md)\n", false},
		{"no link", table + "| redis | facts/a |\n", false},
		{"one cell", table + "| redis |\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok := parseRouting(tc.body); ok != tc.ok {
				t.Errorf("parseRouting(%q) ok = %v, want %v", tc.body, ok, tc.ok)
			}
		})
	}
}
