package ui

import (
	"bufio"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestSessionsFromRecordedLog(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "ocmem.log")
	data := readFile(t, filepath.Join("testdata", "session.jsonl"))
	// A line as serve wrote it before the structured list, and one of a
	// rotated log.
	old := `{"time":"2025-11-01T10:00:00Z","level":"INFO","msg":"bodies injected","session":"ses_old","message":"m1","given":"project:a/b","repeated":"","hits":"project:a/b=1.234,global:c/d=0.500","chars":42}` + "\n"
	os.WriteFile(logPath, []byte(data), 0o644)
	leak := `{"time":"2025-11-01T10:01:00Z","level":"INFO","msg":"recall","session":"ses_old","query":"deploy with ` + fakeToken + `"}` + "\n"
	os.WriteFile(logPath+".1", []byte(old+"not json\n"+leak), 0o644)
	f := newFixture(t, Config{LogPath: logPath})

	code, body := f.get("/sessions")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	m := regexp.MustCompile(`<tr data-session="(ses_[A-Za-z0-9]+)">.*?</td><td class="date">[^<]*</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td>`).FindAllStringSubmatch(body, -1)
	if len(m) != 2 {
		t.Fatalf("sessions listed: %v\n%s", m, body)
	}
	if m[0][2] != "4" || m[0][3] != "3" || m[0][4] != "1" { // newest first
		t.Errorf("recorded session: %s turns, %s tool calls, %s extractions; want 4, 3, 1", m[0][2], m[0][3], m[0][4])
	}
	if m[1][1] != "ses_old" || m[1][2] != "1" || m[1][3] != "1" {
		t.Errorf("old session: %v", m[1])
	}

	_, body = f.get("/session?id=" + m[0][1])
	turns := strings.Split(body, `<section class="turn"`)
	if len(turns) != 5 {
		t.Fatalf("%d turns shown, want 4:\n%s", len(turns)-1, body)
	}
	for i, want := range [][]string{
		{"Turn 1", `id=pitfalls%2frun-database-migrations-before-deploying">project:pitfalls/run-database-migrations-before-deploying</a></td><td>0.599</td>`,
			"body given", "1 memory body added to the message (327 characters).", "System prompt on 2 model requests",
			`The model called memory_recall &#34;deploy migrations&#34;: it returned project:pitfalls/run-database-migrations-before-deploying.`,
			"Extraction did not run: 1 of minTurns 4 user turns."},
		{"Turn 2", "not repeated: given earlier in this session", "Nothing was added to the message: every memory that matched was left out"},
		{"Turn 3", "The model called memory_remember: it wrote project:rules/start-docker-before-the-integration-tests (rule-proposal). The rule waits for you"},
		{"Turn 4", "Nothing was added to the message: no term of the message is in any memory.", "The model used OpenCode&#39;s read tool.",
			"Extraction chose the model fake/cheap", "Extraction asked fake/cheap about 4 user turns.",
			"Extraction wrote project:pitfalls/integration-tests-need-docker-running: Integration tests need Docker running",
			"Extraction left out &#34;Use pnpm 9 for installs&#34; (duplicate)", "Extraction refused &#34;The CI token for deploys&#34;: suspected secret",
			"Extraction done with fake/cheap: 3 candidates, 1 written, 1 duplicate, 1 refused"},
	} {
		for _, w := range want {
			if !strings.Contains(turns[i+1], w) {
				t.Errorf("turn %d lacks %q", i+1, w)
			}
		}
	}
	// The transport line repeats on every idle; it is shown once.
	if n := strings.Count(body, "Extraction reaches OpenCode"); n != 1 {
		t.Errorf("the transport line is shown %d times, want once", n)
	}
	// The extraction's prompt stays folded under its sentence.
	if !strings.Contains(body, "<details><summary>log fields</summary>") {
		t.Error("the log fields are not folded")
	}

	_, body = f.get("/session?id=ses_old")
	if !strings.Contains(body, `project:a/b</a></td><td>1.234</td>`) || !strings.Contains(body, `global:c/d</a></td><td>0.500</td>`) ||
		!strings.Contains(body, "not given: beyond the entry or character budget") {
		t.Errorf("the older hits field is not shown:\n%s", body)
	}
	if strings.Contains(body, fakeToken) || !strings.Contains(body, "deploy with ghp_****") {
		t.Errorf("a token in the log is not masked:\n%s", body)
	}
	if code, body := f.get("/session?id=nope"); code != 404 || !strings.Contains(body, "<h1>Not found</h1>") {
		t.Errorf("unknown session: status %d\n%s", code, body)
	}
}

