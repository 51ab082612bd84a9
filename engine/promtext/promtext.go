// Package promtext exposes what an engine does as Prometheus metrics in the
// text exposition format (version 0.0.4), without a Prometheus client
// library: dispatches by event and decision, hook latencies by hook and
// outcome, plan reloads and their failures, the configuration error, and
// the Lua VM pool. It is the one home of these metrics' names, help texts,
// labels and buckets: monad-hooks serve --metrics serves them through it
// (so that the CLI links no Prometheus client, whose initialisation was a
// fifth of every start of monad-hooks run: BenchmarkCLIRunNoStdlib), and
// package promrec registers the same metrics with client_golang.
//
//	m := promtext.New()
//	eng, err := engine.New(ctx, engine.WithRecorder(m), ...)
//	m.Watch(eng)
//	...
//	res, err := eng.Dispatch(ctx, in)
//	m.ObserveDispatch(res)
//	...
//	m.WriteText(w) // GET /metrics
//
// A Metrics is safe for concurrent use.
package promtext

import (
	"bufio"
	"context"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/monad-hooks/monad-hooks/engine"
)

// ContentType is the media type of what WriteText writes.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// maxHookLabel bounds the hook label (a command hook's identity is its
// command line).
const maxHookLabel = 200

// LatencyBuckets are the upper bounds of the hook latency histogram's
// buckets, in seconds: from the tens of microseconds of a Lua guard to the
// minute of a command hook's default timeout.
var LatencyBuckets = []float64{
	0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
	0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
}

// A Desc describes one metric: its full name, help text, type ("counter",
// "gauge" or "histogram") and label names.
type Desc struct {
	Name, Help, Type string
	Labels           []string
}

// The metrics of dispatches and hooks, recorded by a Metrics.
var (
	Dispatches = Desc{"monad_hooks_dispatches_total",
		"Dispatches, by event and decision (\"proceed\" when no hook decided).", "counter", []string{"event", "decision"}}
	HookDuration = Desc{"monad_hooks_hook_duration_seconds",
		"How long each executed hook took, by hook identity and outcome (ok, error, timeout).", "histogram", []string{"hook", "outcome"}}
)

// EngineDescs are the metrics read from an engine's Stats at each scrape,
// in the order of EngineValues.
var EngineDescs = []Desc{
	{"monad_hooks_plan_generation", "The plan in force: 1 for the first, one more for each reload swapped in.", "gauge", nil},
	{"monad_hooks_config_error", "1 while the configuration on disk is not (all) in force: a failed reload keeps the last good plan.", "gauge", nil},
	{"monad_hooks_plan_hooks", "Hooks in the plan in force.", "gauge", nil},
	{"monad_hooks_reloads_total", "Reloads of the configuration swapped in.", "counter", nil},
	{"monad_hooks_reload_failures_total", "Reloads of the configuration that failed (the plan in force stayed).", "counter", nil},
	{"monad_hooks_lua_pool_size", "The most Lua VMs the pool of the plan in force keeps.", "gauge", nil},
	{"monad_hooks_lua_vms", "Lua VMs that exist, in every pool (built and not yet discarded).", "gauge", nil},
	{"monad_hooks_lua_vms_created_total", "Lua VMs built.", "counter", nil},
	{"monad_hooks_lua_vms_discarded_total", "Lua VMs discarded: after a failure, at their maximum number of uses, or at a reload.", "counter", nil},
	{"monad_hooks_lua_calls_total", "Calls of Lua hook handlers.", "counter", nil},
	{"monad_hooks_lua_failures_total", "Calls of Lua hook handlers that failed.", "counter", nil},
}

// EngineValues returns the value of each of EngineDescs in s.
func EngineValues(s engine.Stats) []float64 {
	bad := 0.0
	if s.ConfigError != "" {
		bad = 1
	}
	l := s.LuaTotal
	return []float64{float64(s.Generation), bad, float64(s.Hooks), float64(s.Reloads), float64(s.ReloadFailures),
		float64(l.Size), float64(l.Created - l.Discarded), float64(l.Created), float64(l.Discarded), float64(l.Calls), float64(l.Failures)}
}

