package syntax

import (
	"os"
	"testing"
)

// needTiming skips a test that asserts wall-clock durations or timing
// ratios unless MONAD_TIMING=1: such checks fail on a loaded machine, so
// they run in scripts/bench.sh, not in go test ./... .
func needTiming(t *testing.T) {
	t.Helper()
	if os.Getenv("MONAD_TIMING") != "1" {
		t.Skip("a timing check: set MONAD_TIMING=1 to run it (scripts/bench.sh does)")
	}
}
