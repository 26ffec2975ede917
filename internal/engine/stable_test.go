package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ocmem/ocmem/internal/benchgen"
	"github.com/ocmem/ocmem/internal/compile"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/prompt"
	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/tiers"
	"github.com/ocmem/ocmem/internal/trust"
)

// TestRenderStableMatchesReference renders the stable tiers and the project
// rules in one pass (renderStable) and as they were rendered before, in
// three (stable_ref_test.go), over a generated store with rules in both
// roots, under every kind of trust decision, ROOT.md sections fit and unfit
// for a prompt, and outline budgets that keep everything, some or almost
// nothing: the two must agree byte for byte, and the project rules field
// for field, and the rules that are news must be those of the old rules
// that serve told the person of.
func TestRenderStableMatchesReference(t *testing.T) {
	dir := t.TempDir()
	if _, err := benchgen.Write(dir, benchgen.Config{Memories: 1000}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OCMEM_CACHE_DIR", filepath.Join(dir, "cache"))
	c := &corpus{dir: dir}
	if _, err := benchEngine(c).Load(); err != nil { // writes the cache
		t.Fatal(err)
	}
	e := benchEngine(c)
	loaded, err := e.Load() // from the cache: memories read in place
	if err != nil {
		t.Fatal(err)
	}
	if !loaded.FromCache() {
		t.Fatal("the second load did not come from the cache")
	}
	all := projectRulesRef(loaded, e.project, trust.AllInForce())
	var memRules []ProjectRule
	for _, r := range all.Rules {
		if r.Key != trust.RootMDKey {
			memRules = append(memRules, r)
		}
	}
	if len(memRules) < 20 {
		t.Fatalf("the generated store has %d project rules; the test needs some", len(memRules))
	}
	pinsOf := func(keep func(k int, r ProjectRule) (text string, ok bool)) *trust.Gate {
		var pins []trust.Pin
		for k, r := range memRules {
			if text, ok := keep(k, r); ok {
				pins = append(pins, trust.NewPin(r.Key, text))
			}
		}
		pins = append(pins, trust.NewPin(trust.RootMDKey, "- Use make."), trust.NewPin(trust.RootMDKey, "- A line removed since."))
		return trust.NewGate(trust.State{Trusted: true, Pins: pins}, nil)
	}
	gates := map[string]*trust.Gate{
		"no trust list": trust.AllInForce(),
		"untrusted":     trust.NewGate(trust.State{}, nil),
		"unreadable":    trust.NewGate(trust.State{}, errors.New("trusted.json: unexpected end of JSON input")),
		"all accepted":  pinsOf(func(_ int, r ProjectRule) (string, bool) { return r.Text, true }),
		"some accepted, some changed, some new": pinsOf(func(k int, r ProjectRule) (string, bool) {
			switch k % 3 {
			case 0:
				return r.Text, true
			case 1:
				return r.Text + "  an older version\n", true
			}
			return "", false
		}),
	}
	rootMDs := map[string][2]string{ // global, project
		"none":   {"", ""},
		"fit":    {"# G\n\n## Hard rules\n\n- Answer in English.\n", "# P\n\n## Hard rules\n\n- Use make.\n- Run the linter   \n\n- Tag releases.\n"},
		"unfit":  {"# G\n\n## Hard rules\n\n- Be \u202eterse.\n", "# P\n\n## Hard rules\n\n- Use \u202emake.\n"},
		"unset":  {"# G\n\nNo rules here.\n", "# P\n\n## Other\n\ntext\n"},
		"mixed":  {"# G\n\n## Hard rules\n\n- Answer in English.\n", "# P\n\n## Hard rules\n\n- Use \u202emake.\n"},
		"quoted": {"", "# P\n\n## Hard rules\n\n- Use make.\n- A new line.\n"},
	}
	for gname, g := range gates {
		for rname, md := range rootMDs {
			for _, budget := range []int{0, 300, options.DefaultMaxOutlineChars, 1 << 30} {
				t.Run(fmt.Sprintf("%s/%s/%d", gname, rname, budget), func(t *testing.T) {
					s := *loaded
					s.RootMD = map[store.Scope][]byte{store.Global: []byte(md[0]), store.Project: []byte(md[1])}
					rules, outline, news, _ := tiers.Render(&s, e.roots(), e.project, g, budget)
					if want := renderRulesRef(&s, e.roots(), g); rules != want {
						t.Errorf("rules tier differs:\n%s", firstDiff(rules, want))
					}
					if want := renderOutlineRef(&s, e.roots(), budget); outline != want {
						t.Errorf("outline differs:\n%s", firstDiff(outline, want))
					}
					var wantNews []ProjectRule
					for _, r := range projectRulesRef(&s, e.project, g).Pending() {
						if g.Trusted() || r.Change == RuleChanged {
							wantNews = append(wantNews, r)
						}
					}
					if !reflect.DeepEqual(news, wantNews) {
						t.Errorf("news differ: %d rules, want %d", len(news), len(wantNews))
					}
					if want, got := projectRulesRef(&s, e.project, g), tiers.Project(&s, e.project, g); !reflect.DeepEqual(got, want) {
						t.Errorf("ProjectRules differs: %d rules, want %d", len(got.Rules), len(want.Rules))
					}
				})
			}
		}
	}
	// A project root not in use: no rules, and the trust state only.
	s := *loaded
	noProject := store.Root{Scope: store.Project}
	for gname, g := range gates {
		if _, _, news, _ := tiers.Render(&s, e.roots()[:1], noProject, g, options.DefaultMaxOutlineChars); news != nil {
			t.Errorf("%s, no project root: news %+v", gname, news)
		}
		if pr, want := tiers.Project(&s, noProject, g), projectRulesRef(&s, noProject, g); !reflect.DeepEqual(pr, want) {
			t.Errorf("%s, no project root: project rules %+v, want %+v", gname, pr, want)
		}
	}
}

// firstDiff shows where two texts part.
func firstDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(0, i-80)
	return fmt.Sprintf("at byte %d of %d (want %d):\n got: %q\nwant: %q", i, len(got), len(want), got[lo:min(len(got), i+80)], want[lo:min(len(want), i+80)])
}

