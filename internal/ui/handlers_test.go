package ui

import (
	"bufio"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/rank"
	"github.com/ocmem/ocmem/internal/render"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/trust"
)

func newEngine(t testing.TB) *engine.Engine {
	g, p := writeRoots(t, t.TempDir())
	return engine.New(engine.Config{GlobalDir: g, ProjectDir: p})
}

// ids lists the data-id attributes of a page's rows, in order.
func ids(body string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`data-id="([^"]+)"`).FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestMemoriesFilter(t *testing.T) {
	f := newFixture(t, Config{})
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", []string{"global:preferences/prefer-pnpm", "global:rules/no-force-push", "project:decisions/deploy-blue-green",
			"project:decisions/deploy-canary", "project:facts/legacy-deploy-token", "project:pitfalls/sqlite-cjk-tokenizer",
			"project:rules/run-tests-before-push"}},
		{"scope=global", []string{"global:preferences/prefer-pnpm", "global:rules/no-force-push"}},
		{"kind=decision", []string{"project:decisions/deploy-blue-green", "project:decisions/deploy-canary"}},
		{"category=rules&scope=project", []string{"project:rules/run-tests-before-push"}},
		{"q=TRIGRAM", []string{"project:pitfalls/sqlite-cjk-tokenizer"}},
		{"q=" + url.QueryEscape("installing packages"), []string{"global:preferences/prefer-pnpm"}},
		{"q=nothing-like-this", nil},
	} {
		code, body := f.get("/memories?" + tc.query)
		if code != http.StatusOK {
			t.Fatalf("%s: status %d", tc.query, code)
		}
		if got := ids(body); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: rows %v, want %v", tc.query, got, tc.want)
		}
	}
}

// The kind filter offers every kind, rule proposals among them, whether
// or not a memory of that kind is there.
func TestMemoriesKindFilterOffersEveryKind(t *testing.T) {
	g, p := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(p, "facts"), 0o755)
	os.WriteFile(filepath.Join(p, "facts", "kafka.md"), []byte("---\nid: facts/kafka\nkind: fact\nsummary: kafka retention is seven days\n---\nPer partition.\n"), 0o644)
	f := newFixtureAt(t, Config{}, nil, g, p)
	_, body := f.get("/memories")
	want := "<option>rule</option><option>preference</option><option>decision</option><option>pitfall</option><option>fact</option><option>rule-proposal</option>"
	if !strings.Contains(body, want) {
		t.Errorf("kind filter does not offer every kind, in order (%s):\n%s", want, body)
	}
}

func TestMemoriesPaginate(t *testing.T) {
	f := newFixture(t, Config{PageSize: 3})
	var all []string
	next := "/memories"
	for page := 1; next != ""; page++ {
		_, body := f.get(next)
		got := ids(body)
		if len(got) == 0 || len(got) > 3 {
			t.Fatalf("page %d: %d rows", page, len(got))
		}
		all = append(all, got...)
		next = ""
		if m := regexp.MustCompile(`href="([^"]+)" rel="next"`).FindStringSubmatch(body); m != nil {
			next = strings.ReplaceAll(m[1], "&amp;", "&")
		}
		if page > 5 {
			t.Fatal("pages do not end")
		}
	}
	if len(all) != 7 {
		t.Errorf("pages hold %d memories, want 7: %v", len(all), all)
	}
	if _, body := f.get("/memories?page=99"); !strings.Contains(body, "page 3 of 3") {
		t.Error("a page past the end is not clamped to the last")
	}
}

func TestMemoryDetail(t *testing.T) {
	f := newFixture(t, Config{})
	// Two counted recalls, as a session's memory_recall would make.
	for range 2 {
		if _, err := f.e.Recall("canary deploy", engine.RecallOptions{Limit: 1, Count: true}); err != nil {
			t.Fatal(err)
		}
	}
	_, body := f.get("/memory?scope=project&id=decisions/deploy-canary")
	for _, want := range []string{
		"Deploy with a canary at 10 percent first",
		"<tr><th>recall hits</th><td>2</td></tr>",
		filepath.Join(f.project, "decisions", "deploy-canary.md"),
		"<tr><th>supersedes</th><td>decisions/deploy-blue-green</td></tr>",
		`id=decisions%2fdeploy-blue-green">decisions/deploy-blue-green</a>`, // the chain
		"<strong>decisions/deploy-canary</strong>",
		"<tr><th>created</th><td>2025-11-24 16:00</td></tr>",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("detail lacks %q", want)
		}
	}
	// Decay today, as the ranker computes it.
	decay := rank.Decay(fixedNow.UnixMilli(), 1764000000000, 0, false)
	if decay > 0.99 || !strings.Contains(body, fmt.Sprintf("<tr><th>decay today</th><td>%.3f</td></tr>", decay)) {
		t.Errorf("decay %.3f not shown: %s", decay, body)
	}
	if code, _ := f.get("/memory?scope=global&id=decisions/deploy-canary"); code != http.StatusNotFound {
		t.Errorf("a memory of the other root: status %d, want 404", code)
	}
}

