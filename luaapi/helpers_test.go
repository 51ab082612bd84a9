package luaapi

import (
	"context"
	"testing"
	"time"

	"github.com/monad-hooks/monad-hooks/events"
)

// hangGuard is how long a call whose point is a timeout or a cancellation
// may take before its test reports it hung. It is far above every timeout
// these tests set, so that it asserts that the call returned, never how
// fast (the tests run on loaded machines).
const hangGuard = 30 * time.Second

// returns runs f and returns its result, failing the test if f has not
// returned within hangGuard.
func returns[T any](t testing.TB, f func() T) T {
	t.Helper()
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	select {
	case v := <-ch:
		return v
	case <-time.After(hangGuard):
		t.Fatalf("no return after %v: hung", hangGuard)
		panic("unreachable")
	}
}

// callResult is the result of Pool.Call.
type callResult struct {
	out events.Output
	err error
}

// callReturns calls hook i of p, failing the test if the call hangs (see
// returns).
func callReturns(t testing.TB, ctx context.Context, p *Pool, i int, in *events.Input) (events.Output, error) {
	t.Helper()
	r := returns(t, func() callResult {
		out, err := p.Call(ctx, i, in)
		return callResult{out, err}
	})
	return r.out, r.err
}

// newTestPool compiles and loads scripts (name -> source pairs in order).
// Unless opts say otherwise, hooks and loads get the longest timeout
// (MaxTimeout), far above the cost of any test's handler: a test whose
// point is a timeout sets its own, and no other test may time out because
// the machine is loaded.
func newTestPool(t testing.TB, opts Options, scripts ...string) *Pool {
	t.Helper()
	if opts.DefaultTimeout == 0 {
		opts.DefaultTimeout = MaxTimeout
	}
	if opts.LoadTimeout == 0 {
		opts.LoadTimeout = MaxTimeout
	}
	var srcs []Source
	for i := 0; i+1 < len(scripts); i += 2 {
		s, err := Compile(scripts[i], []byte(scripts[i+1]))
		if err != nil {
			t.Fatalf("Compile: %v", err)
		}
		srcs = append(srcs, Source{Script: s})
	}
	p, err := NewPool(context.Background(), srcs, opts)
	if err != nil {
		t.Fatalf("NewPool: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// handlerPool loads one script registering one BeforeTool hook with body as
// its handler.
func handlerPool(t testing.TB, body string) *Pool {
	t.Helper()
	return newTestPool(t, Options{}, "h.lua", "local json = require('json')\nhook{event='BeforeTool', handler=function(input)\n"+body+"\nend}")
}

func bashInput(cmd string) *events.Input {
	return &events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": cmd}}
}
