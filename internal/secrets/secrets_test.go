package secrets

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// No complete secret-shaped literal appears in this file: every token is
// a fixed prefix plus characters from a deterministic generator, and PEM
// markers are assembled by pemBegin/pemEnd, so repository secret scanners
// have nothing to find here.

const (
	alnum    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	hexLower = "0123456789abcdef"
	b64      = alnum + "+/"
	b64url   = alnum + "_-"
	base32   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	digits   = "0123456789"
	bech32   = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
	// pwChars are characters of a typed password: no quotes, delimiters
	// or characters that start a reference ($, %, {, <, *, @, &).
	pwChars = alnum + "!#^+=_-"
)

// gen produces deterministic pseudo-random strings, seeded by a name so
// that adding a case does not change the values of the others.
type gen struct{ r *rand.Rand }

func newGen(name string) *gen {
	h := fnv.New64a()
	h.Write([]byte(name))
	return &gen{rand.New(rand.NewPCG(h.Sum64(), 0x0c3e3))}
}

func (g *gen) s(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(b)
}

// password is a typed-looking password of n >= 4 bytes: a letter, a
// digit, a symbol, then anything.
func (g *gen) password(n int) string {
	return g.s(alnum[:52], 1) + g.s(digits, 1) + g.s("!#^+=", 1) + g.s(pwChars, n-3)
}

func (g *gen) uuid() string {
	return g.s(hexLower, 8) + "-" + g.s(hexLower, 4) + "-4" + g.s(hexLower, 3) + "-a" + g.s(hexLower, 3) + "-" + g.s(hexLower, 12)
}

// pemBegin and pemEnd build PEM markers; kind is "", "RSA ", "EC ", ….
func pemBegin(kind string) string { return "-----" + "BEGIN " + kind + "PRIVATE " + "KEY-----" }
func pemEnd(kind string) string   { return "-----" + "END " + kind + "PRIVATE " + "KEY-----" }

// pemBlock is a complete block with lines of 64 base64 characters.
func (g *gen) pemBlock(kind, nl string, lines int, headers ...string) string {
	var b strings.Builder
	b.WriteString(pemBegin(kind) + nl)
	for _, h := range headers {
		b.WriteString(h + nl)
	}
	for range lines {
		b.WriteString(g.s(b64, 64) + nl)
	}
	b.WriteString(g.s(b64, 20) + "==" + nl)
	b.WriteString(pemEnd(kind))
	return b.String()
}

type secretCase struct {
	name string
	rule string
	line int
	text func(g *gen) string
}

