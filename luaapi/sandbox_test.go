package luaapi

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/events"
)

const escapes = `
local tries = {
  getfenv = function() return getfenv(print) end,
  getfenv0 = function() return getfenv(0) end,
  setfenv = function() return setfenv(1, {}) end,
  load = function() return load(function() return nil end) end,
  loadstring = function() return loadstring("return 1") end,
  dofile = function() return dofile("/etc/passwd") end,
  loadfile = function() return loadfile("/etc/passwd") end,
  require_os = function() return require("os") end,
  require_io = function() return require("io") end,
  require_file = function() return require("./x") end,
  module = function() return module("x") end,
  collectgarbage = function() return collectgarbage() end,
  newproxy = function() return newproxy(true) end,
  rawset = function() return rawset(_G, "x", 1) end,
  rawget = function() return rawget(_G, "x") end,
  rawequal = function() return rawequal(1, 1) end,
  string_dump = function() return string.dump(print) end,
  string_mt = function() getmetatable("").__index = {} end,
  string_mt_index = function() getmetatable("").__index.find = nil end,
  setmetatable_string = function() return setmetatable("", {}) end,
  setmetatable_number = function() return setmetatable(1, {}) end,
  setmetatable_proxy = function() return setmetatable(string, nil) end,
  string_write = function() string.find = nil end,
  table_write = function() table.insert = nil end,
  math_write = function() math.pi = 3 end,
  os_write = function() os.time = nil end,
  module_write = function() require("re").find = nil end,
  json_null_write = function() require("json").null.x = 1 end,
  io = function() return io.open("/etc/passwd") end,
  os_execute = function() return os.execute("true") end,
  os_getenv = function() return os.getenv("HOME") end,
  os_exit = function() return os.exit(1) end,
  os_remove = function() return os.remove("/tmp/x") end,
  debug = function() return debug.getinfo(1) end,
  package = function() return package.loadlib("x", "y") end,
  package_loaded = function() return package.loaded end,
  coroutine = function() return coroutine.create(print) end,
  channel = function() return channel.make() end,
  printregs = function() return _printregs() end,
  global_write = function() leaked = true end,
  global_overwrite = function() helper = nil end,
  G_write = function() _G.leaked = true end,
  input_mt = function() return setmetatable(input_arg, nil) end,
  randomseed = function() return math.randomseed(1) end,
}
function helper() return "helper" end
hook{ event = "BeforeTool", onError = "deny", handler = function(i)
  input_arg = nil
  local f = tries[i.toolName]
  f()
  return { decision = "allow", reason = "escaped: " .. i.toolName }
end }
hook{ event = "AfterTool", handler = function(i)
  return { additionalContext = tostring(leaked) .. " " .. helper() .. " " .. tostring(("x"):upper()) .. " " .. tostring(string.find("abc", "b")) }
end }
hook{ event = "BeforeTurn", handler = function(i)
  local f = ({ input_mt = function() return setmetatable(i, nil) end })[i.prompt]
  f()
  return { decision = "deny", reason = "escaped" }
end }
`

func TestSandboxEscapes(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 2}, "escape.lua", escapes)
	names := []string{"getfenv", "getfenv0", "setfenv", "load", "loadstring", "dofile", "loadfile", "require_os", "require_io",
		"require_file", "module", "collectgarbage", "newproxy", "rawset", "rawget", "rawequal", "string_dump", "string_mt",
		"string_mt_index", "setmetatable_string", "setmetatable_number", "setmetatable_proxy", "string_write", "table_write",
		"math_write", "os_write", "module_write", "json_null_write", "io", "os_execute", "os_getenv", "os_exit", "os_remove",
		"debug", "package", "package_loaded", "coroutine", "channel", "printregs", "global_write", "global_overwrite", "G_write",
		"randomseed"}
	for _, name := range names {
		out, err := p.Call(context.Background(), 0, &events.Input{Event: events.BeforeTool, ToolName: name})
		var he *HookError
		if !errors.As(err, &he) || he.Kind != FailError {
			t.Errorf("%s: out=%+v err=%v, want a Lua error", name, out, err)
			continue
		}
		// The host and the pool are fine: the next call works and sees
		// nothing of the attempt.
		out, err = p.Call(context.Background(), 1, &events.Input{Event: events.AfterTool, ToolName: name})
		if err != nil || out.AdditionalContext != "nil helper X 2" {
			t.Errorf("%s: after the attempt: out=%+v err=%v", name, out, err)
		}
	}
	_, err := p.Call(context.Background(), 2, &events.Input{Event: events.BeforeTurn, Prompt: "input_mt"})
	if err == nil || !strings.Contains(err.Error(), "protected metatable") {
		t.Errorf("input_mt: %v", err)
	}
}

