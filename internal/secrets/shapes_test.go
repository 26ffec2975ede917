package secrets

import (
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
)

// Secret shapes an attack on ocmem found missing (issue 23): password
// labels in other languages, passwords on docker and curl command lines,
// a URL password holding a raw #, a JWK private key, a token split by
// Markdown or a hyphenated line break, and a token in hex, percent or
// fullwidth encoding. Each is built at run time and must be refused by
// Check, which reads a field's lines joined and its decoded forms.

func wantChecked(t *testing.T, text string) {
	t.Helper()
	if err := Check(map[string]string{"body": text}); err == nil {
		t.Errorf("Check let through:\n%q", text)
	}
}

func wantCheckClean(t *testing.T, text string) {
	t.Helper()
	if err := Check(map[string]string{"body": text}); err != nil {
		t.Errorf("Check refused %q: %v", text, err)
	}
}

// fullwidth spells ASCII letters, digits, _ and - in their fullwidth forms.
func fullwidth(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r > ' ' && r < 0x7f {
			r += 0xFEE0
		}
		b.WriteRune(r)
	}
	return b.String()
}

func TestMissedShapes(t *testing.T) {
	g := newGen(t.Name())
	pw := g.Password(14)
	tok := "ghp_" + g.S(alnum, 36)
	jwkD := g.S(alnum+"-_", 43)
	percent := func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{s[i]})))
		}
		return b.String()
	}
	for name, text := range map[string]string{
		"japanese label":        "本番DBのパスワード：" + pw,
		"japanese label は":      "管理画面のパスワードは " + pw + " です",
		"german label":          "Das Passwort: " + pw,
		"german Kennwort":       "Kennwort = " + pw,
		"spanish label":         "La contraseña: " + pw,
		"russian label":         "Пароль: " + pw,
		"russian lower":         "пароль: " + pw,
		"french label":          "Le mot de passe : " + pw,
		"docker login -p":       "docker login -u deploy -p " + pw + " registry.internal.test",
		"docker login --pass=":  "docker login --password=" + pw + " registry.internal.test",
		"curl -u":               "curl -u deploy:" + pw + " https://api.internal.test/v1",
		"curl --user quoted":    "curl -s --user 'deploy:" + pw + "' https://api.internal.test/v1",
		"url password with #":   "psql postgres://app:" + pw[:5] + "#" + pw[5:] + "@db.internal.test/app",
		"jwk private key":       `{"kty": "EC", "crv": "P-256", "x": "` + g.S(alnum, 43) + `", "d": "` + jwkD + `"}`,
		"jwk over lines":        "{\n  \"kty\": \"OKP\",\n  \"crv\": \"Ed25519\",\n  \"d\": \"" + jwkD + "\"\n}",
		"split by **":           "token " + tok[:16] + "**" + tok[16:],
		"split by bold word":    "token **" + tok[:16] + "**" + tok[16:],
		"split by a comment":    "token " + tok[:16] + "<!-- -->" + tok[16:],
		"split by a note":       "token " + tok[:16] + "<!-- x -->" + tok[16:],
		"hyphenated line break": "the CI token is " + tok[:20] + "-\n" + tok[20:] + " for now",
		"hex":                   "token hex " + hex.EncodeToString([]byte(tok)),
		"percent":               "token " + percent(tok),
		"percent in a query":    "https://api.internal.test/hook?t=" + url.QueryEscape(tok[:3]) + "%5F" + tok[4:],
		"fullwidth":             "token " + fullwidth(tok),
	} {
		t.Run(name, func(t *testing.T) { wantChecked(t, text) })
	}
	for _, text := range []string{
		"パスワードは1Passwordに保存してある",
		"Das Passwort steht im Tresor.",
		"La contraseña está en el gestor.",
		"Пароль хранится в Vault.",
		"Le mot de passe est dans le coffre.",
		"docker login --password-stdin registry.internal.test < token.txt",
		"docker login -u deploy -p \"$REGISTRY_PASSWORD\" registry.internal.test",
		"curl -u \"$USER:$TOKEN\" https://api.internal.test",
		"curl -u deploy https://api.internal.test   # prompts for the password",
		`{"kty": "EC", "crv": "P-256", "x": "` + g.S(alnum, 43) + `", "y": "` + g.S(alnum, 43) + `"}`,
		`{"a": 1, "d": "` + g.S(alnum, 43) + `"}`,
		"**bold** text and <!-- a comment --> in prose, a well-\nknown hyphenation",
		"sha256 " + hex.EncodeToString([]byte("just some prose that is hex encoded here")),
		"https://example.internal.test/search?q=caf%C3%A9%20au%20lait",
		"ＡＢＣ全角の英字とｆｕｌｌｗｉｄｔｈ文字",
		"https://host.internal.test/#/route?x=1@2",
	} {
		wantCheckClean(t, text)
	}
}