var secretCases = []secretCase{
	{"aws key id in export", "aws-access-key-id", 2, func(g *gen) string {
		return "Deploy pipeline reads credentials from the environment:\nexport AWS_ACCESS_KEY_ID=AKIA" + g.s(base32, 16) + "\nRotate them every quarter."
	}},
	{"aws sts key id in Chinese prose", "aws-access-key-id", 1, func(g *gen) string {
		return "STS 临时凭证 ASIA" + g.s(base32, 16) + " 一小时后过期,别缓存。"
	}},
	{"aws secret in credentials file", "aws-secret-access-key", 4, func(g *gen) string {
		return "~/.aws/credentials on the build box:\n[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = " + g.s(b64, 40) + "\nregion = ap-east-1"
	}},
	{"aws secret in STS JSON", "aws-secret-access-key", 2, func(g *gen) string {
		return "assume-role returned:\n{\"SecretAccessKey\": \"" + g.s(b64, 40) + "\", \"Expiration\": \"2026-01-01T00:00:00Z\"}"
	}},
	{"gcp api key", "gcp-api-key", 2, func(g *gen) string {
		return "Maps SDK on staging:\nkey AIza" + g.s(b64url, 35) + " is restricted to the staging referrer."
	}},
	{"gcp service account json", "gcp-service-account-key", 4, func(g *gen) string {
		return "{\n  \"type\": \"service_account\",\n  \"project_id\": \"hemart-prod\",\n  \"private_key\": \"" +
			g.pemBlock("", `\n`, 3) + `\n` + "\",\n  \"client_email\": \"ci@hemart-prod.iam.gserviceaccount.com\"\n}"
	}},
	{"azure storage connection string", "azure-storage-key", 2, func(g *gen) string {
		return "Blob storage for invoices:\nDefaultEndpointsProtocol=https;AccountName=hemartprod;AccountKey=" + g.s(b64, 86) + "==;EndpointSuffix=core.windows.net"
	}},
	{"azure service bus connection string", "azure-storage-key", 1, func(g *gen) string {
		return "Endpoint=sb://hemart.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=" + g.s(b64, 43) + "="
	}},
	{"github pat in prose", "github-pat", 3, func(g *gen) string {
		return "# Release\n\nDeploy with token ghp_" + g.s(alnum, 36) + " for CI; it expires in June."
	}},
	{"github pat as URL user", "github-pat", 1, func(g *gen) string {
		return "git remote set-url origin https://ghp_" + g.s(alnum, 36) + "@github.com/acme/shop.git"
	}},
	{"github pat assigned", "github-pat", 2, func(g *gen) string {
		return "CI secrets:\nGITHUB_TOKEN=ghp_" + g.s(alnum, 36)
	}},
	{"github fine-grained pat", "github-fine-grained-pat", 1, func(g *gen) string {
		return "fine-grained token github_pat_" + g.s(alnum, 22) + "_" + g.s(alnum, 59) + " only has contents:read"
	}},
	{"github oauth token", "github-oauth", 2, func(g *gen) string {
		return "gh auth status printed\n  Token: gho_" + g.s(alnum, 36)
	}},
	{"github app installation token in URL", "github-app-token", 1, func(g *gen) string {
		return "clone with https://x-access-token:ghs_" + g.s(alnum, 36) + "@github.com/acme/shop.git"
	}},
	{"github user-to-server token", "github-app-token", 1, func(g *gen) string {
		return "the app acts as the user with ghu_" + g.s(alnum, 36)
	}},
	{"github refresh token", "github-refresh-token", 1, func(g *gen) string {
		return "refresh with ghr_" + g.s(alnum, 36) + " when the user token expires"
	}},
	{"gitlab pat", "gitlab-pat", 2, func(g *gen) string {
		return "GitLab API:\ncurl --header \"PRIVATE-TOKEN: glpat-" + g.s(alnum, 20) + "\" https://gitlab.com/api/v4/projects"
	}},
	{"gitlab deploy token", "gitlab-token", 1, func(g *gen) string {
		return "registry pull uses deploy token gldt-" + g.s(alnum, 20)
	}},
	{"gitlab runner token", "gitlab-token", 2, func(g *gen) string {
		return "gitlab-runner register \\\n  --token glrt-" + g.s(b64url, 20) + "x"
	}},
	{"bitbucket app password", "bitbucket-app-password", 1, func(g *gen) string {
		return "Bitbucket app password for the mirror job: ATBB" + g.s(alnum, 32)
	}},
	{"atlassian api token", "atlassian-api-token", 2, func(g *gen) string {
		return "Jira automation:\nJIRA_API_TOKEN=ATATT3" + g.s(b64url, 180) + "=" + g.s("0123456789ABCDEF", 8)
	}},
	{"slack bot token", "slack-token", 1, func(g *gen) string {
		return "notifier posts as xoxb-" + g.s(digits, 12) + "-" + g.s(digits, 13) + "-" + g.s(alnum, 24) + " in #deploys"
	}},
	{"slack user token", "slack-token", 2, func(g *gen) string {
		return "Slack export script\nSLACK_USER=xoxp-" + g.s(digits, 12) + "-" + g.s(digits, 12) + "-" + g.s(digits, 13) + "-" + g.s(hexLower, 32)
	}},
	{"slack app token", "slack-app-token", 1, func(g *gen) string {
		return "socket mode needs xapp-1-A" + g.s("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 10) + "-" + g.s(digits, 13) + "-" + g.s(hexLower, 64)
	}},
	{"slack webhook", "slack-webhook", 2, func(g *gen) string {
		return "Alerts go to #oncall via\nhttps://hooks.slack.com/services/T" + g.s("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 8) + "/B" + g.s("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 10) + "/" + g.s(alnum, 24)
	}},
	{"discord webhook", "discord-webhook", 1, func(g *gen) string {
		return "release notes are posted to https://discord.com/api/webhooks/" + g.s(digits, 19) + "/" + g.s(b64url, 68)
	}},
	{"discord bot token", "discord-bot-token", 2, func(g *gen) string {
		return "Discord moderation bot\nDISCORD_BOT_TOKEN=M" + g.s(b64url, 25) + "." + g.s(b64url, 6) + "." + g.s(b64url, 38)
	}},
	{"telegram bot token", "telegram-bot-token", 1, func(g *gen) string {
		return "告警机器人 " + g.s("123456789", 1) + g.s(digits, 9) + ":AA" + g.s(b64url, 33) + " 发到运维群"
	}},
	{"stripe live secret key", "stripe-secret-key", 2, func(g *gen) string {
		return "Payments:\nSTRIPE_SECRET_KEY=sk_live_" + g.s(alnum, 24)
	}},
	{"stripe restricted key", "stripe-secret-key", 1, func(g *gen) string {
		return "the reporting job uses rk_live_" + g.s(alnum, 24) + " (read-only)"
	}},
	{"stripe test key", "stripe-secret-key", 1, func(g *gen) string {
		return "test mode: sk_test_" + g.s(alnum, 99)
	}},
	{"stripe webhook secret", "stripe-webhook-secret", 1, func(g *gen) string {
		return "verify signatures with whsec_" + g.s(alnum, 32)
	}},
	{"openai project key", "openai-api-key", 2, func(g *gen) string {
		return "Embeddings job\nOPENAI_API_KEY=sk-proj-" + g.s(b64url, 74) + "T3BlbkFJ" + g.s(b64url, 74)
	}},
	{"openai legacy key", "openai-api-key", 1, func(g *gen) string {
		return "old key sk-" + g.s(alnum, 48) + " was revoked? check"
	}},
	{"anthropic key", "anthropic-api-key", 1, func(g *gen) string {
		return "export ANTHROPIC_API_KEY=sk-ant-api03-" + g.s(b64url, 93) + "AA"
	}},
	{"hugging face token", "huggingface-token", 1, func(g *gen) string {
		return "huggingface-cli login --token hf_" + g.s(alnum, 34)
	}},
	{"google oauth access token", "google-oauth-token", 2, func(g *gen) string {
		return "gcloud auth print-access-token gave\nya29." + g.s(b64url, 150)
	}},
	{"npm token in npmrc", "npm-token", 2, func(g *gen) string {
		return "~/.npmrc:\n//registry.npmjs.org/:_authToken=npm_" + g.s(alnum, 36)
	}},
	{"pypi token", "pypi-token", 1, func(g *gen) string {
		return "twine upload -p pypi-AgEIcHlwaS5vcmc" + g.s(b64url, 120)
	}},
	{"docker hub pat", "dockerhub-pat", 1, func(g *gen) string {
		return "docker login -u acmeci -p dckr_pat_" + g.s(b64url, 27)
	}},
	{"digitalocean pat", "digitalocean-token", 1, func(g *gen) string {
		return "doctl auth init -t dop_v1_" + g.s(hexLower, 64)
	}},
	{"shopify access token", "shopify-token", 1, func(g *gen) string {
		return "Admin API: X-Shopify-Access-Token shpat_" + g.s(hexLower, 32)
	}},
	{"shopify shared secret", "shopify-token", 1, func(g *gen) string {
		return "app shared secret shpss_" + g.s(hexLower, 32)
	}},
	{"twilio api key", "twilio-api-key", 1, func(g *gen) string {
		return "SMS sender uses API key SK" + g.s(hexLower, 32) + " with its secret in Vault"
	}},
	{"sendgrid key", "sendgrid-api-key", 1, func(g *gen) string {
		return "mailer: SG." + g.s(b64url, 22) + "." + g.s(b64url, 43)
	}},
	{"mailgun key", "mailgun-api-key", 1, func(g *gen) string {
		return "mailgun domain key key-" + g.s(hexLower, 32)
	}},
	{"mailchimp key", "mailchimp-api-key", 1, func(g *gen) string {
		return "newsletter sync uses " + g.s(hexLower, 32) + "-us12"
	}},
	{"heroku uuid key", "heroku-api-key", 2, func(g *gen) string {
		return "Heroku deploys\nHEROKU_API_KEY=" + g.uuid()
	}},
	{"heroku new key", "heroku-api-key", 1, func(g *gen) string {
		return "heroku token HRKU-AA" + g.s(b64url, 58)
	}},
	{"vault token", "vault-token", 1, func(g *gen) string {
		return "VAULT_TOKEN is hvs." + g.s(b64url, 90) + " for the dev cluster"
	}},
	{"terraform cloud token", "terraform-cloud-token", 2, func(g *gen) string {
		return "credentials \"app.terraform.io\" {\n  token = \"" + g.s(alnum, 14) + ".atlasv1." + g.s(b64url, 67) + "\"\n}"
	}},
	{"doppler token", "doppler-token", 1, func(g *gen) string {
		return "doppler run --token dp.pt." + g.s(alnum, 43) + " -- npm start"
	}},
	{"linear key", "linear-api-key", 1, func(g *gen) string {
		return "Linear sync: lin_api_" + g.s(alnum, 40)
	}},
	{"postman key", "postman-api-key", 1, func(g *gen) string {
		return "newman run with PMAK-" + g.s(hexLower, 24) + "-" + g.s(hexLower, 34)
	}},
	{"databricks token", "databricks-token", 1, func(g *gen) string {
		return "databricks configure --token dapi" + g.s(hexLower, 32)
	}},
	{"alibaba access key id", "alibaba-access-key-id", 1, func(g *gen) string {
		return "阿里云 OSS 用 LTAI" + g.s(alnum, 20) + " 上传"
	}},
	{"tencent secret id", "tencent-secret-id", 1, func(g *gen) string {
		return "腾讯云 COS SecretId AKID" + g.s(alnum, 32)
	}},
	{"age secret key", "age-secret-key", 2, func(g *gen) string {
		return "sops uses age; the identity file holds\nAGE-SECRET-KEY-1" + g.s(bech32, 58)
	}},
	{"rsa private key", "private-key", 2, func(g *gen) string {
		return "Deploy key for the legacy box:\n" + g.pemBlock("RSA ", "\n", 4) + "\nStored in 1Password too."
	}},
	{"openssh key in code fence", "private-key", 3, func(g *gen) string {
		return "Bastion access:\n```\n" + g.pemBlock("OPENSSH ", "\n", 3) + "\n```"
	}},
	{"truncated ec key", "private-key", 1, func(g *gen) string {
		return pemBegin("EC ") + "\n" + g.s(b64, 64) + "\n(rest cut off)"
	}},
	{"pgp key with armor headers", "private-key", 2, func(g *gen) string {
		block := g.pemBlock("PGP ", "\n", 3, "Version: GnuPG v2", "")
		return "signing key:\n" + strings.ReplaceAll(block, "KEY-----", "KEY BLOCK-----")
	}},
	{"encrypted pkcs8 key", "private-key", 1, func(g *gen) string {
		return g.pemBlock("ENCRYPTED ", "\n", 2)
	}},
	{"legacy encrypted pem", "private-key", 1, func(g *gen) string {
		return g.pemBlock("RSA ", "\n", 2, "Proc-Type: 4,ENCRYPTED", "DEK-Info: AES-128-CBC,"+strings.ToUpper(g.s(hexLower, 32)), "")
	}},
	{"jwt in curl header", "jwt", 2, func(g *gen) string {
		return "Repro:\ncurl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJ" + g.s(b64url, 60) + "." + g.s(b64url, 43) + "' https://api.hemart.cn/v1/orders"
	}},
	{"bare jwt", "jwt", 1, func(g *gen) string {
		return "admin session: eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJ" + g.s(b64url, 120) + "." + g.s(b64url, 342)
	}},
	{"password in postgres url", "url-password", 2, func(g *gen) string {
		return "Staging database:\nDATABASE_URL=postgres://app:" + g.s(alnum, 16) + "@db.staging.internal:5432/shop"
	}},
	{"password in localhost redis url", "url-password", 1, func(g *gen) string {
		return "本地 redis://:" + g.s(alnum, 10) + "@localhost:6379/0 只在开发机上用"
	}},
	{"password in mongodb srv url", "url-password", 1, func(g *gen) string {
		return "mongodb+srv://reporter:" + g.password(14) + "@cluster0.abcde.mongodb.net/analytics?retryWrites=true"
	}},
	{"weak password in mysql url", "url-password", 1, func(*gen) string {
		return "mysql://root:root@127.0.0.1:3306/app"
	}},
	{"basic auth header", "authorization-header", 1, func(g *gen) string {
		return "Authorization: Basic " + g.s(b64, 24)
	}},
	{"opaque bearer header", "authorization-header", 2, func(g *gen) string {
		return "Internal API:\nauthorization: bearer " + g.s(b64url, 40)
	}},
	{"password in toml", "generic-secret", 3, func(g *gen) string {
		return "[database]\nuser = \"app\"\npassword = \"" + g.password(14) + "\""
	}},
	{"api_key in yaml", "generic-secret", 2, func(g *gen) string {
		return "search:\n  api_key: " + g.s(alnum, 32) + "\n  index: products"
	}},
	{"SECRET_TOKEN in env", "generic-secret", 1, func(g *gen) string {
		return "SECRET_TOKEN=" + g.s(alnum, 24) + " # session signing"
	}},
	{"client_secret in json", "generic-secret", 1, func(g *gen) string {
		return `{"client_id": "hemart-admin", "client_secret": "` + g.s(b64url, 32) + `"}`
	}},
	{"passwd in config", "generic-secret", 2, func(g *gen) string {
		return "smtp relay:\npasswd: " + g.password(12)
	}},
	{"chinese password with full-width colon", "generic-secret", 2, func(g *gen) string {
		return "测试账号 qa01\n密码：" + g.password(12) + "(只在 staging 有效)"
	}},
	{"chinese password with 为", "generic-secret", 1, func(g *gen) string {
		return "数据库密码为 " + g.password(12) + ",下周轮换"
	}},
	{"go short variable", "generic-secret", 2, func(g *gen) string {
		return "func connect() {\n\tdbPassword := \"" + g.password(16) + "\"\n}"
	}},
	{"twilio auth token by name", "generic-secret", 1, func(g *gen) string {
		return "TWILIO_AUTH_TOKEN=" + g.s(hexLower, 32)
	}},
	{"password flag", "generic-secret", 1, func(g *gen) string {
		return "mysqldump --user=backup --password=" + g.password(12) + " shop > dump.sql"
	}},
	{"secret key base", "generic-secret", 1, func(g *gen) string {
		return "SECRET_KEY_BASE=" + g.s(hexLower, 64)
	}},
	{"password in prose", "generic-secret", 2, func(g *gen) string {
		return "QA account qa01 on staging.\nThe password is: " + g.password(12) + " until the next reset."
	}},
	{"api key in prose", "generic-secret", 2, func(g *gen) string {
		return "地图服务\nThe Amap API key is " + g.s(alnum, 32) + ", bound to the prod domain."
	}},
	{"password flag with a space", "generic-secret", 1, func(g *gen) string {
		return "redis-cli --pass " + g.password(14) + " -h cache.internal"
	}},
	{"auth token header", "generic-secret", 1, func(g *gen) string {
		return "curl -H 'X-Auth-Token: " + g.s(hexLower, 40) + "' https://api.internal/v2/jobs"
	}},
	{"markdown bold password", "generic-secret", 1, func(g *gen) string {
		return "**Password**: `" + g.password(12) + "`"
	}},
}

func TestScanFindsSecrets(t *testing.T) {
	if len(secretCases) < 45 {
		t.Fatalf("only %d secret cases", len(secretCases))
	}
	seen := map[string]bool{}
	for _, tc := range secretCases {
		t.Run(tc.name, func(t *testing.T) {
			text := tc.text(newGen(tc.name))
			got := Scan(text)
			if len(got) != 1 {
				t.Fatalf("Scan found %d secrets, want 1 (%s at line %d):\n%v\ntext:\n%s", len(got), tc.rule, tc.line, got, text)
			}
			f := got[0]
			if f.Rule != tc.rule || f.Line != tc.line {
				t.Errorf("got %s at line %d, want %s at line %d", f.Rule, f.Line, tc.rule, tc.line)
			}
			checkFinding(t, text, f)
		})
		seen[tc.rule] = true
	}
	for _, r := range rules {
		if !seen[r.id] {
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

type benignCase struct {
	name string
	text func(g *gen) string
}

var benignCases = []benignCase{
	{"git commit hash", func(g *gen) string {
		return "Fixed in commit " + g.s(hexLower, 40) + " (PR #231); cherry-pick it onto release/2.3."
	}},
	{"short hashes", func(g *gen) string {
		return "Reverted " + g.s(hexLower, 7) + " and " + g.s(hexLower, 12) + ": they broke CJK tokenization."
	}},
	{"uuids", func(g *gen) string {
		return "tenant_id: " + g.uuid() + "\nrequest " + g.uuid() + " failed with 502"
	}},
	{"sha256 checksum", func(g *gen) string {
		return "sha256sum ocmem-linux-amd64.tar.gz\n" + g.s(hexLower, 64) + "  ocmem-linux-amd64.tar.gz"
	}},
	{"npm sha512 integrity", func(g *gen) string {
		return "package-lock.json:\n  \"integrity\": \"sha512-" + g.s(b64, 86) + "==\""
	}},
	{"sha1 integrity", func(g *gen) string {
		return "old lockfiles still have integrity sha1-" + g.s(b64, 27) + "="
	}},
	{"base64 image", func(g *gen) string {
		return "inline logo: ![logo](data:image/png;base64,iVBORw0KGgo" + g.s(b64, 600) + "=)"
	}},
	{"go.sum line", func(g *gen) string {
		return "github.com/gofrs/flock v0.13.2 h1:" + g.s(b64, 43) + "="
	}},
	{"docker image digest", func(g *gen) string {
		return "image: ghcr.io/acme/api@sha256:" + g.s(hexLower, 64)
	}},
	{"local urls without password", func(*gen) string {
		return "Dev server: http://localhost:8080/api/v1/health, admin on http://127.0.0.1:9000/?next=/orders@2"
	}},
	{"url with user only", func(*gen) string {
		return "clone https://zhou-acme@github.com/acme/shop.git and https://user@github.com/x"
	}},
	{"scp-style remotes", func(*gen) string {
		return "工作仓库的 remote 写成 git@github-work:org/repo.git,ssh://git@gitlab.corp.io:2222/acme/api.git"
	}},
	{"url password placeholders", func(*gen) string {
		return "postgres://app:${DB_PASSWORD}@localhost:5432/app\nredis://:$REDIS_PASSWORD@127.0.0.1:6379/0\n" +
			"postgres://user:password@localhost/db\nmysql://root:<password>@db:3306/x\namqp://guest:%RABBIT_PW%@mq:5672\n" +
			"https://user:****@example.org\nconst u = new URL('https://abc:xyz@example.com'); ftp://me:pw@files.example"
	}},
	{"go struct fields", func(*gen) string {
		return "type Config struct {\n\tPassword string `json:\"password\"`\n\tAPIKey   string `json:\"api_key\"`\n}\n" +
			"cfg := Config{Password: os.Getenv(\"DB_PASSWORD\"), APIKey: cfg.Secrets.OpenAIKey2}"
	}},
	{"js code", func(*gen) string {
		return "const token = await getToken();\nfetch(url, { headers: { Authorization: `Bearer ${token}` } });\n" +
			"if (password.length < 12) throw new Error('password too short');\nconst apiKey = process.env.OPENAI_API_KEY_2;"
	}},
	{"env var references", func(*gen) string {
		return "psql reads PGPASSWORD=$DB_PASSWORD; compose uses ${MYSQL_PASSWORD} and %APPDATA%.\nAPI_KEY=${API_KEY}"
	}},
	{"placeholders", func(*gen) string {
		return "password: <your password>\ntoken=xxx\nsecret: ***\nOPENAI_API_KEY=\nOPENAI_API_KEY=<your key>\n" +
			"ANTHROPIC_API_KEY=your-api-key-here\napi_key: REPLACE_ME_123\nclient_secret: \"********\""
	}},
	{"changeme default", func(*gen) string {
		return "the compose file ships password: changeme and RABBITMQ_DEFAULT_PASS=changeme123!"
	}},
	{"aws documented examples", func(*gen) string {
		return "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	}},
	{"chinese password policy", func(*gen) string {
		return "密码策略:至少 12 位,必须包含大小写字母和数字。\n密码在 1Password 的「HeMart QA」条目里。\n密码:见 1Password"
	}},
	{"package versions", func(*gen) string {
		return "pinned react@18.3.1 and @types/node@20.14.2; pnpm 9.1.0; go 1.26.0"
	}},
	{"token counts", func(*gen) string {
		return "max_tokens: 4096, token_count=12873, input_tokens: 20481\ntokenizer: unicode61 remove_diacritics 2"
	}},
	{"pem header without body", func(*gen) string {
		return "the key file begins with " + pemBegin("OPENSSH ") + " and must be chmod 600"
	}},
	{"pem with elided body", func(*gen) string {
		return "```\n" + pemBegin("RSA ") + "\n...\n" + pemEnd("RSA ") + "\n```"
	}},
	{"1password references", func(*gen) string {
		return ".env.op 里写的是 op://Dev/mysql-local/password 这种引用;DB_PASSWORD=op://Dev/mysql-local/password"
	}},
	{"csrf and secret names", func(*gen) string {
		return "请求头带 X-CSRF-Token(从 /api/v1/admin/csrf 获取)\npassword_policy: min_length=12\nsecret_name: prod-db-2024\nprivate_key_id: 3f2a9c"
	}},
	{"slack docs example webhook", func(*gen) string {
		return "format: https://hooks.slack.com/services/T" + strings.Repeat("0", 8) + "/B" + strings.Repeat("0", 8) + "/" + strings.Repeat("X", 24)
	}},
	{"kebab case after sk-", func(*gen) string {
		return "use class sk-button-primary-large-variant-outline; the task-runner and disk-usage checks pass"
	}},
	{"timezone", func(*gen) string {
		return "user timezone Asia/Shanghai; ASIA region servers in ap-east-1"
	}},
	{"jwt explained", func(*gen) string {
		return "a JWT starts with eyJ because base64 of {\" is eyJ; header.payload.signature"
	}},
	{"templated secrets", func(*gen) string {
		return "password: \"{{ vault_db_password }}\"\ntoken: ${{ secrets.GITHUB_TOKEN }}\napi_key: process.env.OPENAI_API_KEY\nauth: secrets.NPM_TOKEN_2"
	}},
	{"authorization placeholders", func(*gen) string {
		return "Authorization: Bearer <token>\nAuthorization: Bearer $TOKEN\nAuthorization: token ${GH_TOKEN}"
	}},
	{"expiry and key names", func(g *gen) string {
		return "token_expiry: 2026-01-01T00:00:00Z\napi_key_id: " + g.s(hexLower, 16) + "\nssh_key_path: ~/.ssh/id_ed25519\npublic_key: " + g.s(b64, 40)
	}},
	{"low-entropy human values", func(*gen) string {
		return "password: Passw0rd\nDB_PASSWORD=summer2024\npassword = 12345678\npassword: hunter2"
	}},
	{"mailto and scoped packages", func(*gen) string {
		return "mailto:ops@acme.io, [docs](https://npmjs.com/package/@acme/ui@2.1.0)"
	}},
	{"azure storage emulator", func(g *gen) string {
		return "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + g.s(b64, 86) + "==;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;"
	}},
	{"prose about tokens and passwords", func(*gen) string {
		return "The token is valid for 2 hours; the password is required on first login.\nThe secret was rotated on 2026-01-15 (see the runbook).\n" +
			"cache key: user:42:profile:v2; the key is 3600s; API key 见 1Password"
	}},
	{"calls and flags without values", func(*gen) string {
		return "SECRET_KEY=base64decode(ENCODED_SECRET_2)\nexport GH_TOKEN=$(gh auth token)\nmysql --password --user=root\nuse --token-file ~/.config/tok"
	}},
	{"all-letter identifiers assigned", func(*gen) string {
		return "DB_PASSWORD=hemart_dev\nsecret: prod-db\nauth_method: oauth2\ntoken: string | null"
	}},
}

func TestScanIgnoresLookAlikes(t *testing.T) {
	if len(benignCases) < 30 {
		t.Fatalf("only %d benign cases", len(benignCases))
	}
	for _, tc := range benignCases {
		t.Run(tc.name, func(t *testing.T) {
			text := tc.text(newGen(tc.name))
			if got := Scan(text); got != nil {
				t.Errorf("Scan reported %v in:\n%s", got, text)
			}
		})
	}
}

// TestScanCorpus scans the development memory corpus and the fixtures,
// which hold no secrets.
func TestScanCorpus(t *testing.T) {
	var files []string
	for _, dir := range []string{"/work/shared/eval/dev", "/work/shared/fixtures"} {
		if _, err := os.Stat(dir); err != nil {
			t.Skipf("corpus %s not available: %v", dir, err)
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
		if got := Scan(string(b)); got != nil {
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
		if !idShape.MatchString(r.id) || seen[r.id] || r.desc == "" || len(r.keywords) == 0 || (r.re == nil) == (r.find == nil) {
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
	pat := "ghp_" + g.s(alnum, 36)
	key := "AKIA" + g.s(base32, 16)
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
	if got[1].Rule != "aws-access-key-id" || got[1].Line != 2 || got[1].Column != wantCol {
		t.Errorf("second = %+v, want aws-access-key-id at 2:%d", got[1], wantCol)
	}
	if got[0].Redacted != "ghp_"+strings.Repeat("*", 36) {
		t.Errorf("Redacted = %q", got[0].Redacted)
	}
	if s, want := got[0].String(), fmt.Sprintf("GitHub personal access token at line 2, column %d (ghp_****…)", len("  token ")+1); s != want {
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
	text := g.pemBlock("RSA ", "\n", 20) + "\n\nand a second one:\n" + g.pemBlock("", "\n", 10)
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
	cut := pemBegin("") + "\n" + g.s(b64, 64) + "\n" + g.s(b64, 64) + "\n\nlater: deploy with ghp_" + g.s(alnum, 36) + "\n" + pemEnd("")
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
	pat := "ghp_" + g.s(alnum, 36)
	text := pat + " " + filler + "password=" + g.password(14)
	got := Scan(text)
	if len(got) != 2 || got[0].Rule != "github-pat" || got[0].Column != 1 ||
		got[1].Rule != "generic-secret" || got[1].Column != len(pat+" "+filler+"password=")+1 {
		t.Fatalf("got %v", got)
	}
}

func TestCheck(t *testing.T) {
	g := newGen(t.Name())
	pat := "ghp_" + g.s(alnum, 36)
	pw := g.s(alnum, 16)
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
	for _, want := range []string{"in body", "GitHub personal access token", "at line 2, column 12", "in load_when", "password in a URL", "ghp_****…"} {
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

	one := &Error{Field: "summary", Findings: Scan("key AKIA" + g.s(base32, 16))}
	if msg := one.Error(); !strings.Contains(msg, "AWS access key ID in summary at line 1, column 5 (AKIA****…)") ||
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

`, i, g.s(hexLower, 40), i, g.s(b64, 86))
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
