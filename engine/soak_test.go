package engine_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/stdlib"
)

// TestSoak dispatches a mix of inputs through the default stdlib set and
// checks that the heap and the number of live Lua VMs stay bounded. It runs
// 20,000 dispatches by default (.ci/run runs it so, without the race
// detector); 4,000 under the race detector, which checks the concurrency,
// not the volume, and is ten times slower; MONAD_SOAK=1000000 runs the full
// soak (scripts/soak.sh).
func TestSoak(t *testing.T) {
	n := 20000
	if v := os.Getenv("MONAD_SOAK"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatalf("MONAD_SOAK=%q: %v", v, err)
		}
	} else if testing.Short() {
		n = 2000
	} else if raceEnabled {
		n = 4000
	}
	var packs []engine.Pack
	for _, name := range stdlib.Default() {
		packs = append(packs, engine.Pack{Name: name})
	}
	dir := t.TempDir()
	var timeouts, errs atomic.Int64
	var firstErr atomic.Pointer[string]
	rec := engine.RecorderFunc(func(_ context.Context, r engine.Record) {
		switch r.Outcome {
		case engine.OutcomeTimeout:
			timeouts.Add(1)
		case engine.OutcomeError:
			errs.Add(1)
			firstErr.CompareAndSwap(nil, &r.Error)
		}
	})
	eng, err := engine.New(t.Context(), testLuaPool, engine.WithRecorder(rec), engine.WithFiles(engine.Files{Stdlib: packs, Root: dir, Home: dir}))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	secret := "ghp_" + "1234567890abcdefghijABCDEFGHIJ123456"
	inputs := []events.Input{
		{Event: events.BeforeTool, SessionID: "s", Cwd: dir, ToolName: "bash", ToolInput: map[string]any{"command": "go test ./... && git status"}},
		{Event: events.BeforeTool, SessionID: "s", Cwd: dir, ToolName: "bash", ToolInput: map[string]any{"command": "sudo rm -rf --no-preserve-root /"}},
		{Event: events.BeforeTool, SessionID: "s", Cwd: dir, ToolName: "read_file", ToolInput: map[string]any{"path": "src/main.go"}},
		{Event: events.BeforeTool, SessionID: "s", Cwd: dir, ToolName: "read_file", ToolInput: map[string]any{"path": "~/.ssh/id_ed25519"}},
		{Event: events.AfterTool, SessionID: "s", Cwd: dir, ToolName: "bash", OK: new(true), ToolResult: "token: " + secret + "\nok"},
		{Event: events.AfterModel, SessionID: "s", Caller: &events.Caller{Kind: "main"}, Response: "All tests pass."},
	}
	run := func(count int) {
		var wg sync.WaitGroup
		for g := range 2 {
			wg.Go(func() {
				for i := g; i < count; i += 2 {
					if _, err := eng.Dispatch(context.Background(), inputs[i%len(inputs)]); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	run(n / 10)
	h0, s0 := heap(), eng.Stats()
	run(n)
	h1, s1 := heap(), eng.Stats()
	live0 := s0.Lua.Created - s0.Lua.Discarded
	live1 := s1.Lua.Created - s1.Lua.Discarded
	t.Logf("%d dispatches: heap %d KiB -> %d KiB; live VMs %d -> %d; VMs created %d, discarded %d, Lua calls %d, failures %d (timeouts %d, errors %d)",
		n, h0>>10, h1>>10, live0, live1, s1.Lua.Created, s1.Lua.Discarded, s1.Lua.Calls, s1.Lua.Failures, timeouts.Load(), errs.Load())
	if h1 > h0+16<<20 {
		t.Errorf("heap grew from %d KiB to %d KiB over %d dispatches", h0>>10, h1>>10, n)
	}
	if live1 > int64(max(4, 2*runtime.GOMAXPROCS(0))) {
		t.Errorf("%d live VMs, more than the pool size", live1)
	}
	// A hook that errors is a bug in the stdlib or the runtime. A timeout
	// (the packs' 1 s, wall time, for a call that takes well under a
	// millisecond) only happens when the machine starves the process: it
	// is reported, and bounded only when timing checks are asked for
	// (MONAD_TIMING=1, scripts/bench.sh), since a loaded machine can starve
	// a process for that long.
	if n := errs.Load(); n != 0 {
		t.Errorf("%d Lua hook errors in the soak, the first: %s", n, *firstErr.Load())
	}
	if n := timeouts.Load(); n*10000 > s1.Lua.Calls && os.Getenv("MONAD_TIMING") == "1" {
		t.Errorf("%d of %d Lua calls timed out", n, s1.Lua.Calls)
	}
}
