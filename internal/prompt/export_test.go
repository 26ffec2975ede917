package prompt

// TagAttacks are the spellings of a memory tag the tests write into a body.
var TagAttacks = tagAttacks

// FoldedTags are the memory tags a model reads in text.
func FoldedTags(text string) []string { return tagInFold.FindAllString(foldText(text).s, -1) }
