package guard

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// forcePush is the rule of the README's example.
var forcePush = Rule{Guards: []Guard{
	{Tool: "bash", Pattern: "git push --force*", Action: Deny},
	{Tool: "bash", Pattern: "git push -f*", Action: Deny},
}}

// shellCases reads the matcher's table of command lines: stopped says
// whether forcePush stops each. cmd/ocmem's test runs `ocmem check` over
// the same file, so the command and the hook cannot disagree.
func shellCases(t testing.TB) []shellCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "shell-cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []shellCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

type shellCase struct {
	Line    string `json:"line"`
	Stopped bool   `json:"stopped"`
	Note    string `json:"note,omitempty"`
}

func TestShellTable(t *testing.T) {
	cases := shellCases(t)
	if len(cases) < 30 {
		t.Fatalf("%d cases; the table promises at least 30", len(cases))
	}
	for _, c := range cases {
		d := Decide(Call{Tool: "bash", Args: map[string]any{"command": c.Line}}, []Rule{forcePush})
		if got := d.Action == Deny; got != c.Stopped {
			cmds, err := Commands(c.Line)
			t.Errorf("%q: stopped %v, want %v (commands %q, %v)", c.Line, got, c.Stopped, cmds, err)
		}
		// The 2.x line calls its shell tool shell: the same answer.
		d2 := Decide(Call{Tool: "shell", Args: map[string]any{"command": c.Line}}, []Rule{forcePush})
		if d2.Action != d.Action {
			t.Errorf("%q: shell decided %q, bash %q", c.Line, d2.Action, d.Action)
		}
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, text string
		want          bool
	}{
		{"git push --force*", "git push --force-with-lease", true},
		{"git push --force *", "git push --force-with-lease", false},
		{"git push --force *", "git push --force", true},
		{"git push --force *", "git push --force origin main", true},
		{"git push *--force*", "git push origin main --force", true},
		{"git  push   -f*", "git push -f", true},
		{"rm -rf ?", "rm -rf /", true},
		{"rm -rf ?", "rm -rf //", false},
		{"*", "", true},
		{"a*b*c", "aXXbYYc", true},
		{"a*b*c", "aXXbYY", false},
		{"literal*star", "literal*star", true},
		{"部署*", "部署脚本", true},
	}
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.text); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.text, got, tt.want)
		}
	}
}

// An exception (allow after deny), and the near-miss of --force-with-lease.
func TestDecideOrder(t *testing.T) {
	lease := Rule{Guards: []Guard{
		{Tool: "bash", Pattern: "git push --force*", Action: Deny},
		{Tool: "bash", Pattern: "git push --force-with-lease*", Action: Allow},
	}}
	ask := Rule{Guards: []Guard{{Tool: "bash", Pattern: "git push*", Action: Ask}}}
	tests := []struct {
		line  string
		rules []Rule
		want  string
		rule  int
	}{
		{"git push --force-with-lease", []Rule{lease}, "", 0},
		{"git push --force", []Rule{lease}, Deny, 0},
		{"git push origin", []Rule{lease, ask}, Ask, 1},
		{"git push --force", []Rule{ask, lease}, Deny, 1},
		// One rule's allow does not lift another's deny.
		{"git push --force-with-lease", []Rule{lease, forcePush}, Deny, 1},
		{"ls", []Rule{lease, ask}, "", 0},
	}
	for _, tt := range tests {
		d := Decide(Call{Tool: "bash", Args: map[string]any{"command": tt.line}}, tt.rules)
		if d.Action != tt.want || tt.want != "" && d.Rule != tt.rule {
			t.Errorf("%q: %q by rule %d, want %q by rule %d", tt.line, d.Action, d.Rule, tt.want, tt.rule)
		}
	}
}