// TestPastedShapes covers credentials in the shapes people paste: a Go or
// MySQL DSN, a .pgpass line, a .netrc entry with a weak password, and a
// token as Markdown source spells it (backslash escapes, character
// references, inline code or emphasis inside it). Scan finds the plain
// shapes; Check also reads the text as Markdown renders it.
func TestPastedShapes(t *testing.T) {
	g := newGen(t.Name())
	pw := g.Password(14)
	ghp := "ghp_" + g.S(alnum, 36)
	ant := "sk-ant-api03-" + g.S(alnum, 93) + "AA"
	for _, tc := range []struct{ name, text, rule string }{
		{"go dsn", "dsn := \"app:" + pw + "@tcp(db.internal.test:3306)/shop?parseTime=true\"", "dsn-password"},
		{"tcp6 dsn", "app:" + pw + "@tcp6([::1]:3306)/shop", "dsn-password"},
		{"unix dsn", "DSN=root:" + pw + "@unix(/run/mysqld/mysqld.sock)/app", "dsn-password"},
		{"dsn to the default host", "root:" + pw + "@/test", "dsn-password"},
		{"weak dsn password", "root:hunter2@tcp(127.0.0.1:3306)/app", "dsn-password"},
		{"dsn password with @ and :", "app:a@b:c" + pw + "@tcp(db:3306)/shop", "dsn-password"},
		{"pgpass line", "db.internal.test:5432:shop:app:" + pw, "pgpass-password"},
		{"pgpass wildcards", "*:*:*:replicator:" + pw, "pgpass-password"},
		{"pgpass escaped colon", "localhost:6432:*:app:" + pw[:4] + `\:` + pw[4:], "pgpass-password"},
		{"pgpass quoted", "echo '10.0.0.5:5432:app:app:" + pw + "' >> ~/.pgpass", "pgpass-password"},
		{"netrc weak password", "machine git.internal.test login deploy password hunter2", "generic-secret"},
		{"netrc over lines", "machine git.internal.test\n  login deploy\n  password hunter2", "generic-secret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantRefused(t, tc.text, tc.rule)
			wantChecked(t, tc.text)
		})
	}
	for name, text := range map[string]string{
		"escaped underscore":        "CI uses ghp\\_" + ghp[4:] + " for now",
		"escaped hyphens":           "the key is " + strings.ReplaceAll(ant, "-", `\-`),
		"decimal reference":         "token ghp&#95;" + ghp[4:],
		"hex reference":             "token ghp&#x5F;" + ghp[4:],
		"named reference":           "token ghp&lowbar;" + ghp[4:],
		"entity in a dsn password":  "app:" + pw[:4] + "&#35;" + pw[4:] + "@tcp(db:3306)/shop",
		"inline code inside":        "token ghp_`" + ghp[4:] + "`",
		"emphasis inside":           "token " + ghp[:12] + "*" + ghp[12:24] + "*" + ghp[24:],
		"escaped pgpass":            "db.internal.test:5432:shop:app:" + pw[:3] + `\_` + pw[3:],
		"escaped token in a quote":  "> ghp\\_" + ghp[4:],
		"reference and escape both": strings.Replace(strings.ReplaceAll(ant, "-", `\-`), `\-`, "&#45;", 1),
	} {
		t.Run(name, func(t *testing.T) { wantChecked(t, text) })
	}
	for _, text := range []string{
		"sql.Open(\"mysql\", \"app@tcp(db:3306)/shop\")",
		"user@tcp(db.internal.test:3306)/shop needs no password: it authenticates by socket",
		"app:password@tcp(db:3306)/shop",
		"app:pass@tcp(db:3306)/shop",
		"app:***@tcp(db:3306)/shop",
		"app:<password>@unix(/tmp/mysql.sock)/shop",
		"app:${DB_PASSWORD}@tcp(db:3306)/shop",
		`fmt.Sprintf("%s:%s@tcp(%s)/%s", user, pass, host, db)`,
		"import Button from '@/components/Button.vue'",
		"*:*:*:app:password",
		"db:5432:shop:app:<password>",
		"db:5432:shop:app:$PGPASSWORD",
		"12:30:45:00:15 and the MAC 00:1a:2b:3c:4d:5e",
		"fe80::1:2:3:4 is link-local",
		"machine git.internal.test login deploy password ***",
		"machine git.internal.test login deploy password <password>",
		"machine git.internal.test login deploy password $NETRC_PASSWORD",
		"password reset links expire after 24 hours",
		"machine x login y; the password policy: twelve characters",
		`snake\_case names, 2\*3 = 6, a \-\-flag, Tom &amp; Jerry, &lt;b&gt;, &#95;&#95;init&#95;&#95;`,
		"run `go test` *now*, then `ghp_` prefixes name GitHub tokens",
	} {
		wantCheckClean(t, text)
	}
}
