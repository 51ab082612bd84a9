package luaapi

import lua "github.com/yuin/gopher-lua"

func init() {
	testHostFuncs = map[string]lua.LGFunction{
		// goPanic panics in Go, as a buggy host function or a gopher-lua
		// internal error would.
		"goPanic": func(L *lua.LState) int {
			var m map[string]int
			m["x"] = 1
			return 0
		},
	}
}
