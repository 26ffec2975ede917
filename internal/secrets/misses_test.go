package secrets

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/secrets/secrettest"
)

// Secrets in the forms the hand-written rule set missed. Each is built at
// run time; each must be refused.

func wantRefused(t *testing.T, text, rule string) []Finding {
	t.Helper()
	got := Scan(text)
	if len(got) == 0 {
		t.Fatalf("Scan found nothing in:\n%q", text)
	}
	if rule != "" && got[0].Rule != rule {
		t.Errorf("got %v, want %s in:\n%q", got, rule, text)
	}
	for _, f := range got {
		checkFinding(t, text, f)
	}
	return got
}

func wantClean(t *testing.T, text string) {
	t.Helper()
	if got := Scan(text); got != nil {
		t.Errorf("Scan reported %v in:\n%q", got, text)
	}
}

func TestNetrcPassword(t *testing.T) {
	g := newGen(t.Name())
	hex := g.S(hexLower, 32)
	for name, text := range map[string]string{
		"one line":    "machine api.internal.test login ci password " + hex,
		"multi line":  "~/.netrc on the runner:\nmachine git.internal.test\n  login deploy\n  password " + hex + "\n",
		"default":     "default login anonymous password " + g.Password(14),
		"line of its": "password " + g.Password(16),
	} {
		t.Run(name, func(t *testing.T) { wantRefused(t, text, "generic-secret") })
	}
	for _, text := range []string{
		"password reset links expire after 24 hours",
		"machine api.internal.test login ci password $NETRC_PASSWORD",
		"The password policy needs 12 characters.",
	} {
		wantClean(t, text)
	}
}

func TestSSHPassPassword(t *testing.T) {
	g := newGen(t.Name())
	for name, text := range map[string]string{
		"quoted":       "sshpass -p '" + g.Password(12) + "' ssh deploy@10.0.0.7 uptime",
		"double":       `sshpass -p "` + g.Password(10) + `" scp build.tar root@box:/srv`,
		"bare":         "sshpass -p " + g.Password(9) + " ssh pi@raspberry",
		"attached":     "sshpass -p" + g.Password(11) + " rsync -a dist/ host:/var/www",
		"weak":         "sshpass -p raspberry ssh pi@10.0.0.9",
		"after a flag": "sshpass -v -p '" + g.Password(12) + "' ssh host",
	} {
		t.Run(name, func(t *testing.T) { wantRefused(t, text, "sshpass-password") })
	}
	for _, text := range []string{
		"sshpass -e ssh deploy@host   # reads SSHPASS",
		"sshpass -f ~/.ssh/pw ssh deploy@host",
		`sshpass -p "$SSHPASS" ssh deploy@host`,
		"install sshpass -p is insecure, use -e",
	} {
		wantClean(t, text)
	}
}

func TestMySQLPassword(t *testing.T) {
	g := newGen(t.Name())
	for name, text := range map[string]string{
		"attached":  "mysql -h db.internal -uroot -p" + g.Password(14) + " shop < dump.sql",
		"quoted":    "mysqldump -u backup -p'" + g.Password(12) + "' --all-databases > all.sql",
		"mariadb":   "mariadb -uapp -p" + g.Password(10) + " app",
		"admin":     "mysqladmin -uroot -p" + g.Password(12) + " status",
		"uppercase": "MYSQL -uroot -p" + g.Password(12) + " -e 'show databases'",
	} {
		t.Run(name, func(t *testing.T) { wantRefused(t, text, "mysql-password") })
	}
	for _, text := range []string{
		"mysql -uroot -p shop   # prompts for the password",
		"mysql -h db -P 3306 -u app -p app",
		"mysql -uroot -p$MYSQL_ROOT_PASSWORD app",
		"mysql -u app --password app",
	} {
		wantClean(t, text)
	}
}

func TestBase64WrappedToken(t *testing.T) {
	g := newGen(t.Name())
	pat := "ghp_" + g.S(alnum, 36)
	for name, text := range map[string]string{
		"std":          "the CI secret is stored as " + base64.StdEncoding.EncodeToString([]byte(pat)),
		"in json":      `{"auth": "` + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+pat)) + `"}`,
		"url encoding": "token_b64 " + base64.RawURLEncoding.EncodeToString([]byte("GITHUB_TOKEN="+pat+"\n")),
		"twice":        "double: " + base64.StdEncoding.EncodeToString([]byte(base64.StdEncoding.EncodeToString([]byte(pat)))),
	} {
		t.Run(name, func(t *testing.T) {
			got := wantRefused(t, text, "github-pat")
			if !strings.Contains(got[0].Desc, "base64") {
				t.Errorf("finding %v does not say the secret is base64-encoded", got[0])
			}
		})
	}
	// Base64 of ordinary text, of binary data and of a hash is no secret.
	wantClean(t, "the banner is "+base64.StdEncoding.EncodeToString([]byte("Welcome to the staging cluster, be nice")))
	wantClean(t, "go.sum: h1:"+base64.StdEncoding.EncodeToString([]byte(g.S(b64, 32)))[:44])
	sum := make([]byte, 48)
	for i := range sum {
		sum[i] = byte(i * 37)
	}
	wantClean(t, "digest "+base64.StdEncoding.EncodeToString(sum))
}

