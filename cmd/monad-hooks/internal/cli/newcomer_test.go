package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/events"
)

// TestRunHomeDirectory: without $HOME the CLI takes the home directory from
// the user database; when that fails too, run fails closed at the events
// that can deny, naming the problem, and never runs the default set
// without protect-paths.
func TestRunHomeDirectory(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	env.Vars = []string{"PATH=/usr/bin:/bin"} // no HOME
	in := `{"toolName":"Read","toolInput":{"file_path":"src/main.go"}}`

	env.userHome = func() (string, error) { return "/home/someone", nil }
	code, out, errs := runCLI(t, env, in, "run", "BeforeTool")
	require.Equal(t, ExitOK, code, errs)
	res := decodeResult(t, out)
	assert.Equal(t, events.Proceed, res.Decision, res.Reason)
	assert.Empty(t, res.ConfigError)
	assert.True(t, strings.Contains(out, "protect-paths"), "protect-paths ran: %s", out)
	assert.Empty(t, errs)

	env.userHome = func() (string, error) { return "", errors.New("user: unknown userid 4242") }
	code, out, errs = runCLI(t, env, in, "run", "BeforeTool")
	require.Equal(t, ExitOK, code, errs)
	res = decodeResult(t, out)
	assert.Equal(t, events.Deny, res.Decision)
	assert.Contains(t, res.Reason, "stdlib pack protect-paths failed to load, so this dispatch fails closed")
	assert.Contains(t, res.Reason, "needs the home directory")
	assert.Contains(t, errs, "the home directory is unknown: $HOME is unset and the user database failed: user: unknown userid 4242")

	// An event that cannot deny runs what loaded.
	code, out, _ = runCLI(t, env, `{"toolName":"Read","toolInput":{"file_path":"x"},"toolResult":"AKIAZ7QXK3WPLM2NHB4T"}`, "run", "AfterTool")
	require.Equal(t, ExitOK, code)
	assert.Contains(t, out, "[REDACTED:aws-access-key-id]")

	// With no pack that needs it, nothing is said.
	code, _, errs = runCLI(t, env, in, "run", "BeforeTool", "--stdlib", "deny-destructive")
	require.Equal(t, ExitOK, code)
	assert.Empty(t, errs)
}
