package engine_test

// The benchmarks of the published table (scripts/bench.sh writes
// BENCHMARKS.md) that bench_test.go and bench_lua_test.go do not already
// have: RunParallel variants, the floor of Dispatch's signature, the default
// stdlib set through the engine, a command hook against a bare exec of the
// same script, a Lua hook through luaapi alone, and the memory of VMs and
// engines.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/luaapi"
	"github.com/monad-hooks/monad-hooks/stdlib"
)

// BenchmarkParallelFastPath is BenchmarkDispatchFastPath from every P at
// once: with no lock on the fast path, ns/op (wall time per dispatch across
// all goroutines) is at most the serial figure.
func BenchmarkParallelFastPath(b *testing.B) {
	e := benchEngine(b, engine.WithHook(engine.GoHook{Name: "w", Event: events.BeforeTool, Matcher: "^write_file$",
		Handler: engine.HandlerFunc(passHandler)}))
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			e.Dispatch(ctx, toolInput)
		}
	})
}

// BenchmarkParallelOneGo is BenchmarkDispatchOneGo from every P at once.
func BenchmarkParallelOneGo(b *testing.B) {
	e := benchEngine(b, engine.WithHook(engine.GoHook{Name: "h", Event: events.BeforeTool, Handler: engine.HandlerFunc(passHandler)}))
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			e.Dispatch(ctx, toolInput)
		}
	})
}

// BenchmarkParallelFloorCallIndex is BenchmarkFloorCallIndex from every P
// at once, the reference of BenchmarkParallelFastPath.
func BenchmarkParallelFloorCallIndex(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		a := make([]int, events.Count)
		s := 0
		for i := 0; pb.Next(); i++ {
			s += emptyCall(a, i%events.Count)
		}
		sinkMu.Lock()
		sink += s
		sinkMu.Unlock()
	})
}

var sinkMu sync.Mutex

// floorDispatch has Dispatch's signature and does nothing: the cost of
// passing an events.Input (272 bytes) in and a Result (200 bytes) out by
// value, which every Dispatch pays whatever it does.
//
//go:noinline
func floorDispatch(ctx context.Context, in events.Input) (engine.Result, error) {
	return engine.Result{Event: in.Event}, nil
}

// BenchmarkFloorSignature calls floorDispatch: the floor of the fast path
// given Dispatch's value-typed API.
func BenchmarkFloorSignature(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		if _, err := floorDispatch(ctx, toolInput); err != nil {
			b.Fatal(err)
		}
	}
}

// defaultSetEngine is an engine with the default stdlib packs, as
// monad-hooks run builds it without --stdlib.
func defaultSetEngine(tb testing.TB, opts ...engine.Option) *engine.Engine {
	tb.Helper()
	var packs []engine.Pack
	for _, n := range stdlib.Default() {
		packs = append(packs, engine.Pack{Name: n})
	}
	opts = append([]engine.Option{testLuaPool, engine.WithFiles(engine.Files{Stdlib: packs, Root: tb.TempDir(), Home: "/home/agent"})}, opts...)
	e, err := engine.New(context.Background(), opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

// The inputs of the default-set benchmarks, those of stdlib's
// BenchmarkDefaultSetBeforeTool.
var (
	defaultAllowed = events.Input{Event: events.BeforeTool, ToolName: "bash", Cwd: "/work/proj",
		ToolInput: map[string]any{"command": "go test ./... -run TestFoo -count=1 2>&1 | tail -20"}}
	defaultDenied = events.Input{Event: events.BeforeTool, ToolName: "bash", Cwd: "/work/proj",
		ToolInput: map[string]any{"command": "sudo rm -rf --no-preserve-root /"}}
)

func TestDefaultSetDecisions(t *testing.T) {
	e := defaultSetEngine(t)
	for _, c := range []struct {
		in   events.Input
		want events.Decision
	}{{defaultAllowed, events.Proceed}, {defaultDenied, events.Deny}} {
		res, err := e.Dispatch(t.Context(), c.in)
		if err != nil || res.Decision != c.want {
			t.Errorf("Dispatch(%v) = %q, %v; want %q", c.in.ToolInput, res.Decision, err, c.want)
		}
	}
}

// BenchmarkDefaultSet is one BeforeTool dispatch of a shell command through
// the default stdlib set in the engine, allowed and denied.
func BenchmarkDefaultSet(b *testing.B) {
	e := defaultSetEngine(b)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		in   events.Input
	}{{"allowed", defaultAllowed}, {"denied", defaultDenied}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e.Dispatch(ctx, c.in)
			}
		})
	}
}

