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
		{name: "markdown escaped", in: "CI uses ghp\\_" + token[4:] + " now", gone: []string{token[4:]}, kept: []string{"CI uses ghp\\*", " now"}},
		{name: "character reference", in: "CI uses ghp&#95;" + token[4:], gone: []string{token[4:]}, kept: []string{"CI uses ghp&"}},
		{name: "dsn", in: "dsn shop:Hunter2Secret@tcp(db:3306)/shop", gone: []string{"Hunter2Secret"}, kept: []string{"dsn shop:Hu", "@tcp(db:3306)/shop"}},
		{name: "broken over lines", in: "first line\nthe token is " + token[:20] + "\n" + token[20:] + " ok\nlast line", gone: []string{token[4:20], token[20:]}, kept: []string{"first line\n", "\nlast line"}},
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