func TestSealedGlobals(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 1}, "g.lua", `
counter = 0
hook{ event = "BeforeTool", handler = function(i)
  if i.toolName == "set" then counter = counter + 1 end
  if i.toolName == "new" then fresh = 1 end
  return { additionalContext = "counter=" .. tostring(counter) .. " fresh=" .. tostring(fresh) }
end }
`)
	for _, tool := range []string{"set", "new"} {
		_, err := p.Call(context.Background(), 0, &events.Input{Event: events.BeforeTool, ToolName: tool})
		if err == nil || !strings.Contains(err.Error(), "globals are sealed") {
			t.Fatalf("%s: err = %v", tool, err)
		}
	}
	out, err := p.Call(context.Background(), 0, &events.Input{Event: events.BeforeTool, ToolName: "get"})
	if err != nil || out.AdditionalContext != "counter=0 fresh=nil" {
		t.Fatalf("out=%+v err=%v", out, err)
	}
}

func TestScriptsAreIsolated(t *testing.T) {
	p := newTestPool(t, Options{}, "a.lua", `
function shared() return "a" end
hook{ event = "BeforeTool", handler = function() return { additionalContext = shared() } end }
`, "b.lua", `
hook{ event = "BeforeTool", handler = function() return { additionalContext = tostring(shared) } end }
`)
	out, err := p.Call(context.Background(), 0, bashInput("ls"))
	if err != nil || out.AdditionalContext != "a" {
		t.Fatal(out, err)
	}
	out, err = p.Call(context.Background(), 1, bashInput("ls"))
	if err != nil || out.AdditionalContext != "nil" {
		t.Fatal(out, err)
	}
}

func TestStringMetatableTamperingDoesNotLeak(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 1}, "t.lua", `
hook{ event = "BeforeTool", handler = function(i)
  pcall(function() getmetatable("").__index.find = function() return nil end end)
  pcall(function() string.find = function() return nil end end)
  pcall(function() setmetatable("", { __index = { find = function() return nil end } }) end)
end }
hook{ event = "BeforeTool", handler = function(i)
  if i.toolInput.command:find("rm -rf /", 1, true) then return { decision = "deny", reason = "caught" } end
end }
`)
	if _, err := p.Call(context.Background(), 0, bashInput("rm -rf /")); err != nil {
		t.Fatal(err)
	}
	out, err := p.Call(context.Background(), 1, bashInput("rm -rf /"))
	if err != nil || out.Decision != events.Deny {
		t.Fatal(out, err)
	}
}

func TestTimeouts(t *testing.T) {
	cases := []struct{ name, body string }{
		{"while true", `while true do end`},
		{"pcall loop", `while true do pcall(function() while true do end end) end`},
		{"recursion in pcall", `local function f() pcall(f) end while true do f() end`},
		{"string find pattern", `while true do string.find(("a"):rep(100) .. "c", ".-.-.-b") end`},
		{"single pattern", `string.find(("a"):rep(3000) .. "c", ".-.-.-.-b")`},
		{"gsub loop", `local s = ("a "):rep(2e5) while true do s = string.gsub(s, "%s+", " ") end`},
		{"concat doubling", `local s = "x" for i = 1, 40 do s = s .. s end`},
		{"re loop", `local re = require("re") local s = ("a"):rep(1e6) while true do re.find(s, "b") end`},
		{"tail calls", `local function f() return f() end f()`},
		{"table churn", `while true do local t = {} for i = 1, 100 do t[i] = {} end end`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// The point is that the call is stopped: its outcome is
			// checked, and that it returned, never how fast.
			p := newTestPool(t, Options{}, "loop.lua", "hook{event='BeforeTool', timeoutMs=100, handler=function(input)\n"+c.body+"\nend}")
			_, err := callReturns(t, context.Background(), p, 0, bashInput("ls"))
			var he *HookError
			require.ErrorAs(t, err, &he)
			if he.Kind == FailTimeout {
				assert.ErrorIs(t, err, context.DeadlineExceeded, "a timeout matches DeadlineExceeded")
			}
			assert.Contains(t, []FailureKind{FailTimeout, FailError, FailMemory}, he.Kind, "%v", err)
			st := p.Stats()
			out, err := p.Call(context.Background(), 0, &events.Input{Event: events.BeforeTool})
			_ = out
			if err == nil {
				t.Errorf("the loop handler returned normally")
			}
			if he.Kind == FailTimeout && st.Discarded == 0 {
				t.Errorf("a VM that timed out was not discarded: %+v", st)
			}
		})
	}
}

