package e2e

import (
	"path/filepath"
	"testing"

	"github.com/ocmem/ocmem/internal/install"
)

// NpmVersion is the version the tests release and install from npm.
const NpmVersion = "0.0.0-e2e"

// NodePlatform is this machine's platform as Node spells it, the suffix of
// the platform package.
func NodePlatform() string { return install.NodePlatform() }

// NewNpmEnv is an Env whose npm registry is a local one serving this
// checkout's release of ocmem, with a private npm cache.
func NewNpmEnv(t testing.TB) (*Env, *Registry) {
	t.Helper()
	return NewNpmEnvWith(t, EnvOptions{})
}

// NewNpmEnvWith is NewNpmEnv with options for the Env.
func NewNpmEnvWith(t testing.TB, opts EnvOptions) (*Env, *Registry) {
	t.Helper()
	SkipShort(t)
	rel := Release(t, NpmVersion)
	reg := NewRegistry(t,
		filepath.Join(rel, "npm", "ocmem-"+NpmVersion+".tgz"),
		filepath.Join(rel, "npm", "ocmem-"+NodePlatform()+"-"+NpmVersion+".tgz"))
	e := NewEnvWith(t, opts)
	e.Vars = append(e.Vars, "npm_config_registry="+reg.URL+"/", "npm_config_cache="+filepath.Join(t.TempDir(), "npm-cache"))
	return e, reg
}
