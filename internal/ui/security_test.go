package ui

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCheckAddr(t *testing.T) {
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:0", true},
		{"127.0.0.1:8080", true},
		{"0.0.0.0:8080", false},
		{":8080", false},
		{"localhost:8080", false},
		{"[::]:8080", false},
		{"192.168.1.2:80", false},
		{"127.0.0.1", false},
		{"127.0.0.1:99999", false},
	} {
		if err := CheckAddr(tc.addr); (err == nil) != tc.ok {
			t.Errorf("CheckAddr(%q) = %v, want ok=%v", tc.addr, err, tc.ok)
		}
	}
}

func TestTokenRequired(t *testing.T) {
	f := newFixture(t, Config{})
	for _, tc := range []struct {
		name, path string
		header     http.Header
		want       int
	}{
		{"no token", "/memories", nil, http.StatusUnauthorized},
		{"no token on an asset", "/static/app.js", nil, http.StatusUnauthorized},
		{"no token on events", "/events", nil, http.StatusUnauthorized},
		{"wrong token", "/?token=" + strings.Repeat("0", 64), nil, http.StatusUnauthorized},
		{"wrong cookie", "/memories", http.Header{"Cookie": {"ocmem_ui_" + f.port() + "=" + strings.Repeat("0", 64)}}, http.StatusUnauthorized},
		{"cookie of another port", "/memories", http.Header{"Cookie": {"ocmem_ui_1=" + f.s.token}}, http.StatusUnauthorized},
		{"the session token in a URL", "/?token=" + f.s.token, nil, http.StatusUnauthorized},
		{"right token", strings.TrimPrefix(f.s.URL(f.ts.Listener.Addr().String()), f.ts.URL), nil, http.StatusSeeOther},
		{"right cookie", "/memories", http.Header{"Cookie": {f.cookie()}}, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := f.raw("GET", tc.path, tc.header, "")
			if code != tc.want {
				t.Fatalf("status %d, want %d; body %q", code, tc.want, body)
			}
			if code == http.StatusUnauthorized && strings.Contains(body, "memories") {
				t.Errorf("a refused request shows content: %q", body)
			}
		})
	}
}

func (f *fixture) port() string {
	u, _ := url.Parse(f.ts.URL)
	return u.Port()
}

func TestTokenSetsStrictCookieAndLeavesURL(t *testing.T) {
	f := newFixture(t, Config{})
	req, _ := http.NewRequest("GET", f.s.URL(f.ts.Listener.Addr().String()), nil)
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); strings.Contains(loc, "token") {
		t.Errorf("redirect keeps the token in the address: %q", loc)
	}
	cs := resp.Cookies()
	if len(cs) != 1 || !cs[0].HttpOnly || cs[0].SameSite != http.SameSiteStrictMode || cs[0].Value != f.s.token {
		t.Errorf("cookie = %+v, want one HttpOnly SameSite=Strict cookie with the session token", cs)
	}
	if resp.Header.Get("Referrer-Policy") != "same-origin" {
		t.Errorf("Referrer-Policy = %q", resp.Header.Get("Referrer-Policy"))
	}
}

// TestURLCodesWorkOnce: the URL `ocmem ui` opens in a browser goes
// through argv, which every local user reads (ps), so it holds a one-time
// code, not the session's token: the first request exchanges it for the
// cookie, and the same URL then opens nothing; the browser's code also
// expires. Earlier the session token itself was in xdg-open's argv, and
// worked for as long as the viewer ran.
func TestURLCodesWorkOnce(t *testing.T) {
	f := newFixture(t, Config{})
	now := fixedNow
	f.s.cfg.Now = func() time.Time { return now }
	addr := f.ts.Listener.Addr().String()
	open := func(u string) (int, string) {
		t.Helper()
		code, _ := f.raw("GET", strings.TrimPrefix(u, f.ts.URL), nil, "")
		return code, u
	}
	printed, browser, late := f.s.URL(addr), f.s.OpenURL(addr), f.s.OpenURL(addr)
	if strings.Contains(printed+browser, f.s.token) || printed == browser {
		t.Fatalf("URLs %q and %q hold the session token or the same code", printed, browser)
	}
	for _, tc := range []struct {
		url  string
		want int
	}{{browser, http.StatusSeeOther}, {browser, http.StatusUnauthorized}, {printed, http.StatusSeeOther}, {printed, http.StatusUnauthorized}} {
		if code, u := open(tc.url); code != tc.want {
			t.Errorf("%s: status %d, want %d", u, code, tc.want)
		}
	}
	now = now.Add(OpenCodeTTL + time.Second)
	if code, _ := open(late); code != http.StatusUnauthorized {
		t.Errorf("an expired browser code: status %d, want 401", code)
	}
}

