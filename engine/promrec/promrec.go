// Package promrec exposes what an engine does as Prometheus metrics
// (github.com/prometheus/client_golang): dispatches by event and decision,
// hook latencies by hook and outcome, plan reloads and their failures, the
// configuration error, and the Lua VM pool: the metrics of package
// promtext (their one home, which monad-hooks serve --metrics serves
// without a Prometheus client), registered with client_golang for an
// embedder that has a registry. It lives apart from package engine so that
// the core does not depend on Prometheus:
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
	"github.com/monad-hooks/monad-hooks/engine/promtext"
)

// LatencyBuckets are the buckets of the hook latency histogram, in
// seconds (promtext.LatencyBuckets).
var LatencyBuckets = promtext.LatencyBuckets

// Metrics is an engine.Recorder and a prometheus.Collector. Record observes
// each executed hook's latency; ObserveDispatch counts a dispatch; the
// engine given to Watch supplies, at each scrape, its plan generation,
// reload counts, configuration error and Lua pool counters. The metrics
// are those of package promtext (their one home), registered with
// client_golang.
type Metrics struct {
	dispatches *prometheus.CounterVec
	hooks      *prometheus.HistogramVec
	eng        atomic.Pointer[engine.Engine]
	engine     []*prometheus.Desc     // promtext.EngineDescs
	kinds      []prometheus.ValueType // of engine
}

// New returns the metrics, with nothing counted yet.
func New() *Metrics {
	m := &Metrics{
		dispatches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: promtext.Dispatches.Name, Help: promtext.Dispatches.Help,
		}, promtext.Dispatches.Labels),
		hooks: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: promtext.HookDuration.Name, Help: promtext.HookDuration.Help, Buckets: LatencyBuckets,
		}, promtext.HookDuration.Labels),
	}
	for _, d := range promtext.EngineDescs {
		m.engine = append(m.engine, prometheus.NewDesc(d.Name, d.Help, d.Labels, nil))
		kind := prometheus.GaugeValue
		if d.Type == "counter" {
			kind = prometheus.CounterValue
		}
		m.kinds = append(m.kinds, kind)
	}
	return m
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
	hook, outcome, ok := promtext.HookLabels(r)
	if !ok {
		return
	}
	m.hooks.WithLabelValues(hook, outcome).Observe(r.LatencyMs / 1000)
}

// Describe sends the descriptions of every metric (prometheus.Collector).
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	m.dispatches.Describe(ch)
	m.hooks.Describe(ch)
	for _, d := range m.engine {
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
	for i, v := range promtext.EngineValues(eng.Stats()) {
		ch <- prometheus.MustNewConstMetric(m.engine[i], m.kinds[i], v)
	}
}
