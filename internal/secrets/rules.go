package secrets

import (
	"regexp"
	"slices"
	"strings"
)

// The rule set, and the policy behind it.
//
// Memories are Markdown committed to git, so a secret that gets in is a
// leak, and a false alarm is a refused write the model has to work around.
// Both cost, so every rule is either anchored on a shape that only secrets
// have, or needs the text itself to say "this is a secret" and the value
// to look random.
//
// Provider tokens (ghp_, glpat-, xoxb-, sk-ant-, AKIA, …) have a fixed
// prefix and a fixed alphabet and length. Most provider rules are
// generated from gitleaks' default config (gitleaks.go, rules_gitleaks.go,
// data/SOURCES.txt); the ones below are ocmem's own, for formats gitleaks
// lacks or where ocmem's policy differs. Token rules fire wherever they
// appear (a generated rule whose keyword names the provider needs that
// keyword on the secret's line),
// with one sanity check: the match must carry at least minTokenEntropy bits
// per character, which real tokens clear by a wide margin (measured on the
// generated tokens of the tests: 3.56 for SK + 32 hex digits, up to 5.9
// for long base64 ones) and which drops documentation fillers such as
// ghp_XXXX… or AKIAAAAA….
//
// Documentation examples are allowed everywhere: a match that contains
// "example" in any case (AWS documents AKIAIOSFODNN7EXAMPLE and a secret
// key ending in EXAMPLEKEY), a run of six identical characters (xxxxxx,
// ******, 000000), or a keyboard run (abcdefgh, 12345678) is taken for
// an illustration, not a credential. Random tokens contain none of these
// except with negligible probability (a 6-run in a 64-char hex token:
// about 6e-5). This test is for tokens only: a PEM block always holds
// runs (every OpenSSH key starts with a run of A), so a private key is a
// filler only when its body as a whole is (isPEMExample). An example
// keeps quiet the other rules that match the very same span, and nothing
// else: a real secret overlapping or containing an example is reported.
//
// Passwords in URLs (scheme://user:password@host) fire with no entropy
// test at all, for any scheme and any host, localhost included: a
// password is a password, and a weak one is still the user's. Only a
// placeholder is let through: ${VAR}, $VAR, %VAR%, {name}, <name>, *, x…,
// and the bare words password, pass, secret and friends, as is a URL to a
// host RFC 2606 reserves for documentation (https://abc:xyz@example.com).
// A URL with a user and no password (https://user@host,
// git@host:org/repo) is fine.
//
// The generic rule covers what has no recognisable shape: a value assigned
// to a secret-named key (password = "…", api_key: …, SECRET_TOKEN=…,
// client_secret, passwd, --password …, "the API key is …", 密码：…,
// 数据库密码为 …). The key decides first: its last word must name a
// secret (password, passwd, pwd, passphrase, secret, token, auth,
// credentials, pass after another word, or key after api/access/secret/
// private/…), so token_count, password_policy, secret_name, tokenizer,
// public_key and "--- PASS: TestX" never fire. Then the value must look
// like a credential, not like code or prose or a placeholder:
//
//   - at least minGenericLen (8) bytes of printable ASCII, one token;
//   - not a reference: $VAR, ${VAR}, %VAR%, {{…}}, <…>, a call f(…), a
//     dotted path (process.env.X, secrets.TOKEN), an UPPER_SNAKE name, a
//     file path, a URL;
//   - not a placeholder: changeme, your-…, xxx, ***, redacted, the words
//     password/secret/token themselves;
//   - not named like a secret itself, which makes it a variable:
//     PrivateKey: testRSA2048PrivateKey, Password: password16;
//   - a digit or a symbol besides _.-/ , so identifiers and words never
//     fire (this also lets through all-letter passwords, a miss we accept
//     as gitleaks does);
//   - at least minGenericEntropy (3.0) bits per character. An 8-byte value
//     reaches 3.0 only if all its bytes differ; random values from 62
//     symbols average 2.9 at 8 bytes, 3.4 at 12 and 3.8 at 16, and hex
//     ones 3.0 at 12 and 3.2 at 16 (measured over 10,000 draws), so
//     machine-made secrets of 12 bytes and more pass, while word-plus-digit
//     values such as summer2024 (2.92) or Passw0rd (2.75) do not. gitleaks
//     uses 3.5 with a 10-byte minimum; we go lower because memories quote
//     short human passwords, and the key-name test already removes the
//     noise that gitleaks' higher threshold is there for.
//
// The Authorization header rule needs minHeaderEntropy (3.0) over at least
// 12 bytes for the same reasons, after the same placeholder test.
//
// Every rule is tried only around its keywords (a byte-pair table finds
// all of them in one pass over the text): token rules make one anchored
// regexp attempt at each keyword, the others read the keyword's line.

const (
	minTokenEntropy   = 3.0
	minGenericLen     = 8
	minGenericEntropy = 3.0
	minHeaderEntropy  = 3.0
)

// tail ends a token whose alphabet includes - and _: the next byte must be
// outside the alphabet (\b does not work after a trailing - or _).
const tail = `(?:[^0-9A-Za-z_\-]|$)`

