// Package secrettest builds secret-shaped values at test time, so that no
// test of ocmem commits one as a literal (repository scanners would flag
// it, and rightly). The values are deterministic: a generator is seeded by
// a case's name, so adding a case does not change the others.
//
//	for _, c := range secrettest.Secrets {
//		text := c.Text(secrettest.NewGen(c.Name)) // holds one secret, found by rule c.Rule
//	}
package secrettest

import (
	"hash/fnv"
	"math/rand/v2"
	"strings"
)

// No complete secret-shaped literal appears in this file: every token is
// a fixed prefix plus characters from a deterministic generator, and PEM
// markers are assembled by PEMBegin/PEMEnd, so repository secret scanners
// have nothing to find here.

// Alphabets of the generated values.
const (
	Alnum    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	HexLower = "0123456789abcdef"
	B64      = Alnum + "+/"
	B64URL   = Alnum + "_-"
	Base32   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	Digits   = "0123456789"
	Bech32   = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
	// PwChars are characters of a typed password: no quotes, delimiters
	// or characters that start a reference ($, %, {, <, *, @, &).
	PwChars = Alnum + "!#^+=_-"
)

// Gen produces deterministic pseudo-random strings, seeded by a name so
// that adding a case does not change the values of the others.
type Gen struct{ r *rand.Rand }

// NewGen returns a generator seeded by name.
func NewGen(name string) *Gen {
	h := fnv.New64a()
	h.Write([]byte(name))
	return &Gen{rand.New(rand.NewPCG(h.Sum64(), 0x0c3e3))}
}

// S returns n characters drawn from alphabet.
func (g *Gen) S(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(b)
}

// Password is a typed-looking password of n >= 4 bytes: a letter, a
// digit, a symbol, then anything.
func (g *Gen) Password(n int) string {
	return g.S(Alnum[:52], 1) + g.S(Digits, 1) + g.S("!#^+=", 1) + g.S(PwChars, n-3)
}

// UUID returns a version-4-shaped UUID.
func (g *Gen) UUID() string {
	return g.S(HexLower, 8) + "-" + g.S(HexLower, 4) + "-4" + g.S(HexLower, 3) + "-a" + g.S(HexLower, 3) + "-" + g.S(HexLower, 12)
}

// PEMBegin and PEMEnd build PEM markers; kind is "", "RSA ", "EC ", ….
func PEMBegin(kind string) string { return "-----" + "BEGIN " + kind + "PRIVATE " + "KEY-----" }
func PEMEnd(kind string) string   { return "-----" + "END " + kind + "PRIVATE " + "KEY-----" }

// PEMBlock is a complete block with lines of 64 base64 characters.
func (g *Gen) PEMBlock(kind, nl string, lines int, headers ...string) string {
	var b strings.Builder
	b.WriteString(PEMBegin(kind) + nl)
	for _, h := range headers {
		b.WriteString(h + nl)
	}
	for range lines {
		b.WriteString(g.S(B64, 64) + nl)
	}
	b.WriteString(g.S(B64, 20) + "==" + nl)
	b.WriteString(PEMEnd(kind))
	return b.String()
}

// Case is a text holding exactly one secret: the rule that must find it
// (internal/secrets' rule id) and its 1-based line.
type Case struct {
	Name string
	Rule string
	Line int
	Text func(g *Gen) string
}

