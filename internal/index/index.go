// Package index is an immutable inverted index over memories: for every term,
// the memories holding it and how often, per field. A query then costs time
// in proportion to the postings of its terms, not to the size of the store.
//
//	ix := index.Build(docs)           // docs[i].Fields[index.Summary] = "…"
//	for _, p := range ix.Postings("部署") { … p.Doc, p.TF[index.Body] … }
package index

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
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
//
// Its terms are kept sorted in one string and its postings in one slice
// (the frozen part), so it holds no pointer per term or per document: the
// garbage collector has nothing to scan, a cache can store it as it is, and
// a process can use a cached index without decoding it (FromParts). Replace
// puts the few lists it changes in a small overlay instead of copying the
// frozen part.
type Index struct {
	frozen
	over    map[string][]Posting // terms Replace changed, with their lists (nil: gone)
	vocab   int                  // distinct terms with at least one posting
	lengths [][NumFields]uint32  // per document, terms per field
	avg     [NumFields]float64   // mean field length over documents
	total   [NumFields]float64   // summed field lengths, kept for Replace
}

// frozen is a sorted term table with each term's postings.
type frozen struct {
	terms   string    // every term, concatenated in sorted order
	termEnd []uint32  // term i is terms[termEnd[i-1]:termEnd[i]]
	postEnd []uint32  // term i's postings are post[postEnd[i-1]:postEnd[i]]
	post    []Posting // by term, then by document
}

func (f *frozen) numTerms() int { return len(f.termEnd) }

func (f *frozen) term(i int) string {
	start := uint32(0)
	if i > 0 {
		start = f.termEnd[i-1]
	}
	return f.terms[start:f.termEnd[i]]
}

func (f *frozen) list(i int) []Posting {
	start := uint32(0)
	if i > 0 {
		start = f.postEnd[i-1]
	}
	return f.post[start:f.postEnd[i]:f.postEnd[i]]
}

// find returns the position of term in the table, or -1.
func (f *frozen) find(term string) int {
	lo, hi := 0, len(f.termEnd)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if f.term(m) < term {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(f.termEnd) && f.term(lo) == term {
		return lo
	}
	return -1
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
	var free []bool // by term: some occurrence stands outside flags and paths
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
				free = append(free, false)
			}
			free[i] = free[i] || !insideToken(doc.Fields[f], t)
			if c := &a.Terms[i].TF[f]; *c < 255 {
				*c++
			}
		}
	}
	// A latin word held only inside flags or paths is listed again under
	// Inside (inside.go): translations end in latin words.
	for i, n := 0, len(a.Terms); i < n; i++ {
		if tc := a.Terms[i]; !free[i] && tc.Term[0] >= 'a' && tc.Term[0] <= 'z' {
			a.Terms = append(a.Terms, TermCount{Term: Inside(tc.Term), TF: tc.TF})
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
	var b Builder
	for _, d := range docs {
		b.Add(d)
	}
	return b.Build()
}

// Builder indexes documents one at a time, keeping of each only its terms'
// ids in one shared vocabulary and their counts (8 bytes a term), so a store
// can be indexed without holding every document's analysis at once. The
// zero Builder is ready to use.
type Builder struct {
	ids     map[string]int32
	vocab   []string
	df      []uint32
	refs    [][]termRef // every document's terms, in order, in chunks of refChunk
	nrefs   int
	docEnd  []uint32 // per document: the end of its terms in refs
	lengths [][NumFields]uint32
}

// refChunk is the size of a chunk of refs: growing one slice by doubling
// would hold up to three times the refs at once while copying.
const refChunk = 1 << 16

type termRef struct {
	id int32
	tf [NumFields]uint8
}

// Add appends a document: the first added is document 0.
func (b *Builder) Add(a Analyzed) {
	if b.ids == nil {
		b.ids = map[string]int32{}
	}
	for _, tc := range a.Terms {
		id, ok := b.ids[tc.Term]
		if !ok {
			id = int32(len(b.vocab))
			b.ids[tc.Term] = id
			b.vocab = append(b.vocab, tc.Term)
			b.df = append(b.df, 0)
		}
		b.df[id]++
		if b.nrefs%refChunk == 0 {
			b.refs = append(b.refs, make([]termRef, 0, refChunk))
		}
		last := &b.refs[len(b.refs)-1]
		*last = append(*last, termRef{id, tc.TF})
		b.nrefs++
	}
	b.docEnd = append(b.docEnd, uint32(b.nrefs))
	b.lengths = append(b.lengths, a.Len)
}

// Build returns the index of the documents added; the Builder must not be
// used after.
func (b *Builder) Build() *Index {
	vocab, df := b.vocab, b.df
	b.ids = nil                        // the map is the largest thing left; let it go first
	order := make([]int32, len(vocab)) // position in the table → id
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return strings.Compare(vocab[x], vocab[y]) })
	var sb strings.Builder
	size := 0
	for _, t := range vocab {
		size += len(t)
	}
	sb.Grow(size)
	f := frozen{termEnd: make([]uint32, len(vocab)), postEnd: make([]uint32, len(vocab)), post: make([]Posting, b.nrefs)}
	next := make([]uint32, len(vocab)) // by id: where its next posting goes
	off := uint32(0)
	for i, id := range order {
		sb.WriteString(vocab[id])
		f.termEnd[i] = uint32(sb.Len())
		next[id] = off
		off += df[id]
		f.postEnd[i] = off
	}
	f.terms = sb.String()
	k := 0
	for d, end := range b.docEnd {
		for ; k < int(end); k++ {
			r := b.refs[k/refChunk][k%refChunk]
			f.post[next[r.id]] = Posting{Doc: int32(d), TF: r.tf}
			next[r.id]++
			if k%refChunk == refChunk-1 {
				b.refs[k/refChunk] = nil // done with: the collector may have it
			}
		}
	}
	b.refs = nil
	return newIndex(f, len(vocab), b.lengths)
}