// rule is one detector. A regexp rule reports submatch 1 (or the first
// submatch that matched, when the pattern has alternatives) as the secret;
// a rule with find instead does its own matching around a keyword hit.
type rule struct {
	id, desc string
	keywords []string // a line must contain one of these to be tried
	fold     bool     // keywords are lower case and matched case-insensitively
	re       *regexp.Regexp
	lazy     *lazyRegexp // instead of re: compiled on first use
	// prefix says the match starts at the keyword, so re is tried once,
	// anchored, at each keyword hit not preceded by a word character.
	prefix bool
	// anyStart lets a prefix rule's match start right after a word
	// character (its pattern does not begin with \b).
	anyStart bool
	// minEntropy is the bits per byte the secret must carry. Zero means
	// minTokenEntropy for a regexp rule and no test for a find rule (which
	// tests what it needs itself); negative means no test.
	minEntropy float64
	// placeholders says the value is human-chosen (a password, a header
	// credential), so isPlaceholder's wider list applies.
	placeholders bool
	// valid is an extra test on the secret and the line it sits on.
	valid func(secret, line string) bool
	// allowed marks a known-harmless match (a published example); no rule
	// reports the same span, but what merely overlaps it is still reported.
	allowed func(secret, line string) bool
	// example replaces isExample for a rule whose matches are not random
	// tokens: it reports a documentation filler, which is not a secret
	// but, unlike isExample's, silences no other rule.
	example func(secret string) bool
	// find replaces re: it returns secret spans for the keyword hit at p.
	find func(text string, p, kwLen int) []span
	// group is the submatch that holds the secret; zero means the first
	// one that took part in the match, negative the whole match.
	group int
	// lines is how many lines after the keyword's a match may span.
	lines int
	// weight is what its regexp is charged per byte it reads (set by
	// init: ruleWeight).
	weight int
	// readsLine: a prefix rule whose pattern reads on along the line
	// right after its keyword ([^\n]*?), so each attempt is charged its
	// whole window (see budget).
	readsLine bool
	// skip drops a match the rule's allowlist names: it gets the secret,
	// the whole match and the text the rule was tried on.
	skip func(secret, match, line string) bool
}

type span struct{ start, end int }

func re(s string) *regexp.Regexp { return regexp.MustCompile(s) }

// rules in priority order: when two findings start at the same byte, the
// earlier rule wins (a GitHub token assigned to GITHUB_TOKEN is reported
// as a GitHub token, not as a generic secret). ocmem's own rules come
// first, then the rules generated from gitleaks' config, then the generic
// assignment rule, the least specific.
var rules = slices.Concat(ownRules, generatedRules(), broadRules, []rule{genericRule})

// ownRules are ocmem's hand-written rules, for formats where its policy
// differs from gitleaks' or that gitleaks does not cover.
var ownRules = []rule{
	{
		id: "aws-secret-access-key", desc: "AWS secret access key",
		keywords: []string{"secret_access", "secretaccess", "secret-access", "aws_secret", "aws-secret", "awssecret"},
		fold:     true,
		re:       re(`(?i)(?:aws[_-]?secret[_-]?(?:access[_-]?)?key|secret[_-]?access[_-]?key)["'` + "`" + `]?\s*(?::=|=>|=|:)\s*["'` + "`" + `]?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`),
	},
	{
		id: "gcp-service-account-key", desc: "Google Cloud service account private key",
		keywords: []string{`"private_key"`},
		find:     findServiceAccountKey,
		example:  isPEMExample,
	},
	{
		id: "google-oauth-token", desc: "Google OAuth access token",
		keywords: []string{"ya29."},
		re:       re(`\b(ya29\.[0-9A-Za-z_\-]{20,})`),
		prefix:   true,
	},
	{
		id: "azure-storage-key", desc: "Azure account key in a connection string",
		keywords: []string{"accountkey=", "sharedaccesskey="},
		fold:     true,
		re:       re(`(?i)(?:\bAccountKey=([A-Za-z0-9+/]{86}==)|\bSharedAccessKey=([A-Za-z0-9+/]{43}=))`),
		prefix:   true,
		// The storage emulator's key is published and only works locally.
		allowed: func(_, line string) bool { return strings.Contains(line, "devstoreaccount1") },
	},
	{
		id: "bitbucket-app-password", desc: "Bitbucket app password",
		keywords: []string{"ATBB"},
		re:       re(`\b(ATBB[0-9A-Za-z]{32})\b`),
		prefix:   true,
	},
	{
		id: "discord-webhook", desc: "Discord webhook URL",
		keywords: []string{"discord"},
		fold:     true,
		re:       re(`(https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_\-]{60,68})`),
	},
	{
		// The first part is a base64 user id, which starts with M, N or O.
		// The shape alone is too loose to run everywhere, so the line must
		// mention Discord or a bot.
		id: "discord-bot-token", desc: "Discord bot token",
		keywords: []string{"discord", "bot"},
		fold:     true,
		re:       re(`\b([MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40})` + tail),
	},
	{
		id: "telegram-bot-token", desc: "Telegram bot token",
		keywords: []string{":AA"},
		re:       re(`\b([0-9]{5,16}:AA[0-9A-Za-z_\-]{30,40})` + tail),
	},
	{
		id: "stripe-webhook-secret", desc: "Stripe webhook signing secret",
		keywords: []string{"whsec_"},
		re:       re(`\b(whsec_[0-9A-Za-z+/=]{24,})`),
		prefix:   true,
	},
	{
		id: "huggingface-token", desc: "Hugging Face access token",
		keywords: []string{"hf_"},
		re:       re(`\b(hf_[0-9A-Za-z]{30,40})\b`),
		prefix:   true,
	},
	{
		id: "dockerhub-pat", desc: "Docker Hub access token",
		keywords: []string{"dckr_"},
		re:       re(`\b(dckr_(?:pat|oat)_[0-9A-Za-z_\-]{24,})`),
		prefix:   true,
	},
	{
		id: "mailgun-api-key", desc: "Mailgun API key",
		keywords: []string{"key-"},
		re:       re(`\b(key-[0-9a-f]{32})\b`),
		prefix:   true,
	},
	{
		id: "mailchimp-api-key", desc: "Mailchimp API key",
		keywords: []string{"-us"},
		re:       re(`\b([0-9a-f]{32}-us[0-9]{1,2})\b`),
	},
	{
		id: "doppler-token", desc: "Doppler token",
		keywords: []string{"dp."},
		re:       re(`\b(dp\.(?:pt|st|sa|ct|scim|audit)\.[0-9A-Za-z]{40,44})\b`),
		prefix:   true,
	},
	{
		id: "tencent-secret-id", desc: "Tencent Cloud SecretId",
		keywords: []string{"AKID"},
		re:       re(`\b(AKID[0-9A-Za-z]{32})\b`),
		prefix:   true,
	},
	{
		id: "private-key", desc: "private key",
		keywords: []string{"-----BEGIN"},
		find:     findPrivateKey,
		example:  isPEMExample,
	},
	{
		// A password on a command line: sshpass -p, and the MySQL and
		// MariaDB clients' -pPASSWORD (a space after -p makes it prompt).
		id: "sshpass-password", desc: "password given to sshpass",
		keywords:     []string{"sshpass"},
		prefix:       true,
		fold:         true,
		re:           re(`(?i:\bsshpass)(?:[ \t]+-[a-oq-zA-Z][^ \t]*)*[ \t]+-p[ \t]*(?:'([^'\s]+)'|"([^"\s]+)"|([^\s'"]+))`),
		placeholders: true,
		minEntropy:   -1, // a password is a password
		valid:        func(s, _ string) bool { return cliPassword(s) },
	},
	{
		id: "mysql-password", desc: "password on a MySQL or MariaDB command line",
		keywords:     []string{"mysql", "mariadb"},
		prefix:       true,
		fold:         true,
		re:           re(`(?i:\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlsh|mariadb|mariadb-dump|mariadb-admin))\b[^\n]*?[ \t]-p(?:'([^'\s]+)'|"([^"\s]+)"|([^\s'"]+))`),
		readsLine:    true,
		placeholders: true,
		minEntropy:   -1,
		valid:        func(s, _ string) bool { return cliPassword(s) },
	},
	{
		// docker login -p PASSWORD (--password is the generic rule's;
		// --password-stdin reads it from elsewhere).
		id: "docker-login-password", desc: "password on a docker login command line",
		keywords:     []string{"docker"},
		prefix:       true,
		fold:         true,
		re:           re(`(?i:\bdocker)[ \t]+login\b[^\n]*?[ \t]-p[ \t]*(?:'([^'\s]+)'|"([^"\s]+)"|([^\s'"]+))`),
		placeholders: true,
		minEntropy:   -1,
		valid:        func(s, _ string) bool { return cliPassword(s) },
	},
	{
		// curl -u user:password and --user user:password; the password
		// is the secret (curl -u user alone prompts for it).
		id: "curl-user-password", desc: "password on a curl command line",
		keywords:     []string{"curl"},
		prefix:       true,
		fold:         true,
		re:           re(`(?i:\bcurl)\b[^\n]*?[ \t](?:-u|--user)(?:[ \t]*|=)(?:'[^'\s:]*:([^'\s]+)'|"[^"\s:]*:([^"\s]+)"|[^\s'":]*:([^\s'"]+))`),
		readsLine:    true,
		placeholders: true,
		minEntropy:   -1,
		valid:        func(s, _ string) bool { return cliPassword(s) },
	},
	{
		// A JSON Web Key's private part: "d" in an object with "kty".
		id: "jwk-private-key", desc: "private key in a JSON Web Key",
		keywords:   []string{`"d"`},
		find:       findJWKPrivate,
		minEntropy: minTokenEntropy,
	},
}

