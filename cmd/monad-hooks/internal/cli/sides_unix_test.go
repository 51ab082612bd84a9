//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/events"
)

// TestRunSideFileFIFO: a FIFO the agent put where the audit log or the
// state's lock file is expected is refused at once: run answers with its
// decision (before, it waited in open(2) for a reader for ever, ignoring
// SIGTERM, until the host killed it and proceeded).
func TestRunSideFileFIFO(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ event, input, fifo string }{
		{"BeforeTool", `{"toolName":"bash"}`, "audit.jsonl"},
		{"BeforeTurn", `{"sessionId":"s","prompt":"p"}`, "state.json.lock"},
	} {
		t.Run(tc.fifo, func(t *testing.T) {
			ev, err := events.ParseEvent(tc.event)
			require.NoError(t, err)
			env := testEnv(t, fixedHook("no", ev, "", events.Output{Decision: events.Deny, Reason: "no"}))
			p := filepath.Join(env.Dir, tc.fifo)
			require.NoError(t, syscall.Mkfifo(p, 0o600))
			done := make(chan struct{})
			var code int
			var stdout, stderr string
			go func() {
				code, stdout, stderr = runCLI(t, env, tc.input, "run", tc.event, "--stdlib", "none", "--audit", "audit.jsonl", "--state", "state.json")
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(hangGuard):
				if f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
					defer f.Close() // lets the blocked open through
				}
				t.Fatal("run blocked on the FIFO")
			}
			assert.Equal(t, ExitOK, code)
			assert.Equal(t, events.Deny, decodeResult(t, stdout).Decision)
			assert.Contains(t, stderr, tc.fifo)
		})
	}
}