func TestProblemsBesideFiles(t *testing.T) {
	f := newFixture(t, Config{})
	f.get("/memories") // starts the check
	f.s.waitChecks()
	_, body := f.get("/memories")
	if !strings.Contains(body, `id="orphans"`) || !strings.Contains(body, filepath.Join(f.project, "facts", "broken.md")) {
		t.Errorf("the unparsable file is not listed among problems:\n%s", body)
	}
	if strings.Contains(body, "checking files") {
		t.Error("still checking after the check ended")
	}
	// A broken link in a memory that loads is shown beside it.
	p := filepath.Join(f.project, "decisions", "deploy-canary.md")
	os.WriteFile(p, []byte(strings.Replace(readFile(t, p), "supersedes: decisions/deploy-blue-green", "supersedes: decisions/deploy-gone", 1)), 0o644)
	f.s.Changed(f.project, p)
	f.get("/memories")
	f.s.waitChecks()
	_, body = f.get("/memory?scope=project&id=decisions/deploy-canary")
	if !strings.Contains(body, `id="issues"`) || !strings.Contains(body, "broken-link") {
		t.Errorf("the broken link is not shown beside its memory:\n%s", body)
	}
	if !strings.Contains(body, `decisions/deploy-gone <span class="tag bad">missing</span>`) {
		t.Errorf("the chain does not show the missing link:\n%s", body)
	}
	_, body = f.get("/memories?kind=decision")
	if !strings.Contains(body, `<span class="tag bad">1 problem</span>`) {
		t.Errorf("the list does not mark the memory with a problem:\n%s", body)
	}
}