// findJWKPrivate reports the value of a JWK's "d" member: a base64url
// string of at least 22 characters (16 bytes), with "kty" within 2 KB.
func findJWKPrivate(text string, p, kwLen int) []span {
	i := skipSpace(text, p+kwLen)
	if i >= len(text) || text[i] != ':' {
		return nil
	}
	i = skipSpace(text, i+1)
	if i >= len(text) || text[i] != '"' {
		return nil
	}
	s := i + 1
	e := s
	for e < len(text) && e-s < 4096 && (isWordByte(text[e]) || text[e] == '-') {
		e++
	}
	if e-s < 22 || e >= len(text) || text[e] != '"' {
		return nil
	}
	if !strings.Contains(text[max(0, p-windowAfter):min(len(text), e+windowAfter)], `"kty"`) {
		return nil
	}
	return []span{{s, e}}
}

// cliPassword reports whether the word after -p can be a password rather
// than prose ("sshpass -p is insecure"): six bytes or more, or a digit or
// a symbol in it.
func cliPassword(s string) bool {
	if len(s) >= 6 {
		return true
	}
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) {
			return true
		}
	}
	return false
}

// broadRules are ocmem's rules for shapes wider than one provider's: they
// come after the generated rules, so a provider's own rule names a secret
// both find (an Anthropic sk-ant- key, a GitHub token used as a URL's
// password).
var broadRules = []rule{
	{
		// Also covers the many providers that copied the sk- shape
		// (OpenRouter, DeepSeek, Moonshot, …). Real keys mix cases and
		// digits; kebab-case words after "sk-" do not.
		id: "openai-api-key", desc: "OpenAI-style API key",
		keywords: []string{"sk-"},
		re:       re(`\b(sk-[0-9A-Za-z_\-]{32,})`),
		prefix:   true,
		valid:    func(s, _ string) bool { return hasUpperLowerDigit(s[3:]) },
	},
	{
		id: "url-password", desc: "password in a URL",
		keywords:     []string{"://"},
		find:         findURLPassword,
		placeholders: true,
		minEntropy:   -1, // a password is a password
	},
	{
		// A Go or MySQL data source name: user:password@tcp(host:3306)/db,
		// user:password@unix(/run/mysqld.sock)/db, user:password@/db. The
		// same policy as a URL's password: any value but a placeholder.
		id: "dsn-password", desc: "password in a database DSN",
		keywords:     []string{"@tcp(", "@tcp6(", "@unix(", "@/"},
		find:         findDSNPassword,
		placeholders: true,
		minEntropy:   -1,
	},
	{
		// A .pgpass line, host:port:database:user:password, as a word of
		// its own; the keyword is the port field (digits or *).
		id: "pgpass-password", desc: "password in a .pgpass line",
		keywords:     []string{":0", ":1", ":2", ":3", ":4", ":5", ":6", ":7", ":8", ":9", ":*"},
		find:         findPgpassPassword,
		placeholders: true,
		minEntropy:   -1,
		valid:        func(s, _ string) bool { return cliPassword(s) },
	},
	{
		id: "authorization-header", desc: "credential in an Authorization header",
		keywords:     []string{"authorization"},
		fold:         true,
		re:           re("(?i)\\bauthorization[\"'`]?\\s*[:=]\\s*[\"'`]?(?:bearer|basic|token)\\s+([A-Za-z0-9._~+/=\\-]{12,})"),
		prefix:       true,
		placeholders: true,
		minEntropy:   minHeaderEntropy,
	}}

