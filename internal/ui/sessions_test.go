package ui

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
	m := regexp.MustCompile(`<a href="/session\?id=(ses_[A-Za-z0-9]+)">[^<]*</a></td><td>[^<]*</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td>`).FindAllStringSubmatch(body, -1)
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
	for _, want := range []string{
		"Turn 1: bodies injected",
		"<tr><td>project:pitfalls/run-database-migrations-before-deploying</td><td>",
		"<td>given</td>", "memory_recall", "memory_remember", "tool called", "<dd>read</dd>",
		"extraction remembered", "pitfalls/integration-tests-need-docker-running",
		"extraction candidate skipped", "duplicate", "extraction candidate refused", "fake/cheap",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("timeline lacks %q", want)
		}
	}
	_, body = f.get("/session?id=ses_old")
	if !strings.Contains(body, "<tr><td>global:c/d</td><td>0.500</td><td>—</td></tr>") ||
		!strings.Contains(body, "<tr><td>project:a/b</td><td>1.234</td><td>given</td></tr>") {
		t.Errorf("the older hits field is not shown:\n%s", body)
	}
	if strings.Contains(body, fakeToken) || !strings.Contains(body, "deploy with ghp_****") {
		t.Errorf("a token in the log is not masked:\n%s", body)
	}
	if code, _ := f.get("/session?id=nope"); code != 404 {
		t.Errorf("unknown session: status %d", code)
	}
}

func TestSessionsWithoutLog(t *testing.T) {
	f := newFixture(t, Config{LogPath: filepath.Join(t.TempDir(), "missing.log")})
	if code, body := f.get("/sessions"); code != 200 || !strings.Contains(body, "No session in the log yet") {
		t.Errorf("status %d:\n%s", code, body)
	}
}
