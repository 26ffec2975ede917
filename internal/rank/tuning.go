package rank

// This file: the constants of the decision what injection gives, gathered
// so that a leave-one-store-out sweep (bench/cmd/ocmem-tune loso)
// can try other values without a rebuild. Each default is chosen that way
// on the four development sets; docs/RETRIEVAL.md shows the value chosen on
// all of them and each set's figure when it was left out of the choice.

// Tuning holds the thresholds and weights a ranking may be run with. The
// zero value of a field means its default.
type Tuning struct {
	// InjectCutoff: an Inject hit under this share of the best score is
	// dropped (injectCutoff).
	InjectCutoff float64
	// InjectCutoffLines: the same for a message of several lines
	// (injectCutoffLines).
	InjectCutoffLines float64
	// CoverageCut: an Inject hit that covers less than this share of
	// the best hit's coverage is dropped (injectCoverageCut).
	CoverageCut float64
	// ConflictOverlap: the trigger overlap at which a project memory
	// overrides a global preference, rule or decision (conflictOverlap).
	ConflictOverlap float64
	// TranslatedWeight: a translated term's weight, relative to a term
	// of the message (weightTranslated).
	TranslatedWeight float64
	// ShortWeight: the weight of a number of one or two digits or a
	// single letter, relative to a word (weightShort).
	ShortWeight float64
	// MinCoverage, MinRelevance, MaxCommonShare, MinFamiliar: the
	// evidence thresholds of evidence.go (minCoverage, minRelevance,
	// maxCommonShare, minFamiliar).
	MinCoverage, MinRelevance, MaxCommonShare, MinFamiliar float64
	// MinHeadTerms: in a message of several lines, the terms of its
	// evidence a memory must match in its headline (minHeadTerms).
	MinHeadTerms float64
	// TopicCoverage: the share of the message a memory must cover to be
	// given for a topic asked about (askedTopic, topicCoverage).
	TopicCoverage float64
	// Aboutness: the power of the headline share in a score (aboutness;
	// defaultAboutness).
	Aboutness float64
	// Focus: the power of the share of a memory's evidence matched in its
	// headline (aboutness; defaultFocus).
	Focus float64
}

// defaultAboutness is the power of the headline share in a score
// (aboutness). Swept leave-one-store-out (docs/RETRIEVAL.md): the largest
// value at which no set loses a hit, as injectCutoff was chosen; MRR rises
// on all four (dev 0.855 → 0.863, turns-dev 0.911 → 0.917, ops-dev 0.881 →
// 0.883, ml-dev 0.846 → 0.853). From 0.1 dev loses a zh2 question (q072:
// the memory that answers has the longest headline of five on 依赖); the
// sweep's objective on all four picks 0.5, more MRR for that hit.
const defaultAboutness = 0.05

// defaultFocus is the power of the share of a memory's evidence matched in
// its headline (aboutness). Swept leave-one-store-out (docs/RETRIEVAL.md).
const defaultFocus = 0.15

// DefaultTuning is the tuning the zero Tuning stands for.
var DefaultTuning = Tuning{InjectCutoff: injectCutoff, InjectCutoffLines: injectCutoffLines, CoverageCut: injectCoverageCut, ConflictOverlap: conflictOverlap, TranslatedWeight: weightTranslated, ShortWeight: weightShort,
	MinCoverage: minCoverage, MinRelevance: minRelevance, MaxCommonShare: maxCommonShare, MinFamiliar: minFamiliar,
	MinHeadTerms: minHeadTerms, TopicCoverage: topicCoverage, Aboutness: defaultAboutness, Focus: defaultFocus}

// or returns t with every zero field set to its default.
func (t *Tuning) or() Tuning {
	d := DefaultTuning
	if t == nil {
		return d
	}
	out := *t
	for _, f := range []struct{ v, def *float64 }{
		{&out.InjectCutoff, &d.InjectCutoff}, {&out.InjectCutoffLines, &d.InjectCutoffLines}, {&out.CoverageCut, &d.CoverageCut}, {&out.ConflictOverlap, &d.ConflictOverlap},
		{&out.TranslatedWeight, &d.TranslatedWeight}, {&out.ShortWeight, &d.ShortWeight}, {&out.MinCoverage, &d.MinCoverage},
		{&out.MinRelevance, &d.MinRelevance}, {&out.MaxCommonShare, &d.MaxCommonShare},
		{&out.MinFamiliar, &d.MinFamiliar}, {&out.MinHeadTerms, &d.MinHeadTerms}, {&out.TopicCoverage, &d.TopicCoverage}, {&out.Aboutness, &d.Aboutness}, {&out.Focus, &d.Focus},
	} {
		if *f.v == 0 {
			*f.v = *f.def
		}
	}
	return out
}
