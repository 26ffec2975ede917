package extract

import (
	"errors"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/opencode"
	"github.com/ocmem/ocmem/internal/options"
)

// fakeModel is a text model with a cost and a window.
func fakeModel(in, out, context float64) opencode.Model {
	var m opencode.Model
	m.Cost.Input, m.Cost.Output, m.Limit.Context = in, out, context
	m.Capabilities.Input.Text, m.Capabilities.Output.Text = true, true
	m.Status = "active"
	return m
}

func providers(ps map[string]map[string]opencode.Model) *opencode.Providers {
	out := &opencode.Providers{}
	for id, models := range ps {
		out.Providers = append(out.Providers, opencode.Provider{ID: id, Models: models})
	}
	return out
}

func TestChooseModel(t *testing.T) {
	// The three fake models of the spec: expensive; cheap; cheaper but a 4k window.
	three := map[string]opencode.Model{
		"expensive": fakeModel(15, 75, 200000),
		"cheap":     fakeModel(0.25, 1.25, 16000),
		"tiny":      fakeModel(0.01, 0.02, 4096),
	}
	deprecated := fakeModel(0.01, 0.01, 100000)
	deprecated.Status = "deprecated"
	noText := fakeModel(0.01, 0.01, 100000)
	noText.Capabilities.Input.Text = false

	tests := []struct {
		name     string
		ps       map[string]map[string]opencode.Model
		override *options.ModelRef
		session  string // the session's provider
		want     string
		wantErr  string
	}{
		{name: "cheapest with a big enough window", ps: map[string]map[string]opencode.Model{"fake": three}, want: "fake/cheap"},
		{name: "extractModel wins", ps: map[string]map[string]opencode.Model{"fake": three}, override: &options.ModelRef{ProviderID: "fake", ID: "expensive"}, want: "fake/expensive"},
		{name: "extractModel may be small", ps: map[string]map[string]opencode.Model{"fake": three}, override: &options.ModelRef{ProviderID: "fake", ID: "tiny"}, want: "fake/tiny"},
		{name: "extractModel missing", ps: map[string]map[string]opencode.Model{"fake": three}, override: &options.ModelRef{ProviderID: "fake", ID: "nope"}, wantErr: "fake/nope is not among"},
		{name: "extractModel of another provider", ps: map[string]map[string]opencode.Model{"fake": three}, override: &options.ModelRef{ProviderID: "other", ID: "cheap"}, wantErr: "other/cheap is not among"},
		{name: "exactly 8000 is enough", ps: map[string]map[string]opencode.Model{"p": {"a": fakeModel(1, 1, 8000), "b": fakeModel(0.5, 1, 7999)}}, want: "p/a"},
		{name: "no declared window", ps: map[string]map[string]opencode.Model{"p": {"a": fakeModel(1, 1, 100000), "b": fakeModel(0, 0, 0)}}, want: "p/a"},
		{name: "output cost breaks a tie", ps: map[string]map[string]opencode.Model{"p": {"a": fakeModel(1, 3, 100000), "b": fakeModel(1, 2, 100000)}}, want: "p/b"},
		{name: "id breaks a full tie", ps: map[string]map[string]opencode.Model{"p": {"b": fakeModel(1, 2, 100000), "a": fakeModel(1, 2, 100000)}}, want: "p/a"},
		{name: "provider breaks a full tie", ps: map[string]map[string]opencode.Model{"q": {"a": fakeModel(1, 2, 100000)}, "p": {"a": fakeModel(1, 2, 100000)}}, want: "p/a"},
		{name: "deprecated and text-less skipped", ps: map[string]map[string]opencode.Model{"p": {"old": deprecated, "img": noText, "ok": fakeModel(1, 1, 100000)}}, want: "p/ok"},
		{
			name:    "the session's provider first",
			ps:      map[string]map[string]opencode.Model{"free": {"z": fakeModel(0, 0, 100000)}, "mine": {"m": fakeModel(3, 15, 200000), "s": fakeModel(1, 5, 200000)}},
			session: "mine", want: "mine/s",
		},
		{
			name:    "another provider when the session's has nothing suitable",
			ps:      map[string]map[string]opencode.Model{"other": {"o": fakeModel(2, 2, 100000)}, "mine": {"m": fakeModel(1, 1, 4000)}},
			session: "mine", want: "other/o",
		},
		{name: "nothing suitable", ps: map[string]map[string]opencode.Model{"p": {"tiny": fakeModel(0.01, 0.02, 4096)}}, wantErr: "no model can run extraction"},
		{name: "no providers", ps: nil, wantErr: "no model can run extraction"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Map order varies between runs; the choice must not.
			for range 5 {
				got, why, err := chooseModel(providers(tt.ps), tt.override, tt.session)
				if tt.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
						t.Fatalf("err = %v, want %q", err, tt.wantErr)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if got.String() != tt.want || why == "" {
					t.Fatalf("chose %s (%s), want %s", got, why, tt.want)
				}
			}
		})
	}
	if _, _, err := chooseModel(providers(nil), nil, ""); !errors.Is(err, errNoModel) {
		t.Errorf("err = %v, want errNoModel", err)
	}
}
