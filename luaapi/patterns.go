package luaapi

import (
	"errors"

	"github.com/monad-hooks/monad-hooks/luaapi/luapattern"
	lua "github.com/yuin/gopher-lua"
)

// string.find, match, gmatch and gsub on package luapattern: gopher-lua's
// matcher cannot be interrupted and its gsub is quadratic. This glue reads
// the arguments, hands the matcher the call's stop flag and the string size
// bound, and turns matches into Lua values and errors into Lua errors.

// installPatterns installs the pattern-matching string functions.
func (v *vm) installPatterns(str *lua.LTable) {
	L := v.L
	v.patOpts = luapattern.Options{Stop: v.patternStop, MaxSize: v.pl.opts.MaxStringSize}
	str.RawSetString("find", L.NewFunction(func(L *lua.LState) int { return v.strFindAux(L, true) }))
	str.RawSetString("match", L.NewFunction(func(L *lua.LState) int { return v.strFindAux(L, false) }))
	gmatch := L.NewFunction(v.strGmatch)
	str.RawSetString("gmatch", gmatch)
	str.RawSetString("gfind", gmatch) // Lua 5.1's deprecated alias (LUA_COMPAT_GFIND)
	str.RawSetString("gsub", L.NewFunction(v.strGsub))
}

// patternStop is the matcher's Stop: the reason the current call on v
// stopped, if it did.
func (v *vm) patternStop() error {
	if v.ctx.stopped() {
		return v.ctx.stopErr()
	}
	return nil
}

// raisePattern raises err from the matcher as a Lua error.
func raisePattern(L *lua.LState, err error) {
	L.RaiseError("%s", err.Error())
}

// pushCapture pushes capture i of m as a Lua value.
func pushCapture(L *lua.LState, src string, m *luapattern.Match, i int) {
	c, err := m.Capture(i)
	if err != nil {
		raisePattern(L, err)
	}
	L.Push(captureValue(src, c))
}

func captureValue(src string, c luapattern.Capture) lua.LValue {
	if c.Position {
		return luaInt(c.Start + 1)
	}
	return ownString(src[c.Start:c.End], src)
}

// pushCaptures pushes the captures of m (or the whole match when there are
// none and wholeIfNone) and returns how many.
func pushCaptures(L *lua.LState, src string, m *luapattern.Match, wholeIfNone bool) int {
	n := len(m.Captures)
	if n == 0 && wholeIfNone {
		n = 1
	}
	for i := 0; i < n; i++ {
		pushCapture(L, src, m, i)
	}
	return n
}

// posrelat turns a Lua string position (1-based, negative from the end)
// into a 0-based offset; a position before the start is 0.
func posrelat(pos, n int) int {
	if pos < 0 {
		pos += n + 1
	}
	return max(pos, 1) - 1
}

func (v *vm) strFindAux(L *lua.LState, find bool) int {
	s := L.CheckString(1)
	pat := L.CheckString(2)
	init := posrelat(L.OptInt(3, 1), len(s))
	var (
		m     luapattern.Match
		found bool
		err   error
	)
	if find {
		m, found, err = luapattern.Find(s, pat, init, lua.LVAsBool(L.Get(4)), v.patOpts)
	} else {
		m, found, err = luapattern.FindPattern(s, pat, init, v.patOpts)
	}
	if err != nil {
		raisePattern(L, err)
	}
	if !found {
		L.Push(lua.LNil)
		return 1
	}
	if find {
		L.Push(luaInt(m.Start + 1))
		L.Push(luaInt(m.End))
		return pushCaptures(L, s, &m, false) + 2
	}
	return pushCaptures(L, s, &m, true)
}

// strGmatch is string.gmatch (see luapattern.Gmatch for '^').
func (v *vm) strGmatch(L *lua.LState) int {
	s := L.CheckString(1)
	it := luapattern.Gmatch(s, L.CheckString(2))
	L.Push(L.NewFunction(func(L *lua.LState) int {
		m, found, err := it.Next(v.patOpts)
		if err != nil {
			raisePattern(L, err)
		}
		if !found {
			return 0
		}
		return pushCaptures(L, s, &m, true)
	}))
	return 1
}

func (v *vm) strGsub(L *lua.LState) int {
	src := L.CheckString(1)
	pat := L.CheckString(2)
	repl := L.Get(3)
	switch repl.Type() {
	case lua.LTNumber, lua.LTString, lua.LTFunction, lua.LTTable:
	default:
		L.ArgError(3, "string/function/table expected")
	}
	maxN := -1 // all
	if L.Get(4) != lua.LNil {
		maxN = max(L.CheckInt(4), 0)
	}
	var (
		out string
		n   int
		err error
	)
	if repl.Type() == lua.LTString || repl.Type() == lua.LTNumber {
		out, n, err = luapattern.Gsub(src, pat, lua.LVAsString(repl), maxN, v.patOpts)
	} else {
		out, n, err = luapattern.GsubFunc(src, pat, maxN, v.patOpts, func(m *luapattern.Match) (string, bool, error) {
			return gsubValue(L, src, repl, m)
		})
	}
	if errors.Is(err, luapattern.ErrTooLarge) {
		L.RaiseError("string.gsub: the result would be larger than %d bytes", v.pl.opts.MaxStringSize)
	}
	if err != nil {
		raisePattern(L, err)
	}
	L.Push(lua.LString(out))
	L.Push(luaInt(n))
	return 2
}

// gsubValue is the replacement of m by a function or a table: keep when it
// is nil or false, an error when it is not a string or a number.
func gsubValue(L *lua.LState, src string, repl lua.LValue, m *luapattern.Match) (string, bool, error) {
	var val lua.LValue
	switch r := repl.(type) {
	case *lua.LFunction:
		top := L.GetTop()
		L.Push(r)
		n := pushCaptures(L, src, m, true)
		L.Call(n, 1)
		val = L.Get(-1)
		L.SetTop(top)
	case *lua.LTable:
		c, err := m.Capture(0)
		if err != nil {
			return "", false, err
		}
		val = L.GetTable(r, captureValue(src, c))
	}
	switch x := val.(type) {
	case *lua.LNilType:
		return "", true, nil
	case lua.LBool:
		if !bool(x) {
			return "", true, nil
		}
	case lua.LString:
		return string(x), false, nil
	case lua.LNumber:
		return x.String(), false, nil
	}
	return "", false, errors.New("invalid replacement value (a " + val.Type().String() + ")")
}
