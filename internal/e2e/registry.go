package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// Registry is an npm registry on 127.0.0.1 for tests. It serves the
// packages it was given as npm does: GET /<name> answers the packument (each
// version's package.json, read from its tarball, plus dist.tarball,
// dist.integrity (sha512) and dist.shasum, and dist-tags.latest), and
// GET /<name>/-/<file>.tgz the tarball. Any other name is not found, so a
// test sees (in Requests) everything npm asked for.
//
//	reg := NewRegistry(t, "rel/npm/ocmem-0.1.0.tgz", "rel/npm/ocmem-linux-x64-0.1.0.tgz")
//	env.Vars = append(env.Vars, "npm_config_registry="+reg.URL+"/")
type Registry struct {
	URL      string
	srv      *httptest.Server
	packages map[string]map[string]*regVersion // name → version
	mu       sync.Mutex
	requests []string // "GET /path", in order
}

type regVersion struct {
	manifest map[string]any
	tarball  []byte
	file     string // tarball file name
}

// NewRegistry starts a registry serving the given npm tarballs; it stops
// when the test ends.
func NewRegistry(t testing.TB, tarballs ...string) *Registry {
	t.Helper()
	r := &Registry{packages: map[string]map[string]*regVersion{}}
	for _, p := range tarballs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m, err := tarballManifest(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		name, _ := m["name"].(string)
		version, _ := m["version"].(string)
		if name == "" || version == "" {
			t.Fatalf("%s: package.json has no name or version", p)
		}
		if r.packages[name] == nil {
			r.packages[name] = map[string]*regVersion{}
		}
		r.packages[name][version] = &regVersion{manifest: m, tarball: data, file: filepath.Base(p)}
	}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	r.URL = r.srv.URL
	t.Cleanup(r.srv.Close)
	return r
}

// Requests returns "METHOD /path" of every request so far.
func (r *Registry) Requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.requests...)
}

func (r *Registry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.requests = append(r.requests, req.Method+" "+req.URL.Path)
	r.mu.Unlock()
	path := strings.TrimPrefix(req.URL.Path, "/")
	name, file, isTarball := strings.Cut(path, "/-/")
	if unescaped, err := url.PathUnescape(name); err == nil {
		name = unescaped // @scope%2fname
	}
	versions, ours := r.packages[name]
	switch {
	case !ours:
		http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
	case req.Method != http.MethodGet && req.Method != http.MethodHead:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	case isTarball:
		for _, v := range versions {
			if v.file == file {
				w.Header().Set("Content-Type", "application/octet-stream")
				w.Write(v.tarball)
				return
			}
		}
		http.NotFound(w, req)
	default:
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(r.packument(name, versions))
	}
}

// packument is the registry document for one package.
func (r *Registry) packument(name string, versions map[string]*regVersion) map[string]any {
	vs := map[string]any{}
	var names []string
	for v, rv := range versions {
		sha := sha512.Sum512(rv.tarball)
		sha1sum := sha1.Sum(rv.tarball)
		m := map[string]any{}
		for k, val := range rv.manifest {
			m[k] = val
		}
		m["_id"] = name + "@" + v
		m["dist"] = map[string]any{
			"tarball":   r.URL + "/" + name + "/-/" + rv.file,
			"integrity": "sha512-" + base64.StdEncoding.EncodeToString(sha[:]),
			"shasum":    hex.EncodeToString(sha1sum[:]),
		}
		vs[v] = m
		names = append(names, v)
	}
	sort.Strings(names)
	return map[string]any{
		"_id":       name,
		"name":      name,
		"dist-tags": map[string]string{"latest": names[len(names)-1]},
		"versions":  vs,
	}
}

// tarballManifest reads package/package.json from an npm tarball.
func tarballManifest(data []byte) (map[string]any, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, fmt.Errorf("no package/package.json")
		}
		if err != nil {
			return nil, err
		}
		if h.Name != "package/package.json" {
			continue
		}
		var m map[string]any
		if err := json.NewDecoder(tr).Decode(&m); err != nil {
			return nil, fmt.Errorf("package.json: %w", err)
		}
		return m, nil
	}
}

var (
	releaseMu   sync.Mutex
	releaseDirs = map[string]string{}
)

// Release builds an ocmem release for this machine's platform with the
// release tool (go run ./tools/release -platforms host), once per version
// and test process, and returns its output folder. RemoveOcmemBuild
// deletes it.
func Release(t testing.TB, version string) string {
	t.Helper()
	releaseMu.Lock()
	defer releaseMu.Unlock()
	if dir, ok := releaseDirs[version]; ok {
		return dir
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "ocmem-e2e-release-")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", "./tools/release", "-version", version, "-out", dir, "-platforms", "host")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		t.Fatalf("go run ./tools/release: %v\n%s", err, out)
	}
	releaseDirs[version] = dir
	return dir
}

func removeReleases() {
	releaseMu.Lock()
	defer releaseMu.Unlock()
	for _, d := range releaseDirs {
		os.RemoveAll(d)
	}
}