// genericRule reports a value assigned to a secret-named key.
var genericRule = rule{
	id: "generic-secret", desc: "secret assigned to a secret-named key",
	keywords: []string{"pass", "pwd", "secret", "token", "key", "auth", "cred", "密码", "口令", "密钥", "秘钥", "令牌",
		// Password labels in other languages: Japanese, German, Spanish,
		// Russian, French.
		"パスワード", "kennwort", "contraseña", "contrasena", "пароль", "Пароль", "ПАРОЛЬ", "mot de passe"},
	fold: true,
	find: findAssignment,
}

// ---- private keys ----

var pemHeader = re(`-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----`)

// findPrivateKey reports one span per PEM block: from BEGIN to the end of
// the matching END line, or to the end of the first body line when the
// block was pasted truncated. A header with no base64 body after it ("the
// file starts with BEGIN … PRIVATE KEY") is prose, not a key.
func findPrivateKey(text string, p, _ int) []span {
	loc := pemHeader.FindStringIndex(text[p:min(len(text), p+80)])
	if loc == nil || loc[0] != 0 {
		return nil
	}
	if end, ok := pemBody(text, p+loc[1]); ok {
		return []span{{p, end}}
	}
	if end, ok := pemBodyFolded(text, p+loc[1]); ok {
		return []span{{p, end}}
	}
	return nil
}

// minPEMEntropy is the bits per character below which a PEM body is a
// filler (XXXX…, EXAMPLEKEY…, one line repeated). Keys are random bytes
// in base64: measured on keys made by ssh-keygen and openssl (the
// committed and fresh ones of secrettest), bodies carry 5.4 (OpenSSH
// ed25519, with its fixed preamble) to 6.0 bits (RSA), and the shortest,
// an openssl ed25519 key of 64 characters, 5.2.
const minPEMEntropy = 4.0

// isPEMExample reports a PEM block whose body is a filler. The test is on
// the body as a whole: every OpenSSH key holds runs of A and many DER keys
// hold digit or letter runs, so isExample's token test would take any real
// key for an example.
func isPEMExample(block string) bool {
	block = pemMarker.ReplaceAllString(block, " ")
	body := make([]byte, 0, len(block))
	for i := 0; i < len(block); i++ {
		if c := block[i]; isBase64(c) && c != '=' {
			body = append(body, c)
		}
	}
	return entropy(string(body)) < minPEMEntropy || strings.Contains(asciiLower(string(body)), "example")
}

// pemMarker is a BEGIN or END line of any PEM block.
var pemMarker = re(`-----(?:BEGIN|END)[ A-Z0-9]{0,60}-----`)

// findServiceAccountKey reports the private_key of a Google service
// account JSON file, a PEM block written with literal \n escapes.
func findServiceAccountKey(text string, p, kwLen int) []span {
	i := p + kwLen
	i = skipSpace(text, i)
	if i >= len(text) || text[i] != ':' {
		return nil
	}
	i = skipSpace(text, i+1)
	if i >= len(text) || text[i] != '"' {
		return nil
	}
	i++
	loc := pemHeader.FindStringIndex(text[i:min(len(text), i+80)])
	if loc == nil || loc[0] != 0 {
		return nil
	}
	if end, ok := pemBody(text, i+loc[1]); ok {
		return []span{{i, end}}
	}
	return nil
}

// pemBody looks past a PEM header at i for the base64 body, skipping
// whitespace, JSON or code string escapes (\n, quotes, +), Markdown quote
// markers and RFC 1421 header lines (Proc-Type:, Version:). It returns
// the end of the block (its END line, or its last base64 line when the
// END line is missing) and whether a body was found.
func pemBody(text string, i int) (int, bool) {
	const minBody = pemMinBody
	end := -1
	for n := 0; n < 64<<10/minBody; n++ { // up to a 64 KB block
		i = skipPEMJunk(text, i)
		if end >= 0 && strings.HasPrefix(text[i:], "-----END") {
			if m := strings.Index(text[i+8:min(len(text), i+8+64)], "-----"); m >= 0 {
				return i + 8 + m + 5, true
			}
			return end, true
		}
		j := i
		for j < len(text) && text[j] != '\n' && text[j] != '\\' && text[j] != '"' {
			j++
		}
		line := strings.TrimRight(text[i:j], " \t\r")
		switch {
		case line == "":
			return end, end >= 0
		case end < 0 && n < 8 && strings.Contains(line, ": "):
			// an encapsulated header before the body
		case base64Run(line) == len(line) && (end >= 0 || len(line) >= minBody):
			end = i + len(line)
		default:
			return end, end >= 0 // prose: the block was cut short
		}
		i = j
	}
	return end, end >= 0
}

