package luaapi

import (
	"errors"
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Memory a VM keeps between calls.
//
// gopher-lua has no allocator hook, so what a VM retains is measured by
// walking what its scripts can reach between calls: every script's
// globals, the upvalues of its handlers (its module-level locals), and
// from there every table (keys, values, metatable) and closure (upvalues).
// The sandbox's own objects (libraries, modules, params, marks) are not
// counted: they are the same in every VM. Strings count their length,
// tables and closures an estimate of their Go size. The walk stops as soon
// as the estimate passes Options.MaxRetained, so it costs at most about
// MaxRetained/32 steps.
//
// The walk runs after the next call of every VM once the process's live
// heap grew by MaxRetained since the last mark (the watchdog probes it
// while calls run; see walkEpoch), after a call that ran a tick (1 ms) or
// more, which the watchdog found running at two scans (a call must run for
// a while to allocate much; at most every longCallWalks calls), and after every
// retainCheckEvery-th call of a VM. A VM over the bound is
// discarded and the call reported as failed with ErrRetained (kind
// FailMemory), so that onError: deny denies.

// A walk of a VM with every stdlib pack loaded takes about 0.4 ms, so it
// runs at most every longCallWalks long calls, and every retainCheckEvery
// calls otherwise (the heap probe catching the rest).
const (
	retainCheckEvery = 1024
	longCallWalks    = 8
)

// Estimated Go sizes of Lua values, in bytes.
const (
	sizeString   = 16  // header; the bytes are added
	sizeTable    = 128 // LTable with its maps and slices, empty
	sizeEntry    = 48  // one key/value pair (hash part; array entries count the same)
	sizeFunction = 64  // LFunction
	sizeUpvalue  = 48
	sizeUserData = 64
)

// ErrRetained is wrapped by a [HookError] of kind [FailMemory]: after the
// call, its VM retained more than [Options.MaxRetained] bytes (module-level
// state that grows from call to call). The VM was discarded.
var ErrRetained = errors.New("retained memory limit exceeded")

// retainWalk is one measurement.
type retainWalk struct {
	v     *vm
	max   int64
	bytes int64
	seen  map[any]struct{}
	stack []lua.LValue
}

// retained estimates the bytes v's scripts retain, stopping once past max;
// it reports whether the estimate passed max.
func (v *vm) retained(max int64) (int64, bool) {
	w := retainWalk{v: v, max: max, seen: make(map[any]struct{}, 64)}
	// Not the scripts': the sandbox's tables.
	for t := range v.fixed {
		w.seen[t] = struct{}{}
	}
	if v.input != nil {
		w.seen[v.input] = struct{}{}
	}
	// Nor the environments of the pool's copies of handlers (they hold
	// host objects; see directHandler): a copy counts as its handler.
	for _, env := range v.directEnvs {
		w.seen[env] = struct{}{}
	}
	for _, env := range v.envs {
		w.push(env)
	}
	for _, fn := range v.handlers {
		w.push(fn)
	}
	for len(w.stack) > 0 && w.bytes <= max {
		x := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		w.visit(x)
	}
	return w.bytes, w.bytes > max
}

// sandboxTables returns the tables the sandbox built (its base, library
// tables, modules, marks): the same in every VM, not the scripts'. Tables
// made read-only later (params, the libraries scripts require) are the
// scripts' and are walked.
func (v *vm) sandboxTables() map[any]struct{} {
	fixed := map[any]struct{}{v.base: {}}
	for p, info := range v.ro {
		fixed[p] = struct{}{}
		fixed[info.target] = struct{}{}
	}
	for _, t := range append([]*lua.LTable{v.arrayMT, v.objectMT, v.inputMT, v.strMeta, v.roMT}, v.scanMTs...) {
		fixed[t] = struct{}{}
	}
	for _, m := range v.pl.mods { // Go values, not Lua state
		fixed[v.modules[m.name]] = struct{}{}
	}
	return fixed
}

// push schedules a value; strings and numbers are counted at once.
func (w *retainWalk) push(x lua.LValue) {
	switch x := x.(type) {
	case lua.LString:
		w.bytes += sizeString + int64(len(x))
	case *lua.LTable, *lua.LFunction, *lua.LUserData:
		if _, ok := w.seen[x]; ok {
			return
		}
		w.seen[x] = struct{}{}
		w.stack = append(w.stack, x)
	}
}

func (w *retainWalk) visit(x lua.LValue) {
	switch x := x.(type) {
	case *lua.LTable:
		w.bytes += sizeTable
		if mt, ok := x.Metatable.(*lua.LTable); ok {
			w.push(mt)
		}
		x.ForEach(func(k, e lua.LValue) {
			if w.bytes > w.max {
				return
			}
			w.bytes += sizeEntry
			w.push(k)
			w.push(e)
		})
	case *lua.LFunction:
		w.bytes += sizeFunction
		if x.Env != nil {
			w.push(x.Env)
		}
		for _, uv := range x.Upvalues {
			w.bytes += sizeUpvalue
			w.push(uv.Value())
		}
	case *lua.LUserData:
		w.bytes += sizeUserData
		if mt, ok := x.Metatable.(*lua.LTable); ok {
			w.push(mt)
		}
	}
}

// checkRetained measures v after a call when due (see above); it returns a
// non-nil error when v retains too much (the caller discards v).
func (v *vm) checkRetained(longCall bool) error {
	limit := v.pl.opts.MaxRetained
	if limit < 0 {
		return nil
	}
	v.sinceRetainCheck++
	epoch := v.pl.wd.walkEpoch.Load()
	due := epoch != v.walkEpoch || v.sinceRetainCheck >= retainCheckEvery ||
		(longCall && v.sinceRetainCheck >= longCallWalks)
	if !due {
		return nil
	}
	v.sinceRetainCheck = 0
	v.walkEpoch = epoch
	v.pl.work.retainWalks.Add(1)
	if n, over := v.retained(limit); over {
		return fmt.Errorf("%w: the scripts' module-level state holds more than %d bytes after the call (at least %d); the VM was discarded", ErrRetained, limit, n)
	}
	return nil
}

// ownString returns part, a substring of whole, as a Lua string. A Go
// substring keeps all of whole alive, which the walk (counting len(part))
// would not see: a script could keep one byte of each 8 MB subject. So a
// part much smaller than a large whole gets memory of its own.
func ownString(part, whole string) lua.LString {
	if len(whole) >= 64<<10 && len(part) < len(whole)/2 {
		return lua.LString(strings.Clone(part))
	}
	return lua.LString(part)
}

// strSub is gopher-lua's string.sub (Lua 5.1's semantics) returning an
// ownString substring.
func strSub(L *lua.LState) int {
	str := L.CheckString(1)
	l := len(str)
	index := func(i int, start bool) int { // gopher-lua's luaIndex2StringIndex
		if start && i != 0 {
			i--
		}
		if i < 0 {
			i = l + i + 1
		}
		i = max(0, i)
		if !start && i > l {
			i = l
		}
		return i
	}
	start, end := index(L.CheckInt(2), true), index(L.OptInt(3, -1), false)
	if start >= l || end < start {
		L.Push(lua.LString(""))
		return 1
	}
	L.Push(ownString(str[start:end], str))
	return 1
}
