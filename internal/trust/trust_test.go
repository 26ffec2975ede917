package trust_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/trust"
)

func tempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestProjectKey(t *testing.T) {
	d := tempDir(t)
	repo := filepath.Join(d, "repo")
	if err := os.MkdirAll(filepath.Join(repo, ".memory"), 0o755); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		filepath.Join(repo, ".memory"):            repo,                           // the usual project root
		filepath.Join(repo, "missing", ".memory"): filepath.Join(repo, "missing"), // not created yet
		filepath.Join(d, "notes"):                 filepath.Join(d, "notes"),      // --project elsewhere
	} {
		if got := trust.ProjectKey(in); got != want {
			t.Errorf("ProjectKey(%s) = %s, want %s", in, got, want)
		}
	}
	if runtime.GOOS != "windows" {
		link := filepath.Join(d, "link")
		if err := os.Symlink(repo, link); err != nil {
			t.Fatal(err)
		}
		if got := trust.ProjectKey(filepath.Join(link, ".memory")); got != repo {
			t.Errorf("through a symlink: %s, want %s", got, repo)
		}
	}
}

func TestTrustUntrustList(t *testing.T) {
	d := tempDir(t)
	l := trust.List{Path: filepath.Join(d, "cfg", "ocmem", "trusted.json")}
	a, b := filepath.Join(d, "a"), filepath.Join(d, "b")
	if ok, _, err := l.Trusted(a); ok || err != nil {
		t.Fatalf("a missing list trusts %s: %v %v", a, ok, err)
	}
	t1 := time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC)
	if added, err := l.Trust(a, t1); !added || err != nil {
		t.Fatalf("Trust(a) = %v, %v", added, err)
	}
	if added, err := l.Trust(a, t1.Add(time.Hour)); added || err != nil {
		t.Fatalf("Trust(a) again = %v, %v", added, err)
	}
	if _, err := l.Trust(b, t1.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if ok, at, err := l.Trusted(a); !ok || !at.Equal(t1) || err != nil {
		t.Errorf("Trusted(a) = %v %v %v, want true since %v", ok, at, err, t1)
	}
	es, err := l.Entries()
	if err != nil || len(es) != 2 || es[0].Root != a || es[1].Root != b {
		t.Fatalf("Entries = %+v, %v", es, err)
	}
	f := l.Func(filepath.Join(b, ".memory"))
	if !f() {
		t.Error("Func: b is trusted")
	}
	if removed, err := l.Untrust(b); !removed || err != nil {
		t.Fatalf("Untrust(b) = %v, %v", removed, err)
	}
	if f() {
		t.Error("Func still trusts b after Untrust: it must read the list on every call")
	}
	if removed, _ := l.Untrust(b); removed {
		t.Error("Untrust of an untrusted project reported a removal")
	}
	if (trust.List{}).Func(a)() || l.Func("")() {
		t.Error("no list, or no project, must trust nothing")
	}
}

// A damaged list trusts nothing and is never overwritten.
func TestCorruptListTrustsNothing(t *testing.T) {
	d := tempDir(t)
	p := filepath.Join(d, "trusted.json")
	for _, content := range []string{`{"version":1,"projects":{"` + d + `":`, `[]`, `{"version":99,"projects":{}}`} {
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		l := trust.List{Path: p}
		if ok, _, err := l.Trusted(d); ok || !errors.Is(err, trust.ErrCorrupt) {
			t.Errorf("%s: Trusted = %v, %v", content, ok, err)
		}
		if l.Func(filepath.Join(d, ".memory"))() {
			t.Errorf("%s: Func trusts", content)
		}
		if _, err := l.Trust(d, time.Now()); !errors.Is(err, trust.ErrCorrupt) {
			t.Errorf("%s: Trust over a damaged list: %v", content, err)
		}
		if b, _ := os.ReadFile(p); string(b) != content {
			t.Errorf("the damaged list was rewritten: %s", b)
		}
	}
}

