package toolspec

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestRecallLimit(t *testing.T) {
	for _, tc := range []struct{ in, want int }{
		{-1, DefaultRecallLimit},
		{0, DefaultRecallLimit},
		{1, 1},
		{MaxRecallLimit, MaxRecallLimit},
		{MaxRecallLimit + 1, MaxRecallLimit},
		{50, MaxRecallLimit},
	} {
		if got := RecallLimit(tc.in); got != tc.want {
			t.Errorf("RecallLimit(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// TestRecallLimitDescribed: the limit's description, a struct tag, says
// the limits the servers apply.
func TestRecallLimitDescribed(t *testing.T) {
	recall, _ := Lookup("recall")
	want := fmt.Sprintf("(default %d, at most %d)", DefaultRecallLimit, MaxRecallLimit)
	i := slices.IndexFunc(recall.Params, func(p Param) bool { return p.Name == "limit" })
	if i < 0 {
		t.Fatalf("recall has no limit parameter: %+v", recall.Params)
	}
	if d := recall.Params[i].Description; !strings.Contains(d, want) {
		t.Errorf("limit is described %q, want it to say %q", d, want)
	}
}

func TestInputSchema(t *testing.T) {
	for _, tool := range Tools {
		s := tool.InputSchema()
		if _, err := json.Marshal(s); err != nil {
			t.Errorf("%s: %v", tool.Name, err)
		}
		if len(s.Properties) != len(tool.Params) || s.Type != "object" {
			t.Errorf("%s: %d properties for %d parameters, type %q", tool.Name, len(s.Properties), len(tool.Params), s.Type)
		}
		for _, p := range tool.Params {
			if p.Description == "" || s.Properties[p.Name].Description != p.Description {
				t.Errorf("%s.%s is described %q, its schema %q", tool.Name, p.Name, p.Description, s.Properties[p.Name].Description)
			}
			if p.Enum != nil && p.Type != String {
				t.Errorf("%s.%s: an enumeration on a %s", tool.Name, p.Name, p.Type)
			}
			if p.Type == StringList && s.Properties[p.Name].Items == nil {
				t.Errorf("%s.%s: an array without items", tool.Name, p.Name)
			}
		}
		// A copy: a caller's change does not reach the next.
		s.Properties["x"] = nil
		if _, ok := tool.InputSchema().Properties["x"]; ok {
			t.Errorf("%s: InputSchema hands out the tool's own schema", tool.Name)
		}
	}
	rem, _ := Lookup("remember")
	if req, want := rem.InputSchema().Required, []string{"category", "kind", "summary", "body"}; !slices.Equal(req, want) {
		t.Errorf("remember requires %v, want %v", req, want)
	}
}

// A struct the contract cannot describe is refused when the tools are
// built, not when a model calls them.
func TestArgsRefused(t *testing.T) {
	type noDescription struct {
		Query string `json:"query"`
	}
	type float struct {
		Limit float64 `json:"limit" jsonschema:"a number"`
	}
	type badEnum struct {
		Limit int `json:"limit" enum:"kinds" jsonschema:"a count"`
	}
	for name, build := range map[string]func(){
		"no description": func() { withArgs[noDescription](Tool{}) },
		"a float":        func() { withArgs[float](Tool{}) },
		"an enum on int": func() { withArgs[badEnum](Tool{}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: built without a panic", name)
				}
			}()
			build()
		}()
	}
}

func TestReplies(t *testing.T) {
	for _, tc := range []struct {
		got  string
		want []string
	}{
		{Remembered("project", "facts/a", "fact", "/r/facts/a.md", false, "", ""),
			[]string{"Remembered project:facts/a (fact) in /r/facts/a.md."}},
		{Remembered("project", "rules/b", "rule-proposal", "/r/rules/b.md", true, "rules/old", ""),
			[]string{"rule proposal", "`ocmem accept rules/b`", "It supersedes rules/old"}},
		// A hand edit of kind accepts a global proposal only: a project's
		// rule is in force once accepted through ocmem (its text pinned).
		{Remembered("global", "rules/c", "rule-proposal", "/g/rules/c.md", true, "", ""),
			[]string{"rule proposal", "`ocmem accept rules/c`", "`kind: rule`"}},
		{Remembered("global", "facts/d", "rule-proposal", "/g/facts/d.md", true, "", "rules/never-force-push"),
			[]string{"would supersede the hard rule rules/never-force-push", "stays in force", "`ocmem accept facts/d`"}},
		{Forgot("global", "facts/a", "/g/facts/a.md"), []string{"Forgot global:facts/a (deleted /g/facts/a.md)."}},
		{SameSummary("project", "facts/a"), []string{"project:facts/a has the same summary with another body", "both are kept", "forget facts/a", "supersedes"}},
	} {
		for _, w := range tc.want {
			if !strings.Contains(tc.got, w) {
				t.Errorf("%q lacks %q", tc.got, w)
			}
		}
	}
	if got := Remembered("project", "rules/b", "rule-proposal", "/r/rules/b.md", true, "", ""); strings.Contains(got, "`kind: rule`") {
		t.Errorf("a project proposal's reply offers the hand edit, which does not put it in force: %q", got)
	}
}

func TestReplaceJS(t *testing.T) {
	src := "a\n" + JSBegin + "\nold\n" + JSEnd + "\nb\n"
	got, err := ReplaceJS(src)
	if err != nil {
		t.Fatal(err)
	}
	if want := "a\n" + JS() + "\nb\n"; got != want {
		t.Errorf("ReplaceJS:\n%s\nwant\n%s", got, want)
	}
	if again, _ := ReplaceJS(got); again != got {
		t.Error("ReplaceJS is not idempotent")
	}
	if _, err := ReplaceJS("no markers"); err == nil {
		t.Error("ReplaceJS without markers: no error")
	}
	for _, tool := range Tools {
		if !strings.Contains(JS(), `"name": "`+tool.OpenCodeName()+`"`) {
			t.Errorf("JS lacks %s", tool.OpenCodeName())
		}
	}
}

// TestDecodeArgs: a tool's arguments are exactly its parameters; a key the
// contract does not name is refused with the names it does take.
func TestDecodeArgs(t *testing.T) {
	remember, _ := Lookup("remember")
	inspect, _ := Lookup("inspect")
	for _, tt := range []struct {
		name string
		tool Tool
		raw  string
		want string // substring of the error; "" for none
	}{
		{"contract fields", remember, `{"category":"facts","kind":"fact","summary":"s","body":"b","load_when":["x"]}`, ""},
		{"null", inspect, `null`, ""},
		{"empty", inspect, ``, ""},
		{"a root", remember, `{"category":"facts","worktree":"/other"}`, `memory_remember does not take "worktree" (its arguments: category, kind`},
		{"two unknown, sorted", remember, `{"directory":"/o","worktree":"/o"}`, `does not take "directory", "worktree"`},
		{"inspect takes none", inspect, `{"sessionID":"x"}`, `does not take "sessionID" (its arguments: none)`},
		{"not an object", remember, `["facts"]`, "must be a JSON object"},
		{"wrong type", remember, `{"pinned":"yes"}`, "memory_remember"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var v RememberArgs
			var err error
			if tt.tool.Name == "inspect" {
				err = tt.tool.DecodeArgs(json.RawMessage(tt.raw), &InspectArgs{})
			} else {
				err = tt.tool.DecodeArgs(json.RawMessage(tt.raw), &v)
			}
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if tt.name == "contract fields" && (v.Category != "facts" || len(v.LoadWhen) != 1) {
				t.Errorf("decoded %+v", v)
			}
		})
	}
}
