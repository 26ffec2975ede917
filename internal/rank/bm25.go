package rank

import (
	"math"

	"github.com/ocmem/ocmem/internal/index"
)

// This file: BM25F, the relevance part of a score.

// BM25F parameters. k1 and b are the usual BM25 values (Robertson & Zaragoza,
// "The Probabilistic Relevance Framework"); memories are short, so the
// classic defaults fit.
const (
	k1 = 1.2
	b  = 0.75
)

// Field weights, relative to the body.
const (
	weightBody      = 1.0
	weightHighlight = 2 * weightBody
	weightSummary   = 3 * weightBody
	weightTrigger   = weightSummary // load_when is written to be matched, like the summary
)

var fieldWeight = [index.NumFields]float64{
	index.Summary:   weightSummary,
	index.Highlight: weightHighlight,
	index.LoadWhen:  weightTrigger,
	index.Body:      weightBody,
}

// IDF is the BM25 inverse document frequency, always positive. A term no
// document holds gets the idf of a term held by none, ln(1 + (N+0.5)/0.5).
func IDF(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// saturate is BM25's term-frequency saturation.
func saturate(tf float64) float64 { return tf / (k1 + tf) }

// tf is BM25F's pseudo-frequency of a term in document d, whose occurrences
// per field are counts: each field's count, length-normalised and weighted.
// Scoring and the reasons both use it, so the two cannot disagree.
func (c *Corpus) tf(d int32, counts [index.NumFields]uint8) float64 {
	return bm25tf(&c.lengths[d], &c.slope, &counts)
}

// bm25tf is tf on a document's field lengths, by pointer so that the
// scoring loop copies nothing per posting.
func bm25tf(lengths *[index.NumFields]uint32, slope *[index.NumFields]float64, counts *[index.NumFields]uint8) float64 {
	var tf float64
	for f := index.Field(0); f < index.NumFields; f++ {
		if k := counts[f]; k > 0 {
			tf += fieldWeight[f] * float64(k) / (1 - b + slope[f]*float64(lengths[f]))
		}
	}
	return tf
}
