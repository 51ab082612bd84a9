package luaapi

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
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
// output of its own call only. A handler that holds on to the value the
// host function returned (reached by its hidden name) and returns it in a
// later call returns a userdata, not the earlier call's output; and no
// script can define that name.
func TestRewrittenReturnKeepsNothing(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 1}, "h.lua", `
local out = _G["\0output"]
local kept
hook{ event = "BeforeTool", handler = function(input)
  if kept == nil then
    kept = out("deny", "secret of " .. input.toolInput.command, 0x21)
  end
  return kept
end }`)
	out, err := callReturns(t, context.Background(), p, 0, bashInput("the first call"))
	require.NoError(t, err)
	assert.Equal(t, "secret of the first call", out.Reason)
	out, err = callReturns(t, context.Background(), p, 0, bashInput("the second call"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "handler returned a userdata")
	assert.Empty(t, out.Reason)
	assert.Equal(t, [len(outputKeys)]lua.LValue{}, p.hot.Load().outVals, "the VM keeps no value of the call")

	for _, src := range []string{`_G["\0output"] = function() end`, `_G["\0output"] = nil`} {
		s, err := Compile("g.lua", []byte(src))
		require.NoError(t, err)
		_, err = NewPool(context.Background(), []Source{{Script: s}}, Options{})
		require.Error(t, err, src)
		assert.Contains(t, err.Error(), "the name is the host's", src)
	}
	h := handlerPool(t, `return _G["\0output"]("deny", 0x21 * 16)`)
	_, err = callReturns(t, context.Background(), h, 0, bashInput("x"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "internal function misused")
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

// TestRewrittenReturnGivesOnlyItsFields: a rewritten return's output holds
// the fields of its own constructor only, even when the handler called the
// output function (by its hidden name) before it returned.
func TestRewrittenReturnGivesOnlyItsFields(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 1}, "h.lua", `
local out = _G["\0output"]
hook{ event = "BeforeTool", handler = function(input)
  out("deny", "secret of " .. input.toolInput.command, "context", 0x321)
  return { decision = "allow" }
end }`)
	require.True(t, callsOutputFunc(p.plan.srcs[0].script.proto))
	out, err := callReturns(t, context.Background(), p, 0, bashInput("x"))
	require.NoError(t, err)
	assert.Equal(t, events.Output{Decision: events.Allow}, out)
}
