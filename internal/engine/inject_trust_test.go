package engine

import (
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/store"
)

// An untrusted project's rule is only a one-line proposal in the rules
// tier, so its body must reach the model with the bodies; a trusted
// project's rule is in the rules tier in full and is not repeated.
func TestUntrustedRuleBodyIsInjected(t *testing.T) {
	for _, trusted := range []bool{false, true} {
		dir := t.TempDir()
		e := New(Config{ProjectDir: dir, ProjectTrusted: func() bool { return trusted }})
		if _, err := e.Remember(RememberRequest{Scope: store.Project, Category: "rules", Kind: memory.KindRule,
			Summary: "部署到预发之前走完检查清单", Body: "1. make lint test 全绿\n2. 新迁移先 dry-run", Source: FromPerson}); err != nil {
			t.Fatal(err)
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
