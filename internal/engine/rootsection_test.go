package engine

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/store"
	"github.com/ocmem/ocmem/internal/trust"
)

// sectionRootMD is a ROOT.md whose hard rules take their meaning from a
// heading and from the lead-in above each list, with a goal above the
// section and compiled tables below it.
func sectionRootMD(goal string, section []string, table string) string {
	return "# Memory\n\n## Goals\n\n" + goal + "\n\n## Hard rules\n\n" + strings.Join(section, "\n") +
		"\n\n<!-- ocmem:begin routing -->\n| Trigger | Memory |\n|---|---|\n" + table + "\n<!-- ocmem:end routing -->\n"
}

var (
	pushHeading = "### Pushing"
	askLeadIn   = "Ask the user first before doing any of these:"
	neverLeadIn = "Never do these:"
	alwaysLead  = "Always do these before pushing:"
	forcePush   = "- git push --force origin main"
	dropTable   = "- drop a database table"
	makeCheck   = "- make check"
	goVet       = "- go vet ./..."
)

// acceptedSection is the section a person accepted in
// TestRootMDSectionDecidedAsAWhole.
var acceptedSection = []string{
	alwaysLead, "", makeCheck, goVet, "",
	pushHeading, "", askLeadIn, "", forcePush, dropTable, "",
	neverLeadIn, "", "- commit a .env file",
}

// TestRootMDSectionDecidedAsAWhole: a ROOT.md hard rule means what its
// heading and lead-in say, so the section is accepted as a whole. Moving
// accepted lines under another lead-in, deleting a heading or a lead-in,
// or reordering lines takes the section out of force until the person
// accepts it again; an edit elsewhere in ROOT.md leaves it in force.
func TestRootMDSectionDecidedAsAWhole(t *testing.T) {
	swapped := []string{
		neverLeadIn, "", makeCheck, goVet, "",
		pushHeading, "", askLeadIn, "", "- commit a .env file", "",
		alwaysLead, "", forcePush, dropTable,
	}
	noHeading := []string{
		alwaysLead, "", makeCheck, goVet, "",
		askLeadIn, "", forcePush, dropTable, "",
		neverLeadIn, "", "- commit a .env file",
	}
	noLeadIn := []string{
		alwaysLead, "", makeCheck, goVet, "",
		pushHeading, "", forcePush, dropTable, "",
		neverLeadIn, "", "- commit a .env file",
	}
	reordered := []string{
		alwaysLead, "", goVet, makeCheck, "",
		pushHeading, "", askLeadIn, "", forcePush, dropTable, "",
		neverLeadIn, "", "- commit a .env file",
	}
	for _, c := range []struct {
		name    string
		goal    string
		section []string
		table   string
		inForce bool
		// out is a line that must not be a hard rule after the change.
		out string
	}{
		{"unchanged", "Ship.", acceptedSection, "| deploy | ops/deploy |", true, ""},
		{"goals edited", "Ship weekly, and keep the API stable.", acceptedSection, "| deploy | ops/deploy |", true, ""},
		{"compiled tables changed", "Ship.", acceptedSection, "| deploy | ops/deploy |\n| release | ops/release |", true, ""},
		{"lists swapped", "Ship.", swapped, "| deploy | ops/deploy |", false, forcePush},
		{"heading deleted", "Ship.", noHeading, "| deploy | ops/deploy |", false, forcePush},
		{"lead-in deleted", "Ship.", noLeadIn, "| deploy | ops/deploy |", false, forcePush},
		{"lines reordered", "Ship.", reordered, "| deploy | ops/deploy |", false, goVet},
	} {
		t.Run(c.name, func(t *testing.T) {
			rs := newRoots(t)
			root := filepath.Join(rs.project, store.RootFile)
			writeString(t, root, sectionRootMD("Ship.", acceptedSection, "| deploy | ops/deploy |"))
			e := New(Config{ProjectDir: rs.project, Now: func() time.Time { return testNow }, Trust: &fakeTrust{}})
			if _, err := e.Trust(""); err != nil {
				t.Fatal(err)
			}
			if hard, _ := hardPart(mustStable(t, e).Rules); !strings.Contains(hard, askLeadIn+"\n\n"+forcePush) {
				t.Fatalf("the accepted section is not in force:\n%s", hard)
			}

			writeString(t, root, sectionRootMD(c.goal, c.section, c.table))
			e.Invalidate()
			hard, proposed := hardPart(mustStable(t, e).Rules)
			pr, err := e.ProjectRules()
			if err != nil {
				t.Fatal(err)
			}
			if c.inForce {
				if !strings.Contains(hard, strings.Join(c.section, "\n")) || proposed != "" || len(pr.Pending()) != 0 {
					t.Fatalf("an edit outside the section took it out of force:\n%s\nproposed:\n%s\npending %+v", hard, proposed, pr.Pending())
				}
				return
			}
			for _, l := range strings.Split(hard, "\n") {
				if l == c.out || l == askLeadIn || l == neverLeadIn || l == alwaysLead {
					t.Errorf("%q is still a hard rule after the section changed:\n%s", l, hard)
				}
			}
			if !strings.Contains(proposed, "> "+c.out) {
				t.Errorf("the changed section is not among the repository's proposals:\n%s", proposed)
			}
			pending := pr.Pending()
			if len(pending) != 1 || pending[0].Key != RootMDKey || pending[0].Change != RuleChanged ||
				pending[0].Text != strings.Join(c.section, "\n") {
				t.Fatalf("pending %+v, want the whole section, changed", pending)
			}
			// What the person accepted is kept, so the change reads as a
			// diff of the section.
			if pending[0].Accepted != strings.Join(acceptedSection, "\n") {
				t.Errorf("accepted before = %q, want the section accepted", pending[0].Accepted)
			}

			// Accepted again, as it reads now, it is in force.
			if _, err := e.Trust(""); err != nil {
				t.Fatal(err)
			}
			if hard, proposed := hardPart(mustStable(t, e).Rules); !strings.Contains(hard, strings.Join(c.section, "\n")) || proposed != "" {
				t.Errorf("after accepting the changed section:\n%s\nproposed:\n%s", hard, proposed)
			}
		})
	}
}

