package luaapi

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/events"
)

// libs compiles name -> source pairs into Options.Libraries.
func libs(t testing.TB, pairs ...string) map[string]*Script {
	t.Helper()
	out := map[string]*Script{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[pairs[i]] = MustCompile(pairs[i], []byte(pairs[i+1]))
	}
	return out
}

// newLibPool loads scripts (name -> source pairs) with the libraries.
func newLibPool(t testing.TB, l map[string]*Script, scripts ...string) (*Pool, error) {
	t.Helper()
	return newLibPoolSize(t, 2, l, scripts...)
}

// newLibPoolSize is newLibPool with size VMs.
func newLibPoolSize(t testing.TB, size int, l map[string]*Script, scripts ...string) (*Pool, error) {
	t.Helper()
	var srcs []Source
	for i := 0; i+1 < len(scripts); i += 2 {
		srcs = append(srcs, Source{Script: MustCompile(scripts[i], []byte(scripts[i+1]))})
	}
	// Timeouts far above the cost (like newTestPool's): the default 1 s
	// is not, for a call under -race on a loaded machine.
	p, err := NewPool(context.Background(), srcs, Options{Libraries: l, PoolSize: size, DefaultTimeout: MaxTimeout, LoadTimeout: MaxTimeout})
	if err == nil {
		t.Cleanup(func() { p.Close() })
	}
	return p, err
}

// contextOf calls hook i and returns its additionalContext.
func contextOf(t testing.TB, p *Pool, i int) string {
	t.Helper()
	out, err := p.Call(context.Background(), i, bashInput("x"))
	if err != nil {
		t.Fatalf("call %d: %v", i, err)
	}
	return out.AdditionalContext
}

const counterLib = `
local shell = require("shell")
local M = { n = nextCount(), list = { "a", "b" }, nested = { deep = { x = 1 } } }
M.self = M
function M.words(s) return table.concat(shell.split(s), "|") end
return M
`

func TestLibraryOncePerVMAndShared(t *testing.T) {
	l := libs(t, "t.counter", counterLib)
	show := `hook{event='BeforeTool', handler=function() return { additionalContext = tostring(lib.n) .. " " .. lib.words("a 'b c'") } end}`
	p, err := newLibPool(t, l,
		"a.lua", `local lib = require("t.counter")`+"\n"+show,
		"b.lua", `local lib = require("t.counter")`+"\n"+show)
	if err != nil {
		t.Fatal(err)
	}
	a, b := contextOf(t, p, 0), contextOf(t, p, 1)
	if a != b || !strings.HasSuffix(a, " a|b c") {
		t.Fatalf("two scripts of one VM see %q and %q, want one instance", a, b)
	}
	// A second pool shares the compiled library but runs it in its own VM.
	q, err := newLibPool(t, l, "c.lua", `local lib = require("t.counter")`+"\n"+show)
	if err != nil {
		t.Fatal(err)
	}
	if c := contextOf(t, q, 0); c == a {
		t.Errorf("another pool's VM sees the same instance %q", c)
	}
}

func TestLibraryIsLazy(t *testing.T) {
	l := libs(t, "t.boom", `error("boom")`, "t.ok", `return { v = 1 }`)
	p, err := newLibPool(t, l, "a.lua", `hook{event='BeforeTool', handler=function() return { additionalContext = tostring(require("t.ok").v) } end}`)
	if err != nil {
		t.Fatalf("a library nobody requires ran: %v", err)
	}
	if got := contextOf(t, p, 0); got != "1" {
		t.Errorf("require in a handler: %q", got)
	}
}