// TestTokenRedirectStaysOnSite: the redirect that drops the token from
// the address goes to a path of the viewer, never to another site: a
// request for //evil.example/ went to the protocol-relative
// //evil.example/ (an open redirect behind the token).
func TestTokenRedirectStaysOnSite(t *testing.T) {
	f := newFixture(t, Config{})
	addr := f.ts.Listener.Addr().String()
	for _, tc := range []struct{ path, want string }{
		{"//evil.example/", "/evil.example"},
		{"//evil.example/x?a=1", "/evil.example/x?a=1"},
		{"/%2F%2Fevil.example", "/evil.example"},
		{"/%5Cevil.example", "/"},
		{"/search?q=deploy", "/search?q=deploy"},
	} {
		code := strings.TrimPrefix(f.s.URL(addr), f.ts.URL+"/?")
		sep := "?"
		if strings.Contains(tc.path, "?") {
			sep = "&"
		}
		// A raw request line: a client library would read "//evil.example"
		// as a host, as a browser does with a link to it.
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "GET %s%s%s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", tc.path, sep, code, addr)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		conn.Close()
		loc := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusSeeOther || loc != tc.want {
			t.Errorf("%s: status %d, Location %q; want 303 to %q", tc.path, resp.StatusCode, loc, tc.want)
		}
	}
}

func TestTokensDifferPerRun(t *testing.T) {
	a, _ := New(Config{Engine: newEngine(t)})
	b, _ := New(Config{Engine: newEngine(t)})
	if a.token == b.token || a.csrf == b.csrf || a.token == a.csrf || len(a.token) != 64 {
		t.Errorf("tokens not random per run: %q %q %q", a.token, b.token, a.csrf)
	}
}

func TestHostChecked(t *testing.T) {
	f := newFixture(t, Config{})
	for _, tc := range []struct {
		host string
		want int
	}{
		{"evil.example:" + f.port(), http.StatusForbidden}, // DNS rebinding
		{"evil.example", http.StatusForbidden},
		{"127.0.0.1:1", http.StatusForbidden},
		{"127.0.0.1", http.StatusForbidden},
		{"localhost:" + f.port(), http.StatusOK},
		{"127.0.0.1:" + f.port(), http.StatusOK},
	} {
		code, _ := f.raw("GET", "/memories", http.Header{"Host": {tc.host}, "Cookie": {f.cookie()}}, "")
		if code != tc.want {
			t.Errorf("Host %q: status %d, want %d", tc.host, code, tc.want)
		}
	}
}

func TestOriginChecked(t *testing.T) {
	f := newFixture(t, Config{})
	rule := filepath.Join(f.project, "rules", "run-tests-before-push.md")
	form := url.Values{"csrf": {f.s.csrf}, "scope": {"project"}, "id": {"rules/run-tests-before-push"}}.Encode()
	for _, tc := range []struct {
		name   string
		header http.Header
		want   int
	}{
		{"foreign origin", http.Header{"Origin": {"http://evil.example"}}, http.StatusForbidden},
		{"null origin", http.Header{"Origin": {"null"}}, http.StatusForbidden},
		{"other port", http.Header{"Origin": {"http://127.0.0.1:1"}}, http.StatusForbidden},
		{"https of the same host", http.Header{"Origin": {"https://127.0.0.1:" + f.port()}}, http.StatusForbidden},
		{"cross-site fetch", http.Header{"Sec-Fetch-Site": {"cross-site"}}, http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.header.Clone()
			h.Set("Cookie", f.cookie())
			if code, _ := f.raw("GET", "/memories", h, ""); code != tc.want {
				t.Errorf("GET: status %d, want %d", code, tc.want)
			}
			h.Set("Content-Type", "application/x-www-form-urlencoded")
			if code, _ := f.raw("POST", "/accept", h, form); code != tc.want {
				t.Errorf("POST: status %d, want %d", code, tc.want)
			}
			if !strings.Contains(readFile(t, rule), "kind: rule-proposal") {
				t.Fatal("a refused request changed the file")
			}
		})
	}
	h := http.Header{"Origin": {"http://127.0.0.1:" + f.port()}, "Cookie": {f.cookie()}}
	if code, _ := f.raw("GET", "/memories", h, ""); code != http.StatusOK {
		t.Errorf("own origin: status %d, want 200", code)
	}
}

