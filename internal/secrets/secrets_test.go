package secrets

import (
	"errors"
	"fmt"
	"github.com/ocmem/ocmem/internal/testenv"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ocmem/ocmem/internal/secrets/secrettest"
)

// The cases and their generator live in secrettest, shared with the tests
// of every write path; these names keep the tests below short.
type gen = secrettest.Gen

func newGen(name string) *gen { return secrettest.NewGen(name) }

const (
	alnum    = secrettest.Alnum
	hexLower = secrettest.HexLower
	b64      = secrettest.B64
	base32   = secrettest.Base32
)

var (
	pemBegin    = secrettest.PEMBegin
	pemEnd      = secrettest.PEMEnd
	secretCases = secrettest.Secrets
	benignCases = secrettest.LookAlikes
)

func TestScanFindsSecrets(t *testing.T) {
	if len(secretCases) < 45 {
		t.Fatalf("only %d secret cases", len(secretCases))
	}
	seen := map[string]bool{}
	for _, tc := range secretCases {
		t.Run(tc.Name, func(t *testing.T) {
			text := tc.Text(newGen(tc.Name))
			got := Scan(text)
			if len(got) != 1 {
				t.Fatalf("Scan found %d secrets, want 1 (%s at line %d):\n%v\ntext:\n%s", len(got), tc.Rule, tc.Line, got, text)
			}
			f := got[0]
			if f.Rule != tc.Rule || f.Line != tc.Line {
				t.Errorf("got %s at line %d, want %s at line %d", f.Rule, f.Line, tc.Rule, tc.Line)
			}
			checkFinding(t, text, f)
		})
		seen[tc.Rule] = true
	}
	generated := map[string]bool{}
	for _, g := range gitleaksRules {
		generated[g.id] = true // TestGeneratedRulesFire has a case for each
	}
	for _, r := range rules {
		if !seen[r.id] && !generated[r.id] {
			t.Errorf("rule %s has no secret case", r.id)
		}
	}
}

// checkFinding checks what holds for every finding: a known rule, a
// position inside the text, a redaction that matches the text there and
// never shows it whole.
func checkFinding(t *testing.T, text string, f Finding) {
	t.Helper()
	off, ok := offset(text, f.Line, f.Column)
	if !ok {
		t.Fatalf("%v: line %d column %d is outside the text", f, f.Line, f.Column)
	}
	if f.Desc == "" || ruleByID(f.Rule) == nil {
		t.Errorf("finding %+v has an unknown rule", f)
	}
	rest := text[off:]
	n := utf8.RuneCountInString(f.Redacted)
	if n == 0 || n > utf8.RuneCountInString(rest) {
		t.Fatalf("redaction %q is empty or longer than the text left at its position", f.Redacted)
	}
	stars := 0
	for _, r := range f.Redacted {
		tr, size := utf8.DecodeRuneInString(rest)
		rest = rest[size:]
		if r == '*' {
			stars++
		} else if r != tr {
			t.Fatalf("redaction %q does not match the text at line %d, column %d", f.Redacted, f.Line, f.Column)
		}
	}
	if stars == 0 || stars < n-4 {
		t.Errorf("redaction %q shows too much", f.Redacted)
	}
}

// offset converts a 1-based line and byte column to a byte offset.
func offset(text string, line, col int) (int, bool) {
	if line < 1 || col < 1 {
		return 0, false
	}
	start := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(text[start:], '\n')
		if i < 0 {
			return 0, false
		}
		start += i + 1
	}
	end := len(text)
	if i := strings.IndexByte(text[start:], '\n'); i >= 0 {
		end = start + i
	}
	off := start + col - 1
	return off, off < end
}

func ruleByID(id string) *rule {
	for i := range rules {
		if rules[i].id == id {
			return &rules[i]
		}
	}
	return nil
}

func TestScanIgnoresLookAlikes(t *testing.T) {
	if len(benignCases) < 30 {
		t.Fatalf("only %d benign cases", len(benignCases))
	}
	for _, tc := range benignCases {
		t.Run(tc.Name, func(t *testing.T) {
			text := tc.Text(newGen(tc.Name))
			// As Check reads a field: also with its lines joined.
			if got := scan(text, true); got != nil {
				t.Errorf("Scan reported %v in:\n%s", got, text)
			}
		})
	}
}