// benchHook is the command hook of BenchmarkCommandHook and
// BenchmarkBareExecHook: a script that exits 0 without reading its stdin.
var benchHookEnv = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C"}

func benchHookLine(tb testing.TB) string {
	p, err := filepath.Abs("testdata/bench-hook.sh")
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// commandHookEngine is an engine whose user configuration has one
// BeforeTool command hook, resolved per call (a stat per dispatch).
func commandHookEngine(tb testing.TB) *engine.Engine {
	return hookEngine(tb, map[string]any{"command": benchHookLine(tb)})
}

// hookEngine is an engine whose user configuration has the one BeforeTool
// hook entry for bash.
func hookEngine(tb testing.TB, entry map[string]any) *engine.Engine {
	tb.Helper()
	dir := tb.TempDir()
	cfg := filepath.Join(dir, "agents.json")
	doc, _ := json.Marshal(map[string]any{"hooks": map[string]any{"BeforeTool": []any{
		map[string]any{"matcher": "^bash$", "hooks": []any{entry}}}}})
	if err := os.WriteFile(cfg, doc, 0o644); err != nil {
		tb.Fatal(err)
	}
	e, err := engine.New(context.Background(), engine.WithFiles(engine.Files{User: []string{cfg}, Root: dir, Env: benchHookEnv}))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

func TestCommandHookBench(t *testing.T) {
	e := commandHookEngine(t)
	res, err := e.Dispatch(t.Context(), toolInput)
	if err != nil || len(res.Audit) != 1 || res.Audit[0].Outcome != engine.OutcomeOK || res.Audit[0].Kind != "command" {
		t.Fatalf("Dispatch = %+v, %v", res, err)
	}
}

// BenchmarkCommandHook is one BeforeTool dispatch to one command hook.
func BenchmarkCommandHook(b *testing.B) {
	e := commandHookEngine(b)
	ctx := context.Background()
	for b.Loop() {
		res, err := e.Dispatch(ctx, toolInput)
		if err != nil || res.Audit[0].Outcome != engine.OutcomeOK {
			b.Fatal(res, err)
		}
	}
}

// residentHookEngine is commandHookEngine with the resident hook of
// testdata/bench-resident.sh ("persistent": true).
func residentHookEngine(tb testing.TB) *engine.Engine {
	line, err := filepath.Abs("testdata/bench-resident.sh")
	if err != nil {
		tb.Fatal(err)
	}
	return hookEngine(tb, map[string]any{"command": line, "persistent": true})
}

// BenchmarkResidentHook is one BeforeTool dispatch to one resident command
// hook (a shell loop answering {} per line), against BenchmarkCommandHook.
func BenchmarkResidentHook(b *testing.B) {
	e := residentHookEngine(b)
	ctx := context.Background()
	if _, err := e.Dispatch(ctx, toolInput); err != nil { // starts the process
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := e.Dispatch(ctx, toolInput)
		if err != nil || res.Audit[0].Outcome != engine.OutcomeOK {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkBareExecHook execs the same /bin/sh -c line as
// BenchmarkCommandHook, in the same directory and environment, with the
// same stdin (the input as the engine encodes it) and its output captured:
// the floor of a command hook.
func BenchmarkBareExecHook(b *testing.B) {
	line := benchHookLine(b)
	dir := b.TempDir()
	stdin, err := json.Marshal(&toolInput)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command("/bin/sh", "-c", line)
		cmd.Dir, cmd.Env = dir, benchHookEnv
		cmd.Stdin = bytes.NewReader(stdin)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLuaPoolCall is the guard of BenchmarkLuaGuard called through
// luaapi.Pool.Call without the engine: BenchmarkLuaGuard minus this is the
// engine's share, this minus BenchmarkLuaFloor luaapi's.
func BenchmarkLuaPoolCall(b *testing.B) {
	s, err := luaapi.Compile("guard.lua", []byte(guardScript))
	if err != nil {
		b.Fatal(err)
	}
	p, err := luaapi.NewPool(context.Background(), []luaapi.Source{{Script: s}}, luaapi.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Call(ctx, 0, &allowedInput); err != nil {
			b.Fatal(err)
		}
	}
}

// memVMs is how many VMs BenchmarkMemory makes the engine's pool hold.
const memVMs = 8

// busyScript is a one-hook script.
const busyScript = `
hook{ event = "AfterCompact", timeoutMs = 10000, handler = function(input)
  for i = 1, 300000 do end
end }
`

func heapInUse() uint64 {
	var ms runtime.MemStats
	for range 2 {
		runtime.GC()
	}
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkMemory reports the live heap of an engine with the default
// stdlib set (and a one-hook script) and its one VM (B/engine, with a pool
// of one VM), and what each further pooled VM adds (B/VM: a pool of memVMs
// VMs, warmed in the background at load), measured with the heap after a
// GC. Run it with -benchtime 1x: the loop does nothing.
func BenchmarkMemory(b *testing.B) {
	dir := b.TempDir()
	busy := filepath.Join(dir, "busy.lua")
	if err := os.WriteFile(busy, []byte(busyScript), 0o644); err != nil {
		b.Fatal(err)
	}
	var packs []engine.Pack
	for _, n := range stdlib.Default() {
		packs = append(packs, engine.Pack{Name: n})
	}
	files := engine.WithFiles(engine.Files{Stdlib: packs, Lua: []string{busy}, Root: dir, Home: "/home/agent"})
	h0 := heapInUse()
	one, err := engine.New(context.Background(), engine.WithLuaPool(1, 0), files)
	if err != nil {
		b.Fatal(err)
	}
	h1 := heapInUse()
	if n := one.Stats().Lua.Created; n != 1 {
		b.Fatalf("%d VMs in a pool of 1", n)
	}
	one.Close()
	h2 := heapInUse()
	e, err := engine.New(context.Background(), engine.WithLuaPool(memVMs, 0), files)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	deadline := time.Now().Add(30 * time.Second)
	for e.Stats().Lua.Created < memVMs && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	created := e.Stats().Lua.Created
	if created < memVMs {
		b.Fatalf("only %d VMs", created)
	}
	h3 := heapInUse()
	for b.Loop() {
	}
	b.ReportMetric(float64(h1)-float64(h0), "B/engine")
	b.ReportMetric((float64(h3)-float64(h2)-(float64(h1)-float64(h0)))/float64(created-1), "B/VM")
	b.ReportMetric(float64(h3)-float64(h2), "B/engine+8VMs")
	runtime.KeepAlive(e)
}

// BenchmarkNewDefaultSet builds (and closes) an engine with the default
// stdlib set: compiling the packs and loading them into the first VM, the
// work of every `monad-hooks run` before its dispatch.
func BenchmarkNewDefaultSet(b *testing.B) {
	var packs []engine.Pack
	for _, n := range stdlib.Default() {
		packs = append(packs, engine.Pack{Name: n})
	}
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		e, err := engine.New(context.Background(), engine.WithFiles(engine.Files{Stdlib: packs, Root: dir, Home: "/home/agent"}))
		if err != nil {
			b.Fatal(err)
		}
		e.Close()
	}
}

// BenchmarkResultJSON encodes the Result of a default-set dispatch (a deny,
// with one Record per hook) as the CLI writes it: the result assembly of
// `run` and `serve` after Dispatch.
func BenchmarkResultJSON(b *testing.B) {
	e := defaultSetEngine(b)
	res, err := e.Dispatch(context.Background(), defaultDenied)
	if err != nil || len(res.Audit) == 0 {
		b.Fatal(res, err)
	}
	enc := json.NewEncoder(io.Discard)
	enc.SetEscapeHTML(false)
	b.ReportAllocs()
	for b.Loop() {
		if err := enc.Encode(res); err != nil {
			b.Fatal(err)
		}
	}
}