// FuzzRuleText checks the rule text written with appends against the one
// written with fmt and strings.Fields, whatever the fields hold (white space
// of every kind, invalid UTF-8, blank lines).
func FuzzRuleText(f *testing.F) {
	f.Add("decisions/x", "  Use  pnpm\tonly ", "", "body line\n\n  indented  \r\nlast\t")
	f.Add("rules/r", "摘要\u3000全角空格", "高亮\u0085NEL", "\xff\xfe bad\n\u00a0nbsp\u00a0\n")
	f.Add("", "", "", "")
	f.Add("a", "\v\f", " \n ", "\n\n\n")
	f.Fuzz(func(t *testing.T, id, summary, highlight, body string) {
		if got, want := RuleText(id, summary, highlight, body), RuleTextRef(id, summary, highlight, body); got != want {
			t.Errorf("RuleText(%q, %q, %q, %q) =\n%q\nwant\n%q", id, summary, highlight, body, got, want)
		}
		if got, want := string(prompt.AppendOneLine([]byte("x"), summary)), "x"+compile.OneLine(summary); got != want {
			t.Errorf("prompt.AppendOneLine(%q) = %q, want %q", summary, got, want)
		}
		sum := sha256.Sum256([]byte(body))
		if got, want := trust.DigestBytes([]byte(body)), hex.EncodeToString(sum[:]); string(got[:]) != want || trust.Digest(body) != want {
			t.Errorf("DigestBytes(%q) = %s, Digest %s, want %s", body, got, trust.Digest(body), want)
		}
	})
}