func TestConcurrentTrust(t *testing.T) {
	d := tempDir(t)
	l := trust.List{Path: filepath.Join(d, "trusted.json")}
	var wg sync.WaitGroup
	const n = 16
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := l.Trust(filepath.Join(d, "p", string(rune('a'+i))), time.Now()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if es, err := l.Entries(); err != nil || len(es) != n {
		t.Errorf("%d entries after %d concurrent Trust calls (%v)", len(es), n, err)
	}
}

func TestDefaultPath(t *testing.T) {
	d := tempDir(t)
	t.Setenv("OCMEM_TRUST_FILE", "")
	t.Setenv("OPENCODE_CONFIG_DIR", filepath.Join(d, "oc"))
	if p, err := trust.DefaultPath(); err != nil || p != filepath.Join(d, "oc", "ocmem", "trusted.json") {
		t.Errorf("DefaultPath = %s, %v", p, err)
	}
	t.Setenv("OCMEM_TRUST_FILE", filepath.Join(d, "t.json"))
	if p, _ := trust.DefaultPath(); p != filepath.Join(d, "t.json") {
		t.Errorf("with OCMEM_TRUST_FILE: %s", p)
	}
}

// Pins: Accept trusts and pins exactly what is given; Pin replaces the
// pins of the keys it names and trusts nothing; a version-1 list (trust
// by path) reads as trusted with nothing pinned.
func TestPins(t *testing.T) {
	d := tempDir(t)
	l := trust.List{Path: filepath.Join(d, "trusted.json")}
	a := filepath.Join(d, "a")
	mine := trust.NewPin("rules/mine", "- Mine [rules/mine]\n")
	if err := l.Pin(a, []trust.Pin{mine}); err != nil {
		t.Fatal(err)
	}
	if st, err := l.State(a); err != nil || st.Trusted || len(st.Pins) != 1 || st.Pins[0] != mine {
		t.Fatalf("after Pin: %+v, %v", st, err)
	}
	if ok, _, _ := l.Trusted(a); ok {
		t.Error("pinning a rule trusted the project")
	}
	if es, _ := l.Entries(); len(es) != 0 {
		t.Errorf("Entries lists a project that is not trusted: %+v", es)
	}
	line1, line2 := trust.NewPin(trust.RootMDKey, "- one"), trust.NewPin(trust.RootMDKey, "- two")
	if added, err := l.Accept(a, time.Now(), []trust.Pin{mine, line1, line2}); !added || err != nil {
		t.Fatalf("Accept = %v, %v", added, err)
	}
	line3 := trust.NewPin(trust.RootMDKey, "- three")
	if err := l.Pin(a, []trust.Pin{line3}); err != nil {
		t.Fatal(err)
	}
	st, err := l.State(a)
	if err != nil || !st.Trusted || len(st.Pins) != 2 || st.Pins[0] != line3 || st.Pins[1] != mine {
		t.Fatalf("after pinning ROOT.md's lines anew: %+v, %v", st, err)
	}
	// Pinning ROOT.md's section replaces the section accepted before and
	// the lines an earlier version pinned one by one.
	sec1, sec2 := trust.NewPin(trust.RootMDSectionKey, "Never:\n- one"), trust.NewPin(trust.RootMDSectionKey, "Never:\n- two")
	for _, sec := range []trust.Pin{sec1, sec2} {
		if err := l.Pin(a, []trust.Pin{sec}); err != nil {
			t.Fatal(err)
		}
		st, err = l.State(a)
		if err != nil || len(st.Pins) != 2 || st.Pins[0] != sec || st.Pins[1] != mine {
			t.Fatalf("after pinning ROOT.md's section: %+v, %v", st, err)
		}
	}
	if line1.SHA256 != trust.Digest("- one") || len(line1.SHA256) != 64 {
		t.Errorf("digest %q", line1.SHA256)
	}
	if removed, _ := l.Untrust(a); !removed {
		t.Fatal("Untrust")
	}
	if st, _ := l.State(a); st.Trusted || len(st.Pins) != 0 {
		t.Errorf("Untrust kept %+v", st)
	}

	old := filepath.Join(d, "v1.json")
	if err := os.WriteFile(old, []byte(`{"version":1,"projects":{"`+a+`":{"trusted":"2026-11-01T00:00:00Z"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := (trust.List{Path: old}).State(a); err != nil || !st.Trusted || len(st.Pins) != 0 {
		t.Errorf("version 1: %+v, %v", st, err)
	}
}

// PinsDigest names the exact texts of a set of pins, in any order: a text
// or a key changed, a pin added or dropped gives another fingerprint.
func TestPinsDigest(t *testing.T) {
	a, b := trust.NewPin("rules/a", "A"), trust.NewPin(trust.RootMDSectionKey, "- one")
	base := trust.PinsDigest([]trust.Pin{a, b})
	if got := trust.PinsDigest([]trust.Pin{b, a}); got != base {
		t.Errorf("the order of the pins changed the fingerprint: %s, %s", got, base)
	}
	for name, pins := range map[string][]trust.Pin{
		"a text changed": {a, trust.NewPin(trust.RootMDSectionKey, "- one\n- two")},
		"a key changed":  {trust.NewPin("rules/b", "A"), b},
		"a pin added":    {a, b, trust.NewPin("rules/c", "C")},
		"a pin dropped":  {a},
		"none":           nil,
	} {
		if trust.PinsDigest(pins) == base {
			t.Errorf("%s: same fingerprint", name)
		}
	}
	if len(base) != 64 {
		t.Errorf("fingerprint %q is not a hex SHA-256", base)
	}
}
