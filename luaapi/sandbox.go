package luaapi

import (
	"log/slog"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// baseNames are the base-library functions scripts keep as they are.
var baseNames = []string{"assert", "error", "select", "tonumber", "tostring", "getmetatable", "_VERSION"}

// typeNames are the results of type(), boxed once: gopher-lua's type()
// boxes its result on every call, and guards call it on most values they
// read (BenchmarkDefaultSetBeforeTool, BenchmarkLuaGuard).
var typeNames = func() (out [lua.LTChannel + 1]lua.LValue) {
	for t := range out {
		out[t] = lua.LString(lua.LValueType(t).String())
	}
	return out
}()

// luaType is type(v).
func luaType(L *lua.LState) int {
	L.Push(typeNames[L.CheckAny(1).Type()])
	return 1
}

// stringNames are the string functions scripts get (some replaced, see
// sandbox).
var stringNames = []string{"byte", "char", "find", "format", "gmatch", "gsub", "len", "lower", "match", "rep", "reverse", "sub", "upper"}

var tableNames = []string{"concat", "getn", "insert", "maxn", "remove", "sort"}

// sandbox opens the libraries, hardens them and returns the base table every
// script environment falls back to. Nothing in it is reachable for writing
// from Lua: the base table itself is only reachable through environment
// metatables that scripts cannot read, and every library table is exposed as
// a read-only proxy.
func (v *vm) sandbox() (*lua.LTable, error) {
	L := v.L
	for _, lib := range []struct {
		name string
		fn   lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString}, {lua.MathLibName, lua.OpenMath}} {
		L.Push(L.NewFunction(lib.fn))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	G := L.G.Global

	v.roMT = L.CreateTable(0, 0) // marker only; each proxy has its own metatable
	v.roNewIndex = L.NewFunction(v.luaReadOnlyWrite)
	v.roLen = L.NewFunction(v.luaReadOnlyLen)

	// json.null and the array/object marks.
	v.null = L.NewUserData()
	nullMT := L.CreateTable(0, 3)
	nullMT.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int { L.Push(lua.LString("null")); return 1 }))
	nullMT.RawSetString("__metatable", lua.LString("json.null"))
	nullMT.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int { L.RaiseError("cannot index json.null"); return 0 }))
	nullMT.RawSetString("__index", L.NewFunction(func(L *lua.LState) int { L.RaiseError("cannot index json.null"); return 0 }))
	v.null.Metatable = nullMT
	v.arrayMT = L.CreateTable(0, 1)
	v.arrayMT.RawSetString("__metatable", lua.LString("json.array"))
	v.objectMT = L.CreateTable(0, 1)
	v.objectMT.RawSetString("__metatable", lua.LString("json.object"))
	v.inputMT = L.CreateTable(0, 3)
	v.inputMT.RawSetString("__metatable", lua.LString("json.object"))
	v.inputMT.RawSetString("__newindex", L.NewFunction(v.luaInputNewIndex))
	v.inputMT.RawSetString("__index", L.NewFunction(v.luaInputIndex))

	base := L.CreateTable(0, 32)
	for _, n := range baseNames {
		base.RawSetString(n, G.RawGetString(n))
	}
	base.RawSetString("type", L.NewFunction(luaType))
	v.nextFn = L.NewFunction(v.luaNext)
	v.ipairsAux = L.NewFunction(v.luaIpairsAux)
	base.RawSetString("next", v.nextFn)
	base.RawSetString("pairs", L.NewFunction(v.luaPairs))
	base.RawSetString("ipairs", L.NewFunction(v.luaIpairs))
	base.RawSetString("unpack", L.NewFunction(v.luaUnpack))
	base.RawSetString("setmetatable", L.NewFunction(v.luaSetMetatable))
	base.RawSetString("print", L.NewFunction(v.luaPrint))
	base.RawSetString("require", L.NewFunction(v.luaRequire))
	v.base = base
	v.libSetGlobal = L.NewFunction(v.luaLibSetGlobal)
	base.RawSetString("hook", L.NewFunction(v.luaHook))
	v.outputFn = L.NewFunction(v.luaOutput) // not in base: see directHandler
	v.outToken = L.NewUserData()
	base.RawSetString("pcall", L.NewFunction(v.luaPCall))
	base.RawSetString("xpcall", L.NewFunction(v.luaXPCall))
	for n, f := range testHostFuncs {
		base.RawSetString(n, L.NewFunction(f))
	}

	// string: the real table (also the strings' __index) gets the safe
	// replacements; scripts see a read-only proxy, and the strings'
	// metatable is a fresh protected table.
	realStr := G.RawGetString("string").(*lua.LTable)
	str := L.CreateTable(0, len(stringNames))
	for _, n := range stringNames {
		str.RawSetString(n, realStr.RawGetString(n))
	}
	origFormat := realStr.RawGetString("format").(*lua.LFunction).GFunction
	str.RawSetString("rep", L.NewFunction(v.strRep))
	str.RawSetString("sub", L.NewFunction(strSub))
	str.RawSetString("format", L.NewFunction(func(L *lua.LState) int { return v.strFormat(L, origFormat) }))
	v.installPatterns(str)
	v.strMeta = L.CreateTable(0, 2)
	v.strMeta.RawSetString("__index", str)
	v.strMeta.RawSetString("__metatable", lua.LFalse)
	L.SetMetatable(lua.LString(""), v.strMeta)
	base.RawSetString("string", v.readonly(str, "string"))

	realTab := G.RawGetString("table").(*lua.LTable)
	tab := L.CreateTable(0, len(tableNames))
	tab.RawSetString("concat", L.NewFunction(v.tabConcat))
	tab.RawSetString("sort", L.NewFunction(v.tabSort))
	for _, n := range []string{"insert", "remove"} {
		orig := realTab.RawGetString(n).(*lua.LFunction).GFunction
		name := n
		tab.RawSetString(n, L.NewFunction(func(L *lua.LState) int {
			if info, ok := v.ro[L.CheckTable(1)]; ok {
				L.RaiseError("table.%s: cannot modify read-only table %s", name, info.name)
			}
			return orig(L)
		}))
	}
	for _, n := range []string{"getn", "maxn"} {
		orig := realTab.RawGetString(n).(*lua.LFunction).GFunction
		tab.RawSetString(n, L.NewFunction(func(L *lua.LState) int {
			L.Replace(1, v.unwrap(L.CheckTable(1)))
			return orig(L)
		}))
	}
	base.RawSetString("table", v.readonly(tab, "table"))

	realMath := G.RawGetString("math").(*lua.LTable)
	math := L.CreateTable(0, 32)
	realMath.ForEach(func(k, val lua.LValue) {
		if k.String() != "randomseed" {
			math.RawSet(k, val)
		}
	})
	base.RawSetString("math", v.readonly(math, "math"))

	base.RawSetString("os", v.readonly(v.osModule(), "os"))

	v.modules = map[string]lua.LValue{}
	for _, m := range moduleBuilders {
		v.modules[m.name] = v.readonly(m.build(v), m.name)
	}
	v.installHostModules()
	// Remove what OpenBase put in the real globals, so that nothing
	// dangerous stays reachable even through a Go API mistake.
	for _, n := range []string{"getfenv", "setfenv", "load", "loadstring", "loadfile", "dofile", "require", "module", "collectgarbage", "newproxy", "rawset", "rawget", "rawequal", "print", "_printregs"} {
		G.RawSetString(n, lua.LNil)
	}
	v.fixed = v.sandboxTables()
	return base, nil
}