// newIndex makes an index of a term table; vocab counts its keys, of which
// those Inside made are no terms of the vocabulary.
func newIndex(f frozen, vocab int, lengths [][NumFields]uint32) *Index {
	ix := &Index{frozen: f, vocab: vocab - insideTerms(&f), lengths: lengths}
	for d := range lengths {
		for fl := range ix.total {
			ix.total[fl] += float64(lengths[d][fl])
		}
	}
	ix.setAvg()
	return ix
}

func (ix *Index) setAvg() {
	for f := range ix.total {
		ix.avg[f] = 0
		if len(ix.lengths) > 0 {
			ix.avg[f] = ix.total[f] / float64(len(ix.lengths))
		}
	}
}

// Replace returns an index in which document doc, analyzed before as old,
// is now a. The receiver is not changed (readers of it are unaffected); the
// new index shares the frozen part and puts the lists of the terms the
// change touches in its overlay, so a one-file reload costs the postings of
// that file's terms, not the whole store. The result equals BuildAnalyzed
// over the same documents.
func (ix *Index) Replace(doc int, old, a Analyzed) *Index {
	n := &Index{frozen: ix.frozen, over: maps.Clone(ix.over), vocab: ix.vocab, lengths: slices.Clone(ix.lengths), total: ix.total}
	if n.over == nil {
		n.over = map[string][]Posting{}
	}
	byDoc := func(p Posting, d int32) int { return cmp.Compare(p.Doc, d) }
	for _, tc := range old.Terms {
		list := n.Postings(tc.Term)
		i, found := slices.BinarySearchFunc(list, int32(doc), byDoc)
		if !found {
			continue
		}
		if len(list) == 1 {
			n.over[tc.Term] = nil
			if !isInside(tc.Term) {
				n.vocab--
			}
			continue
		}
		n.over[tc.Term] = slices.Delete(slices.Clone(list), i, i+1)
	}
	for _, tc := range a.Terms {
		list := n.Postings(tc.Term)
		if len(list) == 0 && !isInside(tc.Term) {
			n.vocab++
		}
		i, _ := slices.BinarySearchFunc(list, int32(doc), byDoc)
		n.over[tc.Term] = slices.Insert(slices.Clone(list), i, Posting{Doc: int32(doc), TF: tc.TF})
	}
	for f := range n.total {
		n.total[f] += float64(a.Len[f]) - float64(old.Len[f])
	}
	n.setAvg()
	n.lengths[doc] = a.Len
	return n
}