func TestTimeoutIsDeadlineExceeded(t *testing.T) {
	// The hook's own timeout is MaxTimeout, twice the hang guard: the
	// call returns within the guard only because the context ended.
	p := handlerPool(t, "while true do end")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := callReturns(t, ctx, p, 0, bashInput("ls"))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	ctx, cancel = context.WithCancel(context.Background())
	go func() { time.Sleep(30 * time.Millisecond); cancel() }()
	_, err = callReturns(t, ctx, p, 0, bashInput("ls"))
	var he *HookError
	if !errors.Is(err, context.Canceled) || !errors.As(err, &he) || he.Kind != FailCanceled {
		t.Fatalf("err = %v", err)
	}
	_, err = p.Call(ctx, 0, bashInput("ls")) // already canceled
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestMemoryBudget(t *testing.T) {
	p := newTestPool(t, Options{MaxCallAlloc: 64 << 20}, "m.lua",
		"hook{event='BeforeTool', handler=function() local t = {} while true do t[#t+1] = ('x'):rep(1e6) .. #t end end}")
	_, err := p.Call(context.Background(), 0, bashInput("ls"))
	var he *HookError
	if !errors.As(err, &he) || he.Kind != FailMemory || !errors.Is(err, ErrMemory) {
		t.Fatalf("err = %v", err)
	}
}

func TestConcurrentCalls(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 3}, "c.lua", `
local re = require("re")
local json = require("json")
hook{ event = "BeforeTool", handler = function(i)
  if re.find(i.toolInput.command, "rm\\s+-rf") then return { decision = "deny", reason = i.toolInput.command } end
  local t = i.toolInput
  t.n = (t.n or 0) + 1
  return { mutatedToolInput = t, additionalContext = json.encode(t) }
end }
hook{ event = "BeforeTool", handler = function(i) if i.toolName == "fail" then error("x") end while i.toolName == "loop" do end end, timeoutMs = 20 }
`)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := 0; k < 200; k++ {
				switch k % 4 {
				case 0:
					out, err := p.Call(context.Background(), 0, bashInput("rm -rf /x"))
					if err != nil || out.Decision != events.Deny || out.Reason != "rm -rf /x" {
						t.Errorf("deny: %+v %v", out, err)
					}
				case 1:
					in := bashInput("ls")
					out, err := p.Call(context.Background(), 0, in)
					if err != nil || out.AdditionalContext != `{"command":"ls","n":1}` {
						t.Errorf("rewrite: %+v %v", out, err)
					}
					if _, ok := in.ToolInput.(map[string]any)["n"]; ok {
						t.Errorf("the input was modified")
					}
				case 2:
					if _, err := p.Call(context.Background(), 1, &events.Input{Event: events.BeforeTool, ToolName: "fail"}); err == nil {
						t.Error("fail: no error")
					}
				case 3:
					if g%4 == 0 && k%40 == 3 {
						if _, err := p.Call(context.Background(), 1, &events.Input{Event: events.BeforeTool, ToolName: "loop"}); !errors.Is(err, context.DeadlineExceeded) {
							t.Errorf("loop: %v", err)
						}
					}
				}
			}
		}(g)
	}
	wg.Wait()
	if st := p.Stats(); st.Created > 3+st.Discarded {
		t.Errorf("stats %+v: more VMs than PoolSize alive", st)
	}
}

func TestPoolWaitsForAVM(t *testing.T) {
	// Hook 1, with a timeout far above its cost, proves that the VM
	// works again: a loaded machine can take 30 ms for an empty call.
	p := newTestPool(t, Options{PoolSize: 1}, "w.lua", `
hook{ event = "BeforeTool", timeoutMs = 30, handler = function(i) end }
hook{ event = "BeforeTool", timeoutMs = 60000, handler = function(i) end }
`)
	v, _, err := p.get(context.Background(), MaxTimeout) // hold the only VM
	require.NoError(t, err)
	// The hook's 30ms timeout covers the wait for a VM.
	_, err = callReturns(t, context.Background(), p, 0, bashInput("ls"))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "waiting for a VM")
	p.put(v, true)
	_, err = p.Call(context.Background(), 1, bashInput("ls"))
	require.NoError(t, err)
}

