package luaapi

import (
	lua "github.com/yuin/gopher-lua"
)

func (v *vm) osModule() *lua.LTable {
	return v.funcs(map[string]lua.LGFunction{
		"time":  v.osTime,
		"clock": v.osClock,
		"date":  v.osDate,
	})
}

func (v *vm) osTime(L *lua.LState) int {
	L.Push(lua.LNumber(v.pl.opts.Now().Unix()))
	return 1
}

func (v *vm) osClock(L *lua.LState) int {
	L.Push(lua.LNumber(0))
	return 1
}

func (v *vm) osDate(L *lua.LState) int {
	L.Push(lua.LString(v.pl.opts.Now().Format("Mon Jan  2 15:04:05 2006")))
	return 1
}
