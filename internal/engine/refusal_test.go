package engine

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/pathsafe"
	"github.com/ocmem/ocmem/internal/secrets"
	"github.com/ocmem/ocmem/internal/store"
)

// notRefusals are the engine's exported error values that are not
// refusals, each with why: a caller that tells refusals apart must not
// count them as one.
var notRefusals = map[string]string{
	// The duplicate's message tells the model what to do itself ("nothing
	// was written. To replace it, …"); the edges word it as a result, not
	// as a refusal.
	"ErrDuplicate": "answered as a result of its own",
}

// TestEveryErrorValueIsARefusal reads the package's source: a new
// exported error value made with errors.New instead of refusal would be
// missed by every edge that tells refusals apart.
func TestEveryErrorValueIsARefusal(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if !strings.HasPrefix(id.Name, "Err") || !id.IsExported() || i >= len(vs.Values) {
						continue
					}
					seen++
					if _, exempt := notRefusals[id.Name]; exempt {
						continue
					}
					var fn *ast.Ident
					if call, ok := vs.Values[i].(*ast.CallExpr); ok {
						fn, _ = call.Fun.(*ast.Ident)
					}
					if fn == nil || fn.Name != "refusal" {
						t.Errorf("%s: %s is not made by refusal(…): an edge would not count it as a refusal", fset.Position(id.Pos()), id.Name)
					}
				}
			}
		}
	}
	if seen < 7 {
		t.Fatalf("found %d exported error values: the test must run in the engine's folder", seen)
	}
}

// TestRefusalsAreRecognised: every refusal the engine returns, its own
// sentinels and the packages' below it, is a *Refusal, and still is what
// errors.Is and errors.As found before.
func TestRefusalsAreRecognised(t *testing.T) {
	for _, err := range []error{ErrNotFound, ErrNoRoot, ErrPinned, ErrNeedsPerson, ErrAmbiguous, ErrBadRequest, ErrNotProposal, ErrRulesChanged} {
		if !IsRefusal(err) || !IsRefusal(fmt.Errorf("forget: %w", err)) {
			t.Errorf("%v is not recognised as a refusal", err)
		}
	}
	if IsRefusal(&DuplicateError{Scope: store.Project, ID: "a/b"}) || IsRefusal(errors.New("disk full")) {
		t.Error("a duplicate or a failure is recognised as a refusal")
	}

	r := newRoots(t)
	e := r.engine(options.Options{})
	tok := fakeGitHubToken(3)
	for _, tt := range []struct {
		name string
		call func() error
		is   func(error) bool
	}{
		{"path outside, forget", func() error { _, err := e.Forget(store.Project, "../x/y", FromModel); return err },
			func(err error) bool { return errors.Is(err, pathsafe.ErrOutside) }},
		{"path outside, forget edits", func() error { _, err := e.ForgetEdits(store.Project, "../x/y"); return err },
			func(err error) bool { return errors.Is(err, pathsafe.ErrOutside) }},
		{"path outside, preview forget", func() error { _, err := e.PreviewForget(store.Project, "../x/y"); return err },
			func(err error) bool { return errors.Is(err, pathsafe.ErrOutside) }},
		{"path outside, accept", func() error { _, err := e.Accept(store.Project, "../x/y", ""); return err },
			func(err error) bool { return errors.Is(err, pathsafe.ErrOutside) }},
		{"path outside, reject", func() error { _, err := e.Reject(store.Project, "../x/y"); return err },
			func(err error) bool { return errors.Is(err, pathsafe.ErrOutside) }},
		{"secret, remember", func() error {
			_, err := e.Remember(RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "token", Body: "GITHUB_TOKEN=" + tok, Source: FromModel})
			return err
		}, func(err error) bool { var se *secrets.Error; return errors.As(err, &se) }},
		{"secret, preview", func() error {
			_, err := e.PreviewRemember(RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "token", Body: "GITHUB_TOKEN=" + tok, Source: FromModel})
			return err
		}, func(err error) bool { var se *secrets.Error; return errors.As(err, &se) }},
		{"secret in the file name, remember", func() error {
			_, err := e.Remember(RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "bot xoxb " + fakeDigits(12) + " " + fakeDigits(12) + " " + strings.ToLower(tok[4:28]), Body: "b", Source: FromModel})
			return err
		}, func(err error) bool { var se *secrets.Error; return errors.As(err, &se) }},
		{"not found, forget", func() error { _, err := e.Forget(store.Project, "facts/none", FromModel); return err },
			func(err error) bool { return errors.Is(err, ErrNotFound) }},
	} {
		err := tt.call()
		if err == nil || !IsRefusal(err) || !tt.is(err) {
			t.Errorf("%s: %v (refusal %v), want a refusal that is still what it was", tt.name, err, IsRefusal(err))
		}
	}
}