// Remap returns the index of a store in which some documents were removed,
// renumbered or added: the document numbered d here is remap[d] there (-1:
// gone), and added[d'] is the terms of a new or changed document d' there.
// Renumbering keeps the order of the documents it keeps, so every list stays
// sorted; the cost is one pass over the postings, with no tokenizing. The
// result equals BuildAnalyzed over the new store's documents; n is their
// number.
func (ix *Index) Remap(n int, remap []int32, added map[int]Analyzed) *Index {
	lengths := make([][NumFields]uint32, n)
	for d, to := range remap {
		if to >= 0 {
			lengths[to] = ix.lengths[d]
		}
	}
	// The new documents' postings, by term; documents in increasing order.
	newDocs := make([]int, 0, len(added))
	for d := range added {
		newDocs = append(newDocs, d)
	}
	slices.Sort(newDocs)
	fresh := map[string][]Posting{}
	for _, d := range newDocs {
		a := added[d]
		lengths[d] = a.Len
		for _, tc := range a.Terms {
			fresh[tc.Term] = append(fresh[tc.Term], Posting{Doc: int32(d), TF: tc.TF})
		}
	}
	freshTerms := slices.Sorted(maps.Keys(fresh))

	var b strings.Builder
	b.Grow(len(ix.terms))
	f := frozen{post: make([]Posting, 0, len(ix.post)+len(added)*64)}
	emit := func(term string, old, add []Posting) {
		start := len(f.post)
		i, j := 0, 0
		for i < len(old) || j < len(add) {
			if i < len(old) {
				to := remap[old[i].Doc]
				if to < 0 {
					i++
					continue
				}
				if j == len(add) || to < add[j].Doc {
					f.post = append(f.post, Posting{Doc: to, TF: old[i].TF})
					i++
					continue
				}
			}
			f.post = append(f.post, add[j])
			j++
		}
		if len(f.post) > start {
			b.WriteString(term)
			f.termEnd = append(f.termEnd, uint32(b.Len()))
			f.postEnd = append(f.postEnd, uint32(len(f.post)))
		}
	}
	terms := ix.sortedTerms()
	k := 0
	for _, t := range terms {
		for k < len(freshTerms) && freshTerms[k] < t {
			emit(freshTerms[k], nil, fresh[freshTerms[k]])
			k++
		}
		var add []Posting
		if k < len(freshTerms) && freshTerms[k] == t {
			add = fresh[t]
			k++
		}
		emit(t, ix.Postings(t), add)
	}
	for ; k < len(freshTerms); k++ {
		emit(freshTerms[k], nil, fresh[freshTerms[k]])
	}
	f.terms = b.String()
	return newIndex(f, len(f.termEnd), lengths)
}

// Compact returns the index with its overlay merged into the frozen part
// (the receiver itself when there is no overlay): what a cache stores.
func (ix *Index) Compact() *Index {
	if len(ix.over) == 0 {
		return ix
	}
	remap := make([]int32, ix.Len())
	for i := range remap {
		remap[i] = int32(i)
	}
	return ix.Remap(ix.Len(), remap, nil)
}

// sortedTerms lists the terms of the frozen part and the overlay, sorted,
// including overlay terms whose lists are now empty.
func (ix *Index) sortedTerms() []string {
	out := make([]string, 0, ix.numTerms()+len(ix.over))
	extra := make([]string, 0, len(ix.over))
	for t := range ix.over {
		if ix.find(t) < 0 {
			extra = append(extra, t)
		}
	}
	slices.Sort(extra)
	k := 0
	for i := range ix.numTerms() {
		t := ix.term(i)
		for k < len(extra) && extra[k] < t {
			out = append(out, extra[k])
			k++
		}
		out = append(out, t)
	}
	return append(out, extra[k:]...)
}

