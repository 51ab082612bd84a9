package engine

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// TestLazyToolView: a Lua-only dispatch computes the tool view only when
// a hook reads it, and a hook after a rewrite of the tool input sees the
// view of the rewritten input whether or not an earlier hook read the view
// (BenchmarkLuaGuardPeers).
func TestLazyToolView(t *testing.T) {
	countViews = true
	t.Cleanup(func() { countViews = false })
	newEngine := func(src string) *Engine {
		fsys := fstest.MapFS{"hooks.lua": {Data: []byte(src)}}
		e, err := New(t.Context(), WithFiles(Files{LuaFS: []ScriptFS{{FS: fsys, Dir: "."}}}))
		require.NoError(t, err)
		t.Cleanup(func() { e.Close() })
		return e
	}
	in := events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": "ls -la"}}
	dispatch := func(e *Engine) (Result, int64) {
		before := viewsComputed.Load()
		res, err := e.Dispatch(context.Background(), in)
		require.NoError(t, err)
		return res, viewsComputed.Load() - before
	}

	e := newEngine(`hook{ event = "BeforeTool", handler = function(i)
  if i.toolInput.command == "rm -rf /" then return { decision = "deny" } end
end }`)
	for range 3 {
		res, views := dispatch(e)
		assert.Equal(t, events.Proceed, res.Decision)
		assert.Zero(t, views, "a view no hook reads was computed")
	}

	for _, first := range []string{
		`function(i) return { mutatedToolInput = { command = i.toolInput.command .. " /tmp" } } end`,
		`function(i) local _ = i.tool.command; return { mutatedToolInput = { command = i.toolInput.command .. " /tmp" } } end`,
	} {
		e := newEngine(`hook{ event = "BeforeTool", handler = ` + first + ` }
hook{ event = "BeforeTool", handler = function(i) return { decision = "deny", reason = i.tool.kind .. ": " .. i.tool.command } end }`)
		for range 3 {
			res, views := dispatch(e)
			assert.Equal(t, events.Deny, res.Decision)
			assert.Equal(t, "shell: ls -la /tmp", res.Reason, first)
			wantViews := int64(1)
			if strings.Contains(first, "i.tool.command") {
				wantViews = 2 // the first hook's, then the rewritten input's
			}
			assert.Equal(t, wantViews, views, first)
		}
	}

	// A tool the table does not know has no view, read or not.
	e = newEngine(`hook{ event = "BeforeTool", handler = function(i) return { decision = "deny", reason = tostring(i.tool) } end }`)
	in.ToolName = "no_such_tool"
	res, views := dispatch(e)
	assert.Equal(t, "nil", res.Reason)
	assert.Zero(t, views)
}
