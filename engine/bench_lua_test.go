package engine_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sync"
	"testing"
	"testing/fstest"

	lua "github.com/yuin/gopher-lua"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// The guard of the Lua benchmarks (issue 4): deny when the tool is a shell and
// the command deletes / recursively, makes a file system or copies a device.
const guardPattern = `rm\s+-[a-z]*r[a-z]*f[a-z]*\s+/(\s|$)|mkfs|dd\s+if=`

const guardScript = `
local re = require("re")
hook{ event = "BeforeTool", matcher = "^(shell_exec|bash)$", handler = function(input)
  local cmd = input.toolInput and input.toolInput.command
  if type(cmd) == "string" and re.find(cmd, [[` + guardPattern + `]]) then
    return { decision = "deny", reason = "destructive command" }
  end
end }
`

var (
	allowedInput = events.Input{Event: events.BeforeTool, SessionID: "s1", ToolName: "bash", ToolInput: map[string]any{"command": "ls -la /tmp"}}
	deniedInput  = events.Input{Event: events.BeforeTool, SessionID: "s1", ToolName: "bash", ToolInput: map[string]any{"command": "sudo rm -rf / --no-preserve-root"}}
)

func luaGuardEngine(tb testing.TB) *engine.Engine {
	tb.Helper()
	dir := tb.TempDir()
	p := filepath.Join(dir, "guard.lua")
	if err := os.WriteFile(p, []byte(guardScript), 0o644); err != nil {
		tb.Fatal(err)
	}
	e, err := engine.New(context.Background(), testLuaPool, engine.WithReloadInterval(1e9), engine.WithFiles(engine.Files{Lua: []string{p}, Root: dir}))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

func TestLuaGuard(t *testing.T) {
	e := luaGuardEngine(t)
	for in, want := range map[*events.Input]events.Decision{&allowedInput: events.Proceed, &deniedInput: events.Deny} {
		res, err := e.Dispatch(t.Context(), *in)
		if err != nil || res.Decision != want {
			t.Errorf("Dispatch(%v) = %q, %v; want %q", in.ToolInput, res.Decision, err, want)
		}
	}
}

// BenchmarkLuaGuard is one BeforeTool dispatch through the engine to one Lua
// guard that uses re.
func BenchmarkLuaGuard(b *testing.B) {
	e := luaGuardEngine(b)
	ctx := context.Background()
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			e.Dispatch(ctx, allowedInput)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				e.Dispatch(ctx, allowedInput)
			}
		})
	})
}

// floorVM is the floor of BenchmarkLuaGuard: the same guard as a bare,
// pooled gopher-lua call with a hand-built input table and Go's regexp as
// re.find, without sandbox, validation, audit or engine.
type floorVM struct {
	L       *lua.LState
	handler *lua.LFunction
}

func newFloorVM(tb testing.TB) *floorVM {
	L := lua.NewState()
	re := regexp.MustCompile(guardPattern)
	mod := L.NewTable()
	L.SetField(mod, "find", L.NewFunction(func(L *lua.LState) int {
		loc := re.FindStringIndex(L.CheckString(1))
		if loc == nil {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(lua.LNumber(loc[0] + 1))
		L.Push(lua.LNumber(loc[1]))
		return 2
	}))
	L.SetGlobal("re", mod)
	if err := L.DoString(`handler = function(input)
  local cmd = input.toolInput and input.toolInput.command
  if type(cmd) == "string" and re.find(cmd) then
    return { decision = "deny", reason = "destructive command" }
  end
end`); err != nil {
		tb.Fatal(err)
	}
	return &floorVM{L: L, handler: L.GetGlobal("handler").(*lua.LFunction)}
}

func (v *floorVM) call(in *events.Input) string {
	L := v.L
	t := L.CreateTable(0, 4)
	t.RawSetString("event", lua.LString("BeforeTool"))
	t.RawSetString("toolName", lua.LString(in.ToolName))
	ti := L.CreateTable(0, 1)
	ti.RawSetString("command", lua.LString(in.ToolInput.(map[string]any)["command"].(string)))
	t.RawSetString("toolInput", ti)
	L.Push(v.handler)
	L.Push(t)
	if err := L.PCall(1, 1, nil); err != nil {
		panic(err)
	}
	ret := L.Get(-1)
	L.Pop(1)
	if rt, ok := ret.(*lua.LTable); ok {
		return rt.RawGetString("decision").String()
	}
	return ""
}

// BenchmarkLuaFloor is the floor BenchmarkLuaGuard is measured against.
func BenchmarkLuaFloor(b *testing.B) {
	b.Run("serial", func(b *testing.B) {
		v := newFloorVM(b)
		b.ReportAllocs()
		for b.Loop() {
			v.call(&allowedInput)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		pool := sync.Pool{New: func() any { return newFloorVM(b) }}
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			v := pool.Get().(*floorVM)
			defer pool.Put(v)
			for pb.Next() {
				v.call(&allowedInput)
			}
		})
	})
}

