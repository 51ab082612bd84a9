package engine_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

func benchEngine(b *testing.B, opts ...engine.Option) *engine.Engine {
	b.Helper()
	e, err := engine.New(context.Background(), opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}

var toolInput = events.Input{Event: events.BeforeTool, SessionID: "s1", ToolName: "bash",
	ToolInput: map[string]any{"command": "ls -la /tmp"}}

// BenchmarkDispatchFastPath: hooks exist, but none matches the tool.
func BenchmarkDispatchFastPath(b *testing.B) {
	e := benchEngine(b, engine.WithHook(engine.GoHook{Name: "w", Event: events.BeforeTool, Matcher: "^write_file$",
		Handler: engine.HandlerFunc(func(context.Context, *events.Input) (events.Output, error) { return events.Output{}, nil })}))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Dispatch(ctx, toolInput); err != nil {
			b.Fatal(err)
		}
	}
}

func TestFastPathAllocatesNothing(t *testing.T) {
	e, err := engine.New(t.Context(), engine.WithHook(engine.GoHook{Name: "w", Event: events.BeforeTool, Matcher: "^write_file$",
		Handler: engine.HandlerFunc(func(context.Context, *events.Input) (events.Output, error) { return events.Output{}, nil })}))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	for _, in := range []events.Input{toolInput, {Event: events.AfterModel}, {Event: events.BeforeCompact}} {
		if n := testing.AllocsPerRun(200, func() { e.Dispatch(ctx, in) }); n != 0 {
			t.Errorf("Dispatch(%v) with no matching hook: %v allocs/op, want 0", in.Event, n)
		}
	}
}

func passHandler(context.Context, *events.Input) (events.Output, error) { return events.Output{}, nil }

func BenchmarkDispatchOneGo(b *testing.B) {
	e := benchEngine(b, engine.WithHook(engine.GoHook{Name: "h", Event: events.BeforeTool, Handler: engine.HandlerFunc(passHandler)}))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		e.Dispatch(ctx, toolInput)
	}
}

func BenchmarkDispatchSerial5(b *testing.B) {
	var opts []engine.Option
	for range 5 {
		opts = append(opts, engine.WithHook(engine.GoHook{Name: "h", Event: events.BeforeTool, Handler: engine.HandlerFunc(passHandler)}))
	}
	e := benchEngine(b, opts...)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		e.Dispatch(ctx, toolInput)
	}
}

func BenchmarkDispatchParallel5(b *testing.B) {
	var opts []engine.Option
	for range 5 {
		opts = append(opts, engine.WithHook(engine.GoHook{Name: "h", Event: events.BeforeCompact, Handler: engine.HandlerFunc(passHandler)}))
	}
	e := benchEngine(b, opts...)
	ctx := context.Background()
	in := events.Input{Event: events.BeforeCompact}
	b.ReportAllocs()
	for b.Loop() {
		e.Dispatch(ctx, in)
	}
}

var sink int

//go:noinline
func emptyCall(a []int, i int) int { return a[i] }

// BenchmarkFloorCallIndex is the reference for the fast path: an empty
// function call plus an array index.
func BenchmarkFloorCallIndex(b *testing.B) {
	a := make([]int, events.Count)
	for i := 0; b.Loop(); i++ {
		sink += emptyCall(a, i%events.Count)
	}
}

// BenchmarkConfigResolution measures the per-dispatch cost of checking the
// configuration files when nothing changed (the hook itself matches no tool,
// so the figure is the check plus the fast path): statPerCall stats each
// file on every dispatch, interval checks at most once a second.
func BenchmarkConfigResolution(b *testing.B) {
	dir := b.TempDir()
	cfg := dir + "/agents.json"
	if err := os.WriteFile(cfg, []byte(`{"hooks":{"BeforeTool":[{"matcher":"^write_file$","hooks":[{"command":"exit 0"}]}]}}`), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name     string
		interval time.Duration
	}{{"statPerCall", 0}, {"interval", time.Second}} {
		b.Run(bc.name, func(b *testing.B) {
			e := benchEngine(b, engine.WithReloadInterval(bc.interval), engine.WithFiles(engine.Files{User: []string{cfg}, Root: dir}))
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				e.Dispatch(ctx, toolInput)
			}
		})
	}
}

// BenchmarkDispatchNoHooks: the event has no hook at all.
func BenchmarkDispatchNoHooks(b *testing.B) {
	e := benchEngine(b)
	ctx := context.Background()
	in := events.Input{Event: events.AfterModel}
	b.ReportAllocs()
	for b.Loop() {
		e.Dispatch(ctx, in)
	}
}
