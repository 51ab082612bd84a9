package cli

import (
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/monad-hooks/monad-hooks/engine/promtext"
)

// userHZ is the unit of the CPU times of /proc/self/stat (USER_HZ, 100 on
// every Linux architecture Go supports).
const userHZ = 100

// writeProcessMetrics writes the process metrics of serve --metrics, under
// the names Prometheus' process collector gives them: CPU time, resident
// and virtual memory (from /proc/self/stat), open file descriptors (the
// entries of /proc/self/fd). Without /proc (not Linux) it writes nothing.
func writeProcessMetrics(w io.Writer) error {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return nil
	}
	// The fields after the command name, which is in parentheses and may
	// hold any byte: rest[0] is the state, field 3 of proc(5).
	s := string(b)
	rest := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	field := func(n int) float64 {
		if n-3 >= len(rest) {
			return 0
		}
		v, _ := strconv.ParseFloat(rest[n-3], 64)
		return v
	}
	for _, m := range []struct {
		d promtext.Desc
		v float64
	}{
		{promtext.Desc{Name: "process_cpu_seconds_total", Help: "Total user and system CPU time spent in seconds.", Type: "counter"}, (field(14) + field(15)) / userHZ},
		{promtext.Desc{Name: "process_virtual_memory_bytes", Help: "Virtual memory size in bytes.", Type: "gauge"}, field(23)},
		{promtext.Desc{Name: "process_resident_memory_bytes", Help: "Resident memory size in bytes.", Type: "gauge"}, field(24) * float64(os.Getpagesize())},
	} {
		if err := promtext.WriteMetric(w, m.d, m.v); err != nil {
			return err
		}
	}
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		return promtext.WriteMetric(w, promtext.Desc{Name: "process_open_fds", Help: "Number of open file descriptors.", Type: "gauge"}, float64(len(fds)))
	}
	return nil
}