// pemMinBody is the least base64 on the first body line of a PEM block:
// 40 bytes hold 30 bytes of key.
const pemMinBody = 40

// pemBodyFolded is pemBody for a block whose line breaks became spaces: a
// key pasted into a one-line field, or folded by a tool. The words after
// the header, on the same line, are the body: base64, the first at least
// pemMinBody long, up to the END marker or the first word that is not
// base64. Words with a colon or a comma before the body are encapsulated
// headers (Proc-Type: 4,ENCRYPTED).
func pemBodyFolded(text string, i int) (int, bool) {
	end := -1
	for n := 0; n < 64<<10/pemMinBody; n++ {
		i = skipSpace(text, i)
		if end >= 0 && strings.HasPrefix(text[i:], "-----END") {
			if m := strings.Index(text[i+8:min(len(text), i+8+64)], "-----"); m >= 0 {
				return i + 8 + m + 5, true
			}
			return end, true
		}
		j := i
		for j < len(text) && text[j] != ' ' && text[j] != '\t' && text[j] != '\n' && text[j] != '\r' {
			j++
		}
		word := text[i:j]
		switch {
		case word == "":
			return end, end >= 0
		case end < 0 && n < 8 && strings.ContainsAny(word, ":,"):
			// an encapsulated header before the body
		case base64Run(word) == len(word) && (end >= 0 || len(word) >= pemMinBody):
			end = j
		default:
			return end, end >= 0
		}
		i = j
	}
	return end, end >= 0
}

// skipPEMJunk skips what may sit between the lines of a PEM block quoted
// in Markdown, JSON or code.
func skipPEMJunk(text string, i int) int {
	for i < len(text) {
		switch c := text[i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '"' || c == '\'' || c == '+' || c == ',' || c == '>':
			i++
		case c == '\\' && i+1 < len(text) && (text[i+1] == 'n' || text[i+1] == 'r'):
			i += 2
		default:
			return i
		}
	}
	return i
}

func base64Run(s string) int {
	n := 0
	for n < len(s) && isBase64(s[n]) {
		n++
	}
	return n
}

func isBase64(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '='
}

func skipSpace(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	return i
}

// ---- passwords in URLs ----

// findURLPassword reads the URL around "://" at p: a scheme before it
// (RFC 3986: a letter, then letters, digits, + - .), then the authority's
// userinfo up to '@'. It reports the password when the userinfo has one
// (user:password@ or :password@).
func findURLPassword(text string, p, kwLen int) []span {
	s := p
	for s > 0 && isSchemeByte(text[s-1]) {
		s--
	}
	for s < p && !isLetter(text[s]) { // the scheme starts with a letter
		s++
	}
	if s == p || s > 0 && isWordByte(text[s-1]) && !isSchemeByte(text[s-1]) {
		return nil
	}
	i := p + kwLen
	colon := -1
	for j := i; j < len(text) && j-i < 512; j++ {
		switch c := text[j]; {
		case c == '@':
			if colon < 0 || colon+1 == j || documentationHost(text[j+1:]) {
				return nil // no password, or an RFC 2606 example
			}
			return []span{{colon + 1, j}}
		case c == ':':
			if colon < 0 {
				colon = j
			}
		case c == '#' && colon >= 0:
			// A raw # in a password, as people write them: the userinfo
			// goes on to its @.
		case c == '/' || c == '?' || c == '#' || c <= ' ' || strings.IndexByte("\"'<>`", c) >= 0:
			return nil // the authority ended without userinfo
		}
	}
	return nil
}

// findDSNPassword reads back from the '@' at p to the start of a DSN's
// userinfo (a space, a quote, a backtick, an angle bracket, a parenthesis,
// a '=' or a "://" before the user name) and reports what follows the
// user's colon. A password may hold ':' and '@' itself: the driver splits
// at the first colon and the last '@', and so does this. It reads back at
// most maxDSNInfo bytes, and stops at the parenthesis that ends a DSN's
// address, so DSNs run together do not read each other.
func findDSNPassword(text string, p, _ int) []span {
	s := p
	for s > 0 && p-s < maxDSNInfo && !dsnStop(text[s-1]) {
		s--
	}
	info := text[s:p]
	if i := strings.LastIndex(info, "://"); i >= 0 {
		s, info = s+i+3, info[i+3:]
	}
	colon := strings.IndexByte(info, ':')
	if colon < 0 {
		return nil // no password: user@tcp(host)/db
	}
	if eq := strings.LastIndexByte(info[:colon], '='); eq >= 0 {
		s, info, colon = s+eq+1, info[eq+1:], colon-eq-1 // DSN=user:password@…
	}
	if colon == 0 || colon+1 == len(info) || !isDSNUser(info[:colon]) {
		return nil
	}
	return []span{{s + colon + 1, p}}
}

// maxDSNInfo is the longest userinfo of a DSN read.
const maxDSNInfo = 256

// dsnStop reports the bytes that end a DSN's userinfo on its left.
func dsnStop(c byte) bool {
	return c <= ' ' || strings.IndexByte("\"'`<>()", c) >= 0
}

// isDSNUser reports a user name: word bytes, '.', '-', '$', '%', '{', '}'
// (a template's), nothing of prose or code.
func isDSNUser(u string) bool {
	for i := 0; i < len(u); i++ {
		if c := u[i]; !isKeyByte(c) && strings.IndexByte("$%{}", c) < 0 {
			return false
		}
	}
	return true
}

// maxPgpassField is the longest field of a .pgpass line read (a host name
// is at most 253 bytes).
const maxPgpassField = 256

