//go:build !race

package shellparse

const raceEnabled = false
