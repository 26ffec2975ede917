// Package index is an immutable inverted index over memories: for every term,
// the memories holding it and how often, per field. A query then costs time
// in proportion to the postings of its terms, not to the size of the store.
//
//	ix := index.Build(docs)           // docs[i].Fields[index.Summary] = "…"
//	for _, p := range ix.Postings("部署") { … p.Doc, p.TF[index.Body] … }
package index

import (
	"sort"

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
}

// Build indexes docs; document i of the index is docs[i].
func Build(docs []Doc) *Index {
	ix := &Index{postings: make(map[string][]Posting), lengths: make([][NumFields]uint32, len(docs))}
	var toks []textseg.Token
	var total [NumFields]float64
	counts := map[string]*[NumFields]uint8{}
	var order []string
	for d, doc := range docs {
		clear(counts)
		order = order[:0]
		for f := Field(0); f < NumFields; f++ {
			toks = textseg.AppendTokens(toks[:0], doc.Fields[f])
			n := 0
			for _, t := range toks {
				if t.Stop {
					continue
				}
				n++
				c := counts[t.Text]
				if c == nil {
					c = new([NumFields]uint8)
					counts[t.Text] = c
					order = append(order, t.Text)
				}
				if c[f] < 255 {
					c[f]++
				}
			}
			ix.lengths[d][f] = uint32(n)
			total[f] += float64(n)
		}
		for _, term := range order {
			ix.postings[term] = append(ix.postings[term], Posting{Doc: int32(d), TF: *counts[term]})
		}
	}
	for f := range total {
		if len(docs) > 0 {
			ix.avg[f] = total[f] / float64(len(docs))
		}
	}
	return ix
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
