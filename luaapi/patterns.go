package luaapi

import lua "github.com/yuin/gopher-lua"

// installPatterns installs the pattern-matching string functions.
func (v *vm) installPatterns(str, real *lua.LTable) {
	for _, n := range []string{"find", "match", "gsub"} {
		orig := real.RawGetString(n).(*lua.LFunction)
		if orig.GFunction == nil {
			continue
		}
		g := orig.GFunction
		str.RawSetString(n, v.L.NewFunction(func(L *lua.LState) int {
			v.ctx.charge()
			return g(L)
		}))
	}
}
