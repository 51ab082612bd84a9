package luaapi

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// callsOutputFunc reports whether p's code (or a function nested in it)
// names outputFuncName: Compile rewrote a return.
func callsOutputFunc(p *lua.FunctionProto) bool {
	for _, c := range p.Constants {
		if c == lua.LString(outputFuncName) {
			return true
		}
	}
	for _, f := range p.FunctionPrototypes {
		if callsOutputFunc(f) {
			return true
		}
	}
	return false
}

// TestRewrittenReturnsAsTables: a handler's `return { ... }`, rewritten by
// Compile (outreturn.go), gives the output, or the error, that returning the
// same table through a local (which is not rewritten) gives.
func TestRewrittenReturnsAsTables(t *testing.T) {
	ctors := []string{
		`{ decision = "deny", reason = "destructive command" }`,
		`{ reason = "r", decision = "deny" }`,
		`{ decision = "allow" }`,
		`{ ["decision"] = "deny", ["reason"] = "quoted keys" }`,
		`{ decision = nil, reason = "no decision" }`,
		`{ decision = json.null, reason = json.null }`,
		`{ decision = 5 }`,
		`{ decision = "bogus" }`,
		`{ reason = {} }`,
		`{ decision = "deny", reason = nil .. "x" }`,
		`{ decision = (function() return "deny", "more" end)(), reason = (function() return "r", "more" end)() }`,
		`{ decision = "deny", reason = ... }`,
		`{ mutatedToolInput = { command = "ls", timeout = 3 } }`,
		`{ mutatedToolInput = input.toolInput }`,
		`{ mutatedToolInput = setmetatable({}, { __index = input.toolInput }) }`,
		`{ continueWork = { reason = "go on" } }`,
		`{ continueWork = 5 }`,
		`{ continueWork = {} }`,
		`{ additionalContext = ("x"):rep(10), decision = "ask", reason = "why" }`,
		`{ mutatedPrompt = "p", mutatedText = "t", modelOverride = "m", updatedToolOutput = "o", mutatedRequest = { a = 1 } }`,
		`{ decision = "deny", reason = "r", additionalContext = "c", mutatedPrompt = "p", modelOverride = "m", mutatedToolInput = {}, updatedToolOutput = "o", mutatedRequest = {}, mutatedText = "t", continueWork = { reason = "w" } }`,
	}
	for _, ctor := range ctors {
		t.Run(ctor, func(t *testing.T) {
			// The same constructor on the same line, returned as written
			// (rewritten) and through a local (as written).
			src := func(ret string) string {
				return "local json = require('json')\nhook{event='BeforeTool', handler=function(input, ...)\n" + ret + "\nend}"
			}
			rewritten := newTestPool(t, Options{}, "h.lua", src("return "+ctor))
			asTable := newTestPool(t, Options{}, "h.lua", src("local t = "+ctor+" return t"))
			require.True(t, callsOutputFunc(rewritten.plan.srcs[0].script.proto), "the return was rewritten")
			require.False(t, callsOutputFunc(asTable.plan.srcs[0].script.proto))
			in := bashInput("rm -rf /")
			want, wantErr := callReturns(t, context.Background(), asTable, 0, in)
			got, gotErr := callReturns(t, context.Background(), rewritten, 0, in)
			assert.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr))
			assert.Equal(t, want, got)
			if wantErr == nil {
				assert.Equal(t, int64(1), rewritten.plan.work.directOuts.Load(), "read without a table")
			}
		})
	}
}

// TestRewrittenReturnCalledFromLua: a rewritten handler that Lua code calls
// (here through a hook function of the script's own, which keeps the
// handlers it registers) returns the table the constructor builds, with
// its keys in the same order.
func TestRewrittenReturnCalledFromLua(t *testing.T) {
	p := newTestPool(t, Options{}, "h.lua", `
local register = hook
local kept = {}
hook = function(spec) kept[#kept + 1] = spec.handler; register(spec) end
hook{ event = "BeforeTool", handler = function(input)
  return { reason = "r1", decision = "deny", additionalContext = "c" }
end }
hook{ event = "BeforeTool", handler = function(input)
  local t = kept[1](input)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  local ok, u = pcall(kept[1], input)
  return { decision = "deny", reason = type(t) .. ":" .. table.concat(keys, ",") .. ":" .. t.reason .. ":" .. type(u) }
end }`)
	require.True(t, callsOutputFunc(p.plan.srcs[0].script.proto))
	out, err := callReturns(t, context.Background(), p, 1, bashInput("x"))
	require.NoError(t, err)
	assert.Equal(t, "table:reason,decision,additionalContext:r1:table", out.Reason)
	assert.Equal(t, int64(1), p.plan.work.directOuts.Load(), "only the outer handler's return went without a table")
	out, err = callReturns(t, context.Background(), p, 0, bashInput("x"))
	require.NoError(t, err)
	assert.Equal(t, "r1", out.Reason)
	assert.Equal(t, "c", out.AdditionalContext)
	assert.Equal(t, int64(2), p.plan.work.directOuts.Load())
}

