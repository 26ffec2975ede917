package extract

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ocmem/ocmem/internal/options"
)

// A memory extraction writes is anchored to the files its text names that
// exist in the project, with the reference point they are true at; one
// naming no such file gets no anchors.
func TestExtractionAnchors(t *testing.T) {
	h := newHarness(t)
	code := filepath.Dir(h.dir) // the project whose .memory h.dir is
	if err := os.MkdirAll(filepath.Join(code, "deploy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(code, "deploy", "migrate.sh"), []byte("#!/bin/sh\nmake migrate\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	anchored := deployCandidate
	anchored.Body = "`deploy/migrate.sh` runs them; `deploy/missing.sh` does not exist."
	plain := Candidate{Category: "facts", Kind: "fact", Summary: "The staging cluster has three nodes",
		LoadWhen: triggers{"staging"}, Body: "Three nodes, named after rivers."}
	h.srv.addTurns(4, deployTalk)
	h.srv.reply = replyWith(anchored, plain)
	res := h.run(options.Options{})
	if w := res.Written(); res.Err != nil || len(w) != 2 {
		t.Fatalf("result %+v", res)
	}
	mems := h.memories()
	m := mems["pitfalls/run-database-migrations-before-deploying"]
	if m == nil || !slices.Equal(m.Anchors, []string{"deploy/migrate.sh"}) || len(m.Verified.Digests) != 1 || m.Verified.Time == 0 {
		t.Errorf("the extracted memory naming a file: %+v", m)
	}
	if p := mems["facts/staging-cluster-has-three-nodes"]; p == nil || p.Anchors != nil || !p.Verified.IsZero() {
		t.Errorf("the extracted memory naming none: %+v", p)
	}
}
