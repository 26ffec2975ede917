package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestGeneratedFilesAreCurrent regenerates the rules and the summary from
// the pinned config and compares them with the committed files, so an
// edit to either, or a new config without `go generate`, fails.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	src, err := os.ReadFile("../data/gitleaks.toml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := translate(src)
	if err != nil {
		t.Fatal(err)
	}
	code, err := render(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		path string
		want []byte
	}{{"../rules_gitleaks.go", code}, {"../data/SOURCES.txt", summary(res)}} {
		got, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, f.want) {
			t.Errorf("%s is not what go generate makes from data/gitleaks.toml; run go generate in internal/secrets", f.path)
		}
	}
	if res.total != 222 || len(res.rules)+len(res.skipped) != res.total {
		t.Errorf("%d rules, %d translated, %d skipped", res.total, len(res.rules), len(res.skipped))
	}
}

func TestParseTOMLErrors(t *testing.T) {
	for _, src := range []string{
		"[[rules]]\nid = '''unterminated\n",
		"[[rules]]\nid = \"x\" trailing\n",
		"[[rules]]\nid = {inline = 1}\n",
		"[[rules]]\nkeywords = [1, 2]\n",
		"[[rules]]\nid = \"a\"\nid = \"b\"\n",
	} {
		if _, err := parseTOML(src); err == nil {
			t.Errorf("parseTOML(%q) succeeded", src)
		}
	}
	if _, err := translate([]byte("[[rules]]\nid = \"x\"\nregex = '''a'''\nunknown = 1\n")); err == nil || !strings.Contains(err.Error(), "unknown key") {
		t.Errorf("an unknown key was accepted: %v", err)
	}
}

func TestShortDesc(t *testing.T) {
	for _, c := range []struct{ id, desc, want string }{
		{"github-pat", "Uncovered a GitHub Personal Access Token, potentially leading to unauthorized repository access.", "GitHub Personal Access Token"},
		{"adobe-client-id", "Detected a pattern that resembles an Adobe OAuth Web Client ID, posing a risk.", "Adobe OAuth Web Client ID"},
		{"cisco-meraki-api-key", "Cisco Meraki is a cloud-managed IT solution that provides networking, security.", "cisco meraki api key"},
	} {
		if got := shortDesc(c.id, c.desc); got != c.want {
			t.Errorf("shortDesc(%q) = %q, want %q", c.desc, got, c.want)
		}
	}
}

// FuzzParseTOML: the config reader never panics, and a text it accepts
// always yields at least the top-level table.
func FuzzParseTOML(f *testing.F) {
	f.Add("[[rules]]\nid = \"x\"\nregex = '''a(b)'''\nkeywords = [\"ab\", 'cd']\nentropy = 3.5\n[[rules.allowlists]]\nregexes = ['''x''']\n")
	f.Add("[allowlist]\nstopwords = [\n  \"a\",\n]\n# comment\n")
	if src, err := os.ReadFile("../data/gitleaks.toml"); err == nil {
		f.Add(string(src[:min(len(src), 6000)]))
	}
	f.Fuzz(func(t *testing.T, s string) {
		tables, err := parseTOML(s)
		if err == nil && len(tables) == 0 {
			t.Fatal("accepted without a table")
		}
		if res, err := translate([]byte(s)); err == nil && len(res.rules)+len(res.skipped) != res.total {
			t.Fatalf("%d rules, %d translated, %d skipped", res.total, len(res.rules), len(res.skipped))
		}
	})
}

// TestNoticeAttributesGitleaks: NOTICE names the pinned release and holds
// its licence, word for word.
func TestNoticeAttributesGitleaks(t *testing.T) {
	notice, err := os.ReadFile("../../../NOTICE")
	if err != nil {
		t.Fatal(err)
	}
	lic, err := os.ReadFile("../data/gitleaks.LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"github.com/zricethezav/gitleaks/v8 " + version, strings.TrimSpace(string(lic))} {
		if !strings.Contains(string(notice), want) {
			t.Errorf("NOTICE lacks %q", want)
		}
	}
}