// A line that does not parse is refused when a rule guards the shell, and
// left alone when none does.
func TestUnreadableFailsClosed(t *testing.T) {
	for _, line := range []string{"git push -f 'unterminated", "echo $((", "if then fi", "bash -c 'echo \"x'"} {
		d := Decide(Call{Tool: "bash", Args: map[string]any{"command": line}}, []Rule{forcePush})
		if d.Action != Deny || d.Unreadable == nil || !errors.Is(d.Unreadable, ErrUnreadable) {
			t.Errorf("%q: %+v; want deny, unreadable", line, d)
		}
		edits := Rule{Guards: []Guard{{Tool: "edit", Pattern: "dist/**", Action: Deny}}}
		if d := Decide(Call{Tool: "bash", Args: map[string]any{"command": line}}, []Rule{edits}); d.Action != "" {
			t.Errorf("%q with no shell guard: %+v", line, d)
		}
	}
	deep := "git push -f"
	for range maxDepth + 2 {
		deep = "eval " + shellQuote(deep)
	}
	if _, err := Commands(deep); !errors.Is(err, ErrUnreadable) {
		t.Errorf("scripts %d deep: %v, want ErrUnreadable", maxDepth+2, err)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func TestFileTools(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	dist := Rule{Guards: []Guard{{Tool: "edit", Pattern: "dist/**", Action: Deny}}}
	lock := Rule{Guards: []Guard{{Tool: "write", Pattern: "*.lock", Action: Ask}}}
	abs := Rule{Guards: []Guard{{Tool: "edit", Pattern: filepath.ToSlash(outside) + "/**", Action: Deny}}}
	rules := []Rule{dist, lock, abs}
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"edit", map[string]any{"filePath": filepath.Join(root, "dist", "app.js")}, Deny},
		{"edit", map[string]any{"filePath": "dist/app.js"}, Deny},
		{"write", map[string]any{"path": "dist/sub/app.js"}, Deny}, // 2.x's argument, and edit covers write
		{"edit", map[string]any{"filePath": "src/../dist/app.js"}, Deny},
		{"edit", map[string]any{"filePath": "src/app.js"}, ""},
		{"edit", map[string]any{"filePath": "distant/app.js"}, ""},
		{"write", map[string]any{"filePath": "deps/pnpm.lock"}, Ask},
		{"edit", map[string]any{"filePath": "deps/pnpm.lock"}, ""}, // the write guard covers write only
		{"edit", map[string]any{"filePath": filepath.Join(outside, "x.txt")}, Deny},
		{"edit", map[string]any{"filePath": filepath.Join(root, "..", filepath.Base(outside), "x.txt")}, Deny},
		{"apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Update File: dist/app.js\n@@\n-a\n+b\n*** End Patch\n"}, Deny},
		{"apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Update File: src/a.js\n*** Move to: dist/a.js\n*** End Patch\n"}, Deny},
		{"apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Add File: src/b.js\n+x\n*** End Patch\n"}, ""},
		{"multiedit", map[string]any{"filePath": "dist/x.js", "edits": []any{}}, Deny},
		{"edit", map[string]any{}, Deny},   // no path: refused, not guessed
		{"webfetch", map[string]any{}, ""}, // no rule names it
		{"bash", map[string]any{"command": "ls"}, ""},
	}
	for _, tt := range tests {
		d := Decide(Call{Tool: tt.tool, Args: tt.args, Root: root}, rules)
		if d.Action != tt.want {
			t.Errorf("%s %v: %q (%+v), want %q", tt.tool, tt.args, d.Action, d, tt.want)
		}
	}
}

// A symbolic link into a guarded folder does not get past its guard.
func TestFileToolsSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "dist"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "dist"), filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	dist := Rule{Guards: []Guard{{Tool: "edit", Pattern: "dist/**", Action: Deny}}}
	d := Decide(Call{Tool: "edit", Args: map[string]any{"filePath": "out/app.js"}, Root: root}, []Rule{dist})
	if d.Action != Deny {
		t.Errorf("an edit through a link into dist/: %+v", d)
	}
}

func TestOtherTools(t *testing.T) {
	web := Rule{Guards: []Guard{{Tool: "webfetch", Pattern: "*", Action: Deny}}}
	all := Rule{Guards: []Guard{{Tool: "*", Pattern: "*", Action: Ask}}}
	if d := Decide(Call{Tool: "webfetch"}, []Rule{web}); d.Action != Deny {
		t.Errorf("webfetch: %+v", d)
	}
	if d := Decide(Call{Tool: "WebFetch"}, []Rule{web}); d.Action != Deny {
		t.Errorf("a tool's name in other case: %+v", d)
	}
	if d := Decide(Call{Tool: "read"}, []Rule{web}); d.Action != "" {
		t.Errorf("read: %+v", d)
	}
	if d := Decide(Call{Tool: "read"}, []Rule{all}); d.Action != Ask {
		t.Errorf("a guard on every tool: %+v", d)
	}
	if !Guarded("shell", []Rule{forcePush}) || Guarded("edit", []Rule{forcePush}) {
		t.Error("Guarded: a bash guard covers shell and not edit")
	}
}

func TestMatchPath(t *testing.T) {
	tests := []struct {
		glob, path string
		want       bool
	}{
		{"dist/**", "dist/app.js", true},
		{"dist/**", "dist/a/b/c.js", true},
		{"dist/**", "src/dist/app.js", false},
		{"dist/", "dist/app.js", true},
		{"*.lock", "a/b/pnpm.lock", true},
		{"*.lock", "pnpm.lock", true},
		{"src/*.go", "src/a.go", true},
		{"src/*.go", "src/x/a.go", false},
		{"src/**/*.go", "src/a.go", true},
		{"src/**/*.go", "src/x/y/a.go", true},
		{"/etc/**", "/etc/hosts", true},
		{"./dist/**", "dist/x", true},
		{"**", "anything/at/all", true},
	}
	for _, tt := range tests {
		if got := matchPath(tt.glob, tt.path); got != tt.want {
			t.Errorf("matchPath(%q, %q) = %v, want %v", tt.glob, tt.path, got, tt.want)
		}
	}
}
