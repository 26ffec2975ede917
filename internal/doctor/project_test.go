package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/trust"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestProjectInfo: doctor says in one line which project rules are not in
// force and why (not trusted; changed since accepted, as by a hand edit),
// and lists a project opencode.json's overrides of guarded settings.
func TestProjectInfo(t *testing.T) {
	d := t.TempDir()
	repo := filepath.Join(d, "repo")
	mem := filepath.Join(repo, ".memory")
	rule := filepath.Join(mem, "rules", "r.md")
	writeFile(t, rule, "---\nid: rules/r\nkind: rule\nsummary: Use make\n---\nmake check\n")
	writeFile(t, filepath.Join(repo, "opencode.json"), `{"plugin": [["ocmem", {"extractModel": {"providerID": "p", "id": "big"}, "maxInjectChars": 9000}]]}`)
	cfgDir := filepath.Join(d, "cfg")
	writeFile(t, filepath.Join(cfgDir, "opencode.json"), `{"plugin": [["/u/ocmem.js", {"maxInjectChars": 900}]]}`)
	list := trust.List{Path: filepath.Join(d, "trusted.json")}
	c := Config{ProjectDir: mem, Trust: list.For(mem), Worktree: repo, Directory: repo, OpenCodeConfigDir: cfgDir}

	info := strings.Join(append(projectRulesInfo(c), projectSettingsInfo(c)...), "\n")
	for _, want := range []string{
		"project rules: 1, none in force: you have not trusted this project; read them (`ocmem rules`), then `ocmem trust`",
		"project setting: extractModel = {\"providerID\":\"p\",\"id\":\"big\"} from " + filepath.Join(repo, "opencode.json") + ": ignored (a repository's extractModel applies only once you trust the project",
		"project setting: maxInjectChars = 9000 from " + filepath.Join(repo, "opencode.json") + ": ignored (an untrusted repository cannot raise maxInjectChars above 900, your global config's; change it there to allow more)",
	} {
		if !strings.Contains(info, want) {
			t.Errorf("doctor's info lacks %q:\n%s", want, info)
		}
	}

	pin := trust.NewPin("rules/r", "- Use make [rules/r]\n  make check\n")
	if _, err := list.Accept(trust.ProjectKey(mem), time.Now(), []trust.Pin{pin}); err != nil {
		t.Fatal(err)
	}
	if info := strings.Join(projectRulesInfo(c), "\n"); info != "project rules: 1, all in force as you accepted them" {
		t.Errorf("accepted: %s", info)
	}
	if info := strings.Join(projectSettingsInfo(c), "\n"); !strings.Contains(info, `extractModel = {"providerID":"p","id":"big"} from `+filepath.Join(repo, "opencode.json")+": applies") {
		t.Errorf("trusted project's extractModel: %s", info)
	}
	// A hand edit.
	writeFile(t, rule, "---\nid: rules/r\nkind: rule\nsummary: Use make\n---\nmake check, then make lint\n")
	if info := strings.Join(projectRulesInfo(c), "\n"); !strings.Contains(info, "project rules: 1 of 1 not in force: 1 changed since you accepted them (a pull, or an edit by hand); review them (`ocmem rules`), then `ocmem trust` or `ocmem accept ID`") {
		t.Errorf("after a hand edit: %s", info)
	}
	// A rule added: new, in the words `ocmem rules` uses, not "0 changed".
	writeFile(t, filepath.Join(mem, "rules", "s.md"), "---\nid: rules/s\nkind: rule\nsummary: Use tabs\n---\ngofmt does\n")
	if info := strings.Join(projectRulesInfo(c), "\n"); !strings.Contains(info, "project rules: 2 of 2 not in force: 1 new, 1 changed since you accepted them") {
		t.Errorf("after a rule added: %s", info)
	}
}

