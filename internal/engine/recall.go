package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"slices"
	"time"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/prompt"
	"github.com/ocmem/ocmem/internal/rank"
	"github.com/ocmem/ocmem/internal/store"
)

// Hit is a recalled memory with its score and the reasons for it.
type Hit struct {
	ID        string      `json:"id"`
	Scope     store.Scope `json:"scope"`
	Path      string      `json:"path"`
	Kind      memory.Kind `json:"kind"`
	Summary   string      `json:"summary"`
	Highlight string      `json:"highlight,omitempty"`
	LoadWhen  []string    `json:"load_when,omitempty"`
	Pinned    bool        `json:"pinned,omitempty"`
	Updated   int64       `json:"updated"`
	Body      string      `json:"body"`
	// Enforce is a rule's guards: part of the rule's text in force.
	Enforce []memory.Guard `json:"enforce,omitempty"`
	Score   float64        `json:"score"`
	Reasons rank.Reasons   `json:"reasons"`
	// Stale is set when the code the memory is anchored to changed or
	// went since it was verified (stale.go).
	Stale *Staleness `json:"stale,omitempty"`
}

// Key is "scope:id", unique across both roots.
func (h Hit) Key() string { return string(h.Scope) + ":" + h.ID }

// GivenKey is "scope:id@digest", where digest is of the text a body
// injection shows (kind, summary, highlight, body, and whether it is shown
// as changed or gone): what a session's log
// records, so a memory whose content changed counts as not given yet.
func (h Hit) GivenKey() string {
	d := sha256.New()
	for _, s := range []string{string(h.Kind), h.Summary, h.Highlight, h.Body} {
		d.Write([]byte(s))
		d.Write([]byte{0})
	}
	// A memory that turned stale is given again, with its line; the key
	// of a fresh one is as it always was.
	if h.Stale != nil {
		d.Write([]byte("stale:" + h.Stale.State))
	}
	return h.Key() + "@" + hex.EncodeToString(d.Sum(nil)[:8])
}

// RecallOptions tune a recall.
type RecallOptions struct {
	Limit int       // 0: no limit
	Now   time.Time // zero: the engine's clock
	// Count increments the returned memories' recall counters in
	// .state.json (memory_recall and `ocmem recall` do; injection does not).
	Count bool
	// Mode is Search (the zero value: every memory holding a query word is
	// a candidate; memory_recall, `ocmem recall`) or Inject (strict, for
	// what is given unasked with a message).
	Mode Mode
	// Tuning replaces the ranker's default thresholds and weights (nil:
	// the defaults); for measuring them, as the leave-one-store-out sweep
	// does.
	Tuning *rank.Tuning
	// CodeDir is the worktree in use, where anchors are checked (the
	// stale line, a gone memory's rank); "" is the engine's own.
	CodeDir string
}

// Mode is how a recall picks its candidates. The edges name it here, so
// that they need not import the ranker.
type Mode = rank.Mode

// The modes of a recall.
const (
	Search = rank.Search
	Inject = rank.Inject
)

// ParseMode reads a mode's name ("search", "inject").
func ParseMode(s string) (Mode, error) { return rank.ParseMode(s) }

// Decay is the weight age gives a memory updated at updated, now (both Unix ms),
// as ranking applies it: 1 for a pinned memory or without decay.
func Decay(now, updated int64, halfLifeDays float64, pinned bool) float64 {
	return rank.Decay(now, updated, halfLifeDays, pinned)
}

// Recall ranks the memories of both roots against a query. What a hit shows of its memory has every suspected secret masked.
func (e *Engine) Recall(query string, o RecallOptions) ([]Hit, error) {
	hits, _, err := e.recall(rank.Analysed(query), o)
	for i := range hits {
		maskHit(&hits[i])
	}
	return hits, err
}