func TestPostNeedsCSRF(t *testing.T) {
	f := newFixture(t, Config{})
	rule := filepath.Join(f.project, "rules", "run-tests-before-push.md")
	before := readFile(t, rule)
	ref := url.Values{"scope": {"project"}, "id": {"rules/run-tests-before-push"}}
	for _, tc := range []struct {
		name string
		csrf []string
	}{
		{"missing", nil},
		{"empty", []string{""}},
		{"wrong", []string{strings.Repeat("a", 64)}},
		{"the auth token instead", []string{f.s.token}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			form := url.Values{"scope": ref["scope"], "id": ref["id"]}
			if tc.csrf != nil {
				form["csrf"] = tc.csrf
			}
			for _, path := range []string{"/accept", "/reject", "/forget", "/trust"} {
				code, _, _ := f.post(path, form, nil)
				if code != http.StatusForbidden {
					t.Errorf("POST %s: status %d, want 403", path, code)
				}
			}
			if got := readFile(t, rule); got != before {
				t.Fatal("a refused POST changed the file")
			}
		})
	}
	// With the CSRF token in the query string instead of the body.
	code, _, _ := f.post("/accept?csrf="+f.s.csrf, ref, nil)
	if code != http.StatusForbidden {
		t.Errorf("CSRF token in the query: status %d, want 403", code)
	}
}

func TestStateChangesArePOSTOnly(t *testing.T) {
	f := newFixture(t, Config{})
	for _, p := range []string{"/accept?scope=project&id=rules/run-tests-before-push", "/reject?scope=project&id=rules/run-tests-before-push"} {
		if code, _ := f.get(p); code != http.StatusMethodNotAllowed {
			t.Errorf("GET %s: status %d, want 405", p, code)
		}
	}
	// GET /forget only asks.
	code, body := f.get("/forget?scope=project&id=decisions/deploy-canary")
	if code != http.StatusOK || !strings.Contains(body, `name="confirm" value="yes"`) {
		t.Fatalf("forget confirmation: %d %q", code, body)
	}
	if _, err := os.Stat(filepath.Join(f.project, "decisions", "deploy-canary.md")); err != nil {
		t.Fatal("GET /forget deleted the memory")
	}
	for _, m := range []string{"PUT", "DELETE", "PATCH"} {
		code, _ := f.raw(m, "/forget", http.Header{"Cookie": {f.cookie()}}, "")
		if code != http.StatusMethodNotAllowed {
			t.Errorf("%s /forget: status %d, want 405", m, code)
		}
	}
}

func TestPathsOutsideRootsRefused(t *testing.T) {
	f := newFixture(t, Config{})
	outside := filepath.Join(filepath.Dir(f.project), "outside.md")
	os.WriteFile(outside, []byte("---\nid: x/outside\nkind: fact\nsummary: outside\n---\nsecret plans\n"), 0o644)
	for _, id := range []string{"../outside", "../../etc/passwd", "/etc/passwd", `facts\..\..\outside`, "facts/../../outside", "C:/x/y", "facts/x\x00y", ""} {
		q := url.Values{"scope": {"project"}, "id": {id}}
		code, body := f.get("/memory?" + q.Encode())
		if code != http.StatusBadRequest || strings.Contains(body, "secret plans") {
			t.Errorf("GET /memory id %q: status %d, want 400", id, code)
		}
		q.Set("csrf", f.s.csrf)
		q.Set("confirm", "yes")
		for _, p := range []string{"/forget", "/accept", "/reject"} {
			if code, _, _ := f.post(p, q, nil); code != http.StatusBadRequest {
				t.Errorf("POST %s id %q: status %d, want 400", p, id, code)
			}
		}
	}
	if _, err := os.Stat(outside); err != nil {
		t.Fatal("the file outside the roots was removed")
	}
	if code, _ := f.get("/memory?scope=elsewhere&id=facts/broken"); code != http.StatusBadRequest {
		t.Errorf("unknown scope: status %d, want 400", code)
	}
}

func TestSecretsNeverRendered(t *testing.T) {
	f := newFixture(t, Config{})
	for _, p := range []string{
		"/memories",
		"/memories?q=deploy",
		"/memory?scope=project&id=facts/legacy-deploy-token",
		"/search?q=deploy+bot+token",
		"/forget?scope=project&id=facts/legacy-deploy-token",
		"/rules",
	} {
		code, body := f.get(p)
		if code != http.StatusOK {
			t.Fatalf("%s: status %d", p, code)
		}
		if strings.Contains(body, fakeToken) || strings.Contains(body, fakeToken[8:]) {
			t.Errorf("%s shows the token", p)
		}
	}
	_, body := f.get("/memory?scope=project&id=facts/legacy-deploy-token")
	if !strings.Contains(body, fakeToken[:4]+"*") {
		t.Errorf("the masked token is not shown: %s", body)
	}
}

