package promtext

import (
	"bufio"
	"io"
	"runtime"
	"runtime/metrics"
)

// runtimeMetrics are the Go runtime's metrics WriteRuntime writes, under
// the names Prometheus' Go collector gives them.
var runtimeMetrics = []struct {
	desc   Desc
	sample string // runtime/metrics name
}{
	{Desc{"go_goroutines", "Number of goroutines that currently exist.", "gauge", nil}, "/sched/goroutines:goroutines"},
	{Desc{"go_memstats_heap_alloc_bytes", "Number of heap bytes allocated and currently in use.", "gauge", nil}, "/memory/classes/heap/objects:bytes"},
	{Desc{"go_memstats_sys_bytes", "Number of bytes obtained from system.", "gauge", nil}, "/memory/classes/total:bytes"},
	{Desc{"go_gc_cycles_total", "Count of completed GC cycles.", "counter", nil}, "/gc/cycles/total:gc-cycles"},
}

// WriteRuntime writes, in the text exposition format (ContentType), metrics
// of the Go runtime of the process: goroutines, heap and memory obtained
// from the system, GC cycles, and go_info with the Go version. It reads
// the runtime only (runtime/metrics) and returns the first write error.
func WriteRuntime(w io.Writer) error {
	samples := make([]metrics.Sample, len(runtimeMetrics))
	for i, m := range runtimeMetrics {
		samples[i].Name = m.sample
	}
	metrics.Read(samples)
	bw := bufio.NewWriter(w)
	for i, m := range runtimeMetrics {
		var v float64
		switch samples[i].Value.Kind() {
		case metrics.KindUint64:
			v = float64(samples[i].Value.Uint64())
		case metrics.KindFloat64:
			v = samples[i].Value.Float64()
		default:
			continue // not in this Go version
		}
		header(bw, m.desc)
		sample(bw, m.desc.Name, nil, nil, v)
	}
	info := Desc{"go_info", "Information about the Go environment.", "gauge", []string{"version"}}
	header(bw, info)
	sample(bw, info.Name, info.Labels, []string{runtime.Version()}, 1)
	return bw.Flush()
}
