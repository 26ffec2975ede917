package engine

import (
	"bufio"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/rank"
)

var devDump = flag.String("devset.dump", "", "write every dev-set query's candidates and features to this file (JSON lines)")

// TestDevDump writes, for every query of the four development sets, every
// candidate search finds with its reasons and what injection gives: the
// input of an offline look at features and thresholds.
func TestDevDump(t *testing.T) {
	if *devDump == "" {
		t.Skip("no -devset.dump")
	}
	out, err := os.Create(*devDump)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	w := bufio.NewWriter(out)
	defer w.Flush()
	enc := json.NewEncoder(w)
	for _, dir := range []string{*devSet, *turnSet, *opsSet, *mlSet} {
		e := New(Config{GlobalDir: filepath.Join(dir, "global"), ProjectDir: filepath.Join(dir, "project")})
		data, err := os.ReadFile(filepath.Join(dir, "queries.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			var q devQuery
			if err := json.Unmarshal([]byte(line), &q); err != nil {
				t.Fatal(err)
			}
			all, _, err := e.recall(rank.Analysed(q.Q), RecallOptions{Now: devNow})
			if err != nil {
				t.Fatal(err)
			}
			inj, quiet, err := e.recall(rank.Analysed(q.Q), RecallOptions{Now: devNow, Mode: rank.Inject})
			if err != nil {
				t.Fatal(err)
			}
			var given []string
			for _, h := range inj {
				given = append(given, h.Key())
			}
			type cand struct {
				Key     string         `json:"key"`
				Score   float64        `json:"score"`
				Reasons rank.Reasons   `json:"reasons"`
				Head    map[string]int `json:"head"` // headline term → df
				Trig    map[string]int `json:"trig"` // trigger term → df
			}
			snap, err := e.Load()
			if err != nil {
				t.Fatal(err)
			}
			ix := snap.Corpus.Index()
			var cs []cand
			for _, h := range all {
				head := map[string]int{}
				for _, term := range rank.QueryTerms(h.Summary + "\n" + strings.Join(h.LoadWhen, "\n")) {
					head[term] = ix.DF(term)
				}
				trig := map[string]int{}
				for _, term := range rank.QueryTerms(strings.Join(h.LoadWhen, "\n")) {
					trig[term] = ix.DF(term)
				}
				cs = append(cs, cand{h.Key(), h.Score, h.Reasons, head, trig})
			}
			terms := map[string]int{} // the message's terms → df
			for _, term := range rank.QueryTerms(q.Q) {
				terms[term] = ix.DF(term)
			}
			if err := enc.Encode(map[string]any{"set": filepath.Base(dir), "n": ix.Len(), "query": q, "terms": terms, "given": given, "quiet": quiet, "cands": cs}); err != nil {
				t.Fatal(err)
			}
		}
	}
}