// TestRootMDLinesAcceptedOneByOne: a trust list of an earlier version
// pinned ROOT.md's lines one by one. Such a decision neither stays in
// force silently nor disappears silently: the section is changed, the
// reports name the lines and say why, and accepting the section withdraws
// them.
func TestRootMDLinesAcceptedOneByOne(t *testing.T) {
	rs := newRoots(t)
	writeString(t, filepath.Join(rs.project, store.RootFile), rootMD(neverLeadIn, forcePush, makeCheck))
	ft := &fakeTrust{trusted: true, pins: []trust.Pin{
		trust.NewPin(trust.RootMDKey, neverLeadIn), trust.NewPin(trust.RootMDKey, forcePush), trust.NewPin(trust.RootMDKey, makeCheck),
	}}
	e := New(Config{ProjectDir: rs.project, Now: func() time.Time { return testNow }, Trust: ft})
	if hard, _ := hardPart(mustStable(t, e).Rules); strings.Contains(hard, forcePush) {
		t.Fatalf("lines accepted one by one are in force:\n%s", hard)
	}
	pr, err := e.ProjectRules()
	if err != nil {
		t.Fatal(err)
	}
	if p := pr.Pending(); len(p) != 1 || p[0].Change != RuleChanged || p[0].Accepted != "" || len(pr.LineByLine) != 3 {
		t.Fatalf("pending %+v, line by line %q", p, pr.LineByLine)
	}
	rules, err := e.Rules()
	if err != nil {
		t.Fatal(err)
	}
	if r := rules[0]; r.Source != SourceRootMD || r.Status != RuleChanged || !strings.Contains(r.Why, "one by one by an earlier version") {
		t.Errorf("ROOT.md's entry %+v does not say why it is not in force", r)
	}
	news, err := e.InjectedRuleNews()
	if err != nil || len(news) != 1 || news[0].Key != RootMDKey {
		t.Errorf("news %+v, %v: the person is not told", news, err)
	}

	if _, err := e.Accept("", RootMDKey, ""); err != nil {
		t.Fatal(err)
	}
	for _, p := range ft.pins {
		if p.Key == trust.RootMDKey {
			t.Errorf("a line accepted one by one is still pinned: %+v", p)
		}
	}
	if hard, _ := hardPart(mustStable(t, e).Rules); !strings.Contains(hard, neverLeadIn+"\n"+forcePush) {
		t.Errorf("the section accepted is not in force:\n%s", hard)
	}
	if pr, _ := e.ProjectRules(); len(pr.LineByLine) != 0 || len(pr.Pending()) != 0 {
		t.Errorf("after accepting the section: %+v", pr)
	}
}

// FuzzRootSection: the text pinned for ROOT.md's section keeps every
// non-blank line, in order, without its trailing space; it never holds two
// blank lines in a row, nor one at either end; and it is its own pinned
// text, so a section accepted reads the same when read again.
func FuzzRootSection(f *testing.F) {
	for _, s := range []string{"", "- a", "Never:\n\n- a\n- b  \n\n\n### H\n\t- c\r\n", "\n\n \t\n", "a\r\n\r\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, hr string) {
		got := trust.RootSection(hr)
		var want []string
		for _, l := range strings.Split(hr, "\n") {
			if l = strings.TrimRight(l, " \t\r"); strings.TrimSpace(l) != "" {
				want = append(want, l)
			}
		}
		if kept := nonBlankLines(got); strings.Join(kept, "\n") != strings.Join(want, "\n") {
			t.Fatalf("trust.RootSection(%q) = %q: lines %q, want %q", hr, got, kept, want)
		}
		if strings.Contains(got, "\n\n\n") || strings.HasPrefix(got, "\n") || strings.HasSuffix(got, "\n") {
			t.Fatalf("trust.RootSection(%q) = %q: blank lines left over", hr, got)
		}
		if again := trust.RootSection(got); again != got {
			t.Fatalf("rootSection is not stable: %q, then %q", got, again)
		}
	})
}

// TestLongRootMDSectionProposedInPart: a ROOT.md section not in force that
// is longer than the block of proposals may hold is quoted up to the
// bound, line by line, with a note; it is not left out whole.
func TestLongRootMDSectionProposedInPart(t *testing.T) {
	rs := newRoots(t)
	var lines []string
	for i := range 200 {
		lines = append(lines, "- ROOT RULE "+strings.Repeat("x", 20)+" "+string(rune('a'+i%26)))
	}
	writeString(t, filepath.Join(rs.project, store.RootFile), rootMD(lines...))
	e := New(Config{ProjectDir: rs.project, Trust: &fakeTrust{}})
	_, proposed := hardPart(mustStable(t, e).Rules)
	if !strings.Contains(proposed, "  > "+lines[0]+"\n") || !strings.Contains(proposed, "more line(s) not shown; `ocmem rules` lists them.") {
		t.Errorf("the long section is not quoted in part:\n%s", proposed)
	}
}