func TestMarkdownIsEscaped(t *testing.T) {
	f := newFixture(t, Config{})
	_, body := f.get("/memory?scope=project&id=pitfalls/sqlite-cjk-tokenizer")
	for _, bad := range []string{"<script>document.title", "javascript:alert"} {
		if strings.Contains(body, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	for _, good := range []string{"<strong>unicode61</strong>", `<code class="language-sql">`, `href="https://sqlite.org/fts5.html"`} {
		if !strings.Contains(body, good) {
			t.Errorf("the rendered body lacks %q", good)
		}
	}
	if csp := func() string {
		resp, _ := f.c.Get(f.ts.URL + "/memories")
		resp.Body.Close()
		return resp.Header.Get("Content-Security-Policy")
	}(); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("CSP = %q", csp)
	}
}

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, notWant string }{
		{"token " + fakeToken + " end", fakeToken},
		{"line one\nghp token: " + fakeToken + "\nthird", fakeToken},
		{"two " + fakeToken + " and " + fakeToken, fakeToken},
		{"中文 " + fakeToken, fakeToken},
	} {
		got := redact(tc.in)
		if strings.Contains(got, tc.notWant) {
			t.Errorf("redact(%q) = %q", tc.in, got)
		}
	}
	if got := redact("nothing secret here"); got != "nothing secret here" {
		t.Errorf("redact changed clean text: %q", got)
	}
}

// TestMarkdownMasksWhatItRenders: a token that Markdown source spells
// with escapes or character references is a token on the page; the page
// shows it masked.
func TestMarkdownMasksWhatItRenders(t *testing.T) {
	for name, body := range map[string]string{
		"backslash escape":    "CI uses ghp\\_" + fakeToken[4:] + " for now",
		"decimal reference":   "CI uses ghp&#95;" + fakeToken[4:],
		"hex reference":       "CI uses ghp&#x5f;" + fakeToken[4:],
		"named reference":     "CI uses ghp&lowbar;" + fakeToken[4:],
		"in a list item":      "- deploy: `ghp`\\_" + fakeToken[4:],
		"split by raw html":   "CI uses " + fakeToken[:12] + "<b></b>" + fakeToken[12:],
		"in emphasis":         "CI uses *ghp\\_" + fakeToken[4:] + "*",
		"escaped in a header": "## ghp\\_" + fakeToken[4:],
	} {
		t.Run(name, func(t *testing.T) {
			got := string(markdown(body))
			if strings.Contains(got, fakeToken[4:16]) || strings.Contains(got, fakeToken[16:]) {
				t.Errorf("markdown(%q) shows the token: %s", body, got)
			}
		})
	}
	if got := string(markdown("snake\\_case and Tom &amp; Jerry")); !strings.Contains(got, "snake_case and Tom &amp; Jerry") {
		t.Errorf("markdown changed a clean body: %s", got)
	}
}

// TestRedactCached: a body shown again is not scanned again (a body packed
// with the scanner's keywords costs a scan's whole budget, and the viewer
// once paid it on every view); what is shown stays redacted. The cached
// result is swapped for a marker after the first view: the next views
// show the marker only if they take it from the cache.
func TestRedactCached(t *testing.T) {
	body := strings.Repeat("notes on the deploy, nothing else\n", 20) + "token " + fakeToken + "\n"
	first := string(markdown(body))
	if strings.Contains(first, fakeToken) || !strings.Contains(first, "notes on the deploy") {
		t.Fatalf("markdown shows the token, or not the body: %s", first)
	}
	const marker = "CACHED-REDACTION"
	key := sha256.Sum256([]byte(body))
	redactCache.mu.Lock()
	if _, ok := redactCache.m[key]; !ok {
		redactCache.mu.Unlock()
		t.Fatal("the redacted body was not cached")
	}
	redactCache.m[key] = marker
	redactCache.mu.Unlock()
	t.Cleanup(func() {
		redactCache.mu.Lock()
		delete(redactCache.m, key)
		redactCache.mu.Unlock()
	})
	for range 2 {
		if got := string(markdown(body)); !strings.Contains(got, marker) {
			t.Fatalf("a view after the first scanned the body again: %s", got)
		}
	}
}

// Reasons name commands in backticks, shown as code: the text is escaped
// first, so only the code markup is the viewer's.
func TestCodeSpansEscape(t *testing.T) {
	for in, want := range map[string]string{
		"`ocmem trust` puts it in force":     "<code>ocmem trust</code> puts it in force",
		"`<script>x</script>` & <b>bold</b>": "<code>&lt;script&gt;x&lt;/script&gt;</code> &amp; &lt;b&gt;bold&lt;/b&gt;",
		"an odd ` backtick <i>":              "an odd ` backtick &lt;i&gt;",
		"token `" + fakeToken + "`":          "token <code>" + fakeToken[:4] + strings.Repeat("*", len(fakeToken)-4) + "</code>",
	} {
		if got := string(codeSpans(in)); got != want {
			t.Errorf("codeSpans(%q) = %q, want %q", in, got, want)
		}
	}
}
