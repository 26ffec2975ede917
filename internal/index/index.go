// Package index is an immutable inverted index over memories: for every term,
// the memories holding it and how often, per field. A query then costs time
// in proportion to the postings of its terms, not to the size of the store.
//
//	ix := index.Build(docs)           // docs[i].Fields[index.Summary] = "…"
//	for _, p := range ix.Postings("部署") { … p.Doc, p.TF[index.Body] … }
package index

import (
	"cmp"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/ocmem/ocmem/internal/textseg"
)

// Field is a part of a memory that is indexed separately, so it can be
// weighted separately.
type Field uint8

const (
	Summary Field = iota
	Highlight
	LoadWhen
	Body
	NumFields
)

var fieldNames = [NumFields]string{"summary", "highlight", "load_when", "body"}

func (f Field) String() string { return fieldNames[f] }

// Doc is the text of one memory, by field.
type Doc struct {
	Fields [NumFields]string
}

// Posting says how often a term occurs in one document, per field. Counts
// saturate at 255: past that, more occurrences say nothing.
type Posting struct {
	Doc int32
	TF  [NumFields]uint8
}

// Index is built once and then only read; it is safe for concurrent use.
type Index struct {
	postings map[string][]Posting
	lengths  [][NumFields]uint32 // per document, terms per field
	avg      [NumFields]float64  // mean field length over documents
	total    [NumFields]float64  // summed field lengths, kept for Replace
}

// Analyzed is a document cut into terms: its distinct terms with their
// per-field counts, in first-occurrence order, and its field lengths. It is
// what the index keeps of a document, so a reload can reuse it for files
// that did not change instead of tokenizing them again.
type Analyzed struct {
	Terms []TermCount
	Len   [NumFields]uint32
}

// TermCount is one term of a document with its count per field.
type TermCount struct {
	Term string
	TF   [NumFields]uint8
}

// Analyze cuts a document into terms (stop words excluded).
func Analyze(doc Doc) Analyzed {
	var a Analyzed
	var toks []textseg.Token
	pos := map[string]int{}
	for f := Field(0); f < NumFields; f++ {
		toks = textseg.AppendTokens(toks[:0], doc.Fields[f])
		for _, t := range toks {
			if t.Stop {
				continue
			}
			a.Len[f]++
			i, ok := pos[t.Text]
			if !ok {
				i = len(a.Terms)
				pos[t.Text] = i
				// Token text may share the document's memory; a copy keeps
				// a reused Analyzed from pinning a whole body.
				a.Terms = append(a.Terms, TermCount{Term: strings.Clone(t.Text)})
			}
			if c := &a.Terms[i].TF[f]; *c < 255 {
				*c++
			}
		}
	}
	return a
}

// Build indexes docs; document i of the index is docs[i].
func Build(docs []Doc) *Index {
	as := make([]Analyzed, len(docs))
	for i, d := range docs {
		as[i] = Analyze(d)
	}
	return BuildAnalyzed(as)
}

// BuildAnalyzed indexes analyzed documents; document i is docs[i].
func BuildAnalyzed(docs []Analyzed) *Index {
	ix := &Index{lengths: make([][NumFields]uint32, len(docs))}
	// One map lookup per term occurrence: give each distinct term a dense
	// id and count its documents, remembering the ids in one flat slice;
	// then fill postings of exactly the right size by id.
	ids := map[string]int32{}
	var vocab []string
	var df []int32
	n := 0
	for d := range docs {
		n += len(docs[d].Terms)
	}
	flat := make([]int32, 0, n)
	var total [NumFields]float64
	for d := range docs {
		for _, tc := range docs[d].Terms {
			id, ok := ids[tc.Term]
			if !ok {
				id = int32(len(vocab))
				ids[tc.Term] = id
				vocab = append(vocab, tc.Term)
				df = append(df, 0)
			}
			df[id]++
			flat = append(flat, id)
		}
		ix.lengths[d] = docs[d].Len
		for f := range total {
			total[f] += float64(docs[d].Len[f])
		}
	}
	lists := make([][]Posting, len(vocab))
	backing := make([]Posting, n)
	off := 0
	for id, c := range df {
		lists[id] = backing[off : off : off+int(c)]
		off += int(c)
	}
	k := 0
	for d := range docs {
		for _, tc := range docs[d].Terms {
			id := flat[k]
			k++
			lists[id] = append(lists[id], Posting{Doc: int32(d), TF: tc.TF})
		}
	}
	ix.postings = make(map[string][]Posting, len(vocab))
	for id, t := range vocab {
		ix.postings[t] = lists[id]
	}
	ix.total = total
	for f := range total {
		if len(docs) > 0 {
			ix.avg[f] = total[f] / float64(len(docs))
		}
	}
	return ix
}

// Replace returns an index in which document doc, analyzed before as old,
// is now a. The receiver is not changed (readers of it are unaffected); the
// new index shares every posting list the change does not touch, so a
// one-file reload costs the terms of that file, not the whole store. The
// result equals BuildAnalyzed over the same documents.
func (ix *Index) Replace(doc int, old, a Analyzed) *Index {
	n := &Index{postings: maps.Clone(ix.postings), lengths: slices.Clone(ix.lengths), total: ix.total}
	for _, tc := range old.Terms {
		list := n.postings[tc.Term]
		i, found := slices.BinarySearchFunc(list, int32(doc), func(p Posting, d int32) int { return cmp.Compare(p.Doc, d) })
		if !found {
			continue
		}
		if len(list) == 1 {
			delete(n.postings, tc.Term)
			continue
		}
		n.postings[tc.Term] = slices.Delete(slices.Clone(list), i, i+1)
	}
	for _, tc := range a.Terms {
		list := n.postings[tc.Term]
		i, _ := slices.BinarySearchFunc(list, int32(doc), func(p Posting, d int32) int { return cmp.Compare(p.Doc, d) })
		n.postings[tc.Term] = slices.Insert(slices.Clone(list), i, Posting{Doc: int32(doc), TF: tc.TF})
	}
	for f := range n.total {
		n.total[f] += float64(a.Len[f]) - float64(old.Len[f])
		n.avg[f] = n.total[f] / float64(len(n.lengths))
	}
	n.lengths[doc] = a.Len
	return n
}

// Len is the number of documents.
func (ix *Index) Len() int { return len(ix.lengths) }

// Postings returns the documents holding term, in document order.
func (ix *Index) Postings(term string) []Posting { return ix.postings[term] }

// DF is the number of documents holding term.
func (ix *Index) DF(term string) int { return len(ix.postings[term]) }

// FieldLen is the number of indexed terms in a document's field.
func (ix *Index) FieldLen(doc int, f Field) int { return int(ix.lengths[doc][f]) }

// AvgFieldLen is the mean length of a field over all documents.
func (ix *Index) AvgFieldLen(f Field) float64 { return ix.avg[f] }

// Vocabulary is the number of distinct terms.
func (ix *Index) Vocabulary() int { return len(ix.postings) }

// Terms returns every indexed term, sorted; for tests and diagnostics.
func (ix *Index) Terms() []string {
	out := make([]string, 0, len(ix.postings))
	for t := range ix.postings {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}
