package extraction

// Extraction in the real OpenCode 1.18.33 with the answer a sloppy small
// model gives (testdata/extract_answer.txt): reasoning that quotes the
// empty answer first, trigger pairs, a raw newline and an unescaped quote
// in a body, a trailing comma, an element that cannot be read, candidates
// that must not sync, a user's preference, and a rich update of an old
// decision that names it.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/e2e"
	"github.com/ocmem/ocmem/internal/fakellm"
)

func TestExtractionAnswer(t *testing.T) {
	e := e2e.NewExtractEnv(t)
	// The person trusts the project: in one they have not, a model's
	// answer writes nothing to their global memory (docs/SECURITY.md).
	e.RunOcmem("trust")
	old := e.Remember("decisions", "decision", "We build with npm", "npm ships with Node, so CI installs nothing else.",
		"--highlight", "npm ci", "--load-when", "npm", "--load-when", "build", "--load-when", "package manager")
	answer, err := os.ReadFile(filepath.Join("testdata", "extract_answer.txt"))
	if err != nil {
		t.Fatal(err)
	}
	e.Reply("SCENARIO-ANSWER", fakellm.Text(strings.ReplaceAll(string(answer), "{{OLD}}", old.ID)))
	srv := e.Serve()

	session := e.Conversation(srv, "SCENARIO-ANSWER",
		"the admin UI build broke on CI: it imports a package it never declared",
		"we switch from npm to pnpm then, its strict layout catches that",
		"以后用中文回答",
		"README is still TODO, continue tomorrow",
	)
	recs := e.LogRecords(session)
	if len(e.Extractions()) != 1 || len(e2e.WithMsg(recs, "extraction done")) != 1 {
		t.Fatalf("%d extraction requests, log %v", len(e.Extractions()), e2e.WithMsg(recs, "extraction"))
	}

	// The update replaces the old decision; a later question gets only the new one.
	remembered := e2e.WithMsg(recs, "extraction remembered")
	var update, pref, orders e2e.LogRecord
	for _, r := range remembered {
		switch {
		case strings.Contains(r.Str("summary"), "pnpm"):
			update = r
		case strings.Contains(r.Str("summary"), "Chinese"):
			pref = r
		case strings.Contains(r.Str("summary"), "orders API"):
			orders = r
		}
	}
	if update == nil || update.Str("superseded") != old.ID {
		t.Fatalf("the update was not written as superseding %s: %v", old.ID, remembered)
	}
	if m := readMemory(t, old.Path); m.SupersededBy != update.Str("id") {
		t.Errorf("the old decision's superseded_by is %q, want %q", m.SupersededBy, update.Str("id"))
	}
	if m := readMemory(t, update.Str("path")); !strings.Contains(m.Body, "strict layout") || !slices.Contains(m.LoadWhen, "包管理器") {
		t.Errorf("the update %+v", m)
	}
	hits := e.RunOcmem("recall", "--json", "--no-count", "add zod to the admin UI: which package manager do we use, npm?")
	if !strings.Contains(hits, update.Str("id")) || strings.Contains(hits, `"`+old.ID+`"`) {
		t.Errorf("a later question gets:\n%s\nwant %s and not %s", hits, update.Str("id"), old.ID)
	}

	// What must not sync is not written, and the log says why.
	skipped := e2e.WithMsg(recs, "extraction candidate skipped")
	var whys []string
	for _, r := range skipped {
		if r.Str("action") == "must-not-sync" {
			whys = append(whys, r.Str("reason"))
		}
	}
	if len(whys) != 3 || !strings.Contains(whys[0], "branch") || !strings.Contains(whys[1], "local path") || !strings.Contains(whys[2], "task state") {
		t.Errorf("must-not-sync lines %q", whys)
	}
	for _, f := range e.MemoryFiles() {
		if strings.Contains(f, "retry") || strings.Contains(f, "checkout") || strings.Contains(strings.ToLower(f), "readme") {
			t.Errorf("%s was written", f)
		}
	}

	// The user's preference lands in the global root.
	global := filepath.Join(e.Home, ".config", "opencode", "memory") + string(filepath.Separator)
	if pref == nil || pref.Str("scope") != "global" || !strings.HasPrefix(pref.Str("path"), global) {
		t.Errorf("the preference: %v, want it under %s", pref, global)
	} else if _, err := os.Stat(pref.Str("path")); err != nil {
		t.Error(err)
	}

	// The body with an unescaped quote is repaired, its kind mapped; the
	// element that cannot be read is lost alone.
	if orders == nil || orders.Str("kind") != "decision" {
		t.Fatalf("the orders API memory: %v", orders)
	}
	if m := readMemory(t, orders.Str("path")); !strings.Contains(m.Body, `POST {"id": 42} to /orders/lookup`) {
		t.Errorf("the orders API body %q", m.Body)
	}
	if l := e2e.WithMsg(recs, "extraction candidate dropped"); len(l) != 1 {
		t.Errorf("dropped lines %v, want the one unreadable element", l)
	}
}