// TestScanCorpus scans the development memory corpus and the fixtures,
// which hold no secrets.
func TestScanCorpus(t *testing.T) {
	var files []string
	// The development corpus and fixtures beside the checkout.
	for _, dir := range []string{"../../../shared/eval/dev", "../../../shared/fixtures"} {
		if _, err := os.Stat(dir); err != nil {
			testenv.Missing(t, "corpus %s not available: %v", dir, err)
		}
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) < 100 {
		t.Fatalf("found only %d Markdown files", len(files))
	}
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// As Check reads a field: also with its lines joined.
		if got := scan(string(b), true); got != nil {
			t.Errorf("%s: %v", path, got)
		}
	}
	t.Logf("scanned %d files", len(files))
}

// TestGenericThreshold pins the generic rule to its constants: a value
// fires at minGenericEntropy bits per byte and minGenericLen bytes, and
// not below either.
func TestGenericThreshold(t *testing.T) {
	distinct := "aB3#cD4%eF5^gH6+" // 16 distinct bytes: 4 bits per byte
	for n := minGenericLen - 1; n <= len(distinct); n++ {
		v := distinct[:n]
		want := n >= minGenericLen && entropy(v) >= minGenericEntropy
		got := Scan("password = " + v)
		if (got != nil) != want {
			t.Errorf("password = %q (%d bytes, %.2f bits): reported %v, want %v", v, n, entropy(v), got != nil, want)
		}
	}
	// Two bytes repeated: 1 bit per byte, far below the threshold.
	if got := Scan("password = " + strings.Repeat("a1", 8)); got != nil {
		t.Errorf("low-entropy value reported: %v", got)
	}
	if entropy("abcdefgh") != 3 || entropy("aaaa") != 0 {
		t.Errorf("entropy(abcdefgh) = %v, entropy(aaaa) = %v; want 3 and 0", entropy("abcdefgh"), entropy("aaaa"))
	}
}

// TestRuleTable checks the rule ids the rest of ocmem may rely on: unique,
// lower-case kebab, with a description and a way to be triggered.
func TestRuleTable(t *testing.T) {
	idShape := regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)
	seen := map[string]bool{}
	for _, r := range rules {
		if !idShape.MatchString(r.id) || seen[r.id] || r.desc == "" || len(r.keywords) == 0 || (r.re == nil && r.lazy == nil) == (r.find == nil) {
			t.Errorf("rule %q: bad id, duplicate, no description, no keyword, or not exactly one of re and find", r.id)
		}
		seen[r.id] = true
	}
}

func TestSecretKey(t *testing.T) {
	for key, want := range map[string]bool{
		"password": true, "DB_PASSWORD": true, "dbPassword": true, "PGPASSWORD": true, "passwd": true,
		"api_key": true, "X-Api-Key": true, "xAPIKey": true, "OPENAI_API_KEY": true, "SECRET_KEY_BASE": true,
		"client_secret": true, "authToken": true, "_auth": true, "API_KEY_2": true, "aws_secret_access_key": true,
		"token_count": false, "max_tokens": false, "tokenizer": false, "password_policy": false, "secret_name": false,
		"public_key": false, "private_key_id": false, "keyboard": false, "monkey": false, "bypass": false,
		"DB_PASSWORD_FILE": false, "token_url": false, "key": false,
	} {
		if got := secretKey(key); got != want {
			t.Errorf("secretKey(%q) = %v, want %v (words %q)", key, got, want, splitWords(key))
		}
	}
}

func TestScanOrderAndPositions(t *testing.T) {
	g := newGen(t.Name())
	pat := "ghp_" + g.S(alnum, 36)
	key := "AKIA" + g.S(base32, 16)
	text := "第一行\n  token " + pat + " and " + key + "\n\nrisk: none"
	got := Scan(text)
	if len(got) != 2 {
		t.Fatalf("got %v, want two findings", got)
	}
	wantCol := len("  token ") + 1
	if got[0].Rule != "github-pat" || got[0].Line != 2 || got[0].Column != wantCol {
		t.Errorf("first = %+v, want github-pat at 2:%d", got[0], wantCol)
	}
	wantCol = len("  token "+pat+" and ") + 1
	if got[1].Rule != "aws-access-token" || got[1].Line != 2 || got[1].Column != wantCol {
		t.Errorf("second = %+v, want aws-access-token at 2:%d", got[1], wantCol)
	}
	if got[0].Redacted != "ghp_"+strings.Repeat("*", 36) {
		t.Errorf("Redacted = %q", got[0].Redacted)
	}
	if s, want := got[0].String(), fmt.Sprintf("GitHub Personal Access Token at line 2, column %d (ghp_****…)", len("  token ")+1); s != want {
		t.Errorf("String() = %q, want %q", s, want)
	}
	// CRLF line endings count lines the same way.
	crlf := strings.ReplaceAll(text, "\n", "\r\n")
	if got2 := Scan(crlf); len(got2) != 2 || got2[1].Line != 2 || got2[1].Column != got[1].Column {
		t.Errorf("CRLF text: %v", got2)
	}
}