func TestLibraryReadOnly(t *testing.T) {
	l := libs(t, "t.counter", counterLib)
	for _, c := range []struct{ body, want string }{
		{`lib.n = 2`, "cannot modify read-only table t.counter (key n)"},
		{`lib.extra = 2`, "cannot modify read-only table t.counter (key extra)"},
		{`lib.nested.deep.x = 2`, "cannot modify read-only table t.counter.nested.deep (key x)"},
		{`lib.self.n = 2`, "cannot modify read-only table t.counter (key n)"},
		{`table.insert(lib.list, "c")`, "table.insert: cannot modify read-only table t.counter.list"},
		{`table.remove(lib.list)`, "table.remove: cannot modify read-only table t.counter.list"},
		{`setmetatable(lib, {})`, "cannot change a protected metatable"},
		{`setmetatable(lib.nested, {})`, "cannot change a protected metatable"},
		{`getmetatable(lib).__index.n = 2`, "attempt to index a non-table object(boolean)"},
		{`rawset(lib, "n", 2)`, "attempt to call a non-function object"},
	} {
		// One VM, so that both scripts share the library's copy; n0 is
		// the copy's own n (a VM built again, after a failure, has another).
		p, err := newLibPoolSize(t, 1, l,
			"a.lua", `local lib = require("t.counter")
hook{event='BeforeTool', handler=function() `+c.body+` end}`,
			"b.lua", `local lib = require("t.counter")
local n0 = lib.n
hook{event='BeforeTool', handler=function() return { additionalContext = tostring(lib.n == n0) .. #lib.list .. lib.list[2] .. lib.nested.deep.x .. tostring(lib.extra) } end}`)
		if err != nil {
			t.Fatal(err)
		}
		before := contextOf(t, p, 1)
		_, err = p.Call(context.Background(), 0, bashInput("x"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.body, err, c.want)
		}
		if after := contextOf(t, p, 1); after != before {
			t.Errorf("%s: the other script saw %q, then %q", c.body, before, after)
		}
	}
	// Reading sees through the proxies.
	p, err := newLibPool(t, l, "a.lua", `local lib = require("t.counter")
hook{event='BeforeTool', handler=function()
  local keys = {}
  for k in pairs(lib) do keys[#keys + 1] = k end
  table.sort(keys)
  local items = {}
  for _, v in ipairs(lib.list) do items[#items + 1] = v end
  return { additionalContext = table.concat(keys, ",") .. " " .. table.concat(items, ",") .. " " .. #lib.list .. " " .. table.concat(lib.list, "+") .. " " .. tostring(lib.self == lib) }
end}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := contextOf(t, p, 0); got != "list,n,nested,self,words a,b 2 a+b true" {
		t.Errorf("reading a library: %q", got)
	}
}

func TestLibraryEnvironment(t *testing.T) {
	l := libs(t,
		"t.env", `return { params = tostring(params), g = tostring(_G), str = string.upper("x") }`,
		"t.global", `x = 1
return {}`,
		"t.num", `return 42`,
		"t.a", `return { b = require("t.b") }`,
		"t.b", `return { a = require("t.a") }`,
		"t.err", `local t = nil
return { v = t.x }`,
		"t.hook", `hook{event='BeforeTool', handler=function() end}
return {}`,
		"t.uses", `local env = require("t.env")
return { v = env.str }`)
	p, err := newLibPool(t, l, "a.lua", `local env, uses = require("t.env"), require("t.uses")
hook{event='BeforeTool', handler=function() return { additionalContext = env.params .. " " .. env.g .. " " .. uses.v } end}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := contextOf(t, p, 0); got != "nil nil X" {
		t.Errorf("library environment: %q", got)
	}
	for _, c := range []struct{ name, want string }{
		{"t.global", "cannot assign to global 'x' in a library (use a local variable)"},
		{"t.num", `library "t.num" returned number, want a table`},
		{"t.a", `library "t.a" requires itself (t.a -> t.b -> t.a)`},
		{"t.err", "t.err:2: attempt to index a non-table object(nil)"},
		{"t.hook", `hook{}: cannot be called while library "t.hook" loads`},
		{"t.none", `module "t.none" not found (available: json, log, path, re, scan, shell, t.a, t.b, t.env, t.err, t.global, t.hook, t.num, t.uses)`},
	} {
		_, err := newLibPool(t, l, "s.lua", "\n"+`local m = require("`+c.name+`")`)
		var se *ScriptError
		if !errors.As(err, &se) || se.Script != "s.lua" || !strings.Contains(se.Error(), c.want) {
			t.Errorf("%s: error %v, want a ScriptError of s.lua containing %q", c.name, err, c.want)
		}
	}
}

// TestLibraryRegistersForTheScript: a library function that calls hook{}
// registers the hook for the calling script, at the script's line.
func TestLibraryRegistersForTheScript(t *testing.T) {
	l := libs(t, "t.reg", `local log = require("log")
local M = {}
function M.register(ctx)
  hook{event='BeforeTool', handler=function() M.note(ctx) return { additionalContext = ctx } end}
end
function M.note(msg)
  log.info(msg)
end
return M`)
	p, err := newLibPool(t, l, "a.lua", `local reg = require("t.reg")

reg.register("one")
reg.register("two")
hook{event='BeforeTool', handler=function()
  reg.note("direct")
end}`)
	if err != nil {
		t.Fatal(err)
	}
	hooks := p.Hooks()
	if len(hooks) != 3 || hooks[0].Script != "a.lua" || hooks[0].Line != 3 || hooks[1].Line != 4 || hooks[2].Line != 5 {
		t.Fatalf("hooks %+v, want three of a.lua at lines 3, 4 and 5", hooks)
	}
	if got := contextOf(t, p, 1); got != "two" {
		t.Errorf("hook 1: %q", got)
	}
	// What a library function logs is reported at the script's line that
	// called into the library.
	for i, want := range map[int]int{1: 4, 2: 6} {
		_, logs, err := p.CallLogs(context.Background(), i, bashInput("x"))
		if err != nil || len(logs) != 1 || logs[0].Script != "a.lua" || logs[0].Line != want {
			t.Errorf("hook %d: logs %+v, %v; want one entry at a.lua:%d", i, logs, err, want)
		}
	}
}

func TestLibraryOptions(t *testing.T) {
	ok := MustCompile("l", []byte("return {}"))
	for _, c := range []struct {
		libs map[string]*Script
		want string
	}{
		{map[string]*Script{"re": ok}, `library "re" has the name of a host module`},
		{map[string]*Script{"a..b": ok}, `library name "a..b"`},
		{map[string]*Script{"": ok}, `library name ""`},
		{map[string]*Script{"a-b": ok}, `library name "a-b"`},
		{map[string]*Script{"a.b": nil}, `library "a.b" has no script`},
	} {
		_, err := NewPool(context.Background(), nil, Options{Libraries: c.libs})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.libs, err, c.want)
		}
	}
	// NewPool copies the map.
	m := map[string]*Script{"t.v": MustCompile("t.v", []byte("return { v = 'first' }"))}
	p, err := NewPool(context.Background(), []Source{{Script: MustCompile("a.lua", []byte(`hook{event='BeforeTool', handler=function() return { additionalContext = require("t.v").v } end}`))}}, Options{Libraries: m, DefaultTimeout: MaxTimeout})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	m["t.v"] = MustCompile("t.v", []byte("return { v = 'second' }"))
	if got := contextOf(t, p, 0); got != "first" {
		t.Errorf("the pool read the caller's map after NewPool: %q", got)
	}
}