// BenchmarkNativeGoGuard is the same guard as a native Go handler.
func BenchmarkNativeGoGuard(b *testing.B) {
	re := regexp.MustCompile(guardPattern)
	e := benchEngine(b, engine.WithHook(engine.GoHook{Name: "guard", Event: events.BeforeTool, Matcher: "^(shell_exec|bash)$",
		Handler: engine.HandlerFunc(func(ctx context.Context, in *events.Input) (events.Output, error) {
			ti, _ := in.ToolInput.(map[string]any)
			if cmd, _ := ti["command"].(string); re.MatchString(cmd) {
				return events.Output{Decision: events.Deny, Reason: "destructive command"}, nil
			}
			return events.Output{}, nil
		})}))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		e.Dispatch(ctx, allowedInput)
	}
}

// peerGuardScript is the guard of the peer harness (../shared/bench-peers,
// scripts/guard_hook.lua): the pattern is passed to re.find on every call.
const peerGuardScript = `
local re = require("re")
local DESTRUCTIVE = [[` + guardPattern + `]]
hook{
  event = "BeforeTool",
  matcher = "^(shell_exec|bash)$",
  handler = function(input)
    local cmd = input.toolInput.command
    if type(cmd) == "string" and re.find(cmd, DESTRUCTIVE) then
      return { decision = "deny", reason = "destructive command" }
    end
  end,
}
`

// peerCases are the 8 inputs of the peer harness (workload.go), 4 allowed
// and 4 denied, in its order.
var peerCases = func() (cs [8]struct {
	in   events.Input
	deny bool
}) {
	for i, c := range []struct {
		tool, cmd string
		deny      bool
	}{
		{"shell_exec", "ls -la", false},
		{"shell_exec", "rm -rf /", true},
		{"bash", "go test ./...", false},
		{"bash", "sudo mkfs.ext4 /dev/sda1", true},
		{"shell_exec", "rm -rf /tmp/build", false},
		{"shell_exec", "sudo rm -rf / --no-preserve-root", true},
		{"read_file", "rm -rf /", false},
		{"shell_exec", "dd if=/dev/zero of=/dev/sda bs=1M", true},
	} {
		cs[i].in = events.Input{Event: events.BeforeTool, SessionID: "s1", Cwd: "/repo", ToolName: c.tool,
			ToolInput: map[string]any{"command": c.cmd, "timeout": 30}}
		cs[i].deny = c.deny
	}
	return cs
}()

// BenchmarkLuaGuardPeers is the hookengine-lua column of the peer harness
// (../shared/bench-peers): the same guard, loaded the same way (an fs.FS of
// Files.LuaFS), and the same 8 inputs in turn, each decision checked.
func BenchmarkLuaGuardPeers(b *testing.B) {
	fsys := fstest.MapFS{"guard_hook.lua": {Data: []byte(peerGuardScript)}}
	e, err := engine.New(context.Background(), engine.WithFiles(engine.Files{LuaFS: []engine.ScriptFS{{FS: fsys, Dir: "."}}}))
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c := &peerCases[i%len(peerCases)]
		i++
		res, err := e.Dispatch(ctx, c.in)
		if err != nil || (res.Decision == events.Deny) != c.deny {
			b.Fatalf("case %d: %v, %v", i, res.Decision, err)
		}
	}
}

// TestOneLuaHookBytes: a dispatch to one Lua guard that reads its input's
// command and allows takes its call from a pool: it allocates its audit
// record (288 bytes) and a few boxed values, not the 456 bytes of a call
// besides (BenchmarkLuaGuardPeers).
func TestOneLuaHookBytes(t *testing.T) {
	src := `hook{ event = "BeforeTool", handler = function(input)
  if input.toolInput.command == "rm -rf /" then return { decision = "deny" } end
end }`
	fsys := fstest.MapFS{"guard.lua": {Data: []byte(src)}}
	e, err := engine.New(t.Context(), engine.WithLuaPool(1, 0), engine.WithFiles(engine.Files{LuaFS: []engine.ScriptFS{{FS: fsys, Dir: "."}}}))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	in := events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": "ls -la", "timeout": 30}}
	ctx := context.Background()
	dispatch := func() {
		if res, err := e.Dispatch(ctx, in); err != nil || res.Decision != events.Proceed || len(res.Audit) != 1 {
			t.Fatalf("Dispatch = %+v, %v", res, err)
		}
	}
	dispatch()
	if raceEnabled {
		t.Skip("the race detector changes what allocates (sync.Pool drops items at random)")
	}
	// TotalAlloc is process-wide: a goroutine of an earlier test may
	// allocate during a window, so the least of five windows is the
	// dispatch's own figure.
	const n = 200
	per := uint64(math.MaxUint64)
	for range 5 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range n {
			dispatch()
		}
		runtime.ReadMemStats(&after)
		per = min(per, (after.TotalAlloc-before.TotalAlloc)/n)
	}
	if per > 512 {
		t.Errorf("%d bytes allocated per dispatch, want at most 512 (the call is pooled)", per)
	}
}