// findPgpassPassword reads the word around the ':' at p as a .pgpass line
// whose port field starts after p: exactly five fields separated by
// unescaped colons, the port digits or *, the host a name, an address or
// *, none empty, the password not a placeholder. Each field is read at
// most once per colon around it, so a line of colons costs linear time.
func findPgpassPassword(text string, p, _ int) []span {
	// The host: back to the start of the word, through no colon.
	s := p
	for s > 0 && p-s <= maxPgpassField && !pgpassStop(text[s-1]) {
		if text[s-1] == ':' {
			return nil
		}
		s--
	}
	if s == p || !pgpassHost(text[s:p]) {
		return nil
	}
	var ends [4]int // the end of the port, database, user and password fields
	i := p + 1
	for f := range ends {
		start := i
		for i < len(text) && i-start <= maxPgpassField && !pgpassStop(text[i]) && text[i] != ':' {
			if text[i] == '\\' && i+1 < len(text) && !pgpassStop(text[i+1]) {
				i++ // an escaped colon or backslash
			}
			i++
		}
		if i == start {
			return nil
		}
		ends[f] = i
		if f < len(ends)-1 {
			if i >= len(text) || text[i] != ':' {
				return nil
			}
			i++
		}
	}
	if i < len(text) && !pgpassStop(text[i]) || !pgpassPort(text[p+1:ends[0]]) {
		return nil // a sixth field, or no port
	}
	return []span{{ends[2] + 1, ends[3]}}
}

// pgpassStop reports the bytes that end a word holding a .pgpass line.
func pgpassStop(c byte) bool {
	return c <= ' ' || strings.IndexByte("\"'`<>,;()[]{}|", c) >= 0
}

// pgpassHost reports a host field: *, or a host name or address with a
// letter or a dot in it (so "12:30:45:…" and "00:1a:…" are not lines).
func pgpassHost(h string) bool {
	if h == "*" {
		return true
	}
	letter, dot := false, false
	for i := 0; i < len(h); i++ {
		switch c := h[i]; {
		case isLetter(c):
			letter = true
		case c == '.':
			dot = true
		case '0' <= c && c <= '9' || c == '-' || c == '_':
		default:
			return false
		}
	}
	return dot || letter && len(h) >= 2
}

// pgpassPort reports a port field: * or a number of two to five digits.
func pgpassPort(port string) bool {
	return port == "*" || len(port) >= 2 && len(port) <= 5 && isDigits(port)
}

