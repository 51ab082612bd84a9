package luaapi

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/monad-hooks/monad-hooks/events"
	lua "github.com/yuin/gopher-lua"
)

// Libraries: Lua modules the host gives every script of a pool
// ([Options.Libraries]). A library is a compiled [Script] whose chunk
// returns a table. It is compiled once by its owner (the proto is shared,
// read-only, by every VM of every pool it is given to), run lazily in a VM
// the first time a script of that VM requires it, and cached in that VM:
// every script of the VM gets the same instance, made read-only all the way
// down so that no script can change what another one sees.

// isLibraryName reports whether name is dotted identifiers
// ([A-Za-z_][A-Za-z0-9_]* joined by '.'), the shape of a library's require
// name; checked by hand: compiling and running the expression was a
// hundredth of monad-hooks run (BenchmarkCLIRun).
func isLibraryName(name string) bool {
	start := true // at the start of an identifier
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '.' && !start:
			start = true
		case c == '_' || (c|0x20) >= 'a' && (c|0x20) <= 'z':
			start = false
		case c >= '0' && c <= '9' && !start:
		default:
			return false
		}
	}
	return !start
}

// checkLibraries validates Options.Libraries and returns a copy of it.
func checkLibraries(libs map[string]*Script) (map[string]*Script, error) {
	if len(libs) == 0 {
		return nil, nil
	}
	out := make(map[string]*Script, len(libs))
	for name, s := range libs {
		switch {
		case !isLibraryName(name):
			return nil, fmt.Errorf("luaapi: library name %q: want dotted identifiers such as \"monad.params\"", name)
		case isModuleName(name):
			return nil, fmt.Errorf("luaapi: library %q has the name of a host module", name)
		case s == nil:
			return nil, fmt.Errorf("luaapi: library %q has no script", name)
		}
		out[name] = s
	}
	return out, nil
}

// requireNames returns the names require accepts in this VM's pool, sorted.
func (v *vm) requireNames() []string {
	names := ModuleNames()
	for n := range v.pl.libs {
		names = append(names, n)
	}
	for _, m := range v.pl.mods {
		names = append(names, m.name)
	}
	sort.Strings(names)
	return names
}

// luaRequire implements require(name): a host module, or a library,
// instantiated on first use in this VM.
func (v *vm) luaRequire(L *lua.LState) int {
	name := L.CheckString(1)
	if m, ok := v.modules[name]; ok {
		L.Push(m)
		return 1
	}
	lib, ok := v.pl.libs[name]
	if !ok {
		L.RaiseError("module %q not found (available: %s)", name, strings.Join(v.requireNames(), ", "))
	}
	if slices.Contains(v.libStack, name) {
		L.RaiseError("library %q requires itself (%s -> %s)", name, strings.Join(v.libStack, " -> "), name)
	}
	v.libStack = append(v.libStack, name)
	defer func() { v.libStack = v.libStack[:len(v.libStack)-1] }()

	// Its own environment over the sandbox's base table: no params, no
	// _G, and no globals of its own (a library keeps its state in
	// locals, so that nothing it defines leaks into a script's view).
	env := L.CreateTable(0, 0)
	mt := L.CreateTable(0, 3)
	mt.RawSetString("__index", v.base)
	mt.RawSetString("__newindex", v.libSetGlobal)
	mt.RawSetString("__metatable", lua.LFalse)
	env.Metatable = mt
	c, err := lib.compiled()
	if err != nil {
		L.RaiseError("library %q: %s", name, err.Error())
	}
	fn := L.NewFunctionFromProto(c.proto)
	fn.Env = env
	L.Push(fn)
	L.Call(0, 1)
	ret := L.Get(-1)
	L.Pop(1)
	t, ok := ret.(*lua.LTable)
	if !ok {
		L.RaiseError("library %q returned %s, want a table", name, ret.Type())
	}
	m, ok := v.freezeDeep(t, name, map[*lua.LTable]lua.LValue{}, 0)
	if !ok {
		L.RaiseError("library %q: its tables nest deeper than %d levels", name, events.MaxDepth)
	}
	v.modules[name] = m
	L.Push(m)
	return 1
}

// luaLibSetGlobal is the __newindex of every library environment.
func (v *vm) luaLibSetGlobal(L *lua.LState) int {
	L.RaiseError("cannot assign to global '%s' in a library (use a local variable)", lua.LVAsString(L.ToStringMeta(L.Get(2))))
	return 0
}

// scriptLine returns the current line of the innermost function of the
// script being loaded or called, so that what a library function does for a
// script (hook{}, log) is reported at the script's line that called into
// the library. A handler defined by a library has no such line: it reports
// its hook's line. It falls back to the caller of the running Go function.
func (v *vm) scriptLine(L *lua.LState) int {
	name, fallback := "", 0
	if v.loading {
		name = v.pl.srcs[v.curSource].script.name
	} else if v.curHook >= 0 && v.curHook < len(v.pl.hooks) {
		name, fallback = v.pl.hooks[v.curHook].Script, v.pl.hooks[v.curHook].Line
	}
	for level := 1; level <= callStackSize; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil {
			break
		}
		if dbg.Source == name {
			return dbg.CurrentLine
		}
	}
	if fallback > 0 {
		return fallback
	}
	return callerLine(L, 1)
}
