// Package prompt is the text the model is given of memories, from plain
// inputs: the framed bodies cut to their budget (Bodies), a rule's and an
// outline line's text (RuleText, OutlineLine), a memory's text kept inside
// its frame and away from ocmem's headings (Neutralize) and suspected
// secrets masked (Mask, MaskFields). Which memories go into each tier is
// the engine's decision.
package prompt
