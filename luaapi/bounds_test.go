package luaapi

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// dagBomb builds a table that JSON would expand to 2^60 values: every
// level holds the previous one twice.
const dagBomb = `local t = {"x"} for i = 1, 60 do t = {t, t} end`

// TestErrorValueBounded: error() with a table converts under the same
// budget as an output, in a handler and at load.
func TestErrorValueBounded(t *testing.T) {
	// The point is the error: a timeout (and, below, a load timeout) far
	// above its cost, so that a loaded machine cannot turn it into a
	// timeout.
	p := newTestPool(t, Options{}, "h.lua", "hook{event='BeforeTool', timeoutMs=60000, handler=function() "+dagBomb+" error(t) end}")
	_, err := p.Call(context.Background(), 0, bashInput("ls"))
	var he *HookError
	require.ErrorAs(t, err, &he)
	require.Equal(t, FailError, he.Kind, "%v", err)
	require.Contains(t, he.Msg, "error called with a table (more than")
	require.Nil(t, he.Value)

	s, err := Compile("load.lua", []byte(dagBomb+" error(t)"))
	require.NoError(t, err)
	_, err = NewPool(context.Background(), []Source{{Script: s}}, Options{LoadTimeout: MaxTimeout})
	var se *ScriptError
	require.ErrorAs(t, err, &se)
	require.Contains(t, se.Msg, "error called with a table (more than")

	// A long error string is cut.
	p = handlerPool(t, `error(string.rep("x", 1e6))`)
	_, err = p.Call(context.Background(), 0, bashInput("ls"))
	require.ErrorAs(t, err, &he)
	require.LessOrEqual(t, len(he.Msg), maxErrorMessage+16)
}

// TestConversionStops: a Lua -> Go conversion polls the watchdog's stop
// flag and stops early once the call must stop.
func TestConversionStops(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 1}, "h.lua", "hook{event='BeforeTool', handler=function() end}")
	v, _, err := p.get(context.Background(), p.plan.opts.DefaultTimeout)
	require.NoError(t, err)
	defer p.put(v, false)
	big := v.L.CreateTable(0, 0)
	for i := 1; i <= 100000; i++ {
		big.RawSetInt(i, lua.LString("x"))
	}
	b := v.newBudget()
	v.ctx.reason.Store(reasonDeadline)
	_, err = v.fromLua(big, 0, b)
	v.ctx.reason.Store(reasonNone)
	require.True(t, errors.Is(err, errStopped), "%v", err)
	require.Less(t, b.nodes, 2*stopCheckEvery, "the conversion went on after the stop")
	require.True(t, strings.Contains(err.Error(), "stopped"))
}