func TestOnePrivateKeyFindingPerBlock(t *testing.T) {
	g := newGen(t.Name())
	text := g.PEMBlock("RSA ", "\n", 20) + "\n\nand a second one:\n" + g.PEMBlock("", "\n", 10)
	got := Scan(text)
	if len(got) != 2 || got[0].Line != 1 || got[1].Line != 26 {
		t.Fatalf("got %v, want two private-key findings at lines 1 and 26", got)
	}
	for _, f := range got {
		if f.Rule != "private-key" {
			t.Errorf("got %s, want private-key", f.Rule)
		}
	}

	// A block cut short ends at its last base64 line: what follows is
	// still scanned.
	cut := pemBegin("") + "\n" + g.S(b64, 64) + "\n" + g.S(b64, 64) + "\n\nlater: deploy with ghp_" + g.S(alnum, 36) + "\n" + pemEnd("")
	got = Scan(cut)
	if len(got) != 2 || got[0].Rule != "private-key" || got[1].Rule != "github-pat" || got[1].Line != 5 {
		t.Errorf("truncated block then a token: got %v", got)
	}
}

func TestShortSecretsAreNotRevealed(t *testing.T) {
	for secret, want := range map[string]string{"root": "r***", "hunter22": "hu******", "p": "*", "abcdefghijkl": "abcd********"} {
		if got := redact(secret); got != want {
			t.Errorf("redact(%q) = %q, want %q", secret, got, want)
		}
	}
	got := Scan("mysql://root:root@127.0.0.1:3306/app")
	if len(got) != 1 || got[0].Redacted != "r***" || strings.Contains(got[0].String(), "root") {
		t.Errorf("got %v, want the password shown as r***", got)
	}
}

// TestLongLine puts secrets at both ends of a single 200 KB line, past
// the window a rule sees around its keyword.
func TestLongLine(t *testing.T) {
	g := newGen(t.Name())
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 8000)
	pat := "ghp_" + g.S(alnum, 36)
	text := pat + " " + filler + "password=" + g.Password(14)
	got := Scan(text)
	if len(got) != 2 || got[0].Rule != "github-pat" || got[0].Column != 1 ||
		got[1].Rule != "generic-secret" || got[1].Column != len(pat+" "+filler+"password=")+1 {
		t.Fatalf("got %v", got)
	}
}

func TestCheck(t *testing.T) {
	g := newGen(t.Name())
	pat := "ghp_" + g.S(alnum, 36)
	pw := g.S(alnum, 16)
	err := Check(map[string]string{
		"summary":   "CI token",
		"body":      "deploy\nwith token " + pat + " for CI",
		"load_when": "ci\npostgres://app:" + pw + "@db:5432/x",
	})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Check = %v, want *Error", err)
	}
	if e.Field != "body, load_when" || len(e.Findings) != 2 || e.Findings[0].Field != "body" || e.Findings[1].Field != "load_when" {
		t.Fatalf("Error = %+v", e)
	}
	msg := err.Error()
	for _, want := range []string{"in body", "GitHub Personal Access Token", "at line 2, column 12", "in load_when", "password in a URL", "ghp_****…"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	for _, secret := range []string{pat, pat[:12], pw, pw[:8]} {
		if strings.Contains(msg, secret) {
			t.Errorf("message %q shows the secret %q", msg, secret)
		}
	}
	if strings.HasSuffix(msg, ".") {
		t.Errorf("message %q ends with a period", msg)
	}

	one := &Error{Field: "summary", Findings: Scan("key AKIA" + g.S(base32, 16))}
	if msg := one.Error(); !strings.Contains(msg, "AWS credentials in summary at line 1, column 5 (AKIA****…)") ||
		!strings.HasPrefix(msg, "refusing to write: possible secret found: ") {
		t.Errorf("single finding message = %q", msg)
	}

	if err := Check(map[string]string{"summary": "用 pnpm 而不是 npm", "body": "git@github.com:org/repo.git"}); err != nil {
		t.Errorf("clean fields: %v", err)
	}
	if err := Check(nil); err != nil {
		t.Errorf("Check(nil) = %v", err)
	}
}

