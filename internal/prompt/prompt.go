// Package prompt holds what makes a memory's text fit to be shown to the
// model or a person: Neutralize keeps a body inside its frame and away
// from ocmem's headings, Mask and MaskFields hide suspected secrets.
package prompt