// TestPEMBodyWithoutHeader: a private key pasted without its BEGIN and END
// lines is still a key; a certificate or a public key so pasted is not.
func TestPEMBodyWithoutHeader(t *testing.T) {
	for _, k := range secrettest.CommittedKeys(t) {
		var body []string
		for _, l := range strings.Split(strings.TrimSpace(k.Text), "\n") {
			if !strings.HasPrefix(l, "-----") && !strings.Contains(l, ":") && l != "" {
				body = append(body, l)
			}
		}
		for name, text := range map[string]string{
			"lines":    strings.Join(body, "\n"),
			"in prose": "the deploy key body:\n" + strings.Join(body, "\n") + "\nput it in the vault",
			"indented": "    " + strings.Join(body, "\n    "),
			"quoted":   "> " + strings.Join(body, "\n> "),
		} {
			t.Run(k.Name+"/"+name, func(t *testing.T) {
				wantRefused(t, text, "private-key")
			})
		}
	}

	// A certificate and a public key, as bodies without their headers.
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "ocmem test"},
		NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<31, 0)}
	cert, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	for name, der := range map[string][]byte{"certificate": cert, "public key": pub} {
		block := string(pem.EncodeToMemory(&pem.Block{Type: "X", Bytes: der}))
		lines := strings.Split(strings.TrimSpace(block), "\n")
		body := strings.Join(lines[1:len(lines)-1], "\n")
		t.Run(name, func(t *testing.T) { wantClean(t, "the server's "+name+":\n"+body+"\n") })
	}
}

// TestInvisibleCharacters: zero-width and other invisible characters
// inside a token do not hide it, and the finding points at the original.
func TestInvisibleCharacters(t *testing.T) {
	g := newGen(t.Name())
	pat := "ghp_" + g.S(alnum, 36)
	for _, zw := range []string{"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u200e", "\u202e"} {
		text := "第一行\nuse " + pat[:10] + zw + pat[10:20] + zw + pat[20:] + " in CI"
		t.Run(fmt.Sprintf("U+%04X", []rune(zw)[0]), func(t *testing.T) {
			got := wantRefused(t, text, "github-pat")
			if got[0].Line != 2 || got[0].Column != len("use ")+1 {
				t.Errorf("finding at %d:%d, want 2:%d", got[0].Line, got[0].Column, len("use ")+1)
			}
		})
	}
	// A password split by a zero-width space in a URL.
	pw := g.Password(12)
	wantRefused(t, "postgres://app:"+pw[:5]+"\u200b"+pw[5:]+"@db:5432/shop", "url-password")
}

// TestTokenSplitAcrossLines: a token broken over two lines of a field
// (a summary the model wrapped, a hard-wrapped body) is found by Check.
func TestTokenSplitAcrossLines(t *testing.T) {
	g := newGen(t.Name())
	pat := "ghp_" + g.S(alnum, 36)
	key := "AKIA" + g.S(base32, 16)
	for name, fields := range map[string]map[string]string{
		"summary":         {"summary": "CI uses " + pat[:18] + "\n" + pat[18:] + " for releases"},
		"summary CRLF":    {"summary": "CI uses " + pat[:18] + "\r\n" + pat[18:]},
		"indented":        {"body": "token:\n  " + key[:9] + "\n  " + key[9:] + "\n"},
		"trailing spaces": {"summary": "uses " + pat[:30] + "  \n" + pat[30:]},
	} {
		t.Run(name, func(t *testing.T) {
			err := Check(fields)
			if err == nil {
				t.Fatalf("Check passed %q", fields)
			}
			if strings.Contains(err.Error(), pat[8:]) {
				t.Errorf("the message shows the token: %v", err)
			}
		})
	}
	// Two ordinary lines that happen to join into a word are fine.
	if err := Check(map[string]string{"summary": "use pnpm\nnot npm", "body": "sk-\nlearn more"}); err != nil {
		t.Errorf("Check refused plain lines: %v", err)
	}
}

// TestDigestIsNotASecret: a content digest after a secret-sounding word
// is a hash of public data, not a credential.
func TestDigestIsNotASecret(t *testing.T) {
	g := newGen(t.Name())
	for _, text := range []string{
		"The session key is sha256:" + g.S(hexLower, 64),
		"cache key: sha1:" + g.S(hexLower, 40),
		"api_key_digest = sha512:" + g.S(hexLower, 128),
		"secret: md5-" + g.S(hexLower, 32),
	} {
		wantClean(t, text)
	}
	// A secret is still a secret when it is not a digest.
	wantRefused(t, "The session key is "+g.Password(20), "generic-secret")
}