// testHostFuncs are extra globals for tests (set in export_test.go only).
var testHostFuncs map[string]lua.LGFunction

// moduleBuilders are the host modules require() knows, sorted by name: a
// table the compiler lays out, where a map was built as every process
// started (BenchmarkCLIRunNoStdlib).
var moduleBuilders = [...]struct {
	name  string
	build func(*vm) *lua.LTable
}{
	{"json", (*vm).jsonModule},
	{"log", (*vm).logModule},
	{"path", (*vm).pathModule},
	{"re", (*vm).reModule},
	{"scan", (*vm).scanModule},
	{"shell", (*vm).shellModule},
}

// isModuleName reports whether name is a host module's.
func isModuleName(name string) bool {
	for _, m := range moduleBuilders {
		if m.name == name {
			return true
		}
	}
	return false
}

// ModuleNames returns the names of the host modules require() accepts,
// sorted ([Options.Libraries] adds more per pool).
func ModuleNames() []string {
	out := make([]string, len(moduleBuilders))
	for i, m := range moduleBuilders {
		out[i] = m.name
	}
	return out
}

// readonly returns a proxy of t that reads through to it and refuses
// writes. pairs, ipairs, next, unpack, #, the table library and the JSON
// converters see through proxies, and so does getmetatable for the JSON
// mark of t ("json.array" or "json.object"; false for an unmarked table);
// rawset is not available.
func (v *vm) readonly(t *lua.LTable, name string) *lua.LTable {
	L := v.L
	p := L.CreateTable(0, 0)
	mt := L.CreateTable(0, 4)
	mt.RawSetString("__index", t)
	mt.RawSetString("__newindex", v.roNewIndex)
	mt.RawSetString("__len", v.roLen)
	mt.RawSetString("__metatable", lua.LFalse)
	if tm, ok := t.Metatable.(*lua.LTable); ok && (tm == v.arrayMT || tm == v.objectMT) {
		mt.RawSetString("__metatable", tm.RawGetString("__metatable"))
	}
	p.Metatable = mt
	v.ro[p] = roInfo{target: t, name: name}
	return p
}

