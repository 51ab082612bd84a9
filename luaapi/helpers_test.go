package luaapi

import (
	"context"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
)

// newTestPool compiles and loads scripts (name -> source pairs in order).
func newTestPool(t testing.TB, opts Options, scripts ...string) *Pool {
	t.Helper()
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
