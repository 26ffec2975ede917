package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ocmem/ocmem/internal/engine"
	"github.com/ocmem/ocmem/internal/rank"
)

// dumpTo writes, for every query of the sets, every candidate search
// finds with its reasons and what injection gives, as JSON lines to the
// file path ("" : w): the input of an offline look at features and
// thresholds (scripts/gate-loso.py).
func dumpTo(path string, w io.Writer, sets []devSet) (err error) {
	if path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer func() {
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}()
		w = f
	}
	bw := bufio.NewWriter(w)
	if err := dump(bw, sets); err != nil {
		return err
	}
	return bw.Flush()
}

type dumpCand struct {
	Key     string         `json:"key"`
	Score   float64        `json:"score"`
	Reasons rank.Reasons   `json:"reasons"`
	Head    map[string]int `json:"head"` // headline term → df
	Trig    map[string]int `json:"trig"` // trigger term → df
}

func dump(w io.Writer, sets []devSet) error {
	enc := json.NewEncoder(w)
	for _, s := range sets {
		e := s.engine()
		qs, err := s.queries()
		if err != nil {
			return err
		}
		for _, q := range qs {
			line, err := dumpQuery(e, filepath.Base(s.dir), q)
			if err != nil {
				return err
			}
			if err := enc.Encode(line); err != nil {
				return err
			}
		}
	}
	return nil
}

// dumpQuery is one query's line: its terms and their document frequency,
// what injection gives and why it is quiet, and every candidate a search
// finds with its headline's and triggers' terms.
func dumpQuery(e *engine.Engine, set string, q devQuery) (map[string]any, error) {
	all, err := e.Recall(q.Q, engine.RecallOptions{Now: devNow})
	if err != nil {
		return nil, err
	}
	inj, err := e.Inject(q.Q, engine.InjectOptions{Now: devNow})
	if err != nil {
		return nil, err
	}
	var given []string
	for _, h := range inj.Hits {
		given = append(given, h.Key())
	}
	snap, err := e.Load()
	if err != nil {
		return nil, err
	}
	ix := snap.Corpus.Index()
	dfs := func(text string) map[string]int {
		m := map[string]int{}
		for _, term := range rank.QueryTerms(text) {
			m[term] = ix.DF(term)
		}
		return m
	}
	var cs []dumpCand
	for _, h := range all {
		cs = append(cs, dumpCand{h.Key(), h.Score, h.Reasons, dfs(h.Summary + "\n" + strings.Join(h.LoadWhen, "\n")), dfs(strings.Join(h.LoadWhen, "\n"))})
	}
	return map[string]any{"set": set, "n": ix.Len(), "query": q, "terms": dfs(q.Q), "given": given, "quiet": inj.Quiet, "cands": cs}, nil
}
