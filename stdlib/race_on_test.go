//go:build race

package stdlib_test

// raceEnabled: the race detector is on (it slows the packs some tenfold).
const raceEnabled = true
