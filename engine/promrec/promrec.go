// Package promrec exposes what an engine does as Prometheus metrics
// (github.com/prometheus/client_golang): dispatches by event and decision,
// hook latencies by hook and outcome, plan reloads and their failures, the
// configuration error, and the Lua VM pool. It lives apart from package
// engine so that the core does not depend on Prometheus; monad-hooks serve
// --metrics uses it, and an embedder can too:
//
//	m := promrec.New()
//	eng, err := engine.New(ctx, engine.WithRecorder(m), ...)
//	m.Watch(eng)
//	reg.MustRegister(m)
//	...
//	res, err := eng.Dispatch(ctx, in)
//	m.ObserveDispatch(res)
//
// A Metrics is safe for concurrent use.
package promrec

import (
	"context"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/monad-hooks/monad-hooks/engine"
)

// maxHookLabel bounds the hook label (a command hook's identity is its
// command line).
const maxHookLabel = 200

// LatencyBuckets are the buckets of the hook latency histogram, in
// seconds: from the tens of microseconds of a Lua guard to the minute of a
// command hook's default timeout.
var LatencyBuckets = []float64{
	0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
	0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
}

// Metrics is an engine.Recorder and a prometheus.Collector. Record observes
// each executed hook's latency; ObserveDispatch counts a dispatch; the
// engine given to Watch supplies, at each scrape, its plan generation,
// reload counts, configuration error and Lua pool counters.
type Metrics struct {
	dispatches *prometheus.CounterVec
	hooks      *prometheus.HistogramVec
	eng        atomic.Pointer[engine.Engine]

	generation, configError, planHooks, luaSize, luaLive *prometheus.Desc
	reloads, reloadFailures, luaCreated, luaDiscarded    *prometheus.Desc
	luaCalls, luaFailures                                *prometheus.Desc
}

// New returns the metrics, with nothing counted yet.
func New() *Metrics {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("monad_hooks_"+name, help, labels, nil)
	}
	return &Metrics{
		dispatches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "monad_hooks_dispatches_total",
			Help: "Dispatches, by event and decision (\"proceed\" when no hook decided).",
		}, []string{"event", "decision"}),
		hooks: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "monad_hooks_hook_duration_seconds",
			Help:    "How long each executed hook took, by hook identity and outcome (ok, error, timeout).",
			Buckets: LatencyBuckets,
		}, []string{"hook", "outcome"}),
		generation:     d("plan_generation", "The plan in force: 1 for the first, one more for each reload swapped in."),
		configError:    d("config_error", "1 while the configuration on disk is not (all) in force: a failed reload keeps the last good plan."),
		planHooks:      d("plan_hooks", "Hooks in the plan in force."),
		reloads:        d("reloads_total", "Reloads of the configuration swapped in."),
		reloadFailures: d("reload_failures_total", "Reloads of the configuration that failed (the plan in force stayed)."),
		luaSize:        d("lua_pool_size", "The most Lua VMs the pool of the plan in force keeps."),
		luaLive:        d("lua_vms", "Lua VMs that exist, in every pool (built and not yet discarded)."),
		luaCreated:     d("lua_vms_created_total", "Lua VMs built."),
		luaDiscarded:   d("lua_vms_discarded_total", "Lua VMs discarded: after a failure, at their maximum number of uses, or at a reload."),
		luaCalls:       d("lua_calls_total", "Calls of Lua hook handlers."),
		luaFailures:    d("lua_failures_total", "Calls of Lua hook handlers that failed."),
	}
}

// Watch makes eng the source of the plan, reload and Lua pool metrics.
func (m *Metrics) Watch(eng *engine.Engine) { m.eng.Store(eng) }

// ObserveDispatch counts one dispatch by its event and decision.
func (m *Metrics) ObserveDispatch(res engine.Result) {
	m.dispatches.WithLabelValues(res.Event.String(), res.Decision.String()).Inc()
}

// Record observes the latency of an executed hook (an engine.Recorder).
// The records of the engine's own rules and of a policy file that could
// not load are no hooks and are left out.
func (m *Metrics) Record(_ context.Context, r engine.Record) {
	if r.Tier == engine.TierEngine || r.Kind == "config" {
		return
	}
	hook := r.Hook
	if len(hook) > maxHookLabel {
		hook = hook[:maxHookLabel]
	}
	m.hooks.WithLabelValues(hook, string(r.Outcome)).Observe(r.LatencyMs / 1000)
}

// Describe sends the descriptions of every metric (prometheus.Collector).
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	m.dispatches.Describe(ch)
	m.hooks.Describe(ch)
	for _, d := range []*prometheus.Desc{m.generation, m.configError, m.planHooks, m.reloads, m.reloadFailures,
		m.luaSize, m.luaLive, m.luaCreated, m.luaDiscarded, m.luaCalls, m.luaFailures} {
		ch <- d
	}
}

// Collect sends the current value of every metric (prometheus.Collector);
// those of the engine only once Watch gave one.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.dispatches.Collect(ch)
	m.hooks.Collect(ch)
	eng := m.eng.Load()
	if eng == nil {
		return
	}
	s := eng.Stats()
	bad := 0.0
	if s.ConfigError != "" {
		bad = 1
	}
	gauge := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	counter := func(d *prometheus.Desc, v int64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v))
	}
	gauge(m.generation, float64(s.Generation))
	gauge(m.configError, bad)
	gauge(m.planHooks, float64(s.Hooks))
	counter(m.reloads, s.Reloads)
	counter(m.reloadFailures, s.ReloadFailures)
	gauge(m.luaSize, float64(s.LuaTotal.Size))
	gauge(m.luaLive, float64(s.LuaTotal.Created-s.LuaTotal.Discarded))
	counter(m.luaCreated, s.LuaTotal.Created)
	counter(m.luaDiscarded, s.LuaTotal.Discarded)
	counter(m.luaCalls, s.LuaTotal.Calls)
	counter(m.luaFailures, s.LuaTotal.Failures)
}
