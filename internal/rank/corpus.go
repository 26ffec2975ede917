package rank

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/ocmem/ocmem/internal/index"
	"github.com/ocmem/ocmem/internal/memory"
)

// This file: Corpus, the index and the per-document columns a ranking reads,
// and how they are built, updated and cached.

// Meta is what the ranker needs to know about a document besides its text.
type Meta struct {
	ID         string
	Scope      memory.Scope // "" is Project
	Updated    int64        // Unix ms
	Pinned     bool
	Superseded bool     // superseded_by is set
	Supersedes string   // id this memory replaces ("" if none)
	LoadWhen   []string // triggers, for conflict detection
	Hits       int      // recall counter from .state.json
	// Kind says whether the memory states how things are to be done (a
	// preference, rule or decision: it can be overridden) or what is so.
	Kind memory.Kind
}

// Corpus is an index plus what the ranker needs about each document,
// prepared once per load so that a query does no work per stored memory.
// It is immutable and safe for concurrent use.
//
// The per-document data is kept in columns (one slice per attribute) rather
// than one struct per document: the scoring loop reads one byte of flags and
// the field lengths per posting, and a cache can store the columns as they
// are (Columns, FromColumns).
type Corpus struct {
	ix       *index.Index
	flags    []uint8                   // per document: flag* bits
	updated  []int64                   // Unix ms
	hits     []int32                   // recall counters
	sameID   []int32                   // for a global document, the project document with its id, or -1
	ids      []string                  // memory ids
	supers   []string                  // the id each memory supersedes, or ""
	triggers []string                  // load_when, encoded by encodeTriggers
	lengths  [][index.NumFields]uint32 // the index's field lengths
	slope    [index.NumFields]float64  // length normalisation: 1 − b + slope[f] · length
	rareIDF  float64                   // idf of a term held by one memory
	maxHead  uint32                    // the longest headline (summary, highlight, load_when), in terms
	slots    *sync.Pool                // *[]int32 of Len() entries, all -1; shared by Replace
	bufs     *sync.Pool                // *buffers, per-query scratch
}

// Flags of a document.
const (
	flagGlobal = 1 << iota
	flagPinned
	flagSuperseded // superseded_by is set
	flagReplaced   // named by a live memory's supersedes
	// flagNormative: a preference, rule or decision, which says how
	// things are done and so can be overridden by a project memory on
	// the same topic (select.go).
	flagNormative
	flagOut = flagSuperseded | flagReplaced
)

// normative reports whether a memory of kind k says how things are to be
// done, rather than what is so: a project memory on its topic overrides it.
func normative(k memory.Kind) bool {
	return k == memory.KindPreference || k == memory.KindRule || k == memory.KindDecision
}

// NewCorpus prepares an index and its documents' metadata for ranking;
// metas[i] describes document i.
func NewCorpus(ix *index.Index, metas []Meta) *Corpus {
	n := len(metas)
	c := &Corpus{ix: ix, flags: make([]uint8, n), updated: make([]int64, n), hits: make([]int32, n),
		ids: make([]string, n), supers: make([]string, n), triggers: make([]string, n)}
	for i, m := range metas {
		c.set(i, m)
	}
	c.link()
	c.prepare()
	return c
}

// set fills document i's columns from m, except the links between
// documents (link).
func (c *Corpus) set(i int, m Meta) {
	f := c.flags[i] & flagReplaced
	if m.Scope == memory.Global {
		f |= flagGlobal
	}
	if m.Pinned {
		f |= flagPinned
	}
	if m.Superseded {
		f |= flagSuperseded
	}
	if normative(m.Kind) {
		f |= flagNormative
	}
	c.flags[i], c.updated[i], c.hits[i] = f, m.Updated, int32(min(m.Hits, math.MaxInt32))
	c.ids[i], c.supers[i], c.triggers[i] = m.ID, m.Supersedes, encodeTriggers(m.LoadWhen)
}

// prepare computes what is derived from the index: length normalisation, the rare
// idf, the scratch pools.
func (c *Corpus) prepare() {
	ix := c.ix
	n := ix.Len()
	c.rareIDF = IDF(n, 1)
	var avg [index.NumFields]float64
	for f := index.Field(0); f < index.NumFields; f++ {
		avg[f] = math.Max(ix.AvgFieldLen(f), 1)
	}
	c.lengths = ix.Lengths()
	c.maxHead = 0
	for _, l := range c.lengths {
		c.maxHead = max(c.maxHead, l[index.Summary]+l[index.Highlight]+l[index.LoadWhen])
	}
	for f := range avg {
		c.slope[f] = b / avg[f]
	}
	if c.slots == nil {
		c.slots = &sync.Pool{New: func() any {
			s := make([]int32, n)
			for i := range s {
				s[i] = -1
			}
			return &s
		}}
		c.bufs = &sync.Pool{New: func() any { return new(buffers) }}
	}
}

// link computes what ties documents to each other: a global memory's
// project twin, and the memories a live memory supersedes.
func (c *Corpus) link() {
	n := len(c.ids)
	c.sameID = make([]int32, n)
	pos := make(map[string]int, n)
	for i, id := range c.ids {
		pos[scopeKey(scopeOf(c.flags[i]), id)] = i
		c.flags[i] &^= flagReplaced
	}
	for i, id := range c.ids {
		c.sameID[i] = -1
		if j, ok := pos[scopeKey(memory.Project, id)]; ok && c.flags[i]&flagGlobal != 0 {
			c.sameID[i] = int32(j)
		}
	}
	// Memories named by a live memory's supersedes are out, even if their
	// own superseded_by was never set (a hand edit, or the other root: a
	// project memory may supersede a global one for this project).
	for d, sup := range c.supers {
		if sup == "" || c.flags[d]&flagSuperseded != 0 {
			continue
		}
		if i, ok := pos[scopeKey(scopeOf(c.flags[d]), sup)]; ok {
			c.flags[i] |= flagReplaced
		}
		if i, ok := pos[scopeKey(memory.Global, sup)]; ok && c.flags[d]&flagGlobal == 0 {
			c.flags[i] |= flagReplaced
		}
	}
}

