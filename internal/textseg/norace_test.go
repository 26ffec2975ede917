//go:build !race

package textseg

const raceEnabled = false