// Secrets are secret-shaped texts, one per line of a real leak: every rule
// of internal/secrets is triggered by at least one. Call Text(NewGen(Name)).
var Secrets = []Case{
	{"aws key id in export", "aws-access-token", 2, func(g *Gen) string {
		return "Deploy pipeline reads credentials from the environment:\nexport AWS_ACCESS_KEY_ID=AKIA" + g.S(Base32, 16) + "\nRotate them every quarter."
	}},
	{"aws sts key id in Chinese prose", "aws-access-token", 1, func(g *Gen) string {
		return "STS 临时凭证 ASIA" + g.S(Base32, 16) + " 一小时后过期,别缓存。"
	}},
	{"aws secret in credentials file", "aws-secret-access-key", 4, func(g *Gen) string {
		return "~/.aws/credentials on the build box:\n[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = " + g.S(B64, 40) + "\nregion = ap-east-1"
	}},
	{"aws secret in STS JSON", "aws-secret-access-key", 2, func(g *Gen) string {
		return "assume-role returned:\n{\"SecretAccessKey\": \"" + g.S(B64, 40) + "\", \"Expiration\": \"2026-01-01T00:00:00Z\"}"
	}},
	{"gcp api key", "gcp-api-key", 2, func(g *Gen) string {
		return "Maps SDK on staging:\nkey AIza" + g.S(B64URL, 35) + " is restricted to the staging referrer."
	}},
	{"gcp service account json", "gcp-service-account-key", 4, func(g *Gen) string {
		return "{\n  \"type\": \"service_account\",\n  \"project_id\": \"hemart-prod\",\n  \"private_key\": \"" +
			g.PEMBlock("", `\n`, 3) + `\n` + "\",\n  \"client_email\": \"ci@hemart-prod.iam.gserviceaccount.com\"\n}"
	}},
	{"azure storage connection string", "azure-storage-key", 2, func(g *Gen) string {
		return "Blob storage for invoices:\nDefaultEndpointsProtocol=https;AccountName=hemartprod;AccountKey=" + g.S(B64, 86) + "==;EndpointSuffix=core.windows.net"
	}},
	{"azure service bus connection string", "azure-storage-key", 1, func(g *Gen) string {
		return "Endpoint=sb://hemart.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=" + g.S(B64, 43) + "="
	}},
	{"github pat in prose", "github-pat", 3, func(g *Gen) string {
		return "# Release\n\nDeploy with token ghp_" + g.S(Alnum, 36) + " for CI; it expires in June."
	}},
	{"github pat as URL user", "github-pat", 1, func(g *Gen) string {
		return "git remote set-url origin https://ghp_" + g.S(Alnum, 36) + "@github.com/acme/shop.git"
	}},
	{"github pat assigned", "github-pat", 2, func(g *Gen) string {
		return "CI secrets:\nGITHUB_TOKEN=ghp_" + g.S(Alnum, 36)
	}},
	{"github fine-grained pat", "github-fine-grained-pat", 1, func(g *Gen) string {
		return "fine-grained token github_pat_" + g.S(Alnum, 22) + "_" + g.S(Alnum, 59) + " only has contents:read"
	}},
	{"github oauth token", "github-oauth", 2, func(g *Gen) string {
		return "gh auth status printed\n  Token: gho_" + g.S(Alnum, 36)
	}},
	{"github app installation token in URL", "github-app-token", 1, func(g *Gen) string {
		return "clone with https://x-access-token:ghs_" + g.S(Alnum, 36) + "@github.com/acme/shop.git"
	}},
	{"github user-to-server token", "github-app-token", 1, func(g *Gen) string {
		return "the app acts as the user with ghu_" + g.S(Alnum, 36)
	}},
	{"github refresh token", "github-refresh-token", 1, func(g *Gen) string {
		return "refresh with ghr_" + g.S(Alnum, 36) + " when the user token expires"
	}},
	{"gitlab pat", "gitlab-pat", 2, func(g *Gen) string {
		return "GitLab API:\ncurl --header \"PRIVATE-TOKEN: glpat-" + g.S(Alnum, 20) + "\" https://gitlab.com/api/v4/projects"
	}},
	{"gitlab deploy token", "gitlab-deploy-token", 1, func(g *Gen) string {
		return "registry pull uses deploy token gldt-" + g.S(Alnum, 20)
	}},
	{"gitlab runner token", "gitlab-runner-authentication-token", 2, func(g *Gen) string {
		return "gitlab-runner register \\\n  --token glrt-" + g.S(B64URL, 20) + "x"
	}},
	{"bitbucket app password", "bitbucket-app-password", 1, func(g *Gen) string {
		return "Bitbucket app password for the mirror job: ATBB" + g.S(Alnum, 32)
	}},
	{"atlassian api token", "atlassian-api-token", 2, func(g *Gen) string {
		return "Jira automation:\nJIRA_API_TOKEN=ATATT3" + g.S(B64URL, 177) + "=" + g.S("0123456789ABCDEF", 8)
	}},
	{"slack bot token", "slack-bot-token", 1, func(g *Gen) string {
		return "notifier posts as xoxb-" + g.S(Digits, 12) + "-" + g.S(Digits, 13) + "-" + g.S(Alnum, 24) + " in #deploys"
	}},
	{"slack user token", "slack-user-token", 2, func(g *Gen) string {
		return "Slack export script\nSLACK_USER=xoxp-" + g.S(Digits, 12) + "-" + g.S(Digits, 12) + "-" + g.S(Digits, 13) + "-" + g.S(HexLower, 32)
	}},
	{"slack app token", "slack-app-token", 1, func(g *Gen) string {
		return "socket mode needs xapp-1-A" + g.S("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 10) + "-" + g.S(Digits, 13) + "-" + g.S(HexLower, 64)
	}},
	{"slack webhook", "slack-webhook-url", 2, func(g *Gen) string {
		return "Alerts go to #oncall via\nhttps://hooks.slack.com/services/T" + g.S("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 8) + "/B" + g.S("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 10) + "/" + g.S(Alnum, 24)
	}},
	{"discord webhook", "discord-webhook", 1, func(g *Gen) string {
		return "release notes are posted to https://discord.com/api/webhooks/" + g.S(Digits, 19) + "/" + g.S(B64URL, 68)
	}},
	{"discord bot token", "discord-bot-token", 2, func(g *Gen) string {
		return "Discord moderation bot\nDISCORD_BOT_TOKEN=M" + g.S(B64URL, 25) + "." + g.S(B64URL, 6) + "." + g.S(B64URL, 38)
	}},
	{"telegram bot token", "telegram-bot-token", 1, func(g *Gen) string {
		return "告警机器人 " + g.S("123456789", 1) + g.S(Digits, 9) + ":AA" + g.S(B64URL, 33) + " 发到运维群"
	}},
	{"stripe live secret key", "stripe-access-token", 2, func(g *Gen) string {
		return "Payments:\nSTRIPE_SECRET_KEY=sk_live_" + g.S(Alnum, 24)
	}},
	{"stripe restricted key", "stripe-access-token", 1, func(g *Gen) string {
		return "the reporting job uses rk_live_" + g.S(Alnum, 24) + " (read-only)"
	}},
	{"stripe test key", "stripe-access-token", 1, func(g *Gen) string {
		return "test mode: sk_test_" + g.S(Alnum, 99)
	}},
	{"stripe webhook secret", "stripe-webhook-secret", 1, func(g *Gen) string {
		return "verify signatures with whsec_" + g.S(Alnum, 32)
	}},
	{"openai project key", "openai-api-key", 2, func(g *Gen) string {
		return "Embeddings job\nOPENAI_API_KEY=sk-proj-" + g.S(B64URL, 74) + "T3BlbkFJ" + g.S(B64URL, 74)
	}},
	{"openai legacy key", "openai-api-key", 1, func(g *Gen) string {
		return "old key sk-" + g.S(Alnum, 48) + " was revoked? check"
	}},
	{"anthropic key", "anthropic-api-key", 1, func(g *Gen) string {
		return "export ANTHROPIC_API_KEY=sk-ant-api03-" + g.S(B64URL, 93) + "AA"
	}},
	{"hugging face token", "huggingface-token", 1, func(g *Gen) string {
		return "huggingface-cli login --token hf_" + g.S(Alnum, 34)
	}},
	{"google oauth access token", "google-oauth-token", 2, func(g *Gen) string {
		return "gcloud auth print-access-token gave\nya29." + g.S(B64URL, 150)
	}},
	{"npm token in npmrc", "npm-access-token", 2, func(g *Gen) string {
		return "~/.npmrc:\n//registry.npmjs.org/:_authToken=npm_" + g.S(Alnum, 36)
	}},
	{"pypi token", "pypi-upload-token", 1, func(g *Gen) string {
		return "twine upload -p pypi-AgEIcHlwaS5vcmc" + g.S(B64URL, 120)
	}},
	{"docker hub pat", "dockerhub-pat", 1, func(g *Gen) string {
		return "docker login -u acmeci -p dckr_pat_" + g.S(B64URL, 27)
	}},
	{"digitalocean pat", "digitalocean-pat", 1, func(g *Gen) string {
		return "doctl auth init -t dop_v1_" + g.S(HexLower, 64)
	}},
	{"shopify access token", "shopify-access-token", 1, func(g *Gen) string {
		return "Admin API: X-Shopify-Access-Token shpat_" + g.S(HexLower, 32)
	}},
	{"shopify shared secret", "shopify-shared-secret", 1, func(g *Gen) string {
		return "app shared secret shpss_" + g.S(HexLower, 32)
	}},
	{"twilio api key", "twilio-api-key", 1, func(g *Gen) string {
		return "SMS sender uses API key SK" + g.S(HexLower, 32) + " with its secret in Vault"
	}},
	{"sendgrid key", "sendgrid-api-token", 1, func(g *Gen) string {
		return "mailer: SG." + g.S(B64URL, 22) + "." + g.S(B64URL, 43)
	}},
	{"mailgun key", "mailgun-api-key", 1, func(g *Gen) string {
		return "mailgun domain key key-" + g.S(HexLower, 32)
	}},
	{"mailchimp key", "mailchimp-api-key", 1, func(g *Gen) string {
		return "newsletter sync uses " + g.S(HexLower, 32) + "-us12"
	}},
	{"heroku uuid key", "heroku-api-key", 2, func(g *Gen) string {
		return "Heroku deploys\nHEROKU_API_KEY=" + g.UUID()
	}},
	{"heroku new key", "heroku-api-key-v2", 1, func(g *Gen) string {
		return "heroku token HRKU-AA" + g.S(B64URL, 58)
	}},
	{"vault token", "vault-service-token", 1, func(g *Gen) string {
		return "VAULT_TOKEN is hvs." + g.S(B64URL, 90) + " for the dev cluster"
	}},
	{"terraform cloud token", "hashicorp-tf-api-token", 2, func(g *Gen) string {
		return "credentials \"app.terraform.io\" {\n  token = \"" + g.S(Alnum, 14) + ".atlasv1." + g.S(B64URL, 67) + "\"\n}"
	}},
	{"doppler token", "doppler-token", 1, func(g *Gen) string {
		return "doppler run --token dp.pt." + g.S(Alnum, 43) + " -- npm start"
	}},
	{"linear key", "linear-api-key", 1, func(g *Gen) string {
		return "Linear sync: lin_api_" + g.S(Alnum, 40)
	}},
	{"postman key", "postman-api-token", 1, func(g *Gen) string {
		return "newman run with PMAK-" + g.S(HexLower, 24) + "-" + g.S(HexLower, 34)
	}},
	{"databricks token", "databricks-api-token", 1, func(g *Gen) string {
		return "databricks configure --token dapi" + g.S(HexLower, 32)
	}},
	{"alibaba access key id", "alibaba-access-key-id", 1, func(g *Gen) string {
		return "阿里云 OSS 用 LTAI" + g.S(Alnum, 20) + " 上传"
	}},
	{"tencent secret id", "tencent-secret-id", 1, func(g *Gen) string {
		return "腾讯云 COS SecretId AKID" + g.S(Alnum, 32)
	}},
	{"age secret key", "age-secret-key", 2, func(g *Gen) string {
		return "sops uses age; the identity file holds\nAGE-SECRET-KEY-1" + g.S(Bech32, 58)
	}},
	{"rsa private key", "private-key", 2, func(g *Gen) string {
		return "Deploy key for the legacy box:\n" + g.PEMBlock("RSA ", "\n", 4) + "\nStored in 1Password too."
	}},
	{"openssh key in code fence", "private-key", 3, func(g *Gen) string {
		return "Bastion access:\n```\n" + g.PEMBlock("OPENSSH ", "\n", 3) + "\n```"
	}},
	{"truncated ec key", "private-key", 1, func(g *Gen) string {
		return PEMBegin("EC ") + "\n" + g.S(B64, 64) + "\n(rest cut off)"
	}},
	{"pgp key with armor headers", "private-key", 2, func(g *Gen) string {
		block := g.PEMBlock("PGP ", "\n", 3, "Version: GnuPG v2", "")
		return "signing key:\n" + strings.ReplaceAll(block, "KEY-----", "KEY BLOCK-----")
	}},
	{"private key folded onto one line", "private-key", 2, func(g *Gen) string {
		return "deploy key, pasted into a one-line field:\n" + strings.ReplaceAll(g.PEMBlock("EC ", "\n", 3), "\n", " ") + " (staging)"
	}},
	{"encrypted key folded onto one line", "private-key", 1, func(g *Gen) string {
		return strings.ReplaceAll(g.PEMBlock("RSA ", "\n", 2, "Proc-Type: 4,ENCRYPTED", "DEK-Info: AES-128-CBC,"+strings.ToUpper(g.S(HexLower, 32)), ""), "\n", " ")
	}},
	{"encrypted pkcs8 key", "private-key", 1, func(g *Gen) string {
		return g.PEMBlock("ENCRYPTED ", "\n", 2)
	}},
	{"legacy encrypted pem", "private-key", 1, func(g *Gen) string {
		return g.PEMBlock("RSA ", "\n", 2, "Proc-Type: 4,ENCRYPTED", "DEK-Info: AES-128-CBC,"+strings.ToUpper(g.S(HexLower, 32)), "")
	}},
	{"jwt in curl header", "curl-auth-header", 2, func(g *Gen) string {
		return "Repro:\ncurl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJ" + g.S(B64URL, 60) + "." + g.S(B64URL, 43) + "' https://api.hemart.cn/v1/orders"
	}},
	{"bare jwt", "jwt", 1, func(g *Gen) string {
		return "admin session: eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJ" + g.S(B64URL, 120) + "." + g.S(B64URL, 342)
	}},
	{"password in postgres url", "url-password", 2, func(g *Gen) string {
		return "Staging database:\nDATABASE_URL=postgres://app:" + g.S(Alnum, 16) + "@db.staging.internal:5432/shop"
	}},
	{"password in localhost redis url", "url-password", 1, func(g *Gen) string {
		return "本地 redis://:" + g.S(Alnum, 10) + "@localhost:6379/0 只在开发机上用"
	}},
	{"password in mongodb srv url", "url-password", 1, func(g *Gen) string {
		return "mongodb+srv://reporter:" + g.Password(14) + "@cluster0.abcde.mongodb.net/analytics?retryWrites=true"
	}},
	{"weak password in mysql url", "url-password", 1, func(*Gen) string {
		return "mysql://root:root@127.0.0.1:3306/app"
	}},
	{"password in a go mysql dsn", "dsn-password", 2, func(g *Gen) string {
		return "The shop service opens:\nsql.Open(\"mysql\", \"shop:" + g.Password(14) + "@tcp(db.internal.test:3306)/shop?parseTime=true\")"
	}},
	{"weak password in a unix socket dsn", "dsn-password", 1, func(*Gen) string {
		return "DSN=root:hunter2@unix(/run/mysqld/mysqld.sock)/app"
	}},
	{"password in a pgpass line", "pgpass-password", 2, func(g *Gen) string {
		return "~/.pgpass on the runner (chmod 600):\ndb.internal.test:5432:shop:app:" + g.Password(16)
	}},
	{"password in a pgpass line in inline code", "pgpass-password", 1, func(g *Gen) string {
		return "echo `*:*:*:replicator:" + g.S(Alnum, 20) + "` >> ~/.pgpass"
	}},
	{"weak password in a netrc line", "generic-secret", 1, func(*Gen) string {
		return "machine git.internal.test login deploy password hunter2"
	}},
	{"basic auth header", "authorization-header", 1, func(g *Gen) string {
		return "Authorization: Basic " + g.S(B64, 24)
	}},
	{"opaque bearer header", "authorization-header", 2, func(g *Gen) string {
		return "Internal API:\nauthorization: bearer " + g.S(B64URL, 40)
	}},
	{"password in toml", "generic-secret", 3, func(g *Gen) string {
		return "[database]\nuser = \"app\"\npassword = \"" + g.Password(14) + "\""
	}},
	{"api_key in yaml", "generic-secret", 2, func(g *Gen) string {
		return "search:\n  api_key: " + g.S(Alnum, 32) + "\n  index: products"
	}},
	{"SECRET_TOKEN in env", "generic-secret", 1, func(g *Gen) string {
		return "SECRET_TOKEN=" + g.S(Alnum, 24) + " # session signing"
	}},
	{"client_secret in json", "generic-secret", 1, func(g *Gen) string {
		return `{"client_id": "hemart-admin", "client_secret": "` + g.S(B64URL, 32) + `"}`
	}},
	{"passwd in config", "generic-secret", 2, func(g *Gen) string {
		return "smtp relay:\npasswd: " + g.Password(12)
	}},
	{"chinese password with full-width colon", "generic-secret", 2, func(g *Gen) string {
		return "测试账号 qa01\n密码：" + g.Password(12) + "(只在 staging 有效)"
	}},
	{"chinese password with 为", "generic-secret", 1, func(g *Gen) string {
		return "数据库密码为 " + g.Password(12) + ",下周轮换"
	}},
	{"go short variable", "generic-secret", 2, func(g *Gen) string {
		return "func connect() {\n\tdbPassword := \"" + g.Password(16) + "\"\n}"
	}},
	{"twilio auth token by name", "generic-secret", 1, func(g *Gen) string {
		return "TWILIO_AUTH_TOKEN=" + g.S(HexLower, 32)
	}},
	{"password flag", "generic-secret", 1, func(g *Gen) string {
		return "mysqldump --user=backup --password=" + g.Password(12) + " shop > dump.sql"
	}},
	{"secret key base", "generic-secret", 1, func(g *Gen) string {
		return "SECRET_KEY_BASE=" + g.S(HexLower, 64)
	}},
	{"password in prose", "generic-secret", 2, func(g *Gen) string {
		return "QA account qa01 on staging.\nThe password is: " + g.Password(12) + " until the next reset."
	}},
	{"api key in prose", "generic-secret", 2, func(g *Gen) string {
		return "地图服务\nThe Amap API key is " + g.S(Alnum, 32) + ", bound to the prod domain."
	}},
	{"netrc entry", "generic-secret", 2, func(g *Gen) string {
		return "~/.netrc on the build box:\nmachine git.internal.test login ci password " + g.S(HexLower, 32)
	}},
	{"sshpass password", "sshpass-password", 1, func(g *Gen) string {
		return "sshpass -p '" + g.Password(12) + "' ssh deploy@10.0.0.7 'systemctl restart api'"
	}},
	{"mysql password", "mysql-password", 2, func(g *Gen) string {
		return "Restore the dump:\nmysql -h db.internal -uroot -p" + g.Password(14) + " shop < dump.sql"
	}},
	{"password flag with a space", "generic-secret", 1, func(g *Gen) string {
		return "redis-cli --pass " + g.Password(14) + " -h cache.internal"
	}},
	{"auth token header", "generic-secret", 1, func(g *Gen) string {
		return "wget --header 'X-Auth-Token: " + g.S(HexLower, 40) + "' https://api.internal/v2/jobs"
	}},
	{"markdown bold password", "generic-secret", 1, func(g *Gen) string {
		return "**Password**: `" + g.Password(12) + "`"
	}},
	{"docker login password", "docker-login-password", 1, func(g *Gen) string {
		return "docker login -u deploy -p " + g.Password(14) + " registry.internal.test"
	}},
	{"curl user password", "curl-user-password", 1, func(g *Gen) string {
		return "curl -fsS -u deploy:" + g.Password(14) + " https://api.internal.test/v1/jobs"
	}},
	{"jwk private key", "jwk-private-key", 1, func(g *Gen) string {
		return `{"kty": "OKP", "crv": "Ed25519", "x": "` + g.S(Alnum, 43) + `", "d": "` + g.S(Alnum+"-_", 43) + `"}`
	}},
}

// LookAlike is a text that resembles a secret and is not one.
type LookAlike struct {
	Name string
	Text func(g *Gen) string
}

// LookAlikes are texts no rule may report: commit hashes, UUIDs,
// checksums, integrity strings, URLs without passwords, placeholders,
// references and code that names secrets without holding one.
var LookAlikes = []LookAlike{
	{"digest after a secret word", func(g *Gen) string {
		return "The session key is sha256:" + g.S(HexLower, 64) + "; the cache key: sha1:" + g.S(HexLower, 40)
	}},
	{"image digest", func(g *Gen) string {
		return "pin the image: ghcr.io/ocmem/ocmem@sha256:" + g.S(HexLower, 64)
	}},
	{"documented example keys", func(g *Gen) string {
		return "AWS documents AKIAIOSFODNN7EXAMPLE with wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY as its example pair."
	}},
	{"prompting mysql and env sshpass", func(g *Gen) string {
		return "mysql -uroot -p shop   # prompts\nsshpass -e ssh deploy@host\nmysql -u app -p$MYSQL_PWD app"
	}},
	{"netrc with a variable and prose", func(g *Gen) string {
		return "machine api.internal.test login ci password $NETRC_PASSWORD\npassword reset links expire after 24 hours"
	}},
	{"dsns and pgpass lines without a password", func(g *Gen) string {
		return "sql.Open(\"mysql\", \"app@tcp(db:3306)/shop\") and app:password@tcp(db:3306)/shop, root:***@tcp(db)/x,\n" +
			"root:<password>@unix(/tmp/m.sock)/x, fmt.Sprintf(\"%s:%s@tcp(%s)/%s\", u, p, h, d), import x from '@/components'\n" +
			"*:*:*:app:password in ~/.pgpass, db:5432:shop:app:${PGPASS}; at 10:30:45:12:00 the MAC 00:1a:2b:3c:4d was seen\n" +
			"machine git.internal.test login deploy password $NETRC_PASS; the password policy: password is required"
	}},
	{"markdown escapes and entities that spell no token", func(g *Gen) string {
		return "use snake\\_case names, 2\\*3 = 6, a \\-flag, Tom &amp; Jerry &lt;b&gt; &#95;&#95;init&#95;&#95; and `go test` *now*"
	}},
	{"base64 of prose", func(g *Gen) string {
		return "banner: V2VsY29tZSB0byB0aGUgc3RhZ2luZyBjbHVzdGVyLCBiZSBuaWNl"
	}},
	{"wrapped prose lines", func(g *Gen) string {
		return "use pnpm\nnot npm; sk-\nlearn more at docs/SETUP.md"
	}},
	{"git commit hash", func(g *Gen) string {
		return "Fixed in commit " + g.S(HexLower, 40) + " (PR #231); cherry-pick it onto release/2.3."
	}},
	{"short hashes", func(g *Gen) string {
		return "Reverted " + g.S(HexLower, 7) + " and " + g.S(HexLower, 12) + ": they broke CJK tokenization."
	}},
	{"uuids", func(g *Gen) string {
		return "tenant_id: " + g.UUID() + "\nrequest " + g.UUID() + " failed with 502"
	}},
	{"sha256 checksum", func(g *Gen) string {
		return "sha256sum ocmem-linux-amd64.tar.gz\n" + g.S(HexLower, 64) + "  ocmem-linux-amd64.tar.gz"
	}},
	{"npm sha512 integrity", func(g *Gen) string {
		return "package-lock.json:\n  \"integrity\": \"sha512-" + g.S(B64, 86) + "==\""
	}},
	{"sha1 integrity", func(g *Gen) string {
		return "old lockfiles still have integrity sha1-" + g.S(B64, 27) + "="
	}},
	{"base64 image", func(g *Gen) string {
		return "inline logo: ![logo](data:image/png;base64,iVBORw0KGgo" + g.S(B64, 600) + "=)"
	}},
	{"go.sum line", func(g *Gen) string {
		return "github.com/gofrs/flock v0.13.2 h1:" + g.S(B64, 43) + "="
	}},
	{"docker image digest", func(g *Gen) string {
		return "image: ghcr.io/acme/api@sha256:" + g.S(HexLower, 64)
	}},
	{"local urls without password", func(*Gen) string {
		return "Dev server: http://localhost:8080/api/v1/health, admin on http://127.0.0.1:9000/?next=/orders@2"
	}},
	{"url with user only", func(*Gen) string {
		return "clone https://zhou-acme@github.com/acme/shop.git and https://user@github.com/x"
	}},
	{"scp-style remotes", func(*Gen) string {
		return "工作仓库的 remote 写成 git@github-work:org/repo.git,ssh://git@gitlab.corp.io:2222/acme/api.git"
	}},
	{"url password placeholders", func(*Gen) string {
		return "postgres://app:${DB_PASSWORD}@localhost:5432/app\nredis://:$REDIS_PASSWORD@127.0.0.1:6379/0\n" +
			"postgres://user:password@localhost/db\nmysql://root:<password>@db:3306/x\namqp://guest:%RABBIT_PW%@mq:5672\n" +
			"https://user:****@example.org\nconst u = new URL('https://abc:xyz@example.com'); ftp://me:pw@files.example"
	}},
	{"go struct fields", func(*Gen) string {
		return "type Config struct {\n\tPassword string `json:\"password\"`\n\tAPIKey   string `json:\"api_key\"`\n}\n" +
			"cfg := Config{Password: os.Getenv(\"DB_PASSWORD\"), APIKey: cfg.Secrets.OpenAIKey2}"
	}},
	{"js code", func(*Gen) string {
		return "const token = await getToken();\nfetch(url, { headers: { Authorization: `Bearer ${token}` } });\n" +
			"if (password.length < 12) throw new Error('password too short');\nconst apiKey = process.env.OPENAI_API_KEY_2;"
	}},
	{"env var references", func(*Gen) string {
		return "psql reads PGPASSWORD=$DB_PASSWORD; compose uses ${MYSQL_PASSWORD} and %APPDATA%.\nAPI_KEY=${API_KEY}"
	}},
	{"placeholders", func(*Gen) string {
		return "password: <your password>\ntoken=xxx\nsecret: ***\nOPENAI_API_KEY=\nOPENAI_API_KEY=<your key>\n" +
			"ANTHROPIC_API_KEY=your-api-key-here\napi_key: REPLACE_ME_123\nclient_secret: \"********\""
	}},
	{"changeme default", func(*Gen) string {
		return "the compose file ships password: changeme and RABBITMQ_DEFAULT_PASS=changeme123!"
	}},
	{"aws documented examples", func(*Gen) string {
		return "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	}},
	{"chinese password policy", func(*Gen) string {
		return "密码策略:至少 12 位,必须包含大小写字母和数字。\n密码在 1Password 的「HeMart QA」条目里。\n密码:见 1Password"
	}},
	{"package versions", func(*Gen) string {
		return "pinned react@18.3.1 and @types/node@20.14.2; pnpm 9.1.0; go 1.26.0"
	}},
	{"token counts", func(*Gen) string {
		return "max_tokens: 4096, token_count=12873, input_tokens: 20481\ntokenizer: unicode61 remove_diacritics 2"
	}},
	{"pem header without body", func(*Gen) string {
		return "the key file begins with " + PEMBegin("OPENSSH ") + " and must be chmod 600"
	}},
	{"pem with elided body", func(*Gen) string {
		return "```\n" + PEMBegin("RSA ") + "\n...\n" + PEMEnd("RSA ") + "\n```"
	}},
	{"1password references", func(*Gen) string {
		return ".env.op 里写的是 op://Dev/mysql-local/password 这种引用;DB_PASSWORD=op://Dev/mysql-local/password"
	}},
	{"csrf and secret names", func(*Gen) string {
		return "请求头带 X-CSRF-Token(从 /api/v1/admin/csrf 获取)\npassword_policy: min_length=12\nsecret_name: prod-db-2024\nprivate_key_id: 3f2a9c"
	}},
	{"slack docs example webhook", func(*Gen) string {
		return "format: https://hooks.slack.com/services/T" + strings.Repeat("0", 8) + "/B" + strings.Repeat("0", 8) + "/" + strings.Repeat("X", 24)
	}},
	{"kebab case after sk-", func(*Gen) string {
		return "use class sk-button-primary-large-variant-outline; the task-runner and disk-usage checks pass"
	}},
	{"timezone", func(*Gen) string {
		return "user timezone Asia/Shanghai; ASIA region servers in ap-east-1"
	}},
	{"jwt explained", func(*Gen) string {
		return "a JWT starts with eyJ because base64 of {\" is eyJ; header.payload.signature"
	}},
	{"templated secrets", func(*Gen) string {
		return "password: \"{{ vault_db_password }}\"\ntoken: ${{ secrets.GITHUB_TOKEN }}\napi_key: process.env.OPENAI_API_KEY\nauth: secrets.NPM_TOKEN_2"
	}},
	{"authorization placeholders", func(*Gen) string {
		return "Authorization: Bearer <token>\nAuthorization: Bearer $TOKEN\nAuthorization: token ${GH_TOKEN}"
	}},
	{"expiry and key names", func(g *Gen) string {
		return "token_expiry: 2026-01-01T00:00:00Z\napi_key_id: " + g.S(HexLower, 16) + "\nssh_key_path: ~/.ssh/id_ed25519\npublic_key: " + g.S(B64, 40)
	}},
	{"low-entropy human values", func(*Gen) string {
		return "password: Passw0rd\nDB_PASSWORD=summer2024\npassword = 12345678\npassword: hunter2"
	}},
	{"mailto and scoped packages", func(*Gen) string {
		return "mailto:ops@acme.io, [docs](https://npmjs.com/package/@acme/ui@2.1.0)"
	}},
	{"azure storage emulator", func(g *Gen) string {
		return "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + g.S(B64, 86) + "==;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;"
	}},
	{"prose about tokens and passwords", func(*Gen) string {
		return "The token is valid for 2 hours; the password is required on first login.\nThe secret was rotated on 2026-01-15 (see the runbook).\n" +
			"cache key: user:42:profile:v2; the key is 3600s; API key 见 1Password"
	}},
	{"calls and flags without values", func(*Gen) string {
		return "SECRET_KEY=base64decode(ENCODED_SECRET_2)\nexport GH_TOKEN=$(gh auth token)\nmysql --password --user=root\nuse --token-file ~/.config/tok"
	}},
	{"all-letter identifiers assigned", func(*Gen) string {
		return "DB_PASSWORD=hemart_dev\nsecret: prod-db\nauth_method: oauth2\ntoken: string | null"
	}},
}