// TestPoolHandsTheHotVMOver: a VM a call returns waits in the pool's hot
// slot for the next call, unless a call already waits for a VM: that call
// gets it at once (not at its timeout), and Close closes a VM left in the
// slot.
func TestPoolHandsTheHotVMOver(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 1}, "w.lua", `hook{ event = "BeforeTool", handler = function(i) end }`)
	_, err := p.Call(context.Background(), 0, bashInput("ls"))
	require.NoError(t, err)
	require.NotNil(t, p.hot.Load(), "the VM the call returned waits in the hot slot")
	v, _, err := p.get(context.Background(), MaxTimeout) // hold the only VM
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := p.Call(context.Background(), 0, bashInput("ls")) // waits up to MaxTimeout
		done <- err
	}()
	deadline := time.Now().Add(hangGuard)
	for p.waiting.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	require.EqualValues(t, 1, p.waiting.Load(), "the call waits for the VM")
	p.put(v, true)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(hangGuard):
		t.Fatal("the waiting call did not get the VM put back")
	}
	require.NoError(t, p.Close())
	st := p.Stats()
	require.Equal(t, st.Created, st.Discarded, "Close closes the VM in the hot slot: %+v", st)
}

func TestHotReload(t *testing.T) {
	mk := func(version string) *Pool {
		return newTestPool(t, Options{PoolSize: 2}, "r.lua", `
hook{ event = "BeforeTool", handler = function(i)
  if i.toolName == "slow" then local t = os.clock() while os.clock() - t < 0.1 do end end
  return { reason = "`+version+`", decision = "deny" }
end }`)
	}
	old := mk("v1")
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := old.Call(context.Background(), 0, &events.Input{Event: events.BeforeTool, ToolName: "slow"})
			if err != nil || out.Reason != "v1" {
				errs <- errors.New("in-flight call on the old pool: " + out.Reason + " " + errString(err))
			}
		}()
	}
	time.Sleep(20 * time.Millisecond)
	nu := mk("v2")
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil { // idempotent
		t.Fatal(err)
	}
	out, err := nu.Call(context.Background(), 0, bashInput("ls"))
	if err != nil || out.Reason != "v2" {
		t.Fatal(out, err)
	}
	// A call on the closed pool still works (with a temporary VM).
	out, err = old.Call(context.Background(), 0, bashInput("ls"))
	if err != nil || out.Reason != "v1" {
		t.Fatal(out, err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st := old.Stats()
	if st.Created != st.Discarded {
		t.Errorf("closed pool still holds VMs: %+v", st)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestGsubLarge: string.gsub on a large subject runs on package
// luapattern, whose cost is linear (proved by counting steps in its
// TestLinearWork). Stock gopher-lua's quadratic gsub needs ~48 s and 158 GB
// for this subject (gopher-lua issue #521); the timeout is far above the
// cost of a linear gsub, so only a quadratic one can miss it.
func TestGsubLarge(t *testing.T) {
	const n = 200000
	p := newTestPool(t, Options{DefaultTimeout: 30 * time.Second}, "h.lua", fmt.Sprintf(`hook{event='BeforeTool', handler=function()
  local s, n = string.gsub(("a "):rep(%d), "%%s+", "_")
  return { additionalContext = #s .. " " .. n .. " " .. s:sub(1, 6) }
end}`, n))
	out, err := p.Call(context.Background(), 0, bashInput("ls"))
	require.NoError(t, err)
	require.Equal(t, fmt.Sprintf("%d %d a_a_a_", 2*n, n), out.AdditionalContext)
}

func TestNoGoroutineAfterClose(t *testing.T) {
	before := runtime.NumGoroutine()
	p := newTestPool(t, Options{}, "g.lua", "hook{event='BeforeTool', handler=function() end}")
	for i := 0; i < 10; i++ {
		if _, err := p.Call(context.Background(), 0, bashInput("x")); err != nil {
			t.Fatal(err)
		}
	}
	p.Close()
	// The watchdog exits soon after Close; how soon is not the point
	// (hangGuard only bounds the wait).
	deadline := time.Now().Add(hangGuard)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines %v after Close, %d before", n, hangGuard, before)
	}
}
