package doctor

import (
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/install"
)

// TestTwiceCheck: ocmem registered globally and in the project, in any mix
// of plugin folder and npm package, is named with the way to keep one;
// one registration or none says nothing.
func TestTwiceCheck(t *testing.T) {
	folder := func(config string) *install.Status {
		return &install.Status{ConfigPath: config, Registered: true}
	}
	npm := func(config string) *install.Status { return &install.Status{ConfigPath: config, Npm: "ocmem@0.3.0"} }
	none := func(config string) *install.Status { return &install.Status{ConfigPath: config} }
	for _, tt := range []struct {
		name            string
		global, project *install.Status
		named           bool
	}{
		{"both folders", folder("/g/opencode.json"), folder("/p/opencode.json"), true},
		{"global npm, project folder", npm("/g/opencode.json"), folder("/p/opencode.json"), true},
		{"global folder, project npm", folder("/g/opencode.json"), npm("/p/opencode.json"), true},
		{"global only", folder("/g/opencode.json"), none("/p/opencode.json"), false},
		{"project only", none("/g/opencode.json"), folder("/p/opencode.json"), false},
		{"no project", folder("/g/opencode.json"), nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ch, ok := twiceCheck(tt.global, tt.project)
			if ok != tt.named {
				t.Fatalf("named = %v, want %v (%+v)", ok, tt.named, ch)
			}
			if !ok {
				return
			}
			for _, want := range []string{"registered twice", "/g/opencode.json", "/p/opencode.json", "`ocmem uninstall --project`", "`ocmem uninstall`"} {
				if !strings.Contains(ch.Detail, want) {
					t.Errorf("detail lacks %q: %s", want, ch.Detail)
				}
			}
		})
	}
}
