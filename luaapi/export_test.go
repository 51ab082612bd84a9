package luaapi

import (
	"sync/atomic"

	lua "github.com/yuin/gopher-lua"
)

var loadCounter atomic.Int64

func init() {
	testHostFuncs = map[string]lua.LGFunction{
		// goPanic panics in Go, as a buggy host function or a gopher-lua
		// internal error would.
		"goPanic": func(L *lua.LState) int {
			var m map[string]int
			m["x"] = 1
			return 0
		},
		// nextCount returns 1, 2, 3... across the process.
		"nextCount": func(L *lua.LState) int {
			L.Push(lua.LNumber(loadCounter.Add(1)))
			return 1
		},
	}
}
