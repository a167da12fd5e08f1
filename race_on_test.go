//go:build race

package paygate

// raceEnabled tells tests that the race detector is on: sync.Pool then
// drops items at random, so allocation counts are not those of a normal
// build.
const raceEnabled = true