// realistic returns clean memory-like text of at most n bytes, cut at a
// line end: prose in two languages, frontmatter, code, URLs, hashes and
// secret-ish words, so that many keywords hit and the rules run (a
// keyword-dense worst case; plain prose scans faster).
func realistic(n int) string {
	g := newGen("bench")
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, `---
id: pitfalls/compose-env-%d
kind: pitfall
summary: docker-compose 里的 ${MYSQL_PASSWORD} 插值为空:env_file 只注入容器,不参与 compose 文件本身的插值。
created: 1781859303937
load_when:
  - docker compose
  - token 泄露
---
The API key and the session token live in 1Password; the password policy requires 12 characters.
Fixed in commit %s, see https://github.com/acme/shop/pull/%d and http://localhost:8080/health.
Remote: git@github.com:acme/shop.git; integrity sha512-%s==.

`+"```go"+`
type Config struct {
	Password string `+"`json:\"password\"`"+`
	APIKey   string // set from OPENAI_API_KEY
}
cfg.Password = os.Getenv("DB_PASSWORD")
`+"```"+`
部署前先跑测试;密码策略见 wiki,不要把 token 写进仓库。Asia/Shanghai 时区,max_tokens: 4096。
Authorization: Bearer <token> — the key point is that the monkey-patched tokenizer keeps passwords out.

`, i, g.S(hexLower, 40), i, g.S(b64, 86))
	}
	s := b.String()[:n]
	return s[:strings.LastIndexByte(s, '\n')+1]
}

func BenchmarkScan(b *testing.B) {
	for _, size := range []int{2 << 10, 100 << 10} {
		text := realistic(size)
		if got := Scan(text); got != nil {
			b.Fatalf("benchmark text is not clean: %v", got)
		}
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				Scan(text)
			}
		})
	}
}

// TestRealPrivateKeys scans keys made by ssh-keygen and openssl, as they
// are and as a user pastes them: one finding per key, covering the block.
func TestRealPrivateKeys(t *testing.T) {
	for _, k := range secrettest.RealKeys(t) {
		for _, v := range []struct{ name, text string }{
			{"as written", k.Text},
			{"in prose", "Deploy key for the box:\n" + k.Text + "\nkeep it safe."},
			{"in a code fence", "```\n" + k.Text + "```\n"},
			{"CRLF", strings.ReplaceAll(k.Text, "\n", "\r\n")},
			{"on one line", strings.Join(strings.Fields(k.Text), " ")},
			{"quoted in Markdown", "> " + strings.ReplaceAll(strings.TrimSpace(k.Text), "\n", "\n> ")},
		} {
			t.Run(k.Name+"/"+v.name, func(t *testing.T) {
				got := Scan(v.text)
				if len(got) != 1 || got[0].Rule != "private-key" {
					t.Fatalf("got %v, want one private-key finding in:\n%s", got, v.text)
				}
				if err := Check(map[string]string{"body": v.text}); err == nil {
					t.Error("Check passed the key")
				}
			})
		}
	}
}

// TestAllowedSpanSilencesOnlyItself: a known example that overlaps a
// real secret found by another rule does not hide it.
func TestAllowedSpanSilencesOnlyItself(t *testing.T) {
	g := newGen(t.Name())
	// The emulator's published key is allowed by the Azure rule; a token
	// on the same line is still a token.
	emu := "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + g.S(b64, 86) + "==;"
	if got := Scan(emu); got != nil {
		t.Fatalf("the storage emulator's key is reported: %v", got)
	}
	pat := "ghp_" + g.S(alnum, 36)
	got := Scan(emu + " token=" + pat)
	if len(got) != 1 || got[0].Rule != "github-pat" {
		t.Errorf("got %v, want the GitHub token", got)
	}
	// A password value that reads as an example, with a real token glued
	// to it: the example is let through, the token is not.
	got = Scan("password=example-" + pat)
	if len(got) != 1 || got[0].Rule != "github-pat" {
		t.Errorf("got %v, want the GitHub token inside the example value", got)
	}
}

