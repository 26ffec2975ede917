package rank

import (
	"math"

	"github.com/ocmem/ocmem/internal/memory"
)

// This file: the priors a relevance is multiplied by (scope, decay, boost).

// Scope priors.
const (
	ScopeProject = 1.0
	ScopeGlobal  = ScopeProject / 2
)

// Decay and boost.
const (
	DefaultHalfLifeDays = 14
	decayFloor          = 0.95
	boostPerDoubling    = 0.05
	maxBoost            = 1.25
)

const msPerDay = 24 * 60 * 60 * 1000

// Decay is the time factor for a memory updated at updated (Unix ms).
func Decay(now, updated int64, halfLifeDays float64, pinned bool) float64 {
	if pinned || halfLifeDays < 0 {
		return 1
	}
	if halfLifeDays == 0 {
		halfLifeDays = DefaultHalfLifeDays
	}
	age := float64(now-updated) / msPerDay
	if age <= 0 {
		return 1
	}
	return decayFloor + (1-decayFloor)*math.Pow(0.5, age/halfLifeDays)
}

// Boost is the recall-count factor.
func Boost(hits int) float64 {
	if hits <= 0 {
		return 1
	}
	return math.Min(maxBoost, 1+boostPerDoubling*math.Log2(1+float64(hits)))
}

// ScopePrior is the scope factor.
func ScopePrior(s memory.Scope) float64 {
	if s == memory.Global {
		return ScopeGlobal
	}
	return ScopeProject
}
