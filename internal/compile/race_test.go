//go:build race

package compile

// raceEnabled: the race detector slows every step alike but tenfold, so
// timing tests are left to the plain run.
const raceEnabled = true