// recall is Recall, and when an Inject recall returns nothing although some
// memory holds a word of the query, the reason.
func (e *Engine) recall(query string, o RecallOptions) ([]Hit, string, error) {
	s, err := e.Load()
	if err != nil {
		return nil, "", err
	}
	now := o.Now
	if now.IsZero() {
		now = e.now()
	}
	res := rank.Rank(s.Corpus, query, rank.Params{Mode: o.Mode, Now: now.UnixMilli(), HalfLifeDays: e.opts.HalfLifeDays, Limit: o.Limit, Tuning: o.Tuning})
	hits := hitsOf(s, res.Hits)
	code := e.code(o.CodeDir)
	// A gone memory ranks below every fresh match, an outdated one last:
	// one that took a place within the limit gives it up to the next ones.
	if down := markStale(code, s, res.Hits, hits); down > 0 && o.Limit > 0 && len(hits) == o.Limit {
		res = rank.Rank(s.Corpus, query, rank.Params{Mode: o.Mode, Now: now.UnixMilli(), HalfLifeDays: e.opts.HalfLifeDays, Limit: o.Limit + down, Tuning: o.Tuning})
		hits = hitsOf(s, res.Hits)
		markStale(code, s, res.Hits, hits)
		hits = hits[:min(len(hits), o.Limit)]
	}
	if o.Count && len(hits) > 0 {
		e.count(hits)
	}
	return hits, res.Quiet, nil
}

func hitsOf(s *Snapshot, docs []rank.Hit) []Hit {
	hits := make([]Hit, len(docs))
	for i, h := range docs {
		f := s.File(h.Doc)
		m := f.Memory
		hits[i] = Hit{
			ID: m.ID, Scope: f.Scope, Path: f.Path, Kind: m.Kind, Summary: m.Summary,
			Highlight: m.Highlight, LoadWhen: m.LoadWhen, Pinned: m.Pinned, Updated: m.Updated,
			Body: m.Body, Enforce: m.Enforce, Score: h.Score, Reasons: h.Reasons,
		}
	}
	return hits
}

// count increments recall counters. A failure to count is not worth failing
// a recall for: counters are a ranking hint.
func (e *Engine) count(hits []Hit) {
	// written holds the counters as .state.json has them after this
	// recall's increment, the truth the snapshot is brought up to.
	type key struct {
		scope store.Scope
		id    string
	}
	written := map[key]int{}
	for _, scope := range []store.Scope{store.Project, store.Global} {
		var ids []string
		for _, h := range hits {
			if h.Scope == scope {
				ids = append(ids, h.ID)
			}
		}
		if len(ids) == 0 {
			continue
		}
		e.Root(scope).UpdateState(func(st *store.State) {
			if st.Hits == nil {
				st.Hits = map[string]int{}
			}
			for _, id := range ids {
				st.Hits[id]++
				written[key{scope, id}] = st.Hits[id]
			}
		})
	}
	if e.seams.afterCountWrite != nil {
		e.seams.afterCountWrite()
	}
	// Counters feed the next ranking: give the cached snapshot the new
	// ones, rather than dropping it for a reload that would find no file
	// changed. The snapshot gets the written values, not an increment: a
	// load that ran since the write has read them already. Counters only
	// grow, so a smaller value is older news and is not taken.
	e.mu.Lock()
	defer e.mu.Unlock()
	// A load running without the lock (Inspect's) may have read the
	// counters before this write: it must not become the current snapshot.
	e.epoch++
	s := e.snap
	if s == nil || len(written) == 0 {
		return
	}
	bumped := slices.Clone(s.Corpus.Columns().Hits)
	for k, n := range written {
		if i := s.Find(k.scope, k.id+".md"); i >= 0 {
			bumped[i] = max(bumped[i], int32(min(n, math.MaxInt32)))
		}
	}
	e.snap = s.WithCorpus(s.Corpus.WithHits(bumped))
}

// maskHit masks what a hit shows of its memory. Its LoadWhen is the
// snapshot's own slice: a masked one is a copy.
func maskHit(h *Hit) {
	f := prompt.Fields{Summary: h.Summary, Highlight: h.Highlight, Body: h.Body, LoadWhen: h.LoadWhen}
	if f, ok := prompt.MaskFields(f); ok {
		h.Summary, h.Highlight, h.Body, h.LoadWhen = f.Summary, f.Highlight, f.Body, f.LoadWhen
	}
}