// A log as serve writes it now: the person's message (an excerpt), the
// matched words of each memory, and the session's title.
const newLog = `{"time":"2026-12-01T10:00:00Z","level":"INFO","msg":"bodies injected","session":"ses_new","message":"msg_1","text":"the deploy failed: databases out of date","given":"project:pitfalls/run-database-migrations-before-deploying","repeated":"","chars":300,"quiet":"","injected":[{"key":"project:pitfalls/run-database-migrations-before-deploying","score":0.6,"given":true,"words":["deploying","database"]}]}
{"time":"2026-12-01T10:00:05Z","level":"INFO","msg":"session title","session":"ses_new","title":"Fixing the failed deploy"}
{"time":"2026-12-01T10:00:06Z","level":"INFO","msg":"bodies injected","session":"ses_new","message":"msg_2","text":"thanks","given":"","repeated":"","chars":0,"quiet":"","injected":[]}
`

func TestSessionShowsMessageAndWhy(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "ocmem.log")
	os.WriteFile(logPath, []byte(newLog), 0o644)
	f := newFixture(t, Config{LogPath: logPath})
	_, body := f.get("/sessions")
	if !strings.Contains(body, ">Fixing the failed deploy</a>") || !strings.Contains(body, "“the deploy failed: databases out of date”") {
		t.Errorf("the list lacks the session's title and first message:\n%s", body)
	}
	_, body = f.get("/session?id=ses_new")
	for _, want := range []string{
		"<h1>Fixing the failed deploy</h1>",
		`<blockquote class="said">the deploy failed: databases out of date</blockquote>`,
		"<td>deploying, database</td>",
		`<blockquote class="said">thanks</blockquote>`,
		"Nothing was added to the message: no memory matched it.",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the session page lacks %q", want)
		}
	}
	if strings.Contains(body, "msg_1") {
		t.Error("the page shows the message id where it has the message's text")
	}
}

// A memory's page says which sessions it was given in and how often.
func TestMemoryGivenInSessions(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "ocmem.log")
	given := `{"time":"2026-12-01T11:00:00Z","level":"INFO","msg":"bodies injected","session":"ses_two","text":"deploy again","injected":[{"key":"project:decisions/deploy-canary","score":1,"given":true}]}` + "\n"
	os.WriteFile(logPath, []byte(strings.ReplaceAll(newLog, "pitfalls/run-database-migrations-before-deploying", "decisions/deploy-canary")+given+strings.ReplaceAll(given, "11:00", "11:05")), 0o644)
	f := newFixture(t, Config{LogPath: logPath})
	_, body := f.get("/memory?scope=project&id=decisions/deploy-canary")
	if !strings.Contains(body, `<td id="given-in">2 sessions, 3 times in all</td>`) {
		t.Errorf("the memory page does not count the sessions:\n%s", body)
	}
	if !strings.Contains(body, `<a href="/session?id=ses_two">ses_two</a></td><td class="date">2026-12-01 11:05:00</td><td>2</td>`) ||
		!strings.Contains(body, `<a href="/session?id=ses_new">Fixing the failed deploy</a>`) {
		t.Errorf("the memory page does not list the sessions:\n%s", body)
	}
	_, body = f.get("/memory?scope=global&id=preferences/prefer-pnpm")
	if !strings.Contains(body, `<td id="given-in">no session in the log</td>`) {
		t.Errorf("a memory never given:\n%s", body)
	}
}

// While OpenCode runs, serve appends to the log; open pages hear of it.
func TestEventsOnLog(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "ocmem.log")
	os.WriteFile(logPath, []byte(newLog), 0o644)
	f := newFixture(t, Config{LogPath: logPath, LogPoll: 20 * time.Millisecond})
	req, _ := http.NewRequest("GET", f.ts.URL+"/events", nil)
	resp, err := f.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if sc.Text() == "event: log" { // "change" events come when the files' check ends
				got <- sc.Text()
				return
			}
		}
	}()
	waitStream(t, f)
	time.Sleep(100 * time.Millisecond) // no log event without a change
	select {
	case ev := <-got:
		t.Fatalf("%s before the log changed", ev)
	default:
	}
	fh, err := os.OpenFile(logPath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString(`{"time":"2026-12-01T10:01:00Z","level":"INFO","msg":"tool called","tool":"bash","session":"ses_new","call":"c1"}` + "\n")
	fh.Close()
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("no event after the log grew")
	}
	if _, body := f.get("/session?id=ses_new"); !strings.Contains(body, "The model used OpenCode&#39;s bash tool.") {
		t.Error("the session page does not show the new line")
	}
	if _, body := f.get("/session?id=ses_new"); !strings.Contains(body, `data-follow="log"`) {
		t.Error("the session page does not follow the log")
	}
}

// waitStream waits until an /events stream is registered.
func waitStream(t *testing.T, f *fixture) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; {
		f.s.mu.Lock()
		n := len(f.s.subs)
		f.s.mu.Unlock()
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the stream was not registered")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSessionsWithoutLog(t *testing.T) {
	f := newFixture(t, Config{LogPath: filepath.Join(t.TempDir(), "missing.log")})
	if code, body := f.get("/sessions"); code != 200 || !strings.Contains(body, "No session in the log yet") {
		t.Errorf("status %d:\n%s", code, body)
	}
}