func (v *vm) unwrap(t *lua.LTable) *lua.LTable {
	if info, ok := v.ro[t]; ok {
		return info.target
	}
	return t
}

func (v *vm) luaReadOnlyWrite(L *lua.LState) int {
	name := "table"
	if info, ok := v.ro[L.CheckTable(1)]; ok {
		name = info.name
	}
	L.RaiseError("cannot modify read-only table %s (key %s)", name, lua.LVAsString(L.ToStringMeta(L.Get(2))))
	return 0
}

func (v *vm) luaReadOnlyLen(L *lua.LState) int {
	L.Push(lua.LNumber(v.unwrap(L.CheckTable(1)).Len()))
	return 1
}

func (v *vm) luaNext(L *lua.LState) int {
	t := v.unwrap(L.CheckTable(1))
	if err := v.materializeAll(t); err != nil {
		L.RaiseError("%s", err.Error())
	}
	k, val := t.Next(L.Get(2))
	if k == lua.LNil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(k)
	L.Push(val)
	return 2
}

func (v *vm) luaPairs(L *lua.LState) int {
	t := L.CheckTable(1)
	L.Push(v.nextFn)
	L.Push(t)
	L.Push(lua.LNil)
	return 3
}

func (v *vm) luaIpairs(L *lua.LState) int {
	t := L.CheckTable(1)
	L.Push(v.ipairsAux)
	L.Push(t)
	L.Push(lua.LNumber(0))
	return 3
}

func (v *vm) luaIpairsAux(L *lua.LState) int {
	t := v.unwrap(L.CheckTable(1))
	i := L.CheckInt(2) + 1
	val := t.RawGetInt(i)
	if val == lua.LNil {
		return 0
	}
	L.Push(lua.LNumber(i))
	L.Push(val)
	return 2
}

func (v *vm) luaUnpack(L *lua.LState) int {
	t := v.unwrap(L.CheckTable(1))
	start := L.OptInt(2, 1)
	end := L.OptInt(3, t.Len())
	if start > end {
		return 0
	}
	n := end - start + 1
	if n <= 0 || n > registryMaxSize/2 {
		L.RaiseError("too many results to unpack")
	}
	for i := start; i <= end; i++ {
		L.Push(t.RawGetInt(i))
	}
	return n
}

func (v *vm) luaSetMetatable(L *lua.LState) int {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		L.ArgError(1, "table expected, got "+L.Get(1).Type().String()+" (setmetatable only accepts tables)")
	}
	var mt lua.LValue
	switch m := L.Get(2).(type) {
	case *lua.LNilType, *lua.LTable:
		mt = m
	default:
		L.ArgError(2, "nil or table expected")
	}
	if cur, ok := t.Metatable.(*lua.LTable); ok && cur.RawGetString("__metatable") != lua.LNil {
		L.RaiseError("cannot change a protected metatable")
	}
	t.Metatable = mt
	L.SetTop(1)
	return 1
}

func (v *vm) luaPrint(L *lua.LState) int {
	n := L.GetTop()
	parts := make([]string, n)
	for i := 1; i <= n; i++ {
		parts[i-1] = lua.LVAsString(L.ToStringMeta(L.Get(i)))
	}
	v.log(slog.LevelInfo, strings.Join(parts, "\t"), nil, v.scriptLine(L))
	return 0
}

// strRep is string.rep with a bound on the result.
func (v *vm) strRep(L *lua.LState) int {
	s := L.CheckString(1)
	n := L.CheckInt(2)
	sep := L.OptString(3, "")
	if n <= 0 {
		L.Push(lua.LString(""))
		return 1
	}
	limit := v.pl.opts.MaxStringSize
	unit := len(s) + len(sep)
	if unit > 0 && n > (limit+len(sep))/unit {
		L.RaiseError("string.rep: the result would be larger than %d bytes", limit)
	}
	var out string
	if sep == "" {
		out = strings.Repeat(s, n)
	} else {
		out = strings.Repeat(s+sep, n-1) + s
	}
	L.Push(lua.LString(out))
	return 1
}