// Parts is an index laid out as a cache stores it: its terms, sorted and
// concatenated, with each term's end offset; the end offset of each term's
// postings in Post; and each document's field lengths.
type Parts struct {
	Terms   string
	TermEnd []uint32
	PostEnd []uint32
	Post    []Posting
	Lengths [][NumFields]uint32
}

// Parts returns the index's data; the index must be compact (Compact).
// The slices are the index's own: do not modify them.
func (ix *Index) Parts() Parts {
	if len(ix.over) > 0 {
		panic("index: Parts of an index that is not compact")
	}
	return Parts{ix.terms, ix.termEnd, ix.postEnd, ix.post, ix.lengths}
}

// FromParts returns the index p describes, using p's slices without copying
// them. It checks that p is well formed (offsets in order and in range,
// terms sorted and distinct, postings of existing documents in order), so a
// damaged cache is an error and never a crash.
func FromParts(p Parts) (*Index, error) {
	nt := len(p.TermEnd)
	if len(p.PostEnd) != nt {
		return nil, errors.New("index: term and posting tables differ in length")
	}
	f := frozen{terms: p.Terms, termEnd: p.TermEnd, postEnd: p.PostEnd, post: p.Post}
	prevT, prevP := uint32(0), uint32(0)
	for i := range nt {
		if p.TermEnd[i] <= prevT || p.TermEnd[i] > uint32(len(p.Terms)) || p.PostEnd[i] <= prevP || p.PostEnd[i] > uint32(len(p.Post)) {
			return nil, fmt.Errorf("index: term %d: offsets out of order or range", i)
		}
		if i > 0 && f.term(i-1) >= f.term(i) {
			return nil, fmt.Errorf("index: term %d: terms out of order", i)
		}
		prevT, prevP = p.TermEnd[i], p.PostEnd[i]
	}
	if int(prevT) != len(p.Terms) || int(prevP) != len(p.Post) {
		return nil, errors.New("index: tables do not cover their data")
	}
	n := int32(len(p.Lengths))
	for i := range nt {
		last := int32(-1)
		for _, post := range f.list(i) {
			if post.Doc <= last || post.Doc >= n {
				return nil, fmt.Errorf("index: term %d: postings out of order or range", i)
			}
			last = post.Doc
		}
	}
	return newIndex(f, nt, p.Lengths), nil
}

// Len is the number of documents.
func (ix *Index) Len() int { return len(ix.lengths) }

// Postings returns the documents holding term, in document order.
func (ix *Index) Postings(term string) []Posting {
	if ix.over != nil {
		if list, ok := ix.over[term]; ok {
			return list
		}
	}
	if i := ix.find(term); i >= 0 {
		return ix.list(i)
	}
	return nil
}

// DF is the number of documents holding term.
func (ix *Index) DF(term string) int { return len(ix.Postings(term)) }

// FieldLen is the number of indexed terms in a document's field.
func (ix *Index) FieldLen(doc int, f Field) int { return int(ix.lengths[doc][f]) }

// Lengths returns every document's field lengths; do not modify it.
func (ix *Index) Lengths() [][NumFields]uint32 { return ix.lengths }

// AvgFieldLen is the mean length of a field over all documents.
func (ix *Index) AvgFieldLen(f Field) float64 { return ix.avg[f] }

// Vocabulary is the number of distinct terms (keys Inside made aside).
func (ix *Index) Vocabulary() int { return ix.vocab }

// Terms returns every indexed term, sorted; for tests and diagnostics.
func (ix *Index) Terms() []string {
	out := []string{}
	for _, t := range ix.sortedTerms() {
		if ix.DF(t) > 0 && !isInside(t) {
			out = append(out, t)
		}
	}
	return out
}