// HookLabels returns the labels of HookDuration for r (hook, outcome), and
// false for the records that are no hook's: the engine's own rules and a
// policy file that could not load.
func HookLabels(r engine.Record) (hook, outcome string, ok bool) {
	if r.Tier == engine.TierEngine || r.Kind == "config" {
		return "", "", false
	}
	hook = r.Hook
	if len(hook) > maxHookLabel {
		hook = hook[:maxHookLabel]
	}
	return hook, string(r.Outcome), true
}

// Metrics is an engine.Recorder: Record observes each executed hook's
// latency, ObserveDispatch counts a dispatch, and the engine given to
// Watch supplies, at each WriteText, its plan generation, reload counts,
// configuration error and Lua pool counters.
type Metrics struct {
	mu         sync.RWMutex
	dispatches map[[2]string]*atomic.Uint64 // event, decision
	hooks      map[[2]string]*histogram     // hook, outcome
	eng        atomic.Pointer[engine.Engine]
}

// histogram is one series of HookDuration.
type histogram struct {
	buckets []atomic.Uint64 // observations at most LatencyBuckets[i] (not cumulative)
	count   atomic.Uint64
	sumBits atomic.Uint64 // float64 bits of the sum
}

// New returns the metrics, with nothing counted yet.
func New() *Metrics {
	return &Metrics{dispatches: map[[2]string]*atomic.Uint64{}, hooks: map[[2]string]*histogram{}}
}

// Watch makes eng the source of the plan, reload and Lua pool metrics.
func (m *Metrics) Watch(eng *engine.Engine) { m.eng.Store(eng) }

// ObserveDispatch counts one dispatch by its event and decision.
func (m *Metrics) ObserveDispatch(res engine.Result) {
	key := [2]string{res.Event.String(), res.Decision.String()}
	m.mu.RLock()
	c := m.dispatches[key]
	m.mu.RUnlock()
	if c == nil {
		m.mu.Lock()
		if c = m.dispatches[key]; c == nil {
			c = new(atomic.Uint64)
			m.dispatches[key] = c
		}
		m.mu.Unlock()
	}
	c.Add(1)
}

// Record observes the latency of an executed hook (an engine.Recorder);
// see HookLabels for the records left out.
func (m *Metrics) Record(_ context.Context, r engine.Record) {
	hook, outcome, ok := HookLabels(r)
	if !ok {
		return
	}
	key := [2]string{hook, outcome}
	m.mu.RLock()
	h := m.hooks[key]
	m.mu.RUnlock()
	if h == nil {
		m.mu.Lock()
		if h = m.hooks[key]; h == nil {
			h = &histogram{buckets: make([]atomic.Uint64, len(LatencyBuckets))}
			m.hooks[key] = h
		}
		m.mu.Unlock()
	}
	v := r.LatencyMs / 1000
	if i := sort.SearchFloat64s(LatencyBuckets, v); i < len(LatencyBuckets) {
		h.buckets[i].Add(1)
	}
	for {
		old := h.sumBits.Load()
		if h.sumBits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			break
		}
	}
	h.count.Add(1)
}