// strFormat is string.format with Lua's own bound on widths and precisions
// (at most two digits), which Go's fmt does not have.
func (v *vm) strFormat(L *lua.LState, orig lua.LGFunction) int {
	f := L.CheckString(1)
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		if i < len(f) && f[i] == '%' {
			continue
		}
		for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 {
			i++
		}
		digits := 0
		for i < len(f) && f[i] >= '0' && f[i] <= '9' {
			i++
			digits++
		}
		if digits > 2 {
			L.RaiseError("invalid format (width too long)")
		}
		if i < len(f) && f[i] == '.' {
			i++
			digits = 0
			for i < len(f) && f[i] >= '0' && f[i] <= '9' {
				i++
				digits++
			}
			if digits > 2 {
				L.RaiseError("invalid format (precision too long)")
			}
		}
	}
	n := orig(L)
	if s, ok := L.Get(-1).(lua.LString); ok && len(s) > v.pl.opts.MaxStringSize {
		L.RaiseError("string.format: the result is larger than %d bytes", v.pl.opts.MaxStringSize)
	}
	return n
}

// tabConcat is table.concat built with a strings.Builder (the stock one
// pushes every element on the value stack) and a bound on the result.
func (v *vm) tabConcat(L *lua.LState) int {
	t := v.unwrap(L.CheckTable(1))
	sep := L.OptString(2, "")
	i := L.OptInt(3, 1)
	j := L.OptInt(4, t.Len())
	limit := v.pl.opts.MaxStringSize
	var b strings.Builder
	// one allocation for the result (BenchmarkRedactSecrets: monad.redact
	// joins the text around its markers)
	size := 0
	for k := i; k <= j && size <= limit; k++ {
		if e, ok := t.RawGetInt(k).(lua.LString); ok {
			size += len(e) + len(sep)
		}
	}
	if size <= limit {
		b.Grow(size)
	}
	for k := i; k <= j; k++ {
		var s string
		switch e := t.RawGetInt(k).(type) {
		case lua.LString:
			s = string(e)
		case lua.LNumber:
			s = e.String()
		default:
			L.RaiseError("invalid value (at index %d) in table for 'concat'", k)
		}
		if b.Len()+len(s)+len(sep) > limit {
			L.RaiseError("table.concat: the result would be larger than %d bytes", limit)
		}
		if k > i {
			b.WriteString(sep)
		}
		b.WriteString(s)
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// tabSort is table.sort polling the stop flag (gopher-lua's runs to
// completion: 2.4 s for a million strings). Like it, it sorts t[1..#t]
// with Go's sort.Sort, calling the order function if one is given.
func (v *vm) tabSort(L *lua.LState) int {
	t := L.CheckTable(1)
	if info, ok := v.ro[t]; ok {
		L.RaiseError("table.sort: cannot modify read-only table %s", info.name)
	}
	s := luaSorter{v: v, L: L}
	if L.GetTop() > 1 && L.Get(2) != lua.LNil {
		s.fn = L.CheckFunction(2)
	}
	n := t.Len()
	s.a = make([]lua.LValue, n)
	for i := range s.a {
		s.a[i] = t.RawGetInt(i + 1)
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				if r != errStopped {
					panic(r)
				}
				L.RaiseError("table.sort: %s", errStopped.Error())
			}
		}()
		sort.Sort(&s)
	}()
	for i, x := range s.a {
		t.RawSetInt(i+1, x)
	}
	return 0
}

// luaSorter sorts Lua values for tabSort; Less panics with errStopped once
// the call must stop.
type luaSorter struct {
	v     *vm
	L     *lua.LState
	fn    *lua.LFunction
	a     []lua.LValue
	calls int
}

func (s *luaSorter) Len() int      { return len(s.a) }
func (s *luaSorter) Swap(i, j int) { s.a[i], s.a[j] = s.a[j], s.a[i] }

func (s *luaSorter) Less(i, j int) bool {
	s.calls++
	if s.calls%stopCheckEvery == 0 {
		s.v.pl.work.sortCompares.Add(stopCheckEvery)
		if s.v.ctx.stopped() {
			panic(errStopped)
		}
	}
	if s.fn == nil {
		return s.L.LessThan(s.a[i], s.a[j])
	}
	s.L.Push(s.fn)
	s.L.Push(s.a[i])
	s.L.Push(s.a[j])
	s.L.Call(2, 1)
	r := s.L.Get(-1)
	s.L.Pop(1)
	return lua.LVAsBool(r)
}
