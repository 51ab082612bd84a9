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

func TestIsDefaultClock(t *testing.T) {
	if !isDefaultClock(defaultOptions().now) {
		t.Error("the default options' clock is not recognised as time.Now: latencies would read the wall clock too (slower, still correct)")
	}
	if isDefaultClock(func() time.Time { return time.Now() }) {
		t.Error("a wrapper of time.Now is taken for time.Now itself: an injected clock would be ignored")
	}
	var fixed = func() time.Time { return time.Time{} }
	if isDefaultClock(fixed) {
		t.Error("an injected clock is taken for time.Now")
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