func TestSearchIsInjectAndRecall(t *testing.T) {
	f := newFixture(t, Config{})
	msg := "sqlite full-text search for Chinese"
	state := filepath.Join(f.project, ".state.json")
	_, statErr := os.Stat(state)
	code, body := f.get("/search?q=" + url.QueryEscape(msg))
	if code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	inj, err := f.e.Inject(msg, engine.InjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := f.e.Recall(msg, engine.RecallOptions{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(inj.Hits) == 0 || len(inj.Given) == 0 {
		t.Fatal("the fixture message matches nothing")
	}
	section := func(id string) string {
		i := strings.Index(body, `id="`+id+`"`)
		j := strings.Index(body[i:], "</ol>")
		return body[i : i+j]
	}
	for _, tc := range []struct {
		id   string
		hits []engine.Hit
	}{{"inject-hits", inj.Hits}, {"recall-hits", hits}} {
		sec := section(tc.id)
		if n := strings.Count(sec, "<li><div>"); n != len(tc.hits) {
			t.Errorf("%s: %d hits shown, engine gives %d", tc.id, n, len(tc.hits))
		}
		for _, h := range tc.hits {
			if !strings.Contains(sec, fmt.Sprintf("%s</a> <span class=\"tag\">%s</span> score <strong>%.3f</strong>", h.ID, h.Kind, h.Score)) {
				t.Errorf("%s: hit %s with score %.3f not shown", tc.id, h.Key(), h.Score)
			}
			// Each term that adds to the score is shown as the memory
			// writes it, not as its stem; a term adding nothing is not
			// shown at all.
			for _, r := range h.Reasons.Terms {
				shown := strings.Contains(sec, "word <code>"+render.AsWritten(h, r.Term)+"</code>")
				if r.Score > 0 && !shown {
					t.Errorf("%s: reason word %q (term %q) of %s not shown", tc.id, render.AsWritten(h, r.Term), r.Term, h.Key())
				}
			}
		}
		if strings.Contains(sec, "→ 0.000") {
			t.Errorf("%s: a term that adds nothing is shown:\n%s", tc.id, sec)
		}
	}
	// "chines" is the stem; the memory writes "Chinese".
	if strings.Contains(body, "<code>chines</code>") || !strings.Contains(body, "<code>Chinese</code>") {
		t.Error("a reason shows the stem, not the word as written")
	}
	if !strings.Contains(body, fmt.Sprintf("<strong>Bodies</strong>: %d of 1200 characters", len([]rune(inj.Bodies)))) {
		t.Error("the bodies tier's size and budget are not shown")
	}
	if !strings.Contains(body, "body given") {
		t.Error("no hit is marked as given")
	}
	// A preview counts nothing.
	if _, err := os.Stat(state); statErr != nil && err == nil {
		t.Error("the search wrote recall counters")
	}
	if st := (store.Root{Scope: store.Project, Dir: f.project}).ReadState(); len(st.Hits) != 0 {
		t.Errorf("the search counted hits: %v", st.Hits)
	}
}

// A message nothing matches gives a sentence that says so, not a
// numbered list with one "nothing matched" item.
func TestSearchNothingMatched(t *testing.T) {
	f := newFixture(t, Config{})
	_, body := f.get("/search?q=" + url.QueryEscape("zebra quokka"))
	if strings.Contains(body, "<li class=\"muted\">nothing matched</li>") || strings.Contains(body, `id="inject-hits"`) {
		t.Errorf("an empty injection is shown as a list:\n%s", body)
	}
	if !strings.Contains(body, `<p class="muted" id="inject-none">Nothing would be added to this message: `) ||
		!strings.Contains(body, `id="recall-none"`) {
		t.Errorf("no sentence says nothing is injected:\n%s", body)
	}
}

func TestAcceptRejectForget(t *testing.T) {
	f := newFixture(t, Config{})
	proposal := filepath.Join(f.project, "rules", "run-tests-before-push.md")
	ok := func(path string, form url.Values) string {
		t.Helper()
		form.Set("csrf", f.s.csrf)
		code, body, h := f.post(path, form, http.Header{"Origin": {"http://127.0.0.1:" + f.port()}})
		if code != http.StatusSeeOther {
			t.Fatalf("POST %s: status %d: %s", path, code, body)
		}
		return h.Get("Location")
	}
	_, rules := f.get("/rules")
	loc := ok("/accept", url.Values{"scope": {"project"}, "id": {"rules/run-tests-before-push"}, "shown": {shownOn(rules, "rules/run-tests-before-push")}})
	if !strings.Contains(readFile(t, proposal), "kind: rule\n") || !strings.Contains(readFile(t, proposal), "proposed_by: extraction") {
		t.Errorf("accept did not make the proposal a rule:\n%s", readFile(t, proposal))
	}
	if _, body := f.get(loc); !strings.Contains(body, "accepted project:rules/run-tests-before-push") {
		t.Errorf("no confirmation after accept: %s", body)
	}
	// Rejecting what is no longer a proposal is refused, as on the CLI.
	form := url.Values{"scope": {"project"}, "id": {"rules/run-tests-before-push"}, "csrf": {f.s.csrf}}
	if code, _, _ := f.post("/reject", form, nil); code != http.StatusConflict {
		t.Errorf("rejecting a rule: status %d, want 409", code)
	}
	if _, err := os.Stat(proposal); err != nil {
		t.Fatal("the refused reject removed the rule")
	}
	// Forget needs the confirmation.
	canary := filepath.Join(f.project, "decisions", "deploy-canary.md")
	form = url.Values{"scope": {"project"}, "id": {"decisions/deploy-canary"}, "csrf": {f.s.csrf}}
	if code, _, _ := f.post("/forget", form, nil); code != http.StatusBadRequest {
		t.Errorf("forget without confirmation: status %d, want 400", code)
	}
	if _, err := os.Stat(canary); err != nil {
		t.Fatal("forget without confirmation deleted the file")
	}
	form.Set("confirm", "yes")
	ok("/forget", form)
	if _, err := os.Stat(canary); !os.IsNotExist(err) {
		t.Error("forget did not delete the file")
	}
	if strings.Contains(readFile(t, filepath.Join(f.project, "decisions", "deploy-blue-green.md")), "superseded_by") {
		t.Error("the replaced memory was not restored")
	}
	if _, body := f.get("/memories"); strings.Contains(body, "deploy-canary") {
		t.Error("the forgotten memory is still listed")
	}
	// A missing memory is a 404.
	if code, _, _ := f.post("/forget", form, nil); code != http.StatusNotFound {
		t.Errorf("forgetting twice: status %d, want 404", code)
	}
}

func TestEventsOnChange(t *testing.T) {
	f := newFixture(t, Config{})
	req, _ := http.NewRequest("GET", f.ts.URL+"/events", nil)
	resp, err := f.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	got := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "event: ") {
				got <- sc.Text()
				return
			}
		}
	}()
	// Wait until the stream is registered, then change a file.
	for deadline := time.Now().Add(5 * time.Second); ; {
		f.s.mu.Lock()
		n := len(f.s.subs)
		f.s.mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the stream was not registered")
		}
		time.Sleep(10 * time.Millisecond)
	}
	p := filepath.Join(f.project, "decisions", "deploy-canary.md")
	os.WriteFile(p, []byte(strings.Replace(readFile(t, p), "10 percent", "5 percent", 1)), 0o644)
	f.s.Changed(f.project, p)
	select {
	case ev := <-got:
		if ev != "event: change" {
			t.Errorf("event %q", ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no change event")
	}
	if _, body := f.get("/memories"); !strings.Contains(body, "canary at 5 percent") {
		t.Error("the list does not show the edit after the change")
	}
}

// projectTrustLater is the trust list's view of the fixture's project,
// known once the fixture is made.
func projectTrustLater(f **fixture, list trust.List) engine.RuleTrust {
	return lateTrust{f: f, list: list}
}

type lateTrust struct {
	f    **fixture
	list trust.List
}

func (l lateTrust) p() trust.Project                   { return l.list.For((*l.f).project) }
func (l lateTrust) State() (trust.State, error)        { return l.p().State() }
func (l lateTrust) Pin(pins []trust.Pin) error         { return l.p().Pin(pins) }
func (l lateTrust) Accept(p []trust.Pin) (bool, error) { return l.p().Accept(p) }

// The injection preview of a project whose ROOT.md hard rules are not in
// force says so and names the command that confirms them, as `ocmem
// inject` does; once confirmed it says nothing of it.
func TestSearchSaysRootMDNotInForce(t *testing.T) {
	list := trust.List{Path: filepath.Join(t.TempDir(), "trusted.json")}
	var f *fixture
	f = newFixtureTrust(t, Config{}, projectTrustLater(&f, list))
	writeRootMD(t, f.project, "- MY-RULE: never force-push to main.\n")
	f.e.Invalidate()
	_, body := f.get("/search?q=" + url.QueryEscape("sqlite"))
	if !strings.Contains(body, `id="inject-confirm"`) || !strings.Contains(body, "<code>ocmem trust</code>") {
		t.Fatalf("the preview does not say how to confirm ROOT.md's rules:\n%s", body)
	}
	if _, err := f.e.Trust(""); err != nil {
		t.Fatal(err)
	}
	if _, body = f.get("/search?q=" + url.QueryEscape("sqlite")); strings.Contains(body, `id="inject-confirm"`) {
		t.Error("confirmed, the preview still says ROOT.md's rules are not in force")
	}
}

// A memory whose file does not load is not "gone": its page names the file
// and the parse error, the memory to be fixed by hand.
func TestMemoryPageOfFileThatDoesNotLoad(t *testing.T) {
	f := newFixture(t, Config{})
	code, body := f.get("/memory?scope=project&id=facts/broken")
	if code != http.StatusUnprocessableEntity {
		t.Errorf("status %d, want 422", code)
	}
	for _, want := range []string{filepath.Join(f.project, "facts", "broken.md") + ":3: invalid YAML", "does not load", "ocmem inspect"} {
		if !strings.Contains(body, html.EscapeString(want)) {
			t.Errorf("the page lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "may have been forgotten") {
		t.Errorf("the page calls the memory gone:\n%s", body)
	}
	if code, _ := f.get("/memory?scope=project&id=facts/never-was"); code != http.StatusNotFound {
		t.Errorf("a memory that never was: status %d, want 404", code)
	}
}