// documentationHost reports whether the host at the start of rest is
// reserved for documentation by RFC 2606 (example.com, .org, .net, and
// the .example and .invalid top-level domains). localhost is not: a
// password for a local database is still a password.
func documentationHost(rest string) bool {
	end := 0
	for end < len(rest) && (isSchemeByte(rest[end]) || rest[end] == '_') {
		end++
	}
	host := strings.TrimSuffix(asciiLower(rest[:end]), ".")
	for _, d := range []string{"example.com", "example.org", "example.net", "example", "invalid"} {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isSchemeByte(c byte) bool {
	return isLetter(c) || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'
}

// ---- the generic assignment rule ----

// findAssignment handles a keyword hit inside a key: it widens the hit to
// the whole key, checks that the key names a secret, finds the assignment
// operator and the value after it, and reports the value if it passes
// genericValue.
func findAssignment(text string, p, kwLen int) []span {
	ks, ke := p, p+kwLen
	// A keyword of one ASCII word is part of a key; one of several words
	// or of another script is a label ("mot de passe", "пароль"), taken
	// as it is.
	label := !isKeyWord(text[p : p+kwLen])
	if !label {
		ks, ke = widenKey(text, p, kwLen)
	}
	i, entry, ok := assignedAt(text, ks, ke)
	if !ok {
		return nil
	}
	if !label && (ke-ks > maxKeyLen || !secretKey(text[ks:ke]) && !proseKey(text, ks, ke)) {
		return nil
	}
	if ks > 1 && text[ks-1] == ':' && isWordByte(text[ks-2]) {
		return nil // a field in a format: "groupname:password:GID"
	}
	i = skipSpace(text, i)
	s, e, ok := value(text, i)
	if e < len(text) && text[e] != ' ' && text[e] != '\t' && text[e] != '\r' && text[e] != '\n' {
		entry = false // a .netrc token ends at a space: "password policy: …" is prose
	}
	if !ok || !genericValue(text[s:e]) && !(entry && netrcValue(text[s:e])) {
		return nil
	}
	return []span{{s, e}}
}

// assignedAt finds what assigns a value to the key text[ks:ke]: an
// operator after it (quotes and stars between allowed), a command-line
// flag's space (--password value), or a .netrc line's space (entry). i is
// where the value may start.
func assignedAt(text string, ks, ke int) (i int, entry, ok bool) {
	i = ke
	for n := 0; n < 3 && i < len(text) && strings.IndexByte("\"'`*", text[i]) >= 0; n++ {
		i++
	}
	j := skipSpace(text, i)
	if i, ok = operator(text, j); ok {
		return i, false, true
	}
	if text[ks] == '-' && j > ke && j < len(text) && text[j] != '-' {
		return j, false, true // a command-line flag: --password value
	}
	if j > ke && j < len(text) {
		if ok, entry = netrcLine(text, ks, ke); ok {
			return j, entry, true // .netrc: machine host login user password value
		}
	}
	return 0, false, false
}

// netrcValue reports whether the value of a .netrc entry's password is
// one: a password is a password, as in a URL, unless it is a placeholder
// or a reference; a short word is prose ("password is").
func netrcValue(v string) bool {
	return !isPlaceholder(v) && !isReference(v) && cliPassword(v)
}

// isKeyWord reports whether a keyword is made of key bytes only.
func isKeyWord(kw string) bool {
	for i := 0; i < len(kw); i++ {
		if !isKeyByte(kw[i]) {
			return false
		}
	}
	return true
}

// widenKey widens a keyword hit to the identifier around it, no further
// than a key may be long (maxKeyLen): a run of key bytes read whole at
// each of its keywords cost its length squared.
func widenKey(text string, p, kwLen int) (ks, ke int) {
	ks, ke = p, p+kwLen
	for ks > 0 && p-ks <= maxKeyLen && isKeyByte(text[ks-1]) {
		ks--
	}
	for ke < len(text) && ke-p <= maxKeyLen && isKeyByte(text[ke]) {
		ke++
	}
	return ks, ke
}

// maxKeyLen is the longest key the assignment rule reads.
const maxKeyLen = 64

// netrcLine reports whether the key at ks..ke is the password of a .netrc
// entry: "password" or "passwd" followed by a space, on a line that names
// a machine, a login or the default entry before it, or that starts with
// it (an entry written over several lines). entry says the entry is
// certain: its line, or the line before, names the machine, login or
// default entry.
func netrcLine(text string, ks, ke int) (ok, entry bool) {
	if k := asciiLower(text[ks:ke]); k != "password" && k != "passwd" || text[ke] != ' ' && text[ke] != '\t' {
		return false, false
	}
	ls := strings.LastIndexByte(text[:ks], '\n') + 1
	before := asciiLower(text[ls:ks])
	if strings.TrimSpace(before) == "" {
		if ls == 0 {
			return true, false
		}
		prev := strings.TrimLeft(asciiLower(text[strings.LastIndexByte(text[:ls-1], '\n')+1:ls-1]), " \t>")
		for _, w := range []string{"machine ", "login ", "default"} {
			if strings.HasPrefix(prev, w) {
				return true, true
			}
		}
		return true, false
	}
	for _, w := range []string{"machine ", "login ", "default "} {
		if strings.HasPrefix(before, w) || strings.Contains(before, " "+w) || strings.Contains(before, "\t"+w) {
			return true, true
		}
	}
	return false, false
}

// proseKey reports whether a bare "key" follows a word that makes it a
// secret, as in "API key: …" or "the access key is …".
func proseKey(text string, ks, ke int) bool {
	if !strings.EqualFold(text[ks:ke], "key") || ks < 2 || text[ks-1] != ' ' {
		return false
	}
	ws := ks - 1
	for ws > 0 && isKeyByte(text[ws-1]) {
		ws--
	}
	words := splitWords(text[ws : ks-1])
	return len(words) > 0 && keyQualifiers[words[len(words)-1]]
}

func isKeyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'
}

// cjkOperators are the non-ASCII assignment operators: full-width colon
// and equals sign, 是/为 and Japanese は ("is").
var cjkOperators = []string{"：", "＝", "是", "为", "為", "は"}

// operator reads an assignment operator at i: = : := => or a CJK one. A
// comparison (==, ::) is not one; prose is: "the password is: …", "the
// token was …".
func operator(text string, i int) (int, bool) {
	if i >= len(text) {
		return 0, false
	}
	j := i
	switch c := text[i]; {
	case c == ':' || c == '=':
		j = i + 1
		if j < len(text) && (c == ':' && text[j] == '=' || c == '=' && text[j] == '>') {
			j++
		}
	case c == 'i' || c == 'w':
		for _, verb := range []string{"is", "was"} {
			if strings.HasPrefix(text[i:], verb) && len(text) > i+len(verb) && (text[i+len(verb)] == ' ' || text[i+len(verb)] == ':') {
				j = i + len(verb)
				if text[j] == ':' {
					j++
				}
				return j, true
			}
		}
		return 0, false
	case c >= 0x80:
		for _, op := range cjkOperators {
			if strings.HasPrefix(text[i:], op) {
				j = i + len(op)
				break
			}
		}
		if j == i {
			return 0, false
		}
	default:
		return 0, false
	}
	if j < len(text) && (text[j] == '=' || text[j] == ':') {
		return 0, false
	}
	return j, true
}

// value returns the span of the assigned value at i: the inside of a
// quoted string on the same line, or a run of printable ASCII up to a
// space, a quote, a delimiter or a non-ASCII byte (so "密码：在 1Password
// 里" has no value). Trailing sentence punctuation is dropped. A quoted
// value with a space in it is prose, and an unterminated quote more
// likely closes a string than opens one; both are refused.
func value(text string, i int) (int, int, bool) {
	if i >= len(text) {
		return 0, 0, false
	}
	if q := text[i]; q == '"' || q == '\'' || q == '`' {
		end := i + 1
		for end < len(text) && end-i < 512 && text[end] != q && text[end] != '\n' {
			end++
		}
		if end < len(text) && text[end] == q && !strings.ContainsAny(text[i+1:end], " \t") {
			return i + 1, end, true
		}
		// Prose, or the quote closes a string the key was in:
		// "PWD="+dir.
		return 0, 0, false
	}
	end := i
	for end < len(text) && end-i < 512 {
		c := text[end]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"'`,;<>()[]{}", c) >= 0 {
			break
		}
		end++
	}
	if end < len(text) && text[end] == '(' && identifier.MatchString(text[i:end]) {
		return 0, 0, false // a call: base64decode(…), os.Getenv(…)
	}
	for end > i && strings.IndexByte(".:!?", text[end-1]) >= 0 {
		end--
	}
	return i, end, end > i
}

// secretKey reports whether a key's last word names a secret: DB_PASSWORD,
// dbPassword, PGPASSWORD, api_key, X-Api-Key, client_secret, SECRET_KEY_BASE,
// authToken. Words that only qualify the value's encoding or a numeric
// suffix (_BASE, _VALUE, _B64, _2) are skipped first.
func secretKey(key string) bool {
	words := splitWords(key)
	for len(words) > 1 && (fillerWords[words[len(words)-1]] || isDigits(words[len(words)-1])) {
		words = words[:len(words)-1]
	}
	if len(words) == 0 {
		return false
	}
	last := words[len(words)-1]
	if exactSecretWords[last] {
		// "pass" alone is too common ("--- PASS: TestX" in test output);
		// DB_PASS and --pass are fine.
		return last != "pass" || len(words) > 1 || strings.HasPrefix(key, "-")
	}
	for _, suf := range secretSuffixes {
		if strings.HasSuffix(last, suf) {
			return true
		}
	}
	return last == "key" && len(words) > 1 && keyQualifiers[words[len(words)-2]]
}

var (
	exactSecretWords = set("pass", "pwd", "auth", "apikey", "secretkey", "privatekey", "accesskey", "authkey", "masterkey", "signingkey", "encryptionkey")
	// A word ending in one of these names a secret: PGPASSWORD, authtoken.
	secretSuffixes = []string{"password", "passwd", "passphrase", "secret", "token", "credential", "credentials", "creds",
		"passwort", "kennwort", "contrasena"}
	keyQualifiers = set("api", "access", "secret", "private", "auth", "master", "encryption", "signing", "client", "account", "app", "license", "service", "session", "storage", "subscription", "webhook", "hmac", "jwt", "admin", "consumer", "root", "shared")
	fillerWords   = set("base", "value", "str", "string", "raw", "plain", "plaintext", "b64", "base64", "hex", "bytes", "data")
)

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// splitWords splits an identifier into lower-case words at _ . - and at
// case and letter/digit changes: "X-Api-Key" and "xAPIKey" give [x api key].
func splitWords(key string) []string {
	var words []string
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, strings.ToLower(key[start:end]))
		}
		start = -1
	}
	class := func(c byte) int {
		switch {
		case 'a' <= c && c <= 'z':
			return 1
		case 'A' <= c && c <= 'Z':
			return 2
		case '0' <= c && c <= '9':
			return 3
		}
		return 0
	}
	for i := 0; i < len(key); i++ {
		c := class(key[i])
		if c == 0 {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := class(key[i-1])
		switch {
		case prev == 1 && c == 2, // camelCase
			prev == 3 && c != 3, prev != 3 && c == 3, // letters and digits
			prev == 2 && c == 2 && i+1 < len(key) && class(key[i+1]) == 1: // APIKey
			flush(i)
			start = i
		}
	}
	flush(len(key))
	return words
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

var (
	// dottedPath is a member access such as process.env.API_KEY or
	// secrets.NPM_TOKEN.
	dottedPath = re(`^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)+$`)
	// identifier is a possibly qualified name, such as a function's.
	identifier = re(`^[A-Za-z_$][A-Za-z0-9_$.]*$`)
	// smallNumber is a numeric literal that fits in 64 bits, such as a
	// constant's value (SIOCGLIFTOKEN = -0x3f879678). Longer hex, such as
	// a 0x-prefixed wallet key, is still tested.
	smallNumber = re(`^[-+]?(?:0[xX][0-9a-fA-F]{1,16}|[0-9]{1,20})$`)
	// envName is an environment variable name such as OPENAI_API_KEY.
	envName = re(`^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$`)
	// digest is a content hash named by its algorithm (sha256:…, md5-…,
	// as Docker, OCI and package managers write them): the hash of public
	// data, not a credential, whatever the key before it says.
	digest = re(`^(?i:sha(?:1|224|256|384|512)|sha3-(?:224|256|384|512)|sha512-256|md5|blake2[bs]?|blake3|xxh(?:32|64|128|3)?|crc32c?)[:-][0-9a-f]{8,128}$`)
)

// genericValue reports whether a value assigned to a secret-named key
// looks like a credential; see the policy at the top of this file.
func genericValue(v string) bool {
	if len(v) < minGenericLen || isPlaceholder(v) || isReference(v) || namesSecret(v) {
		return false
	}
	var lower, upper, digit, symbol bool
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case 'a' <= c && c <= 'z':
			lower = true
		case 'A' <= c && c <= 'Z':
			upper = true
		case '0' <= c && c <= '9':
			digit = true
		case c == '_' || c == '.' || c == '-' || c == '/':
		default:
			symbol = true
		}
	}
	if !digit && !symbol {
		return false // a word or an identifier
	}
	classes := 0
	for _, b := range []bool{lower, upper, digit, symbol} {
		if b {
			classes++
		}
	}
	return classes >= 2 && entropy(v) >= minGenericEntropy
}

// namesSecret reports whether a value is itself named like a secret, so
// it is a variable holding one: PrivateKey: testRSA2048PrivateKey,
// Password: password16, "encryptionKey": "encryptionKey1024". The cost is
// missing a random value that happens to spell "key" (about 0.3% of
// 32-byte base62 values; hex never does).
func namesSecret(v string) bool {
	l := asciiLower(v)
	for _, w := range []string{"key", "secret", "passw", "token", "cred"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// isReference reports whether a value points at a secret instead of
// being one: a variable, a template, a call, a path or a URL.
func isReference(v string) bool {
	switch v[0] {
	case '$', '%', '{', '[', '(', '<', '/', '~', '.', '&', '*', '@', '+':
		return true
	}
	return strings.Contains(v, "://") || smallNumber.MatchString(v) || digest.MatchString(v) ||
		dottedPath.MatchString(v) || envName.MatchString(v)
}

func hasUpperLowerDigit(s string) bool {
	var u, l, d bool
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z':
			l = true
		case 'A' <= c && c <= 'Z':
			u = true
		case '0' <= c && c <= '9':
			d = true
		}
	}
	return u && l && d
}
