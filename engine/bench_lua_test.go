package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"

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
