package spec_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/spec"
)

// testLuaTimeout is the timeout of the cases' Lua hooks and stdlib packs
// that set no timeoutMs: far above any case's cost, so that no case
// expected to answer times out on a loaded machine under -race (the
// engine's default, 1 s, did).
const testLuaTimeout = time.Minute

func newRunner(t *testing.T) *spec.Runner {
	return &spec.Runner{TempDir: func() (string, error) { return t.TempDir(), nil }, Extra: extraOptions, LuaTimeout: testLuaTimeout}
}

// TestRunnerLuaTimeout: Runner.LuaTimeout is the timeout of the Lua hooks
// that set no timeoutMs. The hook runs for 3 s (os.clock, a monotonic
// clock): past the engine's default (1 s, a timeout) by more than a
// starved watchdog is late on a loaded machine (at 1.2 s a run under -race
// beside two CPU burners finished before the watchdog stopped it), within
// the runner's minute.
func TestRunnerLuaTimeout(t *testing.T) {
	t.Parallel()
	f, err := spec.Decode("t.toml", []byte(`
[[case]]
name = "a hook past the engine's default timeout"
event = "BeforeTool"
input = { toolName = "bash" }
  [[case.hook]]
  lua = '''hook{ event = "BeforeTool", handler = function(i) local t = os.clock() while os.clock() - t < 3 do end return { additionalContext = "done" } end }'''
  [case.want]
  additionalContext = "done"
  audit = [{ outcome = "ok" }]
`))
	require.NoError(t, err)
	r := newRunner(t)
	res := r.RunCase(t.Context(), f, &f.Cases[0])
	require.NoError(t, res.Err)
	require.Empty(t, res.Mismatches)
	r.LuaTimeout = 0
	res = r.RunCase(t.Context(), f, &f.Cases[0])
	require.NoError(t, res.Err)
	require.NotEmpty(t, res.Mismatches, "with the engine's default timeout the hook times out")
	require.Contains(t, fmt.Sprint(res.Mismatches), "timeout")
}
