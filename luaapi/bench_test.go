package luaapi

import (
	"context"
	"regexp"
	"sort"
	"testing"
	"time"

	"github.com/monad-hooks/monad-hooks/events"
	lua "github.com/yuin/gopher-lua"
)

// The guard of the benchmarks: deny a destructive shell command.
const guardScript = `
local re = require("re")
hook{ event = "BeforeTool", handler = function(input)
  if re.match(input.toolName, "^(shell_exec|bash)$") then
    local cmd = input.toolInput.command
    if cmd and re.find(cmd, "rm\\s+-[a-z]*r[a-z]*f[a-z]*\\s+/(\\s|$)|mkfs|dd\\s+if=") then
      return { decision = "deny", reason = "destructive command" }
    end
  end
end }
`

func guardInput() *events.Input {
	return &events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": "ls -la /tmp"}}
}

// BenchmarkPoolCall is the full path: Pool.Call on a pooled VM.
func BenchmarkPoolCall(b *testing.B) {
	p := newTestPool(b, Options{}, "guard.lua", guardScript)
	in := guardInput()
	ctx := context.Background()
	if out, err := p.Call(ctx, 0, in); err != nil || out.Decision != "" {
		b.Fatal(out, err)
	}
	if out, err := p.Call(ctx, 0, bashInput("rm -rf /")); err != nil || out.Decision != events.Deny {
		b.Fatal(out, err)
	}
	b.Run("serial", func(b *testing.B) {
		created := p.Stats().Created
		b.ReportAllocs()
		for b.Loop() {
			out, err := p.Call(ctx, 0, in)
			if err != nil || out.Decision != "" {
				b.Fatal(out, err)
			}
		}
		b.ReportMetric(float64(p.Stats().Created-created)/float64(b.N), "vms/op")
	})
	b.Run("parallel", func(b *testing.B) {
		// The pool warms in the background after NewPool.
		p.waitWarm()
		created := p.Stats().Created
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				out, err := p.Call(ctx, 0, in)
				if err != nil || out.Decision != "" {
					b.Error(out, err)
					return
				}
			}
		})
		b.ReportMetric(float64(p.Stats().Created-created)/float64(b.N), "vms/op")
	})
}

// floorCall returns the guard as a bare gopher-lua call on a VM borrowed
// from p (see BenchmarkFloor) and a function that returns the VM.
func floorCall(b *testing.B, p *Pool) (call func(cmd string) lua.LValue, done func()) {
	v, _, err := p.get(context.Background(), DefaultTimeout)
	if err != nil {
		b.Fatal(err)
	}
	L := v.L
	fn := v.handlers[0]
	call = func(cmd string) lua.LValue {
		ti := L.CreateTable(0, 1)
		ti.RawSetString("command", lua.LString(cmd))
		in := L.CreateTable(0, 2)
		in.RawSetString("toolName", lua.LString("bash"))
		in.RawSetString("toolInput", ti)
		L.Push(fn)
		L.Push(in)
		if err := L.PCall(1, 1, nil); err != nil {
			b.Fatal(err)
		}
		ret := L.Get(-1)
		L.Pop(1)
		if t, ok := ret.(*lua.LTable); ok {
			return t.RawGetString("decision")
		}
		return lua.LNil
	}
	return call, func() { p.put(v, true) }
}

// BenchmarkFloor is the same guard as a bare pooled gopher-lua call: a VM
// with the same sandbox and re module, a minimal hand-built input table
// ({toolName, toolInput = {command}}) per call, PCall, the decision read
// with RawGetString. No timeout, no validation, no conversion.
func BenchmarkFloor(b *testing.B) {
	p := newTestPool(b, Options{}, "guard.lua", guardScript)
	call, done := floorCall(b, p)
	defer done()
	if d := call("rm -rf /"); d.String() != "deny" {
		b.Fatal(d)
	}
	b.ReportAllocs()
	for b.Loop() {
		if d := call("ls -la /tmp"); d != lua.LNil {
			b.Fatal(d)
		}
	}
}

// BenchmarkNativeGo is the same guard as a Go closure.
func BenchmarkNativeGo(b *testing.B) {
	tool := regexp.MustCompile(`^(shell_exec|bash)$`)
	danger := regexp.MustCompile(`rm\s+-[a-z]*r[a-z]*f[a-z]*\s+/(\s|$)|mkfs|dd\s+if=`)
	guard := func(in *events.Input) events.Output {
		if tool.MatchString(in.ToolName) {
			if m, ok := in.ToolInput.(map[string]any); ok {
				if cmd, ok := m["command"].(string); ok && danger.MatchString(cmd) {
					return events.Output{Decision: events.Deny, Reason: "destructive command"}
				}
			}
		}
		return events.Output{}
	}
	in := guardInput()
	b.ReportAllocs()
	for b.Loop() {
		if out := guard(in); out.Decision != "" {
			b.Fatal(out)
		}
	}
}

// BenchmarkPoolCallVsFloor measures Pool.Call and the floor interleaved, in
// alternating small batches, so that both see the same machine load, and
// reports the median of the per-batch ratios (the target is at most 1.25)
// and the median per-call times.
func BenchmarkPoolCallVsFloor(b *testing.B) {
	p := newTestPool(b, Options{PoolSize: 2}, "guard.lua", guardScript)
	call, done := floorCall(b, p)
	defer done()
	ctx := context.Background()
	in := guardInput()
	const batch = 20
	var ratios, pools, floors []float64
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		for range batch {
			if d := call("ls -la /tmp"); d != lua.LNil {
				b.Fatal(d)
			}
		}
		mid := time.Now()
		for range batch {
			if out, err := p.Call(ctx, 0, in); err != nil || out.Decision != "" {
				b.Fatal(out, err)
			}
		}
		tFloor, tPool := mid.Sub(start), time.Since(mid)
		ratios = append(ratios, float64(tPool)/float64(tFloor))
		pools = append(pools, float64(tPool.Nanoseconds())/batch)
		floors = append(floors, float64(tFloor.Nanoseconds())/batch)
	}
	b.ReportMetric(median(ratios), "pool/floor")
	b.ReportMetric(median(pools), "pool-ns/call")
	b.ReportMetric(median(floors), "floor-ns/call")
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}
