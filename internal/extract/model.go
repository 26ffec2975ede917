package extract

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ocmem/ocmem/internal/opencode"
	"github.com/ocmem/ocmem/internal/options"
)

// MinContextTokens is the smallest context window extraction uses (SPEC
// §6): the prompt's budgets (turns.go) are cut to fit it. A model whose
// window is not declared (0: a custom model without "limit") is skipped
// too, since nothing says the prompt fits; name it in extractModel to use
// it anyway.
const MinContextTokens = 8000

var errNoModel = errors.New("no model can run extraction: every available model is deprecated, takes no text, or has a context window under 8k tokens (or none declared); set extractModel in the plugin options")

// chooseModel picks the model extraction asks: extractModel when set (it
// must be one the server offers), else the cheapest suitable model, by input
// cost, then output cost, then provider and model id, so the choice is the
// same every time. Models of the provider the session itself uses are
// preferred: the conversation then goes nowhere it has not gone already,
// and is paid with the same account; other providers are used only when
// that one has no suitable model.
func chooseModel(ps *opencode.Providers, override *options.ModelRef, sessionProvider string) (opencode.ModelRef, string, error) {
	if override != nil && (override.ProviderID != "" || override.ID != "") {
		ref := opencode.ModelRef{ProviderID: override.ProviderID, ModelID: override.ID}
		for _, p := range ps.Providers {
			if _, ok := p.Models[override.ID]; ok && p.ID == override.ProviderID {
				return ref, "extractModel", nil
			}
		}
		return ref, "", fmt.Errorf("extractModel %s is not among the models the OpenCode server offers (%s)", ref, strings.Join(modelNames(ps), ", "))
	}
	var all []opencode.Model
	for _, p := range ps.Providers {
		for id, m := range p.Models {
			if m.ID == "" {
				m.ID = id
			}
			if m.ProviderID == "" {
				m.ProviderID = p.ID
			}
			if suitable(m) {
				all = append(all, m)
			}
		}
	}
	if len(all) == 0 {
		return opencode.ModelRef{}, "", errNoModel
	}
	pool := all
	why := "cheapest suitable model"
	if sessionProvider != "" {
		same := slices.DeleteFunc(slices.Clone(all), func(m opencode.Model) bool { return m.ProviderID != sessionProvider })
		if len(same) > 0 {
			pool = same
			why = "cheapest suitable model of the session's provider " + sessionProvider
		}
	}
	best := slices.MinFunc(pool, func(a, b opencode.Model) int {
		return cmp.Or(
			cmp.Compare(a.Cost.Input, b.Cost.Input),
			cmp.Compare(a.Cost.Output, b.Cost.Output),
			cmp.Compare(a.ProviderID, b.ProviderID),
			cmp.Compare(a.ID, b.ID),
		)
	})
	return opencode.ModelRef{ProviderID: best.ProviderID, ModelID: best.ID},
		fmt.Sprintf("%s (input %g, output %g per 1M tokens, context %g)", why, best.Cost.Input, best.Cost.Output, best.Limit.Context), nil
}

// suitable: a text model with a window of at least MinContextTokens that is
// not deprecated.
func suitable(m opencode.Model) bool {
	return m.Limit.Context >= MinContextTokens && m.Status != "deprecated" &&
		m.Capabilities.Input.Text && m.Capabilities.Output.Text
}

func modelNames(ps *opencode.Providers) []string {
	var out []string
	for _, p := range ps.Providers {
		for id := range p.Models {
			out = append(out, p.ID+"/"+id)
		}
	}
	slices.Sort(out)
	if len(out) > 20 {
		out = append(out[:20], "…")
	}
	return out
}