// TestRewrittenReturnKeepsNothing: what a rewritten return gave is the
// output of its own call only, and no script reaches the host function or
// the flag of the rewrite (they are only in the environment of the pool's
// copy of a handler, see directHandler): not at load, not in a handler,
// not in a function the handler makes; and no script can define either
// name.
func TestRewrittenReturnKeepsNothing(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 1}, "h.lua", `
local atLoad = type(_G["\0output"]) .. type(_G["\0direct"])
hook{ event = "BeforeTool", handler = function(input)
  local inner = function() return type(_G["\0output"]) .. type(_G["\0direct"]) end
  if input.toolInput.command == "probe" then
    return { decision = "deny", reason = atLoad .. type(_G["\0output"]) .. type(_G["\0direct"]) .. inner() }
  end
  return { decision = "deny", reason = "secret of " .. input.toolInput.command }
end }`)
	out, err := callReturns(t, context.Background(), p, 0, bashInput("probe"))
	require.NoError(t, err)
	assert.Equal(t, "nilnilnilnilnilnil", out.Reason)
	out, err = callReturns(t, context.Background(), p, 0, bashInput("the first call"))
	require.NoError(t, err)
	assert.Equal(t, "secret of the first call", out.Reason)
	assert.Equal(t, [len(outputKeys)]lua.LValue{}, p.hot.Load().outVals, "the VM keeps no value of the call")
	assert.False(t, p.hot.Load().outSet)

	for _, src := range []string{`_G["\0output"] = function() end`, `_G["\0output"] = nil`, `_G["\0direct"] = true`} {
		s, err := Compile("g.lua", []byte(src))
		require.NoError(t, err)
		_, err = NewPool(context.Background(), []Source{{Script: s}}, Options{})
		require.Error(t, err, src)
		assert.Contains(t, err.Error(), "the name is the host's", src)
	}
}

// TestRewrittenReturnOutOfRegisters: a handler whose rewritten return would
// need more registers than gopher-lua has is compiled as written.
func TestRewrittenReturnOutOfRegisters(t *testing.T) {
	asWritten := 0 // sizes that compile only as written
	for n := 185; n < 200; n++ {
		var b strings.Builder
		b.WriteString("hook{ event = 'BeforeTool', handler = function(input)\n")
		for i := range n {
			fmt.Fprintf(&b, "local v%d = %d\n", i, i)
		}
		fmt.Fprintf(&b, "return { decision = 'deny', reason = 'r' .. v%d, additionalContext = 'c' .. v0 }\nend }", n-1)
		chunk, err := parse.Parse(strings.NewReader(b.String()), "h.lua")
		require.NoError(t, err)
		_, compileErr := lua.Compile(chunk, "h.lua")
		s, err := Compile("h.lua", []byte(b.String()))
		if compileErr != nil {
			require.Error(t, err, "%d locals", n)
			continue
		}
		require.NoError(t, err, "%d locals", n)
		if callsOutputFunc(s.proto) {
			continue
		}
		asWritten++
		p := newTestPool(t, Options{}, "h.lua", b.String())
		out, err := callReturns(t, context.Background(), p, 0, bashInput("x"))
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("r%d", n-1), out.Reason)
	}
	assert.Positive(t, asWritten, "some size compiles only as written")
}

// TestRewrittenReturnAllocations: a denying call whose handler's return is
// rewritten allocates no table (BenchmarkLuaGuardPeers).
func TestRewrittenReturnAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what allocates")
	}
	allocs := func(ret string) float64 {
		p := newTestPool(t, Options{PoolSize: 1}, "h.lua", "hook{event='BeforeTool', handler=function(input)\n"+ret+"\nend}")
		in := bashInput("rm -rf /")
		return testing.AllocsPerRun(200, func() {
			out, err := p.Call(context.Background(), 0, in)
			if err != nil || out.Reason != "destructive command" {
				t.Fatalf("Call = %+v, %v", out, err)
			}
		})
	}
	asTable := allocs(`local t = { decision = "deny", reason = "destructive command" } return t`)
	rewritten := allocs(`return { decision = "deny", reason = "destructive command" }`)
	t.Logf("allocations per call: %v with a table, %v rewritten", asTable, rewritten)
	assert.LessOrEqual(t, rewritten+6, asTable)
}

