//go:build !race

package luaapi

const raceEnabled = false
