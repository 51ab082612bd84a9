package events_test

import (
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
)

// BenchmarkDecodeInput decodes the HookInput of the CLI benchmarks (a
// BeforeTool shell command), as `serve` does for every line or request.
func BenchmarkDecodeInput(b *testing.B) {
	line := []byte(`{"event":"BeforeTool","sessionId":"s1","cwd":"/work/proj","toolName":"bash","toolInput":{"command":"go test ./... -run TestFoo -count=1 2>&1 | tail -20"}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := events.DecodeInput(line); err != nil {
			b.Fatal(err)
		}
	}
}
