package luaapi

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// slowLoad is a script whose top level runs for a long time (far more than
// hook 0's timeout) on every VM build. Hook 1 does nothing, with a timeout
// far above its cost: the calls that must succeed use it, since a loaded
// machine can take 5 ms to run an empty handler.
const slowLoad = `
local n = 0 for i = 1, 3e6 do n = n + i end
hook{ event = "BeforeTool", timeoutMs = 5, handler = function(i) if i.toolName == "loop" then while true do end end end }
hook{ event = "BeforeTool", timeoutMs = 60000, handler = function(i) end }
`

// TestPoolIsWarmAfterLoad: NewPool builds the pool's VMs at load (the
// first one before it returns, the others in the background), so calls do
// not wait for top-level code.
func TestPoolIsWarmAfterLoad(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 3, LoadTimeout: MaxTimeout}, "slow.lua", slowLoad)
	p.waitWarm()
	require.EqualValues(t, 3, p.Stats().Created)
	// Three calls at once find three idle VMs.
	vs := make([]*vm, 3)
	for i := range vs {
		v, _, err := p.get(context.Background(), 1)
		require.NoError(t, err, "VM %d", i)
		vs[i] = v
	}
	for _, v := range vs {
		p.put(v, true)
	}
	require.EqualValues(t, 3, p.Stats().Created)
}

// TestWaitingForABuildCounts: a call that must wait for a VM being built
// (its predecessor was discarded) waits within its own timeout: it fails
// as a timeout instead of reporting ok after the build.
func TestWaitingForABuildCounts(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 1, LoadTimeout: MaxTimeout}, "slow.lua", slowLoad)
	_, err := p.Call(context.Background(), 1, bashInput("ls"))
	require.NoError(t, err)
	// A timeout discards the only VM; the next call waits for the rebuild,
	// whose top level takes far longer than the 5 ms timeout.
	_, err = p.Call(context.Background(), 0, &eventsInputLoop)
	var he *HookError
	require.ErrorAs(t, err, &he)
	require.Equal(t, FailTimeout, he.Kind, "%v", err)
	_, err = p.Call(context.Background(), 0, bashInput("ls"))
	require.ErrorAs(t, err, &he)
	require.Equal(t, FailTimeout, he.Kind, "%v", err)
	require.True(t, strings.Contains(he.Msg, "waiting for a VM"), he.Msg)
	// Once rebuilt, calls work again.
	p.waitWarm()
	_, err = p.Call(context.Background(), 1, bashInput("ls"))
	require.NoError(t, err)
}

// TestPoolOnDemand: with OnDemand the pool builds one VM at load, one more
// for a call that finds every VM busy, and none ahead of use; a discarded
// VM is replaced by the next call that needs one.
func TestPoolOnDemand(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 3, OnDemand: true, LoadTimeout: MaxTimeout}, "slow.lua", slowLoad)
	p.waitWarm()
	require.EqualValues(t, 1, p.Stats().Created)
	a, _, err := p.get(context.Background(), MaxTimeout)
	require.NoError(t, err)
	b, _, err := p.get(context.Background(), MaxTimeout) // waits for a build
	require.NoError(t, err)
	require.NotSame(t, a, b)
	p.put(a, true)
	p.put(b, false) // discarded: not replaced ahead of use
	p.waitWarm()
	require.EqualValues(t, 2, p.Stats().Created)
	c, _, err := p.get(context.Background(), MaxTimeout)
	require.NoError(t, err)
	require.Same(t, a, c)
	d, _, err := p.get(context.Background(), MaxTimeout)
	require.NoError(t, err)
	p.put(c, true)
	p.put(d, true)
	p.waitWarm()
	require.EqualValues(t, 3, p.Stats().Created)
	_, err = p.Call(context.Background(), 1, bashInput("ls"))
	require.NoError(t, err)
}

// TestLongCallNeedsTwoScans: a call counts as long (and makes its VM
// measure what it retains) when the watchdog found it running at two
// scans, a tick apart: one scan finds short calls too.
func TestLongCallNeedsTwoScans(t *testing.T) {
	w := newWatchdog(0)
	w.running.Store(true) // no watchdog goroutine: the test scans itself
	var c vmCtx
	w.add(&c)
	c.begin(w, context.Background(), time.Minute, 0)
	require.False(t, c.ranLong())
	w.scan(false)
	require.False(t, c.ranLong(), "one scan: the call may have begun just before it")
	w.scan(false)
	require.True(t, c.ranLong(), "two scans: it ran a tick or more")
	require.NoError(t, c.end())
	c.begin(w, context.Background(), time.Minute, 0)
	require.False(t, c.ranLong(), "a new call starts afresh")
	require.NoError(t, c.end())
}
