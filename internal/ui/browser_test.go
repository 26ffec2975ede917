package ui

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ocmem/ocmem/internal/testenv"
)

// TestBrowser drives `ocmem ui` in a real headless Chromium over the fixture
// roots and a session log recorded from a real OpenCode session
// (testdata/session.jsonl; see internal/e2e/extraction TestRecordSessionLog): the
// memory list, a search with its reasons, the sessions and a session's
// timeline (following the log as serve appends to it), the rules of both
// roots with ROOT.md's, accepting a rule proposal (the file's kind:
// changes on disk) and trusting the repository, and a hand edit appearing
// without a reload. The screenshots in README.md and docs/ are these. Screenshots go to the test's artifact
// directory:
//
//	go test ./internal/ui -run TestBrowser -artifacts -outputdir /tmp/ocmem-ui
//
// Without a browser the test is skipped, except under CI=true, where a
// missing browser fails it (internal/testenv). OCMEM_CHROMIUM names the browser to use.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	browser := findChromium()
	if browser == "" {
		testenv.Missing(t, "no Chromium found (looked for $OCMEM_CHROMIUM, chromium, chromium-browser, google-chrome); install Debian's chromium package (apt-get install chromium) to run the browser test")
	}
	arts := t.ArtifactDir()
	bin := buildOcmem(t)
	dir := t.TempDir()
	global, project := writeRoots(t, dir)
	logPath := filepath.Join(dir, "ocmem.log")
	if err := os.WriteFile(logPath, []byte(readFile(t, filepath.Join("testdata", "session.jsonl"))), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "OCMEM_GLOBAL="+global, "OCMEM_PROJECT="+project, "OCMEM_LOG="+logPath,
		"OCMEM_CACHE_DIR="+filepath.Join(dir, "cache"), "HOME="+filepath.Join(dir, "home"), "XDG_CACHE_HOME="+filepath.Join(dir, "home", ".cache"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "home", ".config"))
	// Hard rules in each root's ROOT.md, as a person writes them.
	for dir, rule := range map[string]string{global: "- Never rewrite published history.", project: "- Keep CHANGELOG.md up to date."} {
		if err := os.WriteFile(filepath.Join(dir, "ROOT.md"), []byte("# Memory\n\n## Hard rules\n\n"+rule+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	compile := exec.Command(bin, "compile")
	compile.Env = env
	if out, err := compile.CombinedOutput(); err != nil {
		t.Fatalf("ocmem compile: %v\n%s", err, out)
	}
	// A project rule the user accepted, then changed by a pull: the rules
	// page shows it with a diff.
	useMake := filepath.Join(project, "rules", "use-make.md")
	rule := "---\nid: rules/use-make\nkind: rule\nsummary: Build with make\n---\nRun make, not go build.\n"
	if err := os.WriteFile(useMake, []byte(rule), 0o644); err != nil {
		t.Fatal(err)
	}
	acceptCmd := exec.Command(bin, "accept", "rules/use-make")
	acceptCmd.Env = env
	if out, err := acceptCmd.CombinedOutput(); err != nil {
		t.Fatalf("ocmem accept: %v\n%s", err, out)
	}
	if err := os.WriteFile(useMake, []byte(strings.Replace(rule, "Run make, not go build.", "Run make check, not go build.", 1)), 0o644); err != nil {
		t.Fatal(err)
	}

	// ocmem ui: its first line of output is the URL with the token.
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "ui", "--no-open")
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("ocmem ui did not stop on interrupt")
		}
	}()
	first, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the URL: %v; stderr: %s", err, stderr.String())
	}
	url := strings.TrimSpace(first)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(url, "/?token=") {
		t.Fatalf("first line %q is not http://127.0.0.1:PORT/?token=…", url)
	}
	base := url[:strings.Index(url, "/?token=")]

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(browser),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()
	// Start the browser on the long-lived context: the first action's
	// context is the browser's lifetime.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting %s: %v", browser, err)
	}

	deadline := func() (context.Context, context.CancelFunc) { return context.WithTimeout(bctx, 90*time.Second) }
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, scancel := deadline()
		defer scancel()
		if err := chromedp.Do(sctx, steps...); err != nil {
			fctx, fcancel := context.WithTimeout(bctx, 10*time.Second)
			defer fcancel()
			html, _ := chromedp.Run(fctx, chromedp.OuterHTML(chromedp.CSS("body")))
			if png, err := chromedp.Run(fctx, chromedp.FullScreenshot(100)); err == nil {
				os.WriteFile(filepath.Join(arts, "failed.png"), png, 0o644)
			}
			t.Fatalf("%s: %v\nocmem ui stderr: %s\npage: %s", what, err, stderr.String(), html)
		}
	}
	text := func(sel string) string {
		t.Helper()
		return value(t, bctx, sel, chromedp.Text(chromedp.CSS(sel)))
	}
	count := func(sel string) int {
		t.Helper()
		return value(t, bctx, sel, chromedp.Evaluate[int](fmt.Sprintf("document.querySelectorAll(%q).length", sel)))
	}
	shot := func(name string) {
		t.Helper()
		png := value(t, bctx, "screenshot "+name, chromedp.FullScreenshot(100))
		if err := os.WriteFile(filepath.Join(arts, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// 1. The memory list, opened with the token URL as a user would.
	do("memory list", chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#memories")),
		chromedp.WaitVisible(chromedp.CSS("#live.on"))) // the live stream is open
	rows, listText := count("#memories tr[data-id]"), text("#memories")
	shot("memories")
	if rows != 8 || !strings.Contains(listText, "SQLite FTS5 default tokenizer cannot split Chinese text") {
		t.Errorf("memory list: %d rows, want 8 (the fixture and rules/use-make):\n%s", rows, listText)
	}
	if strings.Contains(listText, fakeToken) {
		t.Error("the memory list shows the token")
	}
	if loc := value(t, bctx, "location", chromedp.Location()); strings.Contains(loc, "token") {
		t.Errorf("the token stays in the address bar: %s", loc)
	}

	// 2. Search: typed into the form, with each hit's reasons.
	do("search", chromedp.Navigate(base+"/search"), chromedp.WaitVisible(chromedp.CSS("#q")),
		chromedp.SendKeys(chromedp.CSS("#q"), "sqlite full-text search"),
		chromedp.Submit(chromedp.CSS("#q")), chromedp.WaitVisible(chromedp.CSS("#inject-hits")))
	reasons, hitsText := count("#inject-hits .reason"), text("#inject-hits")
	shot("search")
	if reasons == 0 || !strings.Contains(hitsText, "pitfalls/sqlite-cjk-tokenizer") || !strings.Contains(hitsText, "body given") {
		t.Errorf("search: %d reasons shown:\n%s", reasons, hitsText)
	}

	// 3. The sessions, each by its title and first message, and one
	// session's timeline from the recorded log: turn by turn, the message,
	// what memory gave and why, the tool calls and what extraction did.
	do("sessions", chromedp.Navigate(base+"/sessions"), chromedp.WaitVisible(chromedp.CSS("#sessions a")))
	list := text("#sessions")
	shot("sessions")
	// At 1280 px a session's last activity is one line, not a date
	// broken over two, even beside a long first message (set here, as a
	// long message would fill the cell).
	if n := value(t, bctx, "wrapped dates", chromedp.Evaluate[int](`document.querySelector("#sessions .summary.first").textContent = "“" + "the deploy failed again after the migration ".repeat(12) + "”";
		[...document.querySelectorAll("#sessions tbody td:nth-child(2)")].filter(td => {
		const r = document.createRange(); r.selectNodeContents(td); return r.getClientRects().length > 1 }).length`)); n != 0 {
		t.Errorf("%d session dates wrap at 1280 px", n)
	}
	if !strings.Contains(list, "“the deploy failed again SCENARIO-UI”") {
		t.Errorf("the session list lacks the first message:\n%s", list)
	}
	do("session timeline", chromedp.Click(chromedp.CSS("#sessions a")), chromedp.WaitVisible(chromedp.CSS("#timeline")),
		chromedp.WaitVisible(chromedp.CSS("#live.on")))
	timeline := text("#timeline")
	shot("session")
	for _, want := range []string{"Turn 1", "the deploy failed again SCENARIO-UI", "project:pitfalls/run-database-migrations-before-deploying",
		"body given", "The model called memory_recall", "The model called memory_remember", "The rule waits for you",
		"The model used OpenCode's read tool.", "Extraction wrote project:pitfalls/integration-tests-need-docker-running",
		"Extraction left out", "duplicate", "Extraction refused", "fake/cheap", "Turn 4", "thanks, that fixed it SCENARIO-UI"} {
		if !strings.Contains(timeline, want) {
			t.Errorf("the timeline lacks %q", want)
		}
	}
	for _, gone := range []string{"msg_", "system injected"} {
		if strings.Contains(timeline, gone) {
			t.Errorf("the timeline shows the transport line %q", gone)
		}
	}
	if n := strings.Count(timeline, "extraction transport"); n > 1 {
		t.Errorf("the transport line is shown %d times", n)
	}
	// While OpenCode runs serve appends to the log: the open page shows
	// the new line without a reload.
	sid := value(t, bctx, "session id", chromedp.Evaluate[string](`new URLSearchParams(location.search).get("id")`))
	value(t, bctx, "mark the page", chromedp.Evaluate[string](`window.__marker = "same page"`))
	lf, err := os.OpenFile(logPath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(lf, `{"time":"2026-12-01T16:00:00Z","level":"INFO","msg":"tool called","tool":"LIVE-TOOL","session":%q,"call":"c9"}`+"\n", sid)
	lf.Close()
	value(t, bctx, "live log", chromedp.Poll[bool](`document.getElementById("timeline").textContent.includes("LIVE-TOOL")`,
		chromedp.WithPollingTimeout(20*time.Second)))
	if marker := value(t, bctx, "marker", chromedp.Evaluate[string](`window.__marker`)); marker != "same page" {
		t.Error("the session page was reloaded, not updated in place")
	}

	// 4. Rules: both roots' hard rules, ROOT.md's included; a proposal's
	// own page has Accept; Accept on the rules page rewrites the file's
	// kind; Trust this repository asks first, then puts the project's
	// rules in force.
	proposal := filepath.Join(project, "rules", "run-tests-before-push.md")
	do("proposal page", chromedp.Navigate(base+"/memory?scope=project&id=rules/run-tests-before-push"), chromedp.WaitVisible(chromedp.CSS("#rule #accept")))
	accept := `#proposals tr[data-id="project:rules/run-tests-before-push"] button.accept`
	do("rules", chromedp.Navigate(base+"/rules"), chromedp.WaitVisible(chromedp.CSS(accept)))
	inForce, untrusted, changed := text("#rules"), text("#untrusted"), text("#changed")
	shot("rules")
	if !strings.Contains(changed, "-   Run make, not go build.") || !strings.Contains(changed, "+   Run make check, not go build.") {
		t.Errorf("the changed rule lacks its diff:\n%s", changed)
	}
	if !strings.Contains(inForce, "Never rewrite published history.") || !strings.Contains(inForce, "rules/no-force-push") {
		t.Errorf("the rules in force lack the global ROOT.md's or a rule:\n%s", inForce)
	}
	if !strings.Contains(untrusted, "Keep CHANGELOG.md up to date.") {
		t.Errorf("the project's ROOT.md rule is not listed as not in force:\n%s", untrusted)
	}
	do("accept", chromedp.Click(chromedp.CSS(accept)), chromedp.WaitVisible(chromedp.CSS("#done")))
	if done := text("#done"); !strings.Contains(done, "accepted project:rules/run-tests-before-push ("+proposal+")") {
		t.Errorf("after accept the page says %q", done)
	}
	if data := readFile(t, proposal); !strings.Contains(data, "\nkind: rule\n") {
		t.Errorf("accept did not change kind: on disk:\n%s", data)
	}
	do("trust", chromedp.Click(chromedp.CSS("#trust-link")), chromedp.WaitVisible(chromedp.CSS("#confirm-trust")))
	if pending := text("#trust-pending"); !strings.Contains(pending, "Keep CHANGELOG.md up to date.") {
		t.Errorf("the confirmation does not list what trusting accepts:\n%s", pending)
	}
	do("confirm trust", chromedp.Click(chromedp.CSS("#confirm-trust")), chromedp.WaitVisible(chromedp.CSS("#done")))
	if done := text("#done"); !strings.Contains(done, "trusted ") || !strings.Contains(done, "Keep CHANGELOG.md up to date.") {
		t.Errorf("after trust the page says %q", done)
	}
	if inForce := text("#rules"); !strings.Contains(inForce, "Keep CHANGELOG.md up to date.") || !strings.Contains(inForce, "rules/use-make") {
		t.Errorf("the project's ROOT.md rule is not in force after trust:\n%s", inForce)
	}

	// 5. A hand edit appears without a reload.
	canary := filepath.Join(project, "decisions", "deploy-canary.md")
	do("open a memory", chromedp.Navigate(base+"/memory?scope=project&id=decisions/deploy-canary"),
		chromedp.WaitVisible(chromedp.CSS("#live.on")))
	value(t, bctx, "mark the page", chromedp.Evaluate[string](`window.__marker = "same page"`))
	edited := strings.Replace(readFile(t, canary), "Deploy with a canary at 10 percent first", "Deploy with a canary at 5 percent first", 1)
	if err := os.WriteFile(canary, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	value(t, bctx, "live update", chromedp.Poll[bool](`document.getElementById("summary") !== null && document.getElementById("summary").textContent.includes("5 percent")`,
		chromedp.WithPollingTimeout(20*time.Second)))
	shot("live")
	if marker := value(t, bctx, "marker", chromedp.Evaluate[string](`window.__marker`)); marker != "same page" {
		t.Error("the page was reloaded, not updated in place")
	}
}

// value runs an action that returns a value, failing the test on error.
func value[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	v, err := chromedp.Run(sctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// findChromium returns a Chromium or Chrome binary, or "".
func findChromium() string {
	if p := os.Getenv("OCMEM_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// buildOcmem builds the command into a temporary directory.
func buildOcmem(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ocmem")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/ocmem")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
