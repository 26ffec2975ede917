package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocmem/ocmem/internal/memory"
)

// TestOutdateByPlace: a person's mark records HEAD where there is one, and
// only the time and reason in a repository with no commit yet or with no
// worktree at all; a model's mark needs a worktree. Verify clears a
// person's mark in every place, a worktree or none.
func TestOutdateByPlace(t *testing.T) {
	fact := &memory.Memory{ID: "facts/port", Kind: memory.KindFact, Summary: "kestrel serves on port 8080",
		Body: "The kestrel server listens on 8080.", Created: testNow.UnixMilli(), Updated: testNow.UnixMilli()}
	for _, tt := range []struct {
		name      string
		place     func(t *testing.T) (root string, head string, e func() *Engine)
		modelErr  string // "" : the model's mark is written too
		wantModel error
	}{
		{"a commit", func(t *testing.T) (string, string, func() *Engine) {
			x := newCodeRepo(t)
			x.write("srv/server.go", "package srv\n")
			head := x.commit("start")
			return x.memoryDir(), head, x.engine
		}, "", nil},
		{"git without a commit", func(t *testing.T) (string, string, func() *Engine) {
			x := newCodeRepo(t)
			return x.memoryDir(), "", x.engine
		}, "", nil},
		{"no worktree", func(t *testing.T) (string, string, func() *Engine) {
			dir := filepath.Join(t.TempDir(), "memories") // not .memory: no worktree
			return dir, "", func() *Engine { return New(Config{ProjectDir: dir, Now: func() time.Time { return testNow }}) }
		}, "", ErrNoCode},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root, head, engine := tt.place(t)
			writeMemory(t, root, fact)
			path := filepath.Join(root, "facts", "port.md")
			before := readString(t, path)

			_, err := engine().MarkOutdated("", "facts/port", "the port is read from PORT now")
			switch {
			case tt.wantModel != nil && !errors.Is(err, tt.wantModel),
				tt.modelErr != "" && (err == nil || !strings.Contains(err.Error(), tt.modelErr)),
				tt.wantModel == nil && tt.modelErr == "" && err != nil:
				t.Fatalf("the model's mark: %v; want %v %q", err, tt.wantModel, tt.modelErr)
			case err != nil && readString(t, path) != before:
				t.Fatalf("a refused model's mark changed the file")
			}
			writeString(t, path, before)

			m, err := engine().Outdate(OutdatedRequest{ID: "facts/port", Reason: "the port is read from PORT now", Source: FromPerson})
			if err != nil {
				t.Fatal(err)
			}
			want := memory.Outdated{Commit: head, Time: testNow.UnixMilli(), Reason: "the port is read from PORT now"}
			if got := readMemory(t, path).Outdated; got != want || m.Commit != head || m.Scope != Project || m.Path != path {
				t.Errorf("marked %+v, returned %+v; want %+v at %s", got, m, want, path)
			}
			if a := withoutOutdated(readString(t, path)); a != before {
				t.Errorf("the mark changed more than outdated:\n%s\n---\n%s", before, a)
			}

			if _, err := engine().Verify("", "facts/port", nil); err != nil {
				t.Fatalf("verify: %v", err)
			}
			if got := readString(t, path); got != before {
				t.Errorf("verified, the file is not back as it was:\n%s\n---\n%s", before, got)
			}
		})
	}
}

