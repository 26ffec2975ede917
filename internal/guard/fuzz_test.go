package guard

import "testing"

// FuzzDecide checks that no command line panics the matcher, and that
// wrapping a line that is stopped cannot get it through: after `true &&`,
// in a subshell, as `bash -c` of it.
func FuzzDecide(f *testing.F) {
	for _, c := range shellCases(f) {
		f.Add(c.Line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		d := Decide(Call{Tool: "bash", Args: map[string]any{"command": line}}, []Rule{forcePush})
		if d.Action != Deny || d.Unreadable != nil {
			return
		}
		for _, wrapped := range []string{"true && " + line, "(" + line + "\n)", "bash -c " + shellQuote(line)} {
			w := Decide(Call{Tool: "bash", Args: map[string]any{"command": wrapped}}, []Rule{forcePush})
			if w.Action != Deny {
				t.Errorf("%q is stopped, %q is not: %+v", line, wrapped, w)
			}
		}
	})
}

// FuzzMatchPath checks that no glob or path panics or hangs the matcher.
func FuzzMatchPath(f *testing.F) {
	f.Add("dist/**", "dist/app.js")
	f.Add("**/a/**/b/**/c", "a/a/a/a/a/a/a/a/a/a/a/a/b")
	f.Add("*.lock", "x/y.lock")
	f.Fuzz(func(t *testing.T, glob, path string) {
		matchPath(glob, path)
		Match(glob, path)
	})
}
