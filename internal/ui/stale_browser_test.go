package ui

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ocmem/ocmem/internal/testenv"
)

// TestBrowserStale drives `ocmem ui`, run in a git repository, in a real
// headless Chromium: a memory whose anchored symbol a commit renamed shows
// a "gone" badge in the list, and the "stale only" filter, ticked and
// submitted as a person does, leaves it alone. The screenshot goes to the
// test's artifact directory (see TestBrowser).
func TestBrowserStale(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	browser := findChromium()
	if browser == "" {
		testenv.Missing(t, "no Chromium found (looked for $OCMEM_CHROMIUM, chromium, chromium-browser, google-chrome)")
	}
	arts := t.ArtifactDir()
	bin := buildOcmem(t)
	global, project := staleRepo(t)
	home := t.TempDir()
	env := append(os.Environ(), "OCMEM_GLOBAL="+global, "OCMEM_PROJECT="+project, "OCMEM_LOG="+filepath.Join(home, "ocmem.log"),
		"OCMEM_CACHE_DIR="+filepath.Join(home, "cache"), "HOME="+home, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "ui", "--no-open")
	cmd.Dir = filepath.Dir(project) // the worktree whose code the anchors name
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
	base := url[:strings.Index(url, "/?token=")]

	actx, acancel := chromedp.NewExecAllocator(ctx, chromedp.ExecPath(browser), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting %s: %v", browser, err)
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, scancel := context.WithTimeout(bctx, 90*time.Second)
		defer scancel()
		if err := chromedp.Do(sctx, steps...); err != nil {
			html, _ := chromedp.Run(bctx, chromedp.OuterHTML(chromedp.CSS("body")))
			t.Fatalf("%s: %v\nocmem ui stderr: %s\npage: %s", what, err, stderr.String(), html)
		}
	}
	count := func(sel string) int {
		t.Helper()
		return value(t, bctx, sel, chromedp.Evaluate[int]("document.querySelectorAll("+jsString(sel)+").length"))
	}

	do("memory list", chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#memories")))
	// The badge comes with the checks, which run after the first view.
	for end := time.Now().Add(60 * time.Second); count("#memories .tag.stale.gone") == 0; {
		if time.Now().After(end) {
			t.Fatalf("no gone badge after a minute: %s", value(t, bctx, "list", chromedp.Text(chromedp.CSS("#memories"))))
		}
		time.Sleep(500 * time.Millisecond)
		do("memory list again", chromedp.Navigate(base+"/memories"), chromedp.WaitVisible(chromedp.CSS("#memories")))
	}
	if rows, gone := count("#memories tr[data-id]"), count("#memories .tag.stale.gone"); rows != 2 || gone != 1 {
		t.Errorf("list: %d rows, %d gone badges; want 2 and 1", rows, gone)
	}
	do("stale only", chromedp.Click(chromedp.CSS("#stale-only")), chromedp.Submit(chromedp.CSS("#stale-only")))
	// The box is checked before the form's page loads: wait for the
	// filtered page itself, or the screenshot races its navigation.
	for end := time.Now().Add(60 * time.Second); !strings.Contains(value(t, bctx, "location", chromedp.Location()), "stale=1"); {
		if time.Now().After(end) {
			t.Fatal("the filtered page did not load within a minute")
		}
		time.Sleep(200 * time.Millisecond)
	}
	do("filtered list", chromedp.WaitVisible(chromedp.CSS("#stale-only:checked")), chromedp.WaitVisible(chromedp.CSS("#memories")))
	png := value(t, bctx, "screenshot", chromedp.FullScreenshot(100))
	if err := os.WriteFile(filepath.Join(arts, "stale.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	ids := value(t, bctx, "rows", chromedp.Evaluate[[]string](`[...document.querySelectorAll("#memories tr[data-id]")].map(r => r.dataset.id)`))
	if len(ids) != 1 || ids[0] != "project:facts/port-comes-listenport" {
		t.Errorf("stale only: rows %v, want the gone memory alone", ids)
	}
}

// jsString quotes s for JavaScript.
func jsString(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }
