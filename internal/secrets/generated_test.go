package secrets

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/secrets/secrettest"
)

// TestGeneratedRulesFire builds, for every rule generated from gitleaks'
// config, a string its regexp matches (at run time, so the repository
// holds no such string) and checks that Scan refuses it, by that rule.
func TestGeneratedRulesFire(t *testing.T) {
	for _, gr := range gitleaksRules {
		t.Run(gr.id, func(t *testing.T) {
			re := regexp.MustCompile(gr.re)
			var tried []string
			for i := range 20 {
				g := secrettest.NewGen(fmt.Sprintf("%s#%d", gr.id, i))
				s, err := secrettest.FromRegexp(g, gr.re)
				if err != nil {
					t.Fatal(err)
				}
				if !re.MatchString(s) {
					continue
				}
				// The keyword must be on the secret's line, as a memory
				// that names the provider has it.
				line := s
				if !hasKeyword(s, gr.keywords) {
					line = gr.keywords[0] + " " + s
				}
				text := "Noted while setting up the service:\n" + line + "\nrotate it later"
				// Scan must refuse it; when another rule reports the same
				// secret (a more specific one, or one listed earlier), this
				// rule must still find it on its own.
				got := Scan(text)
				if len(got) > 0 && got[0].Line == 2 && fires(text, gr.id) {
					return
				}
				tried = append(tried, fmt.Sprintf("%q: %v", s, got))
			}
			t.Errorf("no generated string was reported by %s; tried:\n%v", gr.id, tried)
		})
	}
}

func hasKeyword(s string, keywords []string) bool {
	l := strings.ToLower(s)
	for _, k := range keywords {
		if strings.Contains(l, k) {
			return true
		}
	}
	return false
}

// fires reports whether the rule with this id, alone, finds a secret in
// text.
func fires(text, id string) bool {
	ri := slices.IndexFunc(rules, func(r rule) bool { return r.id == id })
	r := &rules[ri]
	src := text
	if r.fold {
		src = asciiLower(text)
	}
	var hits []hit
	for _, k := range r.keywords {
		for i := 0; ; {
			j := strings.Index(src[i:], k)
			if j < 0 {
				break
			}
			hits = append(hits, hit{i + j, len(k)})
			i += j + 1
		}
	}
	slices.SortFunc(hits, func(a, b hit) int { return a.pos - b.pos })
	for _, c := range r.match(text, ri, hits, nil, newBudget(len(text))) {
		if !c.allow {
			return true
		}
	}
	return false
}
