package extract

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	token := githubToken(t)
	tests := []struct {
		name, in string
		gone     []string // must not survive
		kept     []string // must survive
	}{
		{name: "nothing", in: "deploy with make deploy", kept: []string{"deploy with make deploy"}},
		{name: "token", in: "use " + token + " here", gone: []string{token}, kept: []string{"use ghp_", " here"}},
		{name: "after CJK on a later line", in: "第一行\n我的 token 是 " + token + "，别说\nend", gone: []string{token}, kept: []string{"第一行\n我的 token 是 ghp_", "，别说\nend"}},
		{name: "two secrets", in: token + " and postgres://app:Hunter2Secret@db/x", gone: []string{token, "Hunter2Secret"}, kept: []string{" and postgres://app:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := redact(tt.in)
			for _, g := range tt.gone {
				if strings.Contains(got, g) {
					t.Errorf("redact kept %q: %q", g, got)
				}
			}
			for _, k := range tt.kept {
				if !strings.Contains(got, k) {
					t.Errorf("redact lost %q: %q", k, got)
				}
			}
		})
	}
}
