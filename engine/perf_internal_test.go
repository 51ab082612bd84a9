package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/monad-hooks/monad-hooks/events"
)

// The optimisations of the dispatch path (issue 8) keep behaviour: these
// tests pin what they rely on.

func TestClockSetOnlyByWithClock(t *testing.T) {
	if defaultOptions().clockSet {
		t.Error("the default options claim an injected clock: latencies would read the wall clock (slower, still correct)")
	}
	var o options
	WithClock(func() time.Time { return time.Time{} })(&o)
	if !o.clockSet {
		t.Error("WithClock did not mark the clock as injected: it would be ignored")
	}
}

// TestInjectedClockDrivesLatency: with WithClock, latencies come from the
// injected clock.
func TestInjectedClockDrivesLatency(t *testing.T) {
	var mu sync.Mutex
	now := time.Unix(1000, 0)
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(5 * time.Millisecond)
		return now
	}
	e, err := New(t.Context(), WithClock(clock), WithHook(GoHook{Name: "h", Event: events.BeforeTool,
		Handler: HandlerFunc(func(context.Context, *events.Input) (events.Output, error) { return events.Output{}, nil })}))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	res, err := e.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "bash"})
	if err != nil || len(res.Audit) != 1 {
		t.Fatal(res, err)
	}
	if got := res.Audit[0].LatencyMs; got != 5 {
		t.Errorf("LatencyMs = %v, want 5 (one tick of the injected clock)", got)
	}
}

// TestOneHookAllocations: a dispatch to one Go hook that returns nothing
// makes one allocation (the call and its audit record together).
func TestOneHookAllocations(t *testing.T) {
	e, err := New(t.Context(), WithHook(GoHook{Name: "h", Event: events.BeforeTool,
		Handler: HandlerFunc(func(context.Context, *events.Input) (events.Output, error) { return events.Output{}, nil })}))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	in := events.Input{Event: events.BeforeTool, ToolName: "bash"}
	ctx := context.Background()
	if n := testing.AllocsPerRun(100, func() { e.Dispatch(ctx, in) }); n > 1 {
		t.Errorf("one Go hook: %v allocs per dispatch, want 1", n)
	}
}