// TestLibrarySharedAcrossPools runs one compiled library in the VMs of two
// pools at once (for -race: the proto is shared read-only).
func TestLibrarySharedAcrossPools(t *testing.T) {
	l := libs(t, "t.counter", counterLib)
	script := `local lib = require("t.counter")
hook{event='BeforeTool', handler=function(input) return { additionalContext = lib.words(input.toolInput.command) } end}`
	var pools []*Pool
	for range 2 {
		p, err := newLibPool(t, l, "a.lua", script)
		if err != nil {
			t.Fatal(err)
		}
		pools = append(pools, p)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := pools[i%2]
			for range 20 {
				out, err := p.Call(context.Background(), 0, &events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": "x 'y z'"}})
				if err != nil || out.AdditionalContext != "x|y z" {
					t.Errorf("%v %q", err, out.AdditionalContext)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestLazyLibraryLoadsOnlyWhenRequired: a LazyScript library is made the
// first time a script requires it, once for every VM and pool sharing it,
// and never when no script requires it.
func TestLazyLibraryLoadsOnlyWhenRequired(t *testing.T) {
	var mu sync.Mutex
	made := map[string]int{}
	lazy := func(name, src string) *Script {
		return LazyScript(name, func() (*Script, error) {
			mu.Lock()
			made[name]++
			mu.Unlock()
			return Compile(name, []byte(src))
		})
	}
	l := map[string]*Script{
		"t.used":   lazy("t.used", `return { x = "used" }`),
		"t.unused": lazy("t.unused", `return { x = "unused" }`),
	}
	show := `local lib = require("t.used")
hook{event='BeforeTool', handler=function() return { additionalContext = lib.x } end}`
	for range 2 {
		p, err := newLibPoolSize(t, 3, l, "a.lua", show)
		require.NoError(t, err)
		require.Equal(t, "used", contextOf(t, p, 0))
	}
	require.Equal(t, map[string]int{"t.used": 1}, made)
}

// TestLazyScriptFailureFailsTheLoad: a LazyScript whose load fails (or
// makes another script) fails the script that requires it and the pool
// whose script it is, naming it: never a pool that runs without it.
func TestLazyScriptFailureFailsTheLoad(t *testing.T) {
	broken := LazyScript("t.broken", func() (*Script, error) { return nil, errors.New("decoding failed") })
	_, err := newLibPool(t, map[string]*Script{"t.broken": broken}, "a.lua", `local lib = require("t.broken")
hook{event='BeforeTool', handler=function() return {} end}`)
	require.ErrorContains(t, err, `library "t.broken": decoding failed`)
	require.ErrorContains(t, err, "a.lua")

	other := LazyScript("t.other", func() (*Script, error) { return Compile("t.else", []byte(`return {}`)) })
	_, err = newLibPool(t, map[string]*Script{"t.other": other}, "a.lua", `local lib = require("t.other")`)
	require.ErrorContains(t, err, "its load returned script t.else")

	bad := LazyScript("b.lua", func() (*Script, error) { return Compile("b.lua", []byte(`hook{`)) })
	_, err = NewPool(context.Background(), []Source{{Script: bad}}, Options{LoadTimeout: MaxTimeout})
	var se *ScriptError
	require.ErrorAs(t, err, &se)
	require.Equal(t, "b.lua", se.Script)
	require.Equal(t, ScriptSyntax, se.Kind)

	good := LazyScript("c.lua", func() (*Script, error) {
		return Compile("c.lua", []byte(`hook{event='BeforeTool', handler=function() return { additionalContext = "c" } end}`))
	})
	p, err := NewPool(context.Background(), []Source{{Script: good}}, Options{LoadTimeout: MaxTimeout, DefaultTimeout: MaxTimeout})
	require.NoError(t, err)
	defer p.Close()
	require.Equal(t, "c", contextOf(t, p, 0))
}

// TestIsLibraryName: the hand check is the expression
// ^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$.
func TestIsLibraryName(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)
	alphabet := []string{"a", "Z", "_", "0", "9", ".", "-", "@", "[", "`", "{", "é", " "}
	var names []string
	var grow func(prefix string, n int)
	grow = func(prefix string, n int) {
		names = append(names, prefix)
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			grow(prefix+c, n-1)
		}
	}
	grow("", 4)
	names = append(names, "monad.params", "monad.rules.stdlib", "monad..x", ".x", "x.", "x.1y")
	for _, n := range names {
		if got, want := isLibraryName(n), re.MatchString(n); got != want {
			t.Fatalf("isLibraryName(%q) = %v, want %v", n, got, want)
		}
	}
}