// Replace returns a corpus over ix in which the documents in changed have
// the given metadata (same number of documents). It reuses everything else:
// a reload after a file edit costs that file, unless the edit changes an id
// or a supersede link. The result ranks exactly as NewCorpus over ix and
// every document's metadata would.
func (c *Corpus) Replace(ix *index.Index, changed map[int]Meta) *Corpus {
	n := &Corpus{ix: ix, flags: slices.Clone(c.flags), updated: slices.Clone(c.updated), hits: slices.Clone(c.hits),
		sameID: c.sameID, ids: slices.Clone(c.ids), supers: slices.Clone(c.supers), triggers: slices.Clone(c.triggers),
		slots: c.slots, bufs: c.bufs}
	relink := false
	for d, m := range changed {
		o := c.Meta(d)
		n.set(d, m)
		relink = relink || o.ID != m.ID || (o.Scope == memory.Global) != (m.Scope == memory.Global) || o.Supersedes != m.Supersedes || o.Superseded != m.Superseded
	}
	if relink {
		n.link()
	}
	n.prepare()
	return n
}

// Remap returns the corpus of a store in which some documents were removed,
// renumbered or added, over ix (see index.Index.Remap): the document d here
// is remap[d] there (-1: gone), added gives the new documents' metadata.
// Recall counters are kept for the documents that stay (WithHits replaces
// them all).
func (c *Corpus) Remap(ix *index.Index, remap []int32, added map[int]Meta) *Corpus {
	n := ix.Len()
	r := &Corpus{ix: ix, flags: make([]uint8, n), updated: make([]int64, n), hits: make([]int32, n),
		ids: make([]string, n), supers: make([]string, n), triggers: make([]string, n)}
	for d, to := range remap {
		if to >= 0 {
			r.flags[to], r.updated[to], r.hits[to] = c.flags[d], c.updated[d], c.hits[d]
			r.ids[to], r.supers[to], r.triggers[to] = c.ids[d], c.supers[d], c.triggers[d]
		}
	}
	for d, m := range added {
		r.set(d, m)
	}
	r.link()
	r.prepare()
	return r
}

// WithHits returns the corpus with other recall counters, one per document.
func (c *Corpus) WithHits(hits []int32) *Corpus {
	n := *c
	n.hits = hits
	return &n
}

// Meta returns what the corpus knows of document d (LoadWhen is not kept,
// and is empty; of Kind only whether it is normative, as KindPreference).
func (c *Corpus) Meta(d int) Meta {
	f := c.flags[d]
	m := Meta{ID: c.ids[d], Updated: c.updated[d], Pinned: f&flagPinned != 0, Superseded: f&flagSuperseded != 0,
		Supersedes: c.supers[d], Hits: int(c.hits[d])}
	if f&flagGlobal != 0 {
		m.Scope = memory.Global
	} else {
		m.Scope = memory.Project
	}
	if f&flagNormative != 0 {
		m.Kind = memory.KindPreference
	}
	return m
}

// Index returns the corpus's index.
func (c *Corpus) Index() *index.Index { return c.ix }

// Len is the number of documents.
func (c *Corpus) Len() int { return len(c.flags) }

// Columns is a corpus's per-document data laid out as a cache stores it;
// every slice has one entry per document.
type Columns struct {
	Flags    []uint8
	Updated  []int64
	Hits     []int32
	SameID   []int32
	IDs      []string
	Supers   []string
	Triggers []string
}

// Columns returns the corpus's columns; do not modify them.
func (c *Corpus) Columns() Columns {
	return Columns{c.flags, c.updated, c.hits, c.sameID, c.ids, c.supers, c.triggers}
}

// FromColumns returns the corpus of ix and cols, using cols's slices
// without copying them. It checks their lengths and links, so a damaged
// cache is an error, never a crash.
func FromColumns(ix *index.Index, cols Columns) (*Corpus, error) {
	n := ix.Len()
	if len(cols.Flags) != n || len(cols.Updated) != n || len(cols.Hits) != n || len(cols.SameID) != n || len(cols.IDs) != n || len(cols.Supers) != n || len(cols.Triggers) != n {
		return nil, fmt.Errorf("rank: columns do not have one entry for each of %d documents", n)
	}
	for d, j := range cols.SameID {
		if j < -1 || j >= int32(n) || j >= 0 && (cols.Flags[d]&flagGlobal == 0 || cols.Flags[j]&flagGlobal != 0) {
			return nil, fmt.Errorf("rank: document %d: bad link %d", d, j)
		}
	}
	c := &Corpus{ix: ix, flags: cols.Flags, updated: cols.Updated, hits: cols.Hits, sameID: cols.SameID, ids: cols.IDs,
		supers: cols.Supers, triggers: cols.Triggers}
	c.prepare()
	return c, nil
}

func scopeOf(f uint8) memory.Scope {
	if f&flagGlobal != 0 {
		return memory.Global
	}
	return memory.Project
}

// scopeKey is "scope:id", unique across both roots.
func scopeKey(s memory.Scope, id string) string { return string(s) + ":" + id }
