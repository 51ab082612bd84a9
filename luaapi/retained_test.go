package luaapi

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// TestRetainedMemoryIsBounded: a hook that keeps 8 MB strings in
// module-level state fails once its VM retains more than MaxRetained, and
// the VM is discarded (so its memory is freed) instead of growing until the
// host runs out of memory; the next call works on a fresh VM.
func TestRetainedMemoryIsBounded(t *testing.T) {
	for _, keep := range map[string]string{
		"upvalue table": `kept[#kept + 1] = string.rep("x", 8e6)`,
		"global table":  `state.list[#state.list + 1] = string.rep("x", 8e6)`,
		"closure":       `local s = string.rep("x", 8e6) kept[#kept + 1] = function() return s end`,
		"metatable":     `kept[#kept + 1] = setmetatable({}, { __index = { big = string.rep("x", 8e6) } })`,
		"table keys":    `calls = calls + 1; kept[string.rep("x", 8e6) .. calls] = true`,
		"many small":    `for i = 1, 1e5 do kept[#kept + 1] = { i } end`,
		"substring":     `kept[#kept + 1] = string.rep("x", 8e6):sub(2)`,
		"nested table":  `state.list[#state.list + 1] = { { string.rep("x", 8e6) } }`,
	} {
		p := newTestPool(t, Options{PoolSize: 1, MaxRetained: 32 << 20, DefaultTimeout: 30 * time.Second}, "keep.lua", `
local kept, calls = {}, 0
state = { list = {} }
hook{ event = "BeforeTool", handler = function(input)
  `+keep+`
  return { reason = tostring(#kept + #state.list) }
end }`)
		// A walk runs at the latest every retainCheckEvery calls of a
		// VM (sooner after long calls or when the heap grows).
		var failed int
		for call := 1; call <= 3*retainCheckEvery && failed < 2; call++ {
			st := p.Stats()
			_, err := p.Call(context.Background(), 0, bashInput("x"))
			if err == nil {
				continue
			}
			var he *HookError
			require.ErrorAs(t, err, &he, keep)
			require.Equal(t, FailMemory, he.Kind, "%s: %v", keep, err)
			require.ErrorIs(t, err, ErrRetained)
			require.Equal(t, st.Discarded+1, p.Stats().Discarded, "%s: the VM was not discarded", keep)
			failed++
		}
		require.GreaterOrEqual(t, failed, 2, keep)
	}
	// State kept by a library the script requires counts too.
	lib := MustCompile("cache.lua", []byte(`local kept = {} return { add = function(s) kept[#kept + 1] = s end }`))
	s, err := Compile("lib.lua", []byte(`local cache = require("test.cache")
hook{ event = "BeforeTool", handler = function(input) cache.add(string.rep("x", 8e6)) end }`))
	require.NoError(t, err)
	lp, err := NewPool(context.Background(), []Source{{Script: s}}, Options{PoolSize: 1, MaxRetained: 32 << 20, DefaultTimeout: 30 * time.Second, Libraries: map[string]*Script{"test.cache": lib}})
	require.NoError(t, err)
	defer lp.Close()
	var failed int
	for call := 1; call <= 3*retainCheckEvery && failed < 2; call++ {
		if _, err := lp.Call(context.Background(), 0, bashInput("x")); err != nil {
			require.ErrorIs(t, err, ErrRetained)
			failed++
		}
	}
	require.Equal(t, 2, failed, "library state")

	// A VM's own state is measured, not counted against it: a normal pack
	// passes.
	p := newTestPool(t, Options{PoolSize: 1, MaxRetained: 1 << 20}, "ok.lua", `
local words = {} for i = 1, 1000 do words[i] = "word" .. i end
hook{ event = "BeforeTool", handler = function(input) return { reason = words[10] } end }`)
	for range 100 {
		_, err := p.Call(context.Background(), 0, bashInput("x"))
		require.NoError(t, err)
	}
	require.Zero(t, p.Stats().Discarded)
}

// TestSubstringsOwnTheirMemory: a small piece of a large string does not
// keep the large string alive (the walk counts only the piece), and
// string.sub keeps gopher-lua's semantics.
func TestSubstringsOwnTheirMemory(t *testing.T) {
	whole := strings.Repeat("x", 1<<20)
	inside := func(part string) bool {
		p, w := uintptr(unsafe.Pointer(unsafe.StringData(part))), uintptr(unsafe.Pointer(unsafe.StringData(whole)))
		return p >= w && p < w+uintptr(len(whole))
	}
	require.False(t, inside(string(ownString(whole[10:20], whole))))
	require.True(t, inside(string(ownString(whole[10:], whole))), "a large piece may share")
	small := whole[:100]
	require.Equal(t, small[1:3], string(ownString(small[1:3], small)))

	ref := lua.NewState()
	defer ref.Close()
	p := newTestPool(t, Options{PoolSize: 1}, "s.lua", "hook{event='BeforeTool', handler=function() end}")
	v, _, err := p.get(context.Background(), time.Second)
	require.NoError(t, err)
	defer p.put(v, true)
	for i := -7; i <= 7; i++ {
		for j := -8; j <= 8; j++ {
			require.NoError(t, ref.DoString(fmt.Sprintf("return string.sub('hello', %d, %d)", i, j)))
			got := ref.Get(-1)
			ref.Pop(1)
			v.L.Push(v.L.NewFunction(strSub))
			v.L.Push(lua.LString("hello"))
			v.L.Push(lua.LNumber(i))
			v.L.Push(lua.LNumber(j))
			require.NoError(t, v.L.PCall(3, 1, nil))
			require.Equal(t, got, v.L.Get(-1), "sub(%d, %d)", i, j)
			v.L.Pop(1)
		}
	}
}

// TestLongCallNeedsAFullTick: the walk after a long call is due only when
// two scans of the watchdog saw the call running (it lasted a full tick).
// One scan sees a short call by chance, in proportion to its length: with
// that as the criterion, a pack of 100 µs calls was walked every 80 calls
// (BenchmarkDefaultSetBeforeTool spent a fifth of its time walking).
func TestLongCallNeedsAFullTick(t *testing.T) {
	w := newWatchdog(0)
	w.running.Store(true) // scanned by hand here, not by the goroutine
	var c vmCtx
	w.add(&c)
	c.begin(w, context.Background(), time.Minute, 0)
	require.False(t, c.ranLong(), "not scanned yet")
	w.scan(false)
	require.False(t, c.ranLong(), "one scan saw it: it may have begun just before")
	w.scan(false)
	require.True(t, c.ranLong(), "two scans saw it: it lasted a tick")
	require.NoError(t, c.end())

	c.begin(w, context.Background(), time.Minute, 0)
	w.scan(false)
	require.False(t, c.ranLong(), "a new call starts short")
	require.NoError(t, c.end())
}