// TestRewrittenReturnInLibrary: a handler a library function registers for
// the script that calls it has its return rewritten too, and its library's
// environment reaches the output function.
func TestRewrittenReturnInLibrary(t *testing.T) {
	lib, err := Compile("test.guard", []byte(`return { add = function(name)
  hook{ event = "BeforeTool", handler = function(input) return { decision = "deny", reason = name } end }
end }`))
	require.NoError(t, err)
	require.True(t, callsOutputFunc(lib.proto))
	s, err := Compile("h.lua", []byte(`require("test.guard").add("from the library")`))
	require.NoError(t, err)
	p, err := NewPool(context.Background(), []Source{{Script: s}}, Options{PoolSize: 1, Libraries: map[string]*Script{"test.guard": lib}})
	require.NoError(t, err)
	defer p.Close()
	out, err := callReturns(t, context.Background(), p, 0, bashInput("x"))
	require.NoError(t, err)
	assert.Equal(t, "from the library", out.Reason)
	assert.Equal(t, int64(1), p.plan.work.directOuts.Load())
}

// compileAsWritten compiles src as Compile does but without rewriting any
// return.
func compileAsWritten(t *testing.T, name, src string) *Script {
	t.Helper()
	chunk, err := parse.Parse(strings.NewReader(src), name)
	require.NoError(t, err)
	hooks, _, err := checkChunk(name, chunk)
	require.NoError(t, err)
	proto, err := lua.Compile(chunk, name)
	require.NoError(t, err)
	return &Script{name: name, proto: proto, hooks: hookPositions([]byte(src), hooks)}
}

// runAll calls each hook of s twice, in one VM, and lists what they gave.
func runAll(t *testing.T, s *Script) []string {
	t.Helper()
	p, err := NewPool(context.Background(), []Source{{Script: s}}, Options{PoolSize: 1, DefaultTimeout: MaxTimeout, LoadTimeout: MaxTimeout})
	require.NoError(t, err)
	defer p.Close()
	var res []string
	for i := range 2 {
		for h := range p.Hooks() {
			out, err := callReturns(t, context.Background(), p, h, bashInput(fmt.Sprint("cmd", i)))
			res = append(res, fmt.Sprintf("hook %d: %+v %v", h, out, err))
		}
	}
	return res
}

// keepHandlers makes hook{} keep the handlers it is given in kept, and
// register them until the script sets loaded.
const keepHandlers = `
local register, loaded = hook, false
local kept = {}
hook = function(spec)
  kept[#kept + 1] = spec.handler
  if not loaded then register(spec) end
  return spec
end
`