// TestPEMFillers: a PEM block whose body is a documentation filler is not
// a key, and hides nothing around or inside it.
func TestPEMFillers(t *testing.T) {
	g := newGen(t.Name())
	x := strings.Repeat("X", 64)
	fillers := map[string]string{
		"x lines":      pemBegin("RSA ") + "\n" + x + "\n" + x + "\n" + pemEnd("RSA "),
		"example key":  pemBegin("") + "\n" + strings.Repeat("EXAMPLEKEY", 6) + "\n" + pemEnd(""),
		"one repeated": pemBegin("OPENSSH ") + "\n" + strings.Repeat("AbCd", 16) + "\n" + strings.Repeat("AbCd", 16) + "\n" + pemEnd("OPENSSH "),
	}
	for name, text := range fillers {
		if got := Scan(text); got != nil {
			t.Errorf("%s: got %v, want nothing", name, got)
		}
		pat := "ghp_" + g.S(alnum, 36)
		for _, v := range []string{text + "\ntoken " + pat, strings.Replace(text, "\n-----END", "\n"+pat+"\n-----END", 1)} {
			got := Scan(v)
			if len(got) != 1 || got[0].Rule != "github-pat" {
				t.Errorf("%s: got %v, want the GitHub token in:\n%s", name, got, v)
			}
		}
	}
}

// denseKeywords is adversarial input of n bytes: every keyword of every
// rule, one per line, repeated, so every rule runs over every line, and
// over the whole text when its lines are joined.
func denseKeywords(n int) string {
	var all []string
	seen := map[string]bool{}
	for _, r := range rules {
		for _, kw := range r.keywords {
			if !seen[kw] {
				seen[kw] = true
				all = append(all, kw)
			}
		}
	}
	unit := strings.Join(all, "\n") + "\n"
	return strings.Repeat(unit, n/len(unit)+1)[:n]
}

// TestScanBudget: text packed with the rules' keywords runs out of the
// scan's budget and is refused as a whole, while the development corpus
// and a keyword-laden benign text of the same size never come near it.
// Earlier versions spent minutes on such a text and then let it through.
func TestScanBudget(t *testing.T) {
	dense := denseKeywords(250 << 10)
	err := Check(map[string]string{"body": dense})
	var se *Error
	if !errors.As(err, &se) || se.Findings[len(se.Findings)-1].Rule != tooDenseRule {
		t.Fatalf("Check(250 KB of keywords) = %v, want a %s finding", err, tooDenseRule)
	}
	if last := se.Findings[len(se.Findings)-1]; last.Redacted != "" || strings.Contains(err.Error(), "()") {
		t.Errorf("the %s finding shows %q: %v", RuleTooDense, last.Redacted, last)
	}
	benign := realistic(250 << 10)
	b := newBudget(len(benign))
	visibleCandidates(benign, 0, b)
	joinedCandidates(benign, b)
	viewCandidates(benign, markupPieces(benign), true, "", b)
	viewCandidates(benign, decodedPieces(benign), false, "", b)
	spent, limit := workPerByte*len(benign)+workBase-b.left, (workPerByte*len(benign)+workBase)/2
	t.Logf("a benign 250 KB text spent %.1f per byte", float64(spent)/float64(len(benign)))
	if spent > limit {
		t.Errorf("a benign 250 KB text spent %d of its budget, over half (%d)", spent, limit)
	}
	if fs := Scan(benign); fs != nil {
		t.Errorf("benign text: %v", fs)
	}
	// Benign texts that read many rules: one 200 KB line of the same
	// text, and 120 KB of short lines naming providers' tokens, which the
	// lines-joined pass once read as one line and refused as too dense.
	for name, text := range map[string]string{
		"one line":      strings.ReplaceAll(realistic(200<<10), "\n", " "),
		"provider list": providerList(1200),
	} {
		if err := Check(map[string]string{"body": text}); err != nil {
			t.Errorf("%s (%d KB): %.200v", name, len(text)>>10, err)
		}
	}
}

