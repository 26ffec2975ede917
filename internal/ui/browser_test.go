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
// (testdata/session.jsonl; see internal/e2e TestRecordSessionLog): the
// memory list, a search with its reasons, a session's timeline, accepting
// a rule proposal (the file's kind: changes on disk) and a hand edit
// appearing without a reload. Screenshots go to the test's artifact
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
	compile := exec.Command(bin, "compile")
	compile.Env = env
	if out, err := compile.CombinedOutput(); err != nil {
		t.Fatalf("ocmem compile: %v\n%s", err, out)
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
	if rows != 7 || !strings.Contains(listText, "SQLite FTS5 default tokenizer cannot split Chinese text") {
		t.Errorf("memory list: %d rows, want 7:\n%s", rows, listText)
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

	// 3. A session's timeline from the recorded log.
	do("session timeline", chromedp.Navigate(base+"/sessions"), chromedp.WaitVisible(chromedp.CSS("#sessions a")),
		chromedp.Click(chromedp.CSS("#sessions a")), chromedp.WaitVisible(chromedp.CSS("#timeline")))
	timeline := text("#timeline")
	shot("session")
	for _, want := range []string{"Turn 1: bodies injected", "project:pitfalls/run-database-migrations-before-deploying",
		"memory_recall", "memory_remember", "tool called", "extraction remembered", "extraction candidate skipped", "duplicate",
		"extraction candidate refused", "fake/cheap", "Turn 4"} {
		if !strings.Contains(timeline, want) {
			t.Errorf("the timeline lacks %q", want)
		}
	}

	// 4. Accepting a rule proposal rewrites the file's kind.
	proposal := filepath.Join(project, "rules", "run-tests-before-push.md")
	accept := `tr[data-id="project:rules/run-tests-before-push"] button.accept`
	do("accept", chromedp.Navigate(base+"/rules"), chromedp.WaitVisible(chromedp.CSS(accept)),
		chromedp.Click(chromedp.CSS(accept)), chromedp.WaitVisible(chromedp.CSS("#done")))
	done := text("#done")
	shot("rules")
	if !strings.Contains(done, "accepted project:rules/run-tests-before-push") {
		t.Errorf("after accept the page says %q", done)
	}
	if data := readFile(t, proposal); !strings.Contains(data, "\nkind: rule\n") {
		t.Errorf("accept did not change kind: on disk:\n%s", data)
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
