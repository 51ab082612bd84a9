package promtext_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/engine/promrec"
	"github.com/monad-hooks/monad-hooks/engine/promtext"
	"github.com/monad-hooks/monad-hooks/events"
)

// recorders fans the engine's records out to both packages.
type recorders []engine.Recorder

func (rs recorders) Record(ctx context.Context, r engine.Record) {
	for _, x := range rs {
		x.Record(ctx, r)
	}
}

// TestSameAsClientGolang: what WriteText writes parses as Prometheus' text
// format and holds the very series, values and help texts that
// client_golang gathers from package promrec for the same dispatches.
func TestSameAsClientGolang(t *testing.T) {
	text, prom := promtext.New(), promrec.New()
	scripts := fstest.MapFS{"g/deny.lua": {Data: []byte(`hook{ event = "BeforeTool", name = "no-rm", handler = function(i)
  if i.toolName == "rm" then return { decision = "deny", reason = "no \"quoted\"\nreason" } end
end }`)}}
	eng, err := engine.New(t.Context(), engine.WithRecorder(recorders{text, prom}), engine.WithLuaPool(1, 0),
		engine.WithFiles(engine.Files{LuaFS: []engine.ScriptFS{{FS: scripts, Dir: "g"}}}),
		engine.WithHook(engine.GoHook{Name: `broken "one"\n`, Event: events.AfterTool, Handler: engine.HandlerFunc(
			func(context.Context, *events.Input) (events.Output, error) { return events.Output{}, errors.New("x") })}))
	require.NoError(t, err)
	defer eng.Close()
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(prom))

	var before bytes.Buffer
	require.NoError(t, text.WriteText(&before))
	assert.Empty(t, before.String(), "nothing counted, no engine watched")
	text.Watch(eng)
	prom.Watch(eng)
	for _, in := range []events.Input{
		{Event: events.BeforeTool, ToolName: "rm"}, {Event: events.BeforeTool, ToolName: "ls"},
		{Event: events.BeforeTool, ToolName: "rm"}, {Event: events.AfterTool, ToolName: "ls"},
	} {
		res, err := eng.Dispatch(t.Context(), in)
		require.NoError(t, err)
		text.ObserveDispatch(res)
		prom.ObserveDispatch(res)
	}
	var out bytes.Buffer
	require.NoError(t, text.WriteText(&out))
	names := []string{promtext.Dispatches.Name, promtext.HookDuration.Name}
	for _, d := range promtext.EngineDescs {
		names = append(names, d.Name)
	}
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(out.String()), names...))
	assert.Contains(t, out.String(), `monad_hooks_dispatches_total{decision="deny",event="BeforeTool"} 2`)
	assert.Contains(t, out.String(), `monad_hooks_hook_duration_seconds_count{hook="go:broken \"one\"\\n",outcome="error"} 1`)
}

// TestWriteRuntime: the Go runtime's metrics parse as Prometheus' text
// format.
func TestWriteRuntime(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, promtext.WriteRuntime(&out))
	p := expfmt.NewTextParser(model.LegacyValidation)
	mfs, err := p.TextToMetricFamilies(strings.NewReader(out.String()))
	require.NoError(t, err)
	assert.Len(t, mfs, 5)
	assert.Positive(t, mfs["go_goroutines"].GetMetric()[0].GetGauge().GetValue())
}