// providerList is n lines naming a provider's token each, 30 providers
// in turn.
func providerList(n int) string {
	providers := []string{"GITHUB", "GITLAB", "STRIPE", "SLACK", "TWILIO", "SENDGRID", "MAILGUN", "DISCORD", "HEROKU", "NPM",
		"PYPI", "DOCKER", "DATADOG", "SENTRY", "CLOUDFLARE", "DIGITALOCEAN", "LINEAR", "NOTION", "ASANA", "OKTA",
		"SHOPIFY", "TWITTER", "DROPBOX", "ALGOLIA", "MAPBOX", "NEWRELIC", "PAGERDUTY", "PLAID", "SQUARE", "TELEGRAM"}
	var b strings.Builder
	for i := range n {
		p := providers[i%len(providers)]
		fmt.Fprintf(&b, "- %s_API_TOKEN: set in CI as a masked %s variable, rotated yearly (see the %s dashboard)\n", p, strings.ToLower(p), strings.ToLower(p))
	}
	return b.String()
}

// BenchmarkScanDense scans 250 KB of adversarial text and a benign text of
// the same size in the same loop, as Check does; x-benign is the ratio of
// their times, which the scan's budget bounds. The inputs: every keyword
// of every rule, one per line (denseKeywords), and lines ending in spaces,
// which once made the lines-joined pass copy its output at every line.
func BenchmarkScanDense(b *testing.B) {
	const size = 250 << 10
	benign := realistic(size)
	for _, in := range []struct{ name, text string }{
		{"keywords", denseKeywords(size)},
		{"spaced-lines", strings.Repeat("a \n", size/3)},
	} {
		b.Run(in.name, func(b *testing.B) {
			var tb, td time.Duration
			for b.Loop() {
				t0 := time.Now()
				scan(benign, true)
				t1 := time.Now()
				scan(in.text, true)
				tb, td = tb+t1.Sub(t0), td+time.Since(t1)
			}
			b.ReportMetric(float64(td)/float64(tb), "x-benign")
			b.ReportMetric(float64(td.Microseconds())/float64(b.N), "dense-µs/op")
			b.ReportMetric(float64(tb.Microseconds())/float64(b.N), "benign-µs/op")
		})
	}
}

// TestCheckAllocatesLinearly: what Check allocates grows with the text,
// not with its square, for texts shaped to make a pass copy what it built
// so far (lines ending in spaces once made the joined pass copy its
// output at every line: 250 KB cost gigabytes and seconds). Allocation is
// counted, not timed.
func TestCheckAllocatesLinearly(t *testing.T) {
	for _, unit := range []string{"a \n", "a\t\t\t\n", "x -\ny", "**x", "<!---->", "%41", "ｇ", `\_`, "&#95;", "<b>", "a`"} {
		text := strings.Repeat(unit, (250<<10)/len(unit))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		Check(map[string]string{"body": text})
		runtime.ReadMemStats(&after)
		if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(128*len(text)); got > limit {
			t.Errorf("Check(%d × %q) allocated %d bytes, over %d", len(text)/len(unit), unit, got, limit)
		}
	}
}

// TestCheckLinear: eight times the text costs about eight times the CPU,
// not 64, for texts shaped against the passes and the finders: runs of
// keywords with no separator (the assignment rule once read the whole run
// at each of its keywords: 64 KB of "key." took 1.2 s), lines ending in
// spaces, every keyword on its own line. The bound, 24, is three times
// linear; each size is measured three times and the fastest kept, with
// the garbage collector off.
func TestCheckLinear(t *testing.T) {
	if testing.Short() || runtime.GOOS == "windows" {
		t.Skip("measures CPU time")
	}
	cpu := func(text string) time.Duration {
		// The collector is off while timing: its work grows with the heap
		// the findings of a dense text make, which is allocation, counted
		// by TestCheckAllocatesLinearly; this test is about the passes.
		runtime.GC()
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		best := time.Duration(1<<63 - 1)
		for range 3 {
			start, wall := processCPU(), time.Now()
			Check(map[string]string{"body": text})
			d := processCPU() - start
			if d <= 0 {
				d = time.Since(wall)
			}
			best = min(best, d)
		}
		return best
	}
	for _, unit := range []string{"key.", "pass", "token_", "a \n", "-----BEGIN PRIVATE KEY-----\n",
		// DSNs and .pgpass fields run together.
		"a:xy@tcp(", "u:p@/", "db:5432:", "1:"} {
		small := strings.Repeat(unit, (32<<10)/len(unit))
		large := strings.Repeat(unit, (256<<10)/len(unit))
		s, l := cpu(small), cpu(large)
		if r := float64(l) / float64(max(s, time.Microsecond)); r > 24 {
			t.Errorf("%q: 32 KB %v, 256 KB %v, %.1f times as long, want about 8", unit, s, l, r)
		}
	}
}