// TestOutdateRefusesPerson: what a person's mark refuses, the file and the
// root's lock file left byte for byte; what a model's mark takes instead
// (a reason cut and masked).
func TestOutdateRefusesPerson(t *testing.T) {
	x := stalePortRepo(t)
	writeMemory(t, x.memoryDir(), &memory.Memory{ID: "rules/port", Kind: memory.KindRule, Summary: "kestrel listener port is never hard-coded",
		Body: "Use ListenPort.", Created: testNow.UnixMilli(), Updated: testNow.UnixMilli()})
	writeMemory(t, x.memoryDir(), &memory.Memory{ID: "facts/port-old", Kind: memory.KindFact, Summary: "kestrel listener port is 80",
		Body: "It was 80.", SupersededBy: "facts/port-plain", Created: testNow.UnixMilli(), Updated: testNow.UnixMilli()})
	e := x.engine()
	if _, err := e.Compile(); err != nil { // takes the lock once, so that it exists
		t.Fatal(err)
	}
	token := fakeGitHubToken(5)
	long := strings.Repeat("port ", 60) + "x" // 301 runes
	lock := filepath.Join(x.memoryDir(), ".ocmem.lock")
	for _, tt := range []struct {
		id, reason string
		dryRun     bool
		want       string
		is         error
	}{
		{"rules/port", "the code says otherwise", false, "hard rule: it is not marked outdated, only taken out of force by a person editing it or superseding it", ErrBadRequest},
		{"rules/port", "the code says otherwise", true, "hard rule", ErrBadRequest},
		{"facts/port-old", "gone", false, "already superseded by facts/port-plain", ErrBadRequest},
		{"facts/port-plain", " \n\t", false, "no reason given", ErrBadRequest},
		{"facts/port-plain", long, false, "the reason is 301 characters; at most 300", ErrBadRequest},
		{"facts/port-plain", "the key is " + token, false, "possible secret found", nil},
		{"facts/none", "gone", false, "memory not found", ErrNotFound},
		{"../outside/x", "gone", false, "..", nil},
		{"facts/port-plain", "dev uses 3000", true, "", nil},
	} {
		p := filepath.Join(x.memoryDir(), "facts", "port-plain.md")
		if strings.HasPrefix(tt.id, "rules/") || tt.id == "facts/port-old" {
			p = filepath.Join(x.memoryDir(), filepath.FromSlash(tt.id)+".md")
		}
		before, lockBefore := readString(t, p), readString(t, lock)
		m, err := e.Outdate(OutdatedRequest{ID: tt.id, Reason: tt.reason, Source: FromPerson, DryRun: tt.dryRun})
		switch {
		case tt.want == "" && (err != nil || !m.DryRun || m.Reason != tt.reason || m.Commit == "" || m.ID != tt.id):
			t.Errorf("dry run of %s: %+v, %v; want the mark it would write", tt.id, m, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !IsRefusal(err) || tt.is != nil && !errors.Is(err, tt.is)):
			t.Errorf("Outdate(%s, %.20q) = %v; want a refusal saying %q", tt.id, tt.reason, err, tt.want)
		case err != nil && strings.Contains(err.Error(), token):
			t.Errorf("the refusal shows the secret: %v", err)
		}
		if readString(t, p) != before || readString(t, lock) != lockBefore {
			t.Errorf("Outdate(%s, %.20q, dry run %v) changed the file or the lock", tt.id, tt.reason, tt.dryRun)
		}
	}

	// The dry run's file is the one the mark then writes.
	reason := `read from PORT now: "quoted" # not a comment`
	dry, err := e.Outdate(OutdatedRequest{ID: "facts/port-plain", Reason: reason, Source: FromPerson, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Outdate(OutdatedRequest{ID: "facts/port-plain", Reason: reason, Source: FromPerson}); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, filepath.Join(x.memoryDir(), "facts", "port-plain.md")); got != string(dry.File) {
		t.Errorf("the dry run showed\n%s\nthe mark wrote\n%s", dry.File, got)
	}

	// A model's reason is its own text, unasked: cut and masked, not refused.
	if _, err := e.MarkOutdated("", "facts/port-plain", long+" "+token); err != nil {
		t.Fatal(err)
	}
	o := readMemory(t, filepath.Join(x.memoryDir(), "facts", "port-plain.md")).Outdated
	if n := len([]rune(o.Reason)); n != maxOutdatedReason || strings.Contains(o.Reason, token) {
		t.Errorf("a model's long reason is %d runes (%q); want it cut to %d", n, o.Reason, maxOutdatedReason)
	}
}

// TestOutdateReplaces: a second mark replaces the first and says what it
// replaced; the scope is found wherever the id is.
func TestOutdateReplaces(t *testing.T) {
	x := stalePortRepo(t)
	global := t.TempDir()
	writeMemory(t, global, &memory.Memory{ID: "facts/editor", Kind: memory.KindPreference, Summary: "the user edits in vim",
		Body: "Vim keys.", Created: testNow.UnixMilli(), Updated: testNow.UnixMilli()})
	e := New(Config{ProjectDir: x.memoryDir(), GlobalDir: global, Now: func() time.Time { return testNow }})
	first, err := e.Outdate(OutdatedRequest{ID: "facts/editor", Reason: "switched to helix", Source: FromPerson})
	if err != nil || first.Scope != Global || first.Replaced != "" {
		t.Fatalf("first mark: %+v, %v; want global, replacing nothing", first, err)
	}
	second, err := e.Outdate(OutdatedRequest{ID: "facts/editor", Reason: "switched to zed", Source: FromPerson})
	if err != nil || !strings.HasSuffix(second.Replaced, ": switched to helix") {
		t.Fatalf("second mark: %+v, %v; want it to say it replaced the first", second, err)
	}
	if o := readMemory(t, filepath.Join(global, "facts", "editor.md")).Outdated; o.Reason != "switched to zed" {
		t.Errorf("the mark is %+v; want the second reason", o)
	}
	if _, err := os.Stat(filepath.Join(x.memoryDir(), "facts", "editor.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a project file was written: %v", err)
	}
}
