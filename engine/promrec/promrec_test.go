package promrec_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/engine/promrec"
	"github.com/monad-hooks/monad-hooks/events"
)

// TestMetrics: dispatches by event and decision, hook latencies by hook and
// outcome, and the engine's plan and Lua pool, through a registry.
func TestMetrics(t *testing.T) {
	m := promrec.New()
	scripts := fstest.MapFS{"g/deny.lua": {Data: []byte(`hook{ event = "BeforeTool", name = "no-rm", handler = function(i)
  if i.toolName == "rm" then return { decision = "deny", reason = "no" } end
end }`)}}
	eng, err := engine.New(t.Context(), engine.WithRecorder(m), engine.WithLuaPool(2, 0),
		engine.WithFiles(engine.Files{LuaFS: []engine.ScriptFS{{FS: scripts, Dir: "g"}}}),
		engine.WithHook(engine.GoHook{Name: "broken", Event: events.AfterTool, Handler: engine.HandlerFunc(
			func(context.Context, *events.Input) (events.Output, error) { return events.Output{}, errors.New("x") })}))
	require.NoError(t, err)
	defer eng.Close()
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(m))

	// Before Watch: the dispatch and hook metrics only.
	n, err := testutil.GatherAndCount(reg, "monad_hooks_plan_generation")
	require.NoError(t, err)
	assert.Zero(t, n)
	m.Watch(eng)

	for _, in := range []events.Input{
		{Event: events.BeforeTool, ToolName: "rm"}, {Event: events.BeforeTool, ToolName: "ls"},
		{Event: events.BeforeTool, ToolName: "rm"}, {Event: events.AfterTool, ToolName: "ls"},
	} {
		res, err := eng.Dispatch(t.Context(), in)
		require.NoError(t, err)
		m.ObserveDispatch(res)
	}
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP monad_hooks_dispatches_total Dispatches, by event and decision ("proceed" when no hook decided).
# TYPE monad_hooks_dispatches_total counter
monad_hooks_dispatches_total{decision="deny",event="BeforeTool"} 2
monad_hooks_dispatches_total{decision="proceed",event="AfterTool"} 1
monad_hooks_dispatches_total{decision="proceed",event="BeforeTool"} 1
# HELP monad_hooks_plan_generation The plan in force: 1 for the first, one more for each reload swapped in.
# TYPE monad_hooks_plan_generation gauge
monad_hooks_plan_generation 1
# HELP monad_hooks_config_error 1 while the configuration on disk is not (all) in force: a failed reload keeps the last good plan.
# TYPE monad_hooks_config_error gauge
monad_hooks_config_error 0
# HELP monad_hooks_lua_pool_size The most Lua VMs the pool of the plan in force keeps.
# TYPE monad_hooks_lua_pool_size gauge
monad_hooks_lua_pool_size 2
# HELP monad_hooks_lua_calls_total Calls of Lua hook handlers.
# TYPE monad_hooks_lua_calls_total counter
monad_hooks_lua_calls_total 3
`), "monad_hooks_dispatches_total", "monad_hooks_plan_generation", "monad_hooks_config_error", "monad_hooks_lua_pool_size", "monad_hooks_lua_calls_total"))

	count := func(hook, outcome string) uint64 {
		mfs, err := reg.Gather()
		require.NoError(t, err)
		for _, mf := range mfs {
			if mf.GetName() != "monad_hooks_hook_duration_seconds" {
				continue
			}
			for _, mt := range mf.GetMetric() {
				labels := map[string]string{}
				for _, l := range mt.GetLabel() {
					labels[l.GetName()] = l.GetValue()
				}
				if labels["hook"] == hook && labels["outcome"] == outcome {
					return mt.GetHistogram().GetSampleCount()
				}
			}
		}
		return 0
	}
	assert.Equal(t, uint64(3), count("lua:fs:g/deny.lua#no-rm", "ok"))
	assert.Equal(t, uint64(1), count("go:broken", "error"))
	live, err := testutil.GatherAndCount(reg, "monad_hooks_lua_vms", "monad_hooks_lua_vms_created_total", "monad_hooks_lua_vms_discarded_total", "monad_hooks_reloads_total", "monad_hooks_reload_failures_total", "monad_hooks_plan_hooks", "monad_hooks_lua_failures_total")
	require.NoError(t, err)
	assert.Equal(t, 7, live, "one series each")
}