// TestOptionsCheck: a plugin option value serve cannot use fails doctor
// (serve runs with that option's default), naming the file; a key no
// option has is listed, with the option it is one edit from.
func TestOptionsCheck(t *testing.T) {
	for _, tt := range []struct {
		name             string
		global, project  string // the ocmem options object of each opencode.json; "" writes none
		ok               bool
		detail, infoHas  string
		noInfo, noConfig bool
	}{
		{name: "valid", global: `{"maxInjectChars": 900, "halfLifeDays": 30, "toasts": false, "bin": "/opt/ocmem"}`, ok: true, detail: "read as serve reads them", noInfo: true},
		{name: "bad half-life", global: `{"halfLifeDays": "x"}`, detail: "halfLifeDays"},
		{name: "bad categories in the project", global: `{}`, project: `{"categories": "facts"}`, detail: filepath.Join("repo", "opencode.json") + `: categories = "facts": a JSON string is not valid here`},
		{name: "negative budget", global: `{"maxInjectEntries": -1}`, detail: "maxInjectEntries = -1: must not be negative"},
		{name: "wrong case", global: `{"MaxInjectChars": 10}`, ok: true, infoHas: filepath.Join("cfg", "opencode.json") + ` is not an ocmem option and is ignored (did you mean "maxInjectChars"?)`},
		{name: "typo", global: `{"maxInjectChar": 10}`, ok: true, infoHas: filepath.Join("cfg", "opencode.json") + ` is not an ocmem option and is ignored (did you mean "maxInjectChars"?)`},
		{name: "unknown", global: `{"colour": "blue"}`, ok: true, infoHas: `plugin option "colour" in`},
		{name: "no options anywhere", noConfig: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := t.TempDir()
			repo, cfgDir := filepath.Join(d, "repo"), filepath.Join(d, "cfg")
			if tt.global != "" {
				writeFile(t, filepath.Join(cfgDir, "opencode.json"), `{"plugin": [["/u/ocmem", `+tt.global+`]]}`)
			}
			if tt.project != "" {
				writeFile(t, filepath.Join(repo, "opencode.json"), `{"plugin": [["ocmem", `+tt.project+`]]}`)
			}
			ch, info, ok := optionsCheck(Config{Worktree: repo, Directory: repo, OpenCodeConfigDir: cfgDir})
			if tt.noConfig {
				if ok {
					t.Errorf("no config sets options: got a check %+v", ch)
				}
				return
			}
			if !ok {
				t.Fatal("options are set: want a check")
			}
			if ch.OK != tt.ok || !strings.Contains(ch.Detail, tt.detail) {
				t.Errorf("check = %+v; want ok %v and a detail holding %q", ch, tt.ok, tt.detail)
			}
			joined := strings.Join(info, "\n")
			if tt.noInfo && joined != "" || !strings.Contains(joined, tt.infoHas) {
				t.Errorf("info = %q; want it to hold %q", joined, tt.infoHas)
			}
		})
	}
}

// TestProjectInfoRootMD: a hard rule typed into the project's ROOT.md is
// not in force until confirmed; doctor says so, naming ROOT.md and the
// command that confirms it, and says nothing of it once confirmed.
func TestProjectInfoRootMD(t *testing.T) {
	d := t.TempDir()
	mem := filepath.Join(d, "repo", ".memory")
	writeFile(t, filepath.Join(mem, "ROOT.md"), "# Memory\n\n## Hard rules\n\n- Never force-push to main.\n")
	list := trust.List{Path: filepath.Join(d, "trusted.json")}
	c := Config{ProjectDir: mem, Trust: list.For(mem)}
	const confirm = "project rules: ROOT.md's hard rules are in force only once you confirm them with `ocmem trust`"
	if info := strings.Join(projectRulesInfo(c), "\n"); !strings.Contains(info, confirm) {
		t.Errorf("doctor's info lacks %q:\n%s", confirm, info)
	}
	if _, err := engine.New(engine.Config{ProjectDir: mem, Trust: list.For(mem)}).Trust(""); err != nil {
		t.Fatal(err)
	}
	if info := strings.Join(projectRulesInfo(c), "\n"); info != "project rules: 1, all in force as you accepted them" {
		t.Errorf("confirmed: %s", info)
	}
}
