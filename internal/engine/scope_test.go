package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/rank"
	"github.com/ocmem/ocmem/internal/testenv"
)

// TestScopeAcrossLanguages holds project wins to its figures when the two
// memories of a conflict are written in different languages: the scope
// cases of the development sets, on copies of their stores whose global
// (then project) memory of each case has its triggers rewritten in the
// other language (testdata/scope-languages.json). A global preference
// whose triggers say 格式化 Python 代码 and 行宽 is on the topic of a project
// rule whose triggers say "format this file" and "line length".
func TestScopeAcrossLanguages(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "scope-languages.json"))
	if err != nil {
		t.Fatal(err)
	}
	type rewrite struct {
		Scope    string   `json:"scope"`
		ID       string   `json:"id"`
		LoadWhen []string `json:"load_when"`
	}
	var variants map[string]json.RawMessage
	if err := json.Unmarshal(data, &variants); err != nil {
		t.Fatal(err)
	}
	// The most violations each set may have, per variant; at the round
	// that added the test (docs/RETRIEVAL.md): ops-dev's two are words the
	// dictionary does not bridge (状态码 and status code; 加 of 加日志, one
	// character) and a project memory the rewritten triggers no longer
	// reach; before it, ml-dev had one in each variant too.
	most := map[string]int{"dev": 0, "ops-dev": 2, "ml-dev": 0}
	sets := map[string]string{"dev": *devSet, "ops-dev": *opsSet, "ml-dev": *mlSet}
	for _, variant := range []string{"global", "project"} {
		var bySet map[string][]rewrite
		if err := json.Unmarshal(variants[variant], &bySet); err != nil {
			t.Fatal(err)
		}
		for name, dir := range sets {
			t.Run(variant+"/"+name, func(t *testing.T) {
				if _, err := os.Stat(filepath.Join(dir, "queries.jsonl")); err != nil {
					testenv.Missing(t, "development set %s not found (%v): ops-dev and ml-dev are not in the repository; they live in ../shared/eval beside the checkout", dir, err)
				}
				tmp := t.TempDir()
				for _, scope := range []string{"global", "project"} {
					copyTree(t, filepath.Join(dir, scope), filepath.Join(tmp, scope))
				}
				for _, rw := range bySet[name] {
					path := filepath.Join(tmp, rw.Scope, filepath.FromSlash(rw.ID)+".md")
					b, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					m, err := memory.Parse(b)
					if err != nil {
						t.Fatalf("%s: %v", path, err)
					}
					m.LoadWhen = rw.LoadWhen
					if err := os.WriteFile(path, m.Format(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				queries := filepath.Join(tmp, "scope.jsonl")
				writeTagged(t, filepath.Join(dir, "queries.jsonl"), "scope", queries)
				m := runQueries(t, tmp, queries, rank.Inject, nil)
				logMetrics(t, m)
				vs := m["scope"]["violation"]
				n := 0
				for _, v := range vs {
					n += int(v)
				}
				if n > most[name] {
					t.Errorf("%d of %d scope cases give the overridden memory, want at most %d", n, len(vs), most[name])
				}
			})
		}
	}
}

// writeTagged writes the queries of a JSON-lines file that carry tag.
func writeTagged(t *testing.T, from, tag, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		var q devQuery
		if strings.TrimSpace(line) == "" || json.Unmarshal([]byte(line), &q) != nil {
			continue
		}
		for _, tg := range q.Tags {
			if tg == tag {
				out = append(out, line)
				break
			}
		}
	}
	if err := os.WriteFile(to, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
