package engine

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
)

// An untrusted project's rule is only a one-line proposal in the rules
// tier, so its body must reach the model with the bodies; a trusted
// project's rule is in the rules tier in full and is not repeated.
func TestUntrustedRuleBodyIsInjected(t *testing.T) {
	for _, trusted := range []bool{false, true} {
		dir := t.TempDir()
		ft := &fakeTrust{}
		e := New(Config{ProjectDir: dir, Trust: ft})
		// Written by someone else (Remember from a person would pin it).
		writeMemory(t, dir, &memory.Memory{ID: "rules/deploy", Kind: memory.KindRule,
			Summary: "部署到预发之前走完检查清单", Body: "1. make lint test 全绿\n2. 新迁移先 dry-run\n"})
		if trusted {
			if _, err := e.Trust(""); err != nil {
				t.Fatal(err)
			}
		}
		e.Invalidate()
		inj, err := e.Inject("部署前要检查什么?", InjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		inBodies := strings.Contains(inj.Bodies, "新迁移先 dry-run")
		inRules := strings.Contains(inj.Rules, "新迁移先 dry-run")
		if trusted && (inBodies || !inRules) {
			t.Errorf("trusted: body in rules %v (want true), in bodies %v (want false)", inRules, inBodies)
		}
		if !trusted && (!inBodies || inRules) {
			t.Errorf("untrusted: body in rules %v (want false), in bodies %v (want true)\nrules:\n%s\nbodies:\n%s", inRules, inBodies, inj.Rules, inj.Bodies)
		}
	}
}

// The block of an untrusted project's rules speaks of "the rules above"
// only when there are rules above it.
func TestProposedRulesMentionRulesAboveOnlyWhenThere(t *testing.T) {
	for _, withGlobal := range []bool{false, true} {
		rs := newRoots(t)
		writeString(t, filepath.Join(rs.project, "ROOT.md"), "# P\n\n## Hard rules\n\n- Use make.\n")
		if withGlobal {
			writeString(t, filepath.Join(rs.global, "ROOT.md"), "# G\n\n## Hard rules\n\n- Answer in English.\n")
		}
		e := New(Config{GlobalDir: rs.global, ProjectDir: rs.project, Trust: &fakeTrust{}})
		inj, err := e.Stable()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(inj.Rules, "Proposed by this repository") {
			t.Fatalf("no proposals block:\n%s", inj.Rules)
		}
		if got := strings.Contains(inj.Rules, "the rules above"); got != withGlobal {
			t.Errorf("global rules %v: mentions the rules above: %v\n%s", withGlobal, got, inj.Rules)
		}
	}
}