// WriteText writes every metric in the text exposition format
// (ContentType), series sorted by their labels; those of the engine only
// once Watch gave one. It returns the first write error.
func (m *Metrics) WriteText(w io.Writer) error {
	type dispatchSeries struct {
		key [2]string
		n   uint64
	}
	type hookSeries struct {
		key [2]string
		h   *histogram
	}
	m.mu.RLock()
	ds := make([]dispatchSeries, 0, len(m.dispatches))
	for k, c := range m.dispatches {
		ds = append(ds, dispatchSeries{k, c.Load()})
	}
	hs := make([]hookSeries, 0, len(m.hooks))
	for k, h := range m.hooks {
		hs = append(hs, hookSeries{k, h})
	}
	m.mu.RUnlock()
	bw := bufio.NewWriter(w)
	if len(ds) > 0 {
		// Labels in name order, as Prometheus clients write them.
		slices.SortFunc(ds, func(a, b dispatchSeries) int {
			return cmpPair([2]string{a.key[1], a.key[0]}, [2]string{b.key[1], b.key[0]})
		})
		header(bw, Dispatches)
		for _, s := range ds {
			sample(bw, Dispatches.Name, []string{"decision", "event"}, []string{s.key[1], s.key[0]}, float64(s.n))
		}
	}
	if len(hs) > 0 {
		slices.SortFunc(hs, func(a, b hookSeries) int { return cmpPair(a.key, b.key) })
		header(bw, HookDuration)
		for _, s := range hs {
			cum := uint64(0)
			for i, le := range LatencyBuckets {
				cum += s.h.buckets[i].Load()
				sample(bw, HookDuration.Name+"_bucket", []string{"hook", "outcome", "le"}, []string{s.key[0], s.key[1], formatFloat(le)}, float64(cum))
			}
			n := s.h.count.Load()
			sample(bw, HookDuration.Name+"_bucket", []string{"hook", "outcome", "le"}, []string{s.key[0], s.key[1], "+Inf"}, float64(max(n, cum)))
			sample(bw, HookDuration.Name+"_sum", HookDuration.Labels, s.key[:], math.Float64frombits(s.h.sumBits.Load()))
			sample(bw, HookDuration.Name+"_count", HookDuration.Labels, s.key[:], float64(max(n, cum)))
		}
	}
	if eng := m.eng.Load(); eng != nil {
		for i, v := range EngineValues(eng.Stats()) {
			header(bw, EngineDescs[i])
			sample(bw, EngineDescs[i].Name, nil, nil, v)
		}
	}
	return bw.Flush()
}

func cmpPair(a, b [2]string) int {
	if c := strings.Compare(a[0], b[0]); c != 0 {
		return c
	}
	return strings.Compare(a[1], b[1])
}

// header writes the HELP and TYPE lines of d.
func header(w *bufio.Writer, d Desc) {
	w.WriteString("# HELP " + d.Name + " ")
	for i := 0; i < len(d.Help); i++ {
		switch c := d.Help[i]; c {
		case '\\':
			w.WriteString(`\\`)
		case '\n':
			w.WriteString(`\n`)
		default:
			w.WriteByte(c)
		}
	}
	w.WriteString("\n# TYPE " + d.Name + " " + d.Type + "\n")
}

// sample writes one sample line.
func sample(w *bufio.Writer, name string, labels, values []string, v float64) {
	w.WriteString(name)
	if len(labels) > 0 {
		w.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				w.WriteByte(',')
			}
			w.WriteString(l + `="`)
			for j := 0; j < len(values[i]); j++ {
				switch c := values[i][j]; c {
				case '\\':
					w.WriteString(`\\`)
				case '"':
					w.WriteString(`\"`)
				case '\n':
					w.WriteString(`\n`)
				default:
					w.WriteByte(c)
				}
			}
			w.WriteByte('"')
		}
		w.WriteByte('}')
	}
	w.WriteByte(' ')
	w.WriteString(formatFloat(v))
	w.WriteByte('\n')
}

// formatFloat formats v as Prometheus clients do.
func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// WriteMetric writes the metric d without labels, with the value v, in
// the text exposition format (ContentType), for a caller's own metrics
// written after WriteText's. It returns the write error.
func WriteMetric(w io.Writer, d Desc, v float64) error {
	bw := bufio.NewWriter(w)
	header(bw, d)
	sample(bw, d.Name, nil, nil, v)
	return bw.Flush()
}
