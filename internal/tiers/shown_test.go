package tiers

import (
	"slices"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/secrets"
	"github.com/ocmem/ocmem/internal/secrets/secrettest"
	"github.com/ocmem/ocmem/internal/trust"
)

// TestShownDiff: a rule's diff as shown is trust.Diff line for line, each
// line masked; a token replaced inside a line still shows as a changed
// line; a secret over several lines (a private key) is masked whole.
func TestShownDiff(t *testing.T) {
	g := secrettest.NewGen(t.Name())
	pat, pat2 := "ghp_"+g.S(secrettest.Alnum, 36), "ghp_"+g.S(secrettest.Alnum, 36)
	stars := "ghp_" + strings.Repeat("*", 36)
	pem := g.PEMBlock("RSA ", "\n", 4)
	for _, tc := range []struct {
		name, accepted, now string
		want                []string
		secrets             []string
	}{
		{"no secret", "Ask first.\nRun make.\n", "Ask first.\nRun make check.\n",
			[]string{"  Ask first.", "- Run make.", "+ Run make check."}, nil},
		{"a token replaced", "Deploy with " + pat + ".\nAsk first.\n", "Deploy with " + pat2 + ".\nAsk first.\n",
			[]string{"- Deploy with " + stars + ".", "+ Deploy with " + stars + ".", "  Ask first."}, []string{pat, pat2}},
		{"a line added beside a token", "Deploy with " + pat + ".\n", "Deploy with " + pat + ".\nAsk first.\n",
			[]string{"  Deploy with " + stars + ".", "+ Ask first."}, []string{pat}},
		{"a private key added", "Ask first.\n", "Ask first.\nUse\n" + pem + "\n", nil, strings.Split(pem, "\n")[1:3]},
	} {
		got := ShownDiff(tc.accepted, tc.now)
		if tc.want != nil && !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
		joined := strings.Join(got, "\n")
		for _, s := range tc.secrets {
			if strings.Contains(joined, s) {
				t.Errorf("%s: the diff shows %q:\n%s", tc.name, s, joined)
			}
		}
		if fs := secrets.ScanAll(joined); len(fs) > 0 {
			t.Errorf("%s: the diff holds a suspected secret: %v", tc.name, fs)
		}
	}
}

// TestShownKeepsWhatIsAccepted: masking a project's rules and pins for
// display changes what a person reads, not the rules given nor the
// digests, which stay those of the texts as written.
func TestShownKeepsWhatIsAccepted(t *testing.T) {
	g := secrettest.NewGen(t.Name())
	key := "AKIA" + g.S(secrettest.Base32, 16)
	text := "- Upload to S3 with the key " + key + " only."
	rules := &ProjectRules{Rules: []ProjectRule{{Key: trust.RootMDKey, Text: text, Summary: key, Accepted: text}}, LineByLine: []string{text}, UnfitText: text}
	pins := []trust.Pin{trust.NewPin(trust.RootMDSectionKey, text)}
	shown, shownPins := rules.Shown(), ShownPins(pins)
	for name, s := range map[string]string{"text": shown.Rules[0].Text, "summary": shown.Rules[0].Summary, "accepted": shown.Rules[0].Accepted,
		"line by line": shown.LineByLine[0], "unfit": shown.UnfitText, "pin": shownPins[0].Text} {
		if strings.Contains(s, key) || !strings.Contains(s, "AKIA****") {
			t.Errorf("%s shown as %q", name, s)
		}
	}
	if rules.Rules[0].Text != text || rules.LineByLine[0] != text || pins[0].Text != text {
		t.Errorf("masking changed the rules given: %+v %+v", rules, pins)
	}
	if shownPins[0].SHA256 != trust.Digest(text) || rules.Pins()[0].SHA256 != trust.Digest(text) {
		t.Errorf("a digest is not of the text as written")
	}
}

// FuzzShownDiff: whatever the texts, the diff as shown holds no suspected
// secret, and when neither text holds one it is trust.Diff.
func FuzzShownDiff(f *testing.F) {
	g := secrettest.NewGen("FuzzShownDiff")
	pat := "ghp_" + g.S(secrettest.Alnum, 36)
	f.Add("Deploy with "+pat+".\nAsk first.\n", "Deploy with "+pat[:20]+"\n"+pat[20:]+".\n")
	f.Add("a\nb\n", "a\nc\n")
	f.Add("", "key "+pat)
	f.Fuzz(func(t *testing.T, accepted, now string) {
		got := ShownDiff(accepted, now)
		joined := strings.Join(got, "\n")
		if fs := secrets.ScanAll(joined); len(fs) > 0 {
			// What masking leaves may still read as a secret when lines of
			// two texts are put side by side; a line is never raw.
			for _, l := range got {
				if len(l) > 2 && secrets.ScanAll(l[2:]) != nil && !strings.Contains(l, secrets.WithheldLine) {
					t.Fatalf("a line of the diff holds a suspected secret: %q", l)
				}
			}
		}
		if len(secrets.ScanAll(accepted)) == 0 && len(secrets.ScanAll(now)) == 0 && !slices.Equal(got, trust.Diff(accepted, now)) {
			t.Fatalf("without a secret the diff is not trust.Diff:\n got %q\nwant %q", got, trust.Diff(accepted, now))
		}
	})
}
