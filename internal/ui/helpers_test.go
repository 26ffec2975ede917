package ui

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ocmem/ocmem/internal/engine"
)

// fakeToken is a GitHub-token-shaped string made at run time, so that no
// credential-shaped literal sits in the repository.
var fakeToken = "gh" + "p_" + "R4nd0mT0k3nV4lu3F0rT3st1ngQx9Zk7Wp2L"

// writeRoots writes testdata/roots.txtar under dir and returns the global
// and project roots.
func writeRoots(t testing.TB, dir string) (global, project string) {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", "roots.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		data := strings.ReplaceAll(string(f.Data), "@TOKEN@", fakeToken)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "global"), filepath.Join(dir, "project")
}

// fixedNow is the clock of the tests: 2025-12-01.
var fixedNow = time.UnixMilli(1764547200000)

type fixture struct {
	t       *testing.T
	s       *Server
	e       *engine.Engine
	ts      *httptest.Server
	c       *http.Client // holds the cookie after login
	global  string
	project string
}

// newFixture starts a viewer over the fixture roots and logs a client in.
func newFixture(t *testing.T, cfg Config) *fixture {
	t.Helper()
	return newFixtureTrust(t, cfg, nil)
}

// newFixtureTrust is newFixture with the user's record of accepted
// project rules (nil: every rule is in force).
func newFixtureTrust(t *testing.T, cfg Config, rt engine.RuleTrust) *fixture {
	t.Helper()
	g, p := writeRoots(t, t.TempDir())
	return newFixtureAt(t, cfg, rt, g, p)
}

// newFixtureAt is newFixtureTrust on the roots g and p as they are.
func newFixtureAt(t *testing.T, cfg Config, rt engine.RuleTrust, g, p string) *fixture {
	t.Helper()
	t.Setenv("OCMEM_CACHE_DIR", t.TempDir())
	e := engine.New(engine.Config{GlobalDir: g, ProjectDir: p, Now: func() time.Time { return fixedNow }, Trust: rt})
	if _, err := e.Compile(); err != nil { // ROOT.md and index.md, as a real root has them
		t.Fatal(err)
	}
	cfg.Engine = e
	cfg.Now = func() time.Time { return fixedNow }
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.recheckDelay = 0
	ts := httptest.NewUnstartedServer(nil)
	ts.Config.Handler = s.Handler(ts.Listener.Addr().String())
	ts.Start()
	t.Cleanup(func() { s.Close(); s.waitChecks(); ts.Close() })
	f := &fixture{t: t, s: s, e: e, ts: ts, global: g, project: p}
	f.c = f.login()
	return f
}

// login opens the URL with the token and returns a client holding the
// cookie it set.
func (f *fixture) login() *http.Client {
	f.t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(f.s.URL(f.ts.Listener.Addr().String()))
	if err != nil {
		f.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		f.t.Fatalf("login: status %d", resp.StatusCode)
	}
	return c
}

// get fetches a path with the logged-in client and returns status and body.
func (f *fixture) get(path string) (int, string) {
	f.t.Helper()
	resp, err := f.c.Get(f.ts.URL + path)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// post sends a form with the logged-in client, following no redirect.
func (f *fixture) post(path string, form url.Values, header http.Header) (int, string, http.Header) {
	f.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.ts.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header[k] = v
	}
	c := *f.c
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// raw sends a request with no cookie jar: the headers are exactly these.
func (f *fixture) raw(method, path string, header http.Header, body string) (int, string) {
	f.t.Helper()
	req, _ := http.NewRequest(method, f.ts.URL+path, strings.NewReader(body))
	for k, v := range header {
		req.Header[k] = v
	}
	if host := header.Get("Host"); host != "" {
		req.Host = host
	}
	// A timeout: a stream answered where a refusal was due must fail the
	// test, not hang it.
	c := &http.Client{Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, "read error: " + err.Error()
	}
	return resp.StatusCode, string(b)
}

// cookie is the session cookie header the logged-in client sends.
func (f *fixture) cookie() string {
	u, _ := url.Parse(f.ts.URL)
	var parts []string
	for _, c := range f.c.Jar.Cookies(u) {
		parts = append(parts, c.Name+"="+c.Value)
	}
	return strings.Join(parts, "; ")
}

func readFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
