package toolspec

import (
	"encoding/json"
	"reflect"
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

// TestArgsMatchParams checks that each tool's argument struct, which the
// servers decode, has exactly the tool's parameters, by JSON name.
func TestArgsMatchParams(t *testing.T) {
	args := map[string]any{"recall": RecallArgs{}, "remember": RememberArgs{}, "forget": ForgetArgs{}, "inspect": InspectArgs{}}
	if len(args) != len(Tools) {
		t.Fatalf("%d argument structs for %d tools", len(args), len(Tools))
	}
	for _, tool := range Tools {
		v, ok := args[tool.Name]
		if !ok {
			t.Errorf("no argument struct for %s", tool.Name)
			continue
		}
		var fields []string
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			fields = append(fields, name)
		}
		var params []string
		for _, p := range tool.Params {
			params = append(params, p.Name)
		}
		slices.Sort(fields)
		slices.Sort(params)
		if !slices.Equal(fields, params) {
			t.Errorf("%s: struct fields %v, parameters %v", tool.Name, fields, params)
		}
	}
}

func TestInputSchema(t *testing.T) {
	for _, tool := range Tools {
		s := tool.InputSchema()
		if _, err := json.Marshal(s); err != nil {
			t.Errorf("%s: %v", tool.Name, err)
		}
		props := s["properties"].(map[string]any)
		if len(props) != len(tool.Params) {
			t.Errorf("%s: %d properties for %d parameters", tool.Name, len(props), len(tool.Params))
		}
		for _, p := range tool.Params {
			if p.Description == "" {
				t.Errorf("%s.%s has no description", tool.Name, p.Name)
			}
			if p.Enum != nil && p.Type != String {
				t.Errorf("%s.%s: an enumeration on a %s", tool.Name, p.Name, p.Type)
			}
			if p.Type == StringList {
				if items := props[p.Name].(map[string]any)["items"]; items == nil {
					t.Errorf("%s.%s: an array without items", tool.Name, p.Name)
				}
			}
		}
	}
	rem, _ := Lookup("remember")
	req := rem.InputSchema()["required"].([]string)
	if want := []string{"category", "kind", "summary", "body"}; !slices.Equal(req, want) {
		t.Errorf("remember requires %v, want %v", req, want)
	}
}

func TestReplies(t *testing.T) {
	for _, tc := range []struct {
		got  string
		want []string
	}{
		{Remembered("project", "facts/a", "fact", "/r/facts/a.md", false, ""),
			[]string{"Remembered project:facts/a (fact) in /r/facts/a.md."}},
		{Remembered("project", "rules/b", "rule-proposal", "/r/rules/b.md", true, "rules/old"),
			[]string{"rule proposal", "`ocmem accept rules/b`", "It supersedes rules/old"}},
		// A hand edit of kind accepts a global proposal only: a project's
		// rule is in force once accepted through ocmem (its text pinned).
		{Remembered("global", "rules/c", "rule-proposal", "/g/rules/c.md", true, ""),
			[]string{"rule proposal", "`ocmem accept rules/c`", "`kind: rule`"}},
		{Forgot("global", "facts/a", "/g/facts/a.md"), []string{"Forgot global:facts/a (deleted /g/facts/a.md)."}},
		{SameSummary("project", "facts/a"), []string{"project:facts/a has the same summary with another body", "both are kept", "forget facts/a", "supersedes"}},
	} {
		for _, w := range tc.want {
			if !strings.Contains(tc.got, w) {
				t.Errorf("%q lacks %q", tc.got, w)
			}
		}
	}
	if got := Remembered("project", "rules/b", "rule-proposal", "/r/rules/b.md", true, ""); strings.Contains(got, "`kind: rule`") {
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