// TestRewrittenReturnsAsWritten: handlers whose returns Compile rewrites,
// called by the pool and by Lua code in every way a script can (pcall,
// tail calls, metamethods, library callbacks, recursion, at the call-stack
// limit, with varargs, raising mid-constructor), give every hook the same
// outputs and errors as the same script compiled as written.
func TestRewrittenReturnsAsWritten(t *testing.T) {
	scripts := map[string]string{
		"results and order": `
local log = {}
local function f(x) log[#log + 1] = x; return x end
hook{ event = "BeforeTool", handler = function(input)
  return { reason = f("r"), decision = f("deny"), additionalContext = f("c") }
end }
hook{ event = "BeforeTool", handler = function(input)
  log = {}
  local n = select("#", kept[1](input))
  return { decision = "deny", reason = n .. ":" .. table.concat(log, ",") }
end }`,
		"error mid-constructor": `
local log = {}
local function f(x) log[#log + 1] = x; return x end
local function boom() error("boom", 2) end
hook{ event = "BeforeTool", handler = function(input)
  return { reason = f("r"), decision = f("deny"),
    additionalContext = f("c") .. nil, mutatedText = f("t") }
end }
hook{ event = "BeforeTool", handler = function(input)
  return { decision = "deny",
    reason = boom() }
end }
hook{ event = "BeforeTool", handler = function(input)
  return { decision = "deny", reason = error({ code = 1 }) }
end }
hook{ event = "BeforeTool", handler = function(input)
  log = {}
  local _, e1 = pcall(kept[1], input)
  local _, e2 = pcall(kept[2], input)
  local _, e3 = pcall(kept[3], input)
  return { decision = "deny", reason = table.concat(log, ",") .. e1 .. e2 .. e3.code }
end }`,
		"recursion": `
hook{ event = "BeforeTool", handler = function(input)
  local d = input.depth or 0
  if d < 5 then
    return { decision = "deny", reason = d .. ":" .. kept[1]({ depth = d + 1 }).reason }
  end
  return { decision = "deny", reason = "bottom" }
end }`,
		"tail calls": `
hook{ event = "BeforeTool", handler = function(input)
  return { decision = "deny", reason = "r1" }
end }
hook{ event = "BeforeTool", handler = function(input) return kept[1](input) end }
hook{ event = "BeforeTool", handler = function(input) return pcall(kept[1], input) end }
hook{ event = "BeforeTool", handler = function(input) return (kept[1](input)) end }
hook{ event = "BeforeTool", handler = kept[1] }`,
		"callbacks": `
hook{ event = "BeforeTool", handler = function(input, k)
  return { decision = "deny", reason = type(input) .. tostring(k) }
end }
hook{ event = "BeforeTool", handler = function(input)
  local a = setmetatable({}, { __index = kept[1] }).foo
  local s = string.gsub("xy", "%w", function(c) return kept[1](c).reason end)
  local t = { 3, 1, 2 }
  local ok, e = pcall(table.sort, t, function(a, b) return kept[1](a, b).reason < "z" end)
  local _, e2 = pcall(string.gsub, "x", "x", kept[1])
  local _, e3 = pcall(tostring, setmetatable({}, { __tostring = kept[1] }))
  local _, e4 = xpcall(function() return kept[1]("x") end, function(m) return m end)
  return { decision = "deny", reason = a.reason .. s .. tostring(ok) .. tostring(e) .. e2 .. type(e3) .. e4.reason }
end }`,
		"varargs": `
hook{ event = "BeforeTool", handler = function(input, ...)
  return { decision = ..., reason = select("#", ...) .. "", additionalContext = ... }
end }
hook{ event = "BeforeTool", handler = function(input)
  local t = kept[1](input, "deny", "b", "c")
  return { decision = t.decision, reason = t.reason .. tostring(t.additionalContext) }
end }`,
		"at the call-stack limit": `
hook{ event = "BeforeTool", handler = function(input)
  return { decision = "deny", reason = "r" }
end }
hook{ event = "BeforeTool", handler = function(input)
  local function down(n)
    local ok, r = pcall(kept[1], {})
    if not ok then return n .. ":" .. tostring(r) end
    local s = down(n + 1)
    return s
  end
  return { decision = "deny", reason = down(1) }
end }
hook{ event = "BeforeTool", handler = function(input)
  return { decision = "deny", reason = kept[3](input).reason }
end }`,
		"a handler literal in a handler": `
local inner
hook{ event = "BeforeTool", handler = function(input)
  inner = inner or hook{ handler = function(x) return { decision = "deny", reason = "inner" } end }.handler
  local function down(n)
    local ok, r = pcall(inner, {})
    if not ok then return n .. ":" .. tostring(r) end
    local s = down(n + 1)
    return s
  end
  return { decision = "deny", reason = down(1) .. inner({}).reason }
end }
loaded = true`,
	}
	for name, src := range scripts {
		t.Run(name, func(t *testing.T) {
			src := keepHandlers + src
			s, err := Compile("h.lua", []byte(src))
			require.NoError(t, err)
			require.True(t, callsOutputFunc(s.proto))
			assert.Equal(t, runAll(t, compileAsWritten(t, "h.lua", src)), runAll(t, s))
		})
	}
}

// TestRewrittenHandlerRetainsNoMore: the retained-memory walk measures a
// script whose handler's returns Compile rewrote (and the pool's copy of
// that handler) as it measures the script compiled as written.
func TestRewrittenHandlerRetainsNoMore(t *testing.T) {
	src := `local n = 0
hook{ event = "BeforeTool", handler = function(input)
  n = n + 1
  return { decision = "deny", reason = "r" .. n }
end }`
	measure := func(s *Script) int64 {
		p, err := NewPool(context.Background(), []Source{{Script: s}}, Options{PoolSize: 1})
		require.NoError(t, err)
		defer p.Close()
		_, err = callReturns(t, context.Background(), p, 0, bashInput("x"))
		require.NoError(t, err)
		n, over := p.hot.Load().retained(1 << 40)
		require.False(t, over)
		return n
	}
	s, err := Compile("h.lua", []byte(src))
	require.NoError(t, err)
	require.True(t, callsOutputFunc(s.proto))
	assert.Equal(t, measure(compileAsWritten(t, "h.lua", src)), measure(s))
}
